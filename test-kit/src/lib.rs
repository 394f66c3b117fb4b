//! The shared setup of the workspace's GPU tests (tier 3 in CONTRIBUTING.md):
//! every `gpu_*.rs` test file gets its device, random data, tolerances and
//! CPU references from here instead of keeping its own copy.
//!
//! - [`rng`]: random data from a seed printed at first use in each test
//!   (`HIP_TEST_SEED=N` replays it), [`random_nonzero`] and
//!   [`random_bytes`] for data that is never all zero.
//! - [`device`], [`stream`], [`upload`], [`download`]: device 0 under the
//!   `HIP_PLATFORM` rules, with a message that says what is missing.
//! - [`max_rel_err`], [`assert_close`], [`first_difference`]: comparisons
//!   with the tolerance stated at the call.
//! - [`gemm_ref`]: the column-major CPU GEMM reference, in f64, with
//!   transposes and conjugates.
//!
//! - [`check_library_load`]: the tier-2 check of a -sys crate's library
//!   load result (the error names every path tried and the package).
//!
//! - [`assert_sources_do_not_name`]: a crate's source files do not name
//!   something (a backend, its loader).
//! - [`raw_calls_outside_result`]: where a safe crate calls its -sys
//!   crates' functions outside its `result` layer; the skeleton test
//!   (`tests/tier1_skeleton.rs`) runs it over every library crate.
//!
//! - [`Scenario`], [`in_scenario`]: a loader scenario in a process of its
//!   own (variables, working folder, application folder); [`stub_sdks`]:
//!   the Wine tier's stub HIP SDKs.
//!
//! - [`Rocm`]: the ROCm release a tier-2 run is against
//!   ([`EXPECT_ROCM_VAR`]) and what it must show.
//!
//! - [`assert_reason_kept`]: a cuda-compat error kept the reason of the
//!   layer that refused the call.
//!
//! - [`code_object`]: tiny code objects, bundles and code-object
//!   envelopes built in memory.
//!
//! Dev-only (`publish = false`): the published crates name it as a path
//! dev-dependency without a version, which `cargo package` drops.

pub mod code_object;
mod compare;
mod data;
mod gpu;
mod library_spec;
mod reasons;
mod reference;
mod rocm;
mod scenario;
mod sources;
mod tier2;

pub use compare::{assert_close, first_difference, max_rel_err, rel};
pub use data::{random_bytes, random_nonzero, rng, seed_for_replay, TestRng, SEED_VAR};
pub use gpu::{device, download, non_blocking_stream, require_platform, stream, upload};
pub use library_spec::assert_library_spec;
pub use reasons::assert_reason_kept;
pub use reference::{c_add, c_mul, gemm_ref, gemm_ref_real, Complex64, Trans};
pub use rocm::{Rocm, EXPECT_ROCM_VAR};
pub use scenario::{
    copy_files, in_scenario, output_of, partial_sdk, same_file, scratch_dir, stub_bin, stub_sdk,
    stub_sdks, Scenario, STUB_SDKS_VAR,
};
pub use sources::{
    assert_sources_do_not_name, code_without_comments, raw_calls_in, raw_calls_outside_result,
    rust_sources, sys_functions, uses_in,
};
pub use tier2::{amd_runtime_expected, check_library_load, ExpectedLibrary, EXPECT_RUNTIME_VAR};

/// The workspace README's Rust examples, compiled by `cargo test --doc`
/// (here because this crate, unlike `hip`, is never packaged).
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct WorkspaceReadmeDoctests;

//! Output of `hip-generator` (see `build.rs-tools/generator`). Do not edit.
//!
//! The wrappers in `functions` call through a table of function pointers that
//! the loader fills once; each one's `unsafe` block only forwards the caller's
//! arguments to the C function of the same signature, so the safety argument
//! is the caller's, stated in each wrapper's `# Safety` section.
#![allow(
    non_camel_case_types,
    non_upper_case_globals,
    non_snake_case,
    dead_code,
    unreachable_pub,
    unused_qualifications,
    missing_debug_implementations,
    missing_docs,
    unpredictable_function_pointer_comparisons,
    clippy::all,
    clippy::undocumented_unsafe_blocks,
    rustdoc::all
)]

pub mod functions;
pub mod types;

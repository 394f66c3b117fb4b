//! Compile-fail tests (trybuild): what the type system must reject.
//!
//! Runs with plain `cargo test` where a cargo toolchain is present; it is
//! not part of the GPU bundle (the GPU runner has no Rust).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}

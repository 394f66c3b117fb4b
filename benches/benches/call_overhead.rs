//! Criterion: the CPU-side time of safe `hip` calls and of the raw `hip_sys`
//! calls they wrap (stream query, event record); see
//! [`hip_benches::call_overhead`]. Needs a GPU and fails without one, so it
//! is left out of `cargo test --all-targets` (`test = false`,
//! `bench = false`); run it by name: `cargo bench -p hip-benches --bench
//! call_overhead`. Also built as the binary `call_overhead` for the GPU
//! machine (no cargo there): run it with `--bench`.

fn main() -> std::process::ExitCode {
    hip_benches::call_overhead_main()
}

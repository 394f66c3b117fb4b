//! The criterion bench `call_overhead` as a plain binary, for the GPU
//! machine (no cargo there): `call_overhead --bench`. Fails, saying why,
//! when there is no GPU.

fn main() -> std::process::ExitCode {
    hip_benches::call_overhead_main()
}

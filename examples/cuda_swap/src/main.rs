//! `cuda-swap`: device query, memory, an nvrtc kernel launched through the
//! driver API, and a cuBLAS SGEMM, all written with CUDA names; checked
//! against the CPU. Exits non-zero on any failure or mismatch.

fn main() {
    match cuda_swap::run(
        std::env::var("CUDA_SWAP_SEED")
            .ok()
            .and_then(|s| s.parse().ok()),
    ) {
        Ok(report) => {
            for line in &report {
                println!("{line}");
            }
            println!("cuda_swap: PASS");
        }
        Err(e) => {
            eprintln!("cuda_swap: FAIL: {e}");
            std::process::exit(1);
        }
    }
}

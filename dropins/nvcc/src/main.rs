//! `nvcc`: hip-nvcc, hip-rs's front for CUDA code on AMD GPUs (not
//! NVIDIA's nvcc). See the crate's README.

fn main() {
    std::process::exit(hip_nvcc::run(std::env::args_os().skip(1).collect()));
}

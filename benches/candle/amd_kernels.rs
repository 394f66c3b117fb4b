//! candle-kernels built for AMD GPUs by the cudaforge drop-in, linked into a
//! program (scripts/candle.sh amd): its launcher library must link against
//! the HIP runtime (candle-kernels asks for `cudart`), and a launcher that
//! could not be compiled for AMD must stop the program naming itself and the
//! reason instead of running.
//!
//! Usage: `amd-kernels modules` prints each PTX module's name and the size
//! of its text; `amd-kernels call-unavailable NAME` calls the launcher NAME
//! (one the build listed as unavailable) with null arguments.

use std::ffi::c_void;
use std::ptr::{null, null_mut};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("modules") => {
            use candle_kernels as k;
            for (name, module) in [
                ("affine", k::AFFINE),
                ("binary", k::BINARY),
                ("cast", k::CAST),
                ("conv", k::CONV),
                ("fill", k::FILL),
                ("indexing", k::INDEXING),
                ("quantized", k::QUANTIZED),
                ("reduce", k::REDUCE),
                ("sort", k::SORT),
                ("ternary", k::TERNARY),
                ("unary", k::UNARY),
            ] {
                println!("{name}\t{}", module.ptx().len());
            }
            // A real launcher, so that its object (and the HIP runtime it
            // calls) is linked in: its address, not a call.
            let launcher = std::hint::black_box(candle_kernels::ffi::launch_mmq_gguf_q4_0 as *const ());
            println!("launch_mmq_gguf_q4_0\t{}", !launcher.is_null());
        }
        Some("call-unavailable") if args.get(1).map(String::as_str) == Some("moe_gemm_wmma") => {
            // SAFETY: the build replaced this launcher with one that takes no
            // argument and aborts (checked by the caller, which reads the
            // build's report first); nothing is dereferenced.
            unsafe {
                candle_kernels::ffi::moe_gemm_wmma(
                    null::<c_void>(),
                    null(),
                    null(),
                    null(),
                    null(),
                    null_mut(),
                    null_mut(),
                    null_mut(),
                    0,
                    0,
                    0,
                    0,
                    0,
                    0,
                    false,
                    0,
                )
            };
            eprintln!("moe_gemm_wmma returned: the unavailable launcher did not stop the program");
            std::process::exit(1);
        }
        _ => {
            eprintln!("usage: amd-kernels modules | amd-kernels call-unavailable moe_gemm_wmma");
            std::process::exit(2);
        }
    }
}

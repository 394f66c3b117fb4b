//! The per-op host path through cudarc's API: allocate, launch, free, as a
//! framework such as candle does for every op; the same loop
//! (`benches/shared/per_op.rs`) as `hip`'s own `benches/src/bin/per_op.rs`.
//! Built by `scripts/cudarc-examples.sh bench-build` against the real
//! cudarc 0.19.10 (`cudarc-per-op-real`) and against cuda-compat
//! (`cudarc-per-op-compat`); `cudarc-examples.sh per-op-run` compares the
//! real one with `hip`'s path and with cuda-compat.
//!
//! ```text
//! cudarc-per-op-{real,compat} default|per-thread
//! ```
//!
//! The stream is the context's default (null) stream or its per-thread
//! stream: cudarc's single-stream mode, where it records no events.

use cudarc::driver::{CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::error::Error;
use std::sync::Arc;

#[path = "../shared/per_op.rs"]
mod shared;
use shared::{PerOpApi, A, KERNEL, LEN};

fn main() {
    if let Err(e) = run() {
        eprintln!("{}: {e}", env!("CARGO_BIN_NAME"));
        std::process::exit(1);
    }
}

struct Cudarc {
    stream: Arc<CudaStream>,
    f: CudaFunction,
}

impl PerOpApi for Cudarc {
    type Buffer = CudaSlice<f32>;
    fn upload(&self, x: &[f32]) -> Result<Self::Buffer, Box<dyn Error>> {
        Ok(self.stream.clone_htod(x)?)
    }
    fn download(&self, b: &Self::Buffer) -> Result<Vec<f32>, Box<dyn Error>> {
        Ok(self.stream.clone_dtoh(b)?)
    }
    fn synchronize(&self) -> Result<(), Box<dyn Error>> {
        Ok(self.stream.synchronize()?)
    }
    fn alloc(&self) -> Result<Self::Buffer, Box<dyn Error>> {
        // SAFETY: written whole by the kernel before any read.
        Ok(unsafe { self.stream.alloc::<f32>(LEN) }?)
    }
    fn launch(&self, y: &mut Self::Buffer, x: &Self::Buffer) -> Result<(), Box<dyn Error>> {
        let n = LEN as u32;
        let mut b = self.stream.launch_builder(&self.f);
        b.arg(y).arg(x).arg(&A).arg(&n);
        // SAFETY: scale_plus_one(float*, const float*, float, unsigned)
        // matches; y and x hold n floats.
        unsafe { b.launch(LaunchConfig::for_num_elems(n)) }?;
        Ok(())
    }
}

fn run() -> Result<(), Box<dyn Error>> {
    let which = std::env::args().nth(1).unwrap_or_default();
    let ctx = cudarc::driver::CudaContext::new(0)?;
    let stream = match which.as_str() {
        "default" => ctx.default_stream(),
        "per-thread" => ctx.per_thread_stream(),
        other => return Err(format!("usage: default|per-thread (got {other:?})").into()),
    };
    let module = ctx.load_module(compile_ptx(KERNEL)?)?;
    let f = module.load_function("scale_plus_one")?;
    shared::run(&Cudarc { stream, f }, env!("CARGO_BIN_NAME"), &which)
}

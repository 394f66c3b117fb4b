//! The per-op host path through `hip`'s own API: allocate (tracked, in
//! stream order, `Stream::alloc`), launch (`TypedKernel::launch`), free,
//! as a framework does for every op; the same loop
//! (`benches/shared/per_op.rs`) as `benches/cudarc/per_op.rs` runs
//! through cudarc, which `scripts/cudarc-examples.sh per-op-run` runs
//! beside it (real cudarc) to give the ratio.
//!
//! ```text
//! per_op named|per-thread
//! ```
//!
//! The stream is a stream of its own (`Stream::new`) or the per-thread
//! stream.

use hip::{DeviceBuffer, LaunchConfig, Module, Stream, TypedKernel};
use std::error::Error;

#[path = "../../shared/per_op.rs"]
mod shared;
use shared::{PerOpApi, A, KERNEL, LEN};

fn main() {
    if let Err(e) = run() {
        eprintln!("per_op: {e}");
        std::process::exit(1);
    }
}

struct Hip {
    stream: Stream,
    kernel: TypedKernel<(*mut f32, *const f32, f32, u32)>,
}

impl PerOpApi for Hip {
    type Buffer = DeviceBuffer<f32>;
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
        Ok(self.stream.alloc::<f32>(LEN)?)
    }
    fn launch(&self, y: &mut Self::Buffer, x: &Self::Buffer) -> Result<(), Box<dyn Error>> {
        let cfg = LaunchConfig::for_num_elems(LEN as u32);
        // SAFETY: scale_plus_one touches y[..n] and x[..n]; both hold n.
        unsafe { self.kernel.launch(&self.stream, cfg, (y, x, A, LEN as u32)) }?;
        Ok(())
    }
}

fn run() -> Result<(), Box<dyn Error>> {
    let which = std::env::args().nth(1).unwrap_or_default();
    let dev = hip::Device::get(0).map_err(|e| format!("cannot measure, no GPU: {e}"))?;
    let stream = match which.as_str() {
        "named" => Stream::new(&dev)?,
        "per-thread" => Stream::per_thread(&dev),
        other => return Err(format!("usage: named|per-thread (got {other:?})").into()),
    };
    let module = Module::compile(&dev, KERNEL)?;
    // SAFETY: the parameter list matches the kernel's signature.
    let kernel = unsafe { TypedKernel::new(module.function("scale_plus_one")?) };
    shared::run(&Hip { stream, kernel }, "per_op: hip", &which)
}

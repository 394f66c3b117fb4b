//! Splits one computation over every visible GPU, one host thread per
//! device, then gathers the pieces onto device 0 with peer copies and
//! checks the result against the CPU.
//!
//! `y[i] = a * x[i] + y[i]` over 8 Mi elements; each device gets a
//! contiguous chunk.
//!
//! ```text
//! cargo run --release -p hip-examples --example multi_gpu        # AMD
//! HIP_PLATFORM=nvidia cargo run --release -p hip-examples --example multi_gpu
//! ```

use hip::{Device, DeviceBuffer, LaunchConfig, Module, Stream, TypedKernel};
use std::sync::Arc;
use std::time::Instant;

const AXPY: &str = r#"
extern "C" __global__ void axpy(float a, const float* x, float* y, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"#;

fn main() {
    if let Err(e) = run() {
        eprintln!("multi_gpu: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let devices = Device::all()?;
    let n: usize = 8 << 20;
    let a = 2.5f32;
    // Deterministic but non-trivial data (no RNG dependency needed).
    let x: Vec<f32> = (0..n)
        .map(|i| ((i * 7919) % 1000) as f32 / 100.0 - 5.0)
        .collect();
    let y: Vec<f32> = (0..n)
        .map(|i| ((i * 104_729) % 997) as f32 / 50.0)
        .collect();
    println!("{} device(s); {} elements", devices.len(), n);

    let chunk = n.div_ceil(devices.len());
    let t = Instant::now();
    // One thread per device: each opens its device, compiles for its own
    // architecture, computes its chunk and keeps the result on its device.
    let parts: Vec<(Arc<Device>, DeviceBuffer<f32>, usize)> = std::thread::scope(|s| {
        let handles: Vec<_> = devices
            .iter()
            .enumerate()
            .map(|(i, dev)| {
                let (x, y) = (&x, &y);
                s.spawn(
                    move || -> hip::Result<(Arc<Device>, DeviceBuffer<f32>, usize)> {
                        let start = (i * chunk).min(n);
                        let end = ((i + 1) * chunk).min(n);
                        let len = end - start;
                        let module = Module::compile(dev, AXPY)?;
                        // SAFETY: the parameter list matches `axpy`'s signature.
                        let k = unsafe {
                            TypedKernel::<(f32, *const f32, *mut f32, u32)>::new(
                                module.function("axpy")?,
                            )
                        };
                        let stream = Stream::new(dev)?;
                        let xd = stream.clone_htod(&x[start..end])?;
                        let mut yd = stream.clone_htod(&y[start..end])?;
                        // SAFETY: axpy touches [0, len) of both buffers, each of
                        // length len.
                        unsafe {
                            k.launch(
                                &stream,
                                LaunchConfig::for_num_elems(len as u32),
                                (a, &xd, &mut yd, len as u32),
                            )?
                        };
                        stream.synchronize()?;
                        println!(
                            "  device {} ({}): elements {start}..{end}",
                            dev.ordinal(),
                            dev.name()?
                        );
                        Ok((dev.clone(), yd, start))
                    },
                )
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("worker thread panicked"))
            .collect::<hip::Result<Vec<_>>>()
    })?;

    // Gather every chunk onto device 0 with peer copies.
    let d0 = &devices[0];
    for (dev, _, _) in &parts[1..] {
        if d0.can_access_peer(dev)? {
            d0.enable_peer_access(dev)?;
        }
    }
    let stream0 = Stream::new(d0)?;
    let mut all = DeviceBuffer::<f32>::zeroed(d0, n)?;
    for (_, part, start) in &parts {
        let mut dst = all.slice_mut(*start..*start + part.len())?;
        stream0.copy_peer(part, &mut dst)?;
    }
    let result = stream0.clone_dtoh(&all)?;
    let elapsed = t.elapsed();

    let mut bad = 0usize;
    for i in 0..n {
        let want = a * x[i] + y[i];
        if (result[i] - want).abs() > 1e-5 * (1.0 + want.abs()) {
            if bad < 5 {
                eprintln!("  mismatch at {i}: {} vs {want}", result[i]);
            }
            bad += 1;
        }
    }
    if bad > 0 {
        return Err(format!("{bad} of {n} elements differ from the CPU").into());
    }
    println!(
        "multi_gpu: OK, {n} elements on {} device(s) match the CPU (tolerance 1e-5 relative), {:.1} ms",
        devices.len(),
        elapsed.as_secs_f64() * 1e3
    );
    Ok(())
}

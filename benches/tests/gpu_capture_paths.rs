//! Every path of our crates that acts on the whole device or on the null
//! stream, exercised in a loop on one thread while another thread
//! captures graphs on a blocking stream and replays them (issue 38).
//!
//! CUDA invalidates a capture when anything synchronizes its device
//! (`cudaFree`, a library handle's destruction, `cudaDeviceSynchronize`)
//! or enqueues on the legacy default stream, on any thread. Each test
//! checks that no capture of the other thread failed and that every
//! replayed graph counted right.
//!
//! With `HIP_TEST_CAPTURE_GATE=off` the tests turn the capture gate off
//! (`hip::__bypass_capture_gate`), to show which paths the gate is what
//! keeps safe: those tests then fail. On the GPU machine, after
//! `scripts/gpu-bundle.sh`: `gpu-bundle/tests/hip-benches--gpu_capture_paths
//! --ignored --test-threads 1`, with and without the variable.
//!
//! GPU tests: `#[ignore]`d; run with `--ignored` on a machine with a GPU.

use hip::{Device, DeviceBuffer, LaunchConfig, Module, Stream, TypedKernel};
use std::error::Error;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

type Res<T = ()> = Result<T, Box<dyn Error + Send + Sync>>;

const BUMP: &str = r#"
extern "C" __global__ void bump(unsigned int* c) {
    if (blockIdx.x == 0 && threadIdx.x == 0) atomicAdd(c, 1u);
}
"#;

/// Launches captured into each graph, and replays of each graph.
const BUMPS: u32 = 8;
const REPLAYS: u32 = 4;

fn device() -> Arc<Device> {
    let dev = Device::get(0).expect("a GPU");
    let off = std::env::var("HIP_TEST_CAPTURE_GATE").is_ok_and(|v| v == "off");
    hip::__bypass_capture_gate(off);
    dev
}

/// What the capturing thread saw.
#[derive(Debug, Default)]
struct Captures {
    graphs: u64,
    failures: Vec<String>,
}

/// Captures `BUMPS` launches on a blocking stream, replays the graph
/// `REPLAYS` times and checks the counter, until `stop`.
fn capture_loop(
    dev: &Arc<Device>,
    module: &Module,
    stop: &AtomicBool,
    done: &AtomicU64,
) -> Captures {
    let mut out = Captures::default();
    let run = |out: &mut Captures| -> Res {
        // SAFETY: `bump` takes one `unsigned int*`.
        let bump: TypedKernel<(*mut u32,)> = unsafe { TypedKernel::new(module.function("bump")?) };
        let stream = Stream::new(dev)?; // blocking: the strict case
        let mut counter = DeviceBuffer::<u32>::zeroed(dev, 1)?;
        let mut want = 0u32;
        while !stop.load(Ordering::Relaxed) {
            let c = &mut counter;
            // SAFETY: the graph uses only `counter`, alive while it is.
            let graph = unsafe {
                stream.capture(|s| {
                    for _ in 0..BUMPS {
                        bump.launch(s, LaunchConfig::for_num_elems(1), (&mut *c,))?;
                    }
                    Ok(())
                })
            };
            let outcome = graph.and_then(|g| {
                let mut exec = g.instantiate()?;
                for _ in 0..REPLAYS {
                    exec.launch(&stream)?;
                }
                stream.synchronize()
            });
            out.graphs += 1;
            done.store(out.graphs, Ordering::Relaxed);
            match outcome {
                Ok(()) => want = want.wrapping_add(BUMPS * REPLAYS),
                Err(e) => {
                    out.failures.push(format!("graph {}: {e}", out.graphs));
                    // Resynchronize with whatever did run.
                    stream.synchronize()?;
                    want = stream.clone_dtoh(&counter)?[0];
                    if out.failures.len() >= 5 {
                        return Ok(());
                    }
                    continue;
                }
            }
            let got = stream.clone_dtoh(&counter)?[0];
            if got != want {
                out.failures
                    .push(format!("graph {}: counter {got}, want {want}", out.graphs));
                want = got;
            }
        }
        Ok(())
    };
    if let Err(e) = run(&mut out) {
        out.failures.push(format!("capturing thread: {e}"));
    }
    out
}

/// Runs `path` in a loop (at least `rounds` times, and until the other
/// thread has captured 40 graphs, at most 60 s) beside [`capture_loop`],
/// and asserts that every capture and replay went right.
fn beside_capture(name: &str, rounds: u32, mut path: impl FnMut(u32) -> Res) {
    let dev = device();
    let module = Module::compile(&dev, BUMP).expect("the bump kernel compiles");
    let stop = AtomicBool::new(false);
    let done = AtomicU64::new(0);
    let start = Instant::now();
    let (captures, ran) = std::thread::scope(|s| {
        let capturer = s.spawn(|| capture_loop(&dev, &module, &stop, &done));
        let mut ran = 0u32;
        let mut error = None;
        while (ran < rounds || done.load(Ordering::Relaxed) < 40)
            && start.elapsed() < Duration::from_secs(60)
            && !capturer.is_finished()
        {
            if let Err(e) = path(ran) {
                error = Some(format!("{name}, round {ran}: {e}"));
                break;
            }
            ran += 1;
        }
        stop.store(true, Ordering::Relaxed);
        let captures = capturer.join().expect("the capturing thread panicked");
        if let Some(e) = error {
            panic!("{e}");
        }
        (captures, ran)
    });
    println!(
        "{name}: {ran} rounds beside {} captured graphs, {} failed",
        captures.graphs,
        captures.failures.len()
    );
    assert!(
        captures.failures.is_empty(),
        "{name}: captures on the other thread failed: {:?}",
        captures.failures
    );
    assert!(
        captures.graphs >= 40 && ran >= rounds,
        "{name}: too little overlap ({ran} rounds, {} graphs)",
        captures.graphs
    );
    assert!(hip::take_drop_errors().is_empty(), "{name}: drop errors");
}

fn stream(dev: &Arc<Device>) -> Res<Stream> {
    Ok(Stream::new(dev)?)
}

#[test]
#[ignore = "needs a GPU"]
fn device_buffer_malloc_and_free() {
    let dev = device();
    beside_capture(
        "DeviceBuffer::uninit + drop (hipMalloc, hipFree)",
        200,
        |_| {
            drop(DeviceBuffer::<f32>::uninit(&dev, 1 << 16)?);
            Ok(())
        },
    );
}

#[test]
#[ignore = "needs a GPU"]
fn device_buffer_zeroed() {
    let dev = device();
    beside_capture(
        "DeviceBuffer::zeroed (memset, was on the null stream)",
        200,
        |_| {
            let b = DeviceBuffer::<u32>::zeroed(&dev, 1 << 16)?;
            let s = stream(&dev)?;
            let v = s.clone_dtoh(&b)?;
            if v.iter().any(|&x| x != 0) {
                return Err("not zeroed".into());
            }
            Ok(())
        },
    );
}

#[test]
#[ignore = "needs a GPU"]
fn managed_buffer() {
    let dev = device();
    beside_capture(
        "ManagedBuffer::zeroed + drop (hipMallocManaged, hipFree)",
        100,
        |_| {
            drop(hip::ManagedBuffer::<u32>::zeroed(&dev, 1 << 14)?);
            Ok(())
        },
    );
}

#[test]
#[ignore = "needs a GPU"]
fn pinned_host_buffer() {
    let _dev = device();
    beside_capture(
        "PinnedHostBuffer + drop (hipHostMalloc, hipHostFree)",
        100,
        |_| {
            drop(hip::PinnedHostBuffer::<u32>::zeroed(1 << 16)?);
            Ok(())
        },
    );
}

#[test]
#[ignore = "needs a GPU"]
fn module_load_and_unload() {
    let dev = device();
    let image = hip::compile(BUMP, &hip::CompileOptions::for_device(&dev).unwrap())
        .unwrap()
        .code;
    beside_capture(
        "Module::load_data + drop (hipModuleLoadData, hipModuleUnload)",
        100,
        |_| {
            drop(Module::load_data(&dev, &image)?);
            Ok(())
        },
    );
}

#[test]
#[ignore = "needs a GPU"]
fn device_synchronize() {
    let dev = device();
    beside_capture("Device::synchronize", 200, |_| Ok(dev.synchronize()?));
}

#[test]
#[ignore = "needs a GPU"]
fn device_set_limit() {
    let dev = device();
    let stack = dev.limit(hip::Limit::StackSize).unwrap();
    beside_capture("Device::set_limit", 100, |_| {
        Ok(dev.set_limit(hip::Limit::StackSize, stack)?)
    });
}

#[test]
#[ignore = "needs a GPU"]
fn mem_pool_create_and_destroy() {
    let dev = device();
    if !dev.supports_memory_pools() {
        panic!("the GPU has no memory pools");
    }
    beside_capture("MemPool::new + drop", 100, |_| {
        drop(hip::MemPool::new(&dev)?);
        Ok(())
    });
}

#[test]
#[ignore = "needs a GPU"]
fn untracked_stream_allocation() {
    let dev = device();
    let s = stream(&dev).unwrap();
    beside_capture(
        "StreamAllocation untracked (free waits for the device)",
        100,
        |_| {
            drop(hip::StreamAllocation::new(&s, 1 << 16, false)?);
            Ok(())
        },
    );
}

#[test]
#[ignore = "needs a GPU"]
fn staged_copies_with_and_without_pinned_memory() {
    let dev = device();
    let s = stream(&dev).unwrap();
    let host: Vec<u32> = (0..(4u32 << 20)).collect();
    let mut d = DeviceBuffer::<u32>::zeroed(&dev, host.len()).unwrap();
    beside_capture(
        "staged copy, and its direct fallback without pinned memory",
        30,
        |i| {
            if i % 2 == 1 {
                hip::staging::fail_next_pinned_allocations(1);
            }
            s.copy_htod(&host, &mut d)?;
            hip::staging::fail_next_pinned_allocations(0);
            let back = s.clone_dtoh(&d)?;
            if back != host {
                return Err("the copy differs".into());
            }
            Ok(())
        },
    );
}

#[test]
#[ignore = "needs a GPU"]
fn hipblas_handle() {
    let dev = device();
    let s = stream(&dev).unwrap();
    beside_capture("hipblas::Blas::new + drop", 50, |_| {
        drop(hipblas::Blas::new(&s)?);
        Ok(())
    });
}

#[test]
#[ignore = "needs a GPU"]
fn hipblaslt_handle() {
    let dev = device();
    let s = stream(&dev).unwrap();
    beside_capture("hipblaslt::LtHandle::new + drop", 50, |_| {
        drop(hipblaslt::LtHandle::new(&s)?);
        Ok(())
    });
}

#[test]
#[ignore = "needs a GPU"]
fn hipfft_plan() {
    let dev = device();
    let s = stream(&dev).unwrap();
    beside_capture("hipfft plan build + drop", 50, |_| {
        let plan = hipfft::PlanBuilder::<f32>::new(hipfft::Transform::C2C, &[4096])
            .batch(4)
            .build(&s)?;
        drop(plan);
        Ok(())
    });
}

#[test]
#[ignore = "needs a GPU"]
fn hiprand_generator() {
    let dev = device();
    let s = stream(&dev).unwrap();
    let mut buf = DeviceBuffer::<f32>::zeroed(&dev, 1 << 12).unwrap();
    beside_capture("hiprand Generator::new + seeded fill + drop", 50, |i| {
        let mut g = hiprand::Generator::new(&s, hiprand::RngType::Xorwow)?;
        g.set_seed(7 + i as u64)?;
        g.fill_uniform(&mut buf)?;
        drop(g);
        Ok(())
    });
}

#[test]
#[ignore = "needs a GPU"]
fn hipsolver_handle() {
    let dev = device();
    let s = stream(&dev).unwrap();
    beside_capture("hipsolver::Solver::new + drop", 50, |_| {
        drop(hipsolver::Solver::new(&s)?);
        Ok(())
    });
}

#[test]
#[ignore = "needs a GPU"]
fn hipsparse_handle() {
    let dev = device();
    let s = stream(&dev).unwrap();
    beside_capture("hipsparse::Sparse::new + drop", 50, |_| {
        drop(hipsparse::Sparse::new(&s)?);
        Ok(())
    });
}

#[test]
#[ignore = "needs a GPU"]
fn rccl_communicator() {
    let dev = device();
    beside_capture("rccl::Comm::from_devices (one rank) + drop", 20, |_| {
        drop(rccl::Comm::from_devices(std::slice::from_ref(&dev))?);
        Ok(())
    });
}

#[test]
#[ignore = "needs a GPU"]
fn cuda_compat_unified_and_pinned_memory() {
    let _dev = device();
    let ctx = cuda_compat::driver::CudaContext::new(0).unwrap();
    beside_capture("cuda-compat alloc_unified/alloc_pinned + drop", 100, |_| {
        // SAFETY: zeroed memory, read as u32 only.
        unsafe {
            drop(ctx.alloc_unified::<u32>(1 << 14, true)?);
            drop(ctx.alloc_pinned::<u32>(1 << 14)?);
        }
        Ok(())
    });
}

#[test]
#[ignore = "needs a GPU"]
fn cuda_compat_library_handles() {
    let _dev = device();
    let ctx = cuda_compat::driver::CudaContext::new(0).unwrap();
    let s = ctx.new_stream().unwrap();
    beside_capture(
        "cuda-compat CudaBlas, CudaBlasLT, cuSOLVER handles + drop",
        30,
        |_| {
            drop(cuda_compat::cublas::CudaBlas::new(s.clone()).map_err(|e| format!("{e:?}"))?);
            drop(cuda_compat::cublaslt::CudaBlasLT::new(s.clone()).map_err(|e| format!("{e:?}"))?);
            drop(cuda_compat::cusolver::DnHandle::new(s.clone()).map_err(|e| format!("{e:?}"))?);
            Ok(())
        },
    );
}

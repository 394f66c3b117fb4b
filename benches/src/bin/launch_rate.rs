//! GPU benchmark: empty-kernel launches per second through
//! 1. the safe typed launch (`hip::TypedKernel::launch`),
//! 2. the raw `hip_sys::hipModuleLaunchKernel`,
//! 3. raw `cuLaunchKernel` from `libcuda.so.1` (NVIDIA only; the baseline),
//!
//! in one run, interleaved round by round, printed as a table with ratios.
//! Before that, the CPU-side cost of safe vs raw calls (stream query, event
//! record), measured the same way.
//!
//! Usage: `launch_rate [launches-per-round] [rounds]` (defaults 100000, 7).

use hip::{Device, Event, LaunchConfig, Module, Stream, TypedKernel};
use hip_benches::{cuda_driver::DriverKernel, median, min, time_rounds};
use hip_sys as sys;
use std::time::Instant;

const EMPTY: &str = "extern \"C\" __global__ void empty() {}\n";

fn main() {
    if let Err(e) = run() {
        eprintln!("launch_rate: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let n: u64 = args
        .next()
        .map(|a| a.parse())
        .transpose()?
        .unwrap_or(100_000);
    let rounds: usize = args.next().map(|a| a.parse()).transpose()?.unwrap_or(7);

    let dev = match Device::get(0) {
        Ok(d) => d,
        Err(e) => {
            println!("launch_rate: not run, no GPU: {e}");
            return Ok(());
        }
    };
    let rt = sys::loader::runtime().map_err(|e| e.to_string())?;
    println!(
        "device 0: {} ({}), platform {} runtime {}",
        dev.name()?,
        dev.arch()?,
        rt.platform,
        rt.version
    );

    let code = hip::compile(EMPTY, &hip::CompileOptions::for_device(&dev)?)?;
    let module = Module::load_data(&dev, &code.code)?;
    let func = module.function("empty")?;
    // SAFETY: `empty` takes no parameters.
    let safe = unsafe { TypedKernel::<()>::new(func.clone()) };
    let stream = Stream::new(&dev)?;
    let cfg = LaunchConfig {
        grid: (1, 1, 1),
        block: (1, 1, 1),
        shared_mem_bytes: 0,
    };

    // ---- CPU-side call cost -------------------------------------------------
    let event = Event::with_timing(&dev, false)?;
    stream.synchronize()?;
    let (raw_s, raw_e) = (stream.as_raw(), event.as_raw());
    let iters = 200_000;
    let mut rows = Vec::new();
    for _ in 0..2 {
        // warm-up pass, then measured pass (rows overwritten)
        rows.clear();
        let safe_q = time_rounds(rounds, iters, || {
            std::hint::black_box(stream.query().unwrap());
        });
        let raw_q = time_rounds(rounds, iters, || {
            // SAFETY: a live stream.
            let st = unsafe { sys::hipStreamQuery(std::hint::black_box(raw_s)) };
            assert!(
                st.is_success() || st == sys::hipError_t::hipErrorNotReady,
                "{st}"
            );
        });
        rows.push((
            "stream query",
            median(&safe_q),
            median(&raw_q),
            min(&safe_q),
            min(&raw_q),
        ));
        let safe_r = time_rounds(rounds, iters, || {
            event.record(&stream).unwrap();
        });
        stream.synchronize()?;
        let raw_r = time_rounds(rounds, iters, || {
            // SAFETY: a live event and stream of the same device.
            let st = unsafe { sys::hipEventRecord(std::hint::black_box(raw_e), raw_s) };
            assert!(st.is_success(), "{st}");
        });
        stream.synchronize()?;
        rows.push((
            "event record",
            median(&safe_r),
            median(&raw_r),
            min(&safe_r),
            min(&raw_r),
        ));
    }
    println!();
    println!("CPU-side cost per call ({rounds} rounds x {iters} calls; median [best])");
    println!("| call | safe hip (ns) | raw hip-sys (ns) | overhead (ns) |");
    println!("| --- | ---: | ---: | ---: |");
    for (name, sm, rm, sb, rb) in &rows {
        println!(
            "| {name} | {sm:.1} [{sb:.1}] | {rm:.1} [{rb:.1}] | {:+.1} [{:+.1}] |",
            sm - rm,
            sb - rb
        );
    }

    // ---- launch rate ------------------------------------------------------------
    let driver = if rt.platform == sys::loader::Platform::Nvidia {
        match DriverKernel::load(&code.code, c"empty") {
            Ok(k) => Some(k),
            Err(e) => {
                println!("cuLaunchKernel baseline unavailable: {e}");
                None
            }
        }
    } else {
        None
    };
    let raw_f = func.as_raw();
    let launch_safe = || {
        // SAFETY: `empty` touches no memory.
        unsafe { safe.launch(&stream, cfg, ()) }.unwrap();
    };
    let launch_raw = || {
        // SAFETY: a live function and stream; no parameters.
        let st = unsafe {
            sys::hipModuleLaunchKernel(
                raw_f,
                1,
                1,
                1,
                1,
                1,
                1,
                0,
                raw_s,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        };
        assert!(st.is_success(), "{st}");
    };
    // rate of one round: n launches then a synchronize, in launches/s
    let measure = |f: &dyn Fn(), sync: &dyn Fn()| -> f64 {
        let t = Instant::now();
        for _ in 0..n {
            f();
        }
        sync();
        n as f64 / t.elapsed().as_secs_f64()
    };
    let sync_hip = || stream.synchronize().unwrap();
    let (mut r_safe, mut r_raw, mut r_cu) = (Vec::new(), Vec::new(), Vec::new());
    // warm-up
    measure(&launch_safe, &sync_hip);
    measure(&launch_raw, &sync_hip);
    if let Some(k) = &driver {
        measure(&|| k.launch_once().unwrap(), &|| k.synchronize().unwrap());
    }
    for _ in 0..rounds {
        r_safe.push(measure(&launch_safe, &sync_hip));
        r_raw.push(measure(&launch_raw, &sync_hip));
        if let Some(k) = &driver {
            r_cu.push(measure(&|| k.launch_once().unwrap(), &|| {
                k.synchronize().unwrap()
            }));
        }
    }
    let base = if r_cu.is_empty() {
        median(&r_raw)
    } else {
        median(&r_cu)
    };
    let base_name = if r_cu.is_empty() {
        "raw hip-sys"
    } else {
        "raw cuLaunchKernel"
    };
    println!();
    println!("Empty-kernel launch rate ({rounds} interleaved rounds x {n} launches + sync; median [best]); ratio vs {base_name}");
    println!("| path | launches/s | ratio |");
    println!("| --- | ---: | ---: |");
    let row = |name: &str, v: &[f64]| {
        if !v.is_empty() {
            let (m, b) = (median(v), v.iter().copied().fold(0.0, f64::max));
            println!("| {name} | {m:.0} [{b:.0}] | {:.3} |", m / base);
        }
    };
    row("safe hip TypedKernel::launch", &r_safe);
    row("raw hip-sys hipModuleLaunchKernel", &r_raw);
    row("raw cuLaunchKernel (libcuda)", &r_cu);
    if r_cu.is_empty() {
        println!("(no cuLaunchKernel baseline on platform {})", rt.platform);
    }
    let errs = hip::take_drop_errors();
    if !errs.is_empty() {
        println!("errors recorded in drop: {errs:?}");
    }
    Ok(())
}

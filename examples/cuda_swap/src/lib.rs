//! The `cuda_swap` flow, written only with CUDA names (the `cuda` crate is
//! cuda-compat, chosen by one line of `Cargo.toml`):
//!
//! 1. device query (`cudaGetDeviceCount`, `cudaGetDeviceProperties`);
//! 2. `cudaMalloc` of an impossible size gives `cudaErrorMemoryAllocation`;
//! 3. SAXPY compiled with nvrtc, loaded with `cuModuleLoadData`, launched
//!    with `cuLaunchKernel`, data moved with `cudaMemcpy` and
//!    `cuMemcpyHtoD`/`cuMemcpyDtoH` on `cuMemAlloc`'d memory;
//! 4. `cublasSgemm_v2` on a non-square problem.
//!
//! Every result is compared with a CPU reference on fresh random data.

use cuda::cublas::*;
use cuda::driver::*;
use cuda::nvrtc::*;
use cuda::runtime::*;
use std::ffi::{c_char, c_void, CStr, CString};
use std::ptr;

/// Relative tolerance of SAXPY (one rounding, possibly fused).
pub const SAXPY_TOLERANCE: f32 = 1e-6;
/// Relative tolerance of SGEMM per unit of `k` (accumulated rounding).
pub const SGEMM_TOLERANCE_PER_K: f32 = 2e-7;

const SAXPY_SOURCE: &str = r#"
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"#;

/// A small, seeded generator: fresh data per run, reproducible from the
/// printed seed.
struct Lcg(u64);

impl Lcg {
    fn next_f32(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        // 24 random bits -> [-1, 1), never all zero.
        ((self.0 >> 40) as f32 / (1u64 << 23) as f32) - 1.0
    }

    fn vec(&mut self, n: usize) -> Vec<f32> {
        (0..n).map(|_| self.next_f32()).collect()
    }
}

fn check_rt(what: &str, e: cudaError_t) -> Result<(), String> {
    if e == cudaSuccess {
        Ok(())
    } else {
        Err(format!("{what}: {e:?}"))
    }
}

fn check_drv(what: &str, e: CUresult) -> Result<(), String> {
    if e == CUDA_SUCCESS {
        Ok(())
    } else {
        Err(format!("{what}: {e:?}"))
    }
}

fn check_rtc(what: &str, e: nvrtcResult) -> Result<(), String> {
    if e == NVRTC_SUCCESS {
        Ok(())
    } else {
        Err(format!("{what}: {e:?}"))
    }
}

fn check_blas(what: &str, e: cublasStatus_t) -> Result<(), String> {
    if e == CUBLAS_STATUS_SUCCESS {
        Ok(())
    } else {
        Err(format!("{what}: {e:?}"))
    }
}

/// Runs the whole flow; returns the lines to print, or what failed.
pub fn run(seed: Option<u64>) -> Result<Vec<String>, String> {
    let seed = seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(1)
    });
    let mut rng = Lcg(seed);
    let mut out = vec![format!("seed {seed}")];

    // 1. Device query.
    let mut count = 0;
    // SAFETY: `count` is a valid int to write to.
    check_rt("cudaGetDeviceCount", unsafe {
        cudaGetDeviceCount(&mut count)
    })?;
    if count < 1 {
        return Err("no CUDA device".into());
    }
    // SAFETY: `cudaDeviceProp` is plain data; all-zero is a valid value.
    let mut prop: cudaDeviceProp = unsafe { std::mem::zeroed() };
    // SAFETY: `prop` is a valid cudaDeviceProp to fill; device 0 exists.
    check_rt("cudaGetDeviceProperties", unsafe {
        cudaGetDeviceProperties(&mut prop, 0)
    })?;
    // SAFETY: the runtime NUL-terminates the name inside the array.
    let name = unsafe { CStr::from_ptr(prop.name.as_ptr()) }.to_string_lossy();
    out.push(format!(
        "devices: {count}; device 0: {name}, compute capability {}.{}, {} SMs, {:.1} GiB",
        prop.major,
        prop.minor,
        prop.multiProcessorCount,
        prop.totalGlobalMem as f64 / (1u64 << 30) as f64
    ));
    let mut runtime_version = 0;
    // SAFETY: `runtime_version` is a valid int to write to.
    check_rt("cudaRuntimeGetVersion", unsafe {
        cudaRuntimeGetVersion(&mut runtime_version)
    })?;
    out.push(format!("cudaRuntimeGetVersion: {runtime_version}"));

    // 2. The impossible allocation.
    let mut huge: *mut c_void = ptr::null_mut();
    // SAFETY: `huge` is a valid place for the pointer.
    let e = unsafe { cudaMalloc(&mut huge, usize::MAX / 2) };
    if e != cudaErrorMemoryAllocation {
        return Err(format!(
            "cudaMalloc(usize::MAX / 2) gave {e:?}, not cudaErrorMemoryAllocation"
        ));
    }
    out.push(format!("cudaMalloc(usize::MAX / 2) = {e:?} (as CUDA says)"));
    // Clear the sticky last error as CUDA code does.
    // SAFETY: no arguments.
    let _ = unsafe { cudaGetLastError() };

    out.push(saxpy(&mut rng)?);
    out.push(sgemm(&mut rng)?);
    Ok(out)
}

/// Compiles SAXPY with nvrtc; returns the code image (PTX on NVIDIA, a
/// code object on AMD).
fn compile_saxpy() -> Result<Vec<u8>, String> {
    let src = CString::new(SAXPY_SOURCE).unwrap();
    let name = CString::new("saxpy.cu").unwrap();
    let mut prog: nvrtcProgram = ptr::null_mut();
    // SAFETY: valid NUL-terminated strings; no headers.
    check_rtc("nvrtcCreateProgram", unsafe {
        nvrtcCreateProgram(
            &mut prog,
            src.as_ptr(),
            name.as_ptr(),
            0,
            ptr::null(),
            ptr::null(),
        )
    })?;
    // SAFETY: `prog` is live; no options.
    let compiled = unsafe { nvrtcCompileProgram(prog, 0, ptr::null()) };
    if compiled != NVRTC_SUCCESS {
        let mut size = 0;
        // SAFETY: `prog` is live; `size` is writable.
        let _ = unsafe { nvrtcGetProgramLogSize(prog, &mut size) };
        let mut log = vec![0u8; size.max(1)];
        // SAFETY: `log` has at least `size` bytes.
        let _ = unsafe { nvrtcGetProgramLog(prog, log.as_mut_ptr().cast::<c_char>()) };
        return Err(format!(
            "nvrtcCompileProgram: {compiled:?}\n{}",
            String::from_utf8_lossy(&log)
        ));
    }
    let mut size = 0;
    // SAFETY: `prog` is live; `size` is writable.
    check_rtc("nvrtcGetPTXSize", unsafe {
        nvrtcGetPTXSize(prog, &mut size)
    })?;
    let mut code = vec![0u8; size];
    // SAFETY: `code` has `size` bytes.
    check_rtc("nvrtcGetPTX", unsafe {
        nvrtcGetPTX(prog, code.as_mut_ptr().cast::<c_char>())
    })?;
    // SAFETY: `prog` is live and not used afterwards.
    check_rtc("nvrtcDestroyProgram", unsafe {
        nvrtcDestroyProgram(&mut prog)
    })?;
    Ok(code)
}

fn saxpy(rng: &mut Lcg) -> Result<String, String> {
    let n: usize = (1 << 20) + 17;
    let a = 1.5 + rng.next_f32();
    let x = rng.vec(n);
    let y = rng.vec(n);
    let bytes = n * size_of::<f32>();

    // SAFETY: no arguments beyond the flags.
    check_drv("cuInit", unsafe { cuInit(0) })?;
    let code = compile_saxpy()?;
    let mut module: CUmodule = ptr::null_mut();
    // SAFETY: `code` is the complete image nvrtc produced; it outlives the call.
    check_drv("cuModuleLoadData", unsafe {
        cuModuleLoadData(&mut module, code.as_ptr().cast())
    })?;
    let mut function: CUfunction = ptr::null_mut();
    let fname = CString::new("saxpy").unwrap();
    // SAFETY: `module` is loaded; the name is NUL-terminated.
    check_drv("cuModuleGetFunction", unsafe {
        cuModuleGetFunction(&mut function, module, fname.as_ptr())
    })?;

    // x through the runtime API, y through the driver API.
    let mut d_x: *mut c_void = ptr::null_mut();
    // SAFETY: `d_x` is a valid place for the pointer.
    check_rt("cudaMalloc", unsafe { cudaMalloc(&mut d_x, bytes) })?;
    // SAFETY: `d_x` has `bytes` bytes; `x` has `bytes` bytes.
    check_rt("cudaMemcpy H2D", unsafe {
        cudaMemcpy(d_x, x.as_ptr().cast(), bytes, cudaMemcpyHostToDevice)
    })?;
    let mut d_y: CUdeviceptr = 0;
    // SAFETY: `d_y` is a valid place for the device address.
    check_drv("cuMemAlloc", unsafe { cuMemAlloc(&mut d_y, bytes) })?;
    // SAFETY: `d_y` has `bytes` bytes; `y` has `bytes` bytes.
    check_drv("cuMemcpyHtoD", unsafe {
        cuMemcpyHtoD(d_y, y.as_ptr().cast(), bytes)
    })?;

    let mut a_arg = a;
    let mut x_arg = d_x;
    let mut y_arg = d_y;
    let mut n_arg = n as i32;
    let mut params: [*mut c_void; 4] = [
        (&mut a_arg as *mut f32).cast(),
        (&mut x_arg as *mut *mut c_void).cast(),
        (&mut y_arg as *mut CUdeviceptr).cast(),
        (&mut n_arg as *mut i32).cast(),
    ];
    let block = 256u32;
    let grid = n.div_ceil(block as usize) as u32;
    // SAFETY: `function` takes (float, const float*, float*, int), matching
    // `params`; both buffers hold `n` floats; the args outlive the launch.
    check_drv("cuLaunchKernel", unsafe {
        cuLaunchKernel(
            function,
            grid,
            1,
            1,
            block,
            1,
            1,
            0,
            ptr::null_mut(),
            params.as_mut_ptr(),
            ptr::null_mut(),
        )
    })?;
    // SAFETY: no arguments.
    check_drv("cuStreamSynchronize", unsafe {
        cuStreamSynchronize(ptr::null_mut())
    })?;
    let mut result = vec![0f32; n];
    // SAFETY: `result` has `bytes` bytes; `d_y` holds `bytes` bytes.
    check_drv("cuMemcpyDtoH", unsafe {
        cuMemcpyDtoH(result.as_mut_ptr().cast(), d_y, bytes)
    })?;
    // SAFETY: allocated above, not used afterwards.
    check_rt("cudaFree", unsafe { cudaFree(d_x) })?;
    // SAFETY: as above.
    check_drv("cuMemFree", unsafe { cuMemFree(d_y) })?;
    // SAFETY: loaded above; its function is not used afterwards.
    check_drv("cuModuleUnload", unsafe { cuModuleUnload(module) })?;

    let mut worst = 0f32;
    for i in 0..n {
        let expect = a * x[i] + y[i];
        let err = (result[i] - expect).abs() / expect.abs().max(1.0);
        worst = worst.max(err);
        if err > SAXPY_TOLERANCE || !result[i].is_finite() {
            return Err(format!(
                "saxpy mismatch at {i}: GPU {} vs CPU {expect}",
                result[i]
            ));
        }
    }
    Ok(format!(
        "saxpy (nvrtc + cuModuleLoadData + cuLaunchKernel): n = {n}, max rel error {worst:.2e} <= {SAXPY_TOLERANCE:.0e}: ok"
    ))
}

fn sgemm(rng: &mut Lcg) -> Result<String, String> {
    // Column-major C (m x n) = alpha * A (m x k) * B (k x n) + beta * C.
    let (m, n, k) = (192usize, 96usize, 160usize);
    let (alpha, beta) = (0.75f32, -0.5f32);
    let a = rng.vec(m * k);
    let b = rng.vec(k * n);
    let c = rng.vec(m * n);

    let alloc = |len: usize| -> Result<*mut f32, String> {
        let mut p: *mut c_void = ptr::null_mut();
        // SAFETY: `p` is a valid place for the pointer.
        check_rt("cudaMalloc", unsafe { cudaMalloc(&mut p, len * 4) })?;
        Ok(p.cast())
    };
    let (d_a, d_b, d_c) = (alloc(m * k)?, alloc(k * n)?, alloc(m * n)?);
    for (d, h) in [(d_a, &a), (d_b, &b), (d_c, &c)] {
        // SAFETY: each device buffer was allocated with the host vector's size.
        check_rt("cudaMemcpy H2D", unsafe {
            cudaMemcpy(
                d.cast(),
                h.as_ptr().cast(),
                h.len() * 4,
                cudaMemcpyHostToDevice,
            )
        })?;
    }
    let mut handle: cublasHandle_t = ptr::null_mut();
    // SAFETY: `handle` is a valid place for the new handle.
    check_blas("cublasCreate", unsafe { cublasCreate_v2(&mut handle) })?;
    // SAFETY: the buffers hold m*k, k*n and m*n floats with leading
    // dimensions m, k, m; alpha and beta are host scalars (the default
    // pointer mode).
    let status = unsafe {
        cublasSgemm_v2(
            handle,
            CUBLAS_OP_N,
            CUBLAS_OP_N,
            m as i32,
            n as i32,
            k as i32,
            &alpha,
            d_a,
            m as i32,
            d_b,
            k as i32,
            &beta,
            d_c,
            m as i32,
        )
    };
    check_blas("cublasSgemm_v2", status)?;
    // SAFETY: no arguments.
    check_rt("cudaDeviceSynchronize", unsafe { cudaDeviceSynchronize() })?;
    let mut result = vec![0f32; m * n];
    // SAFETY: `d_c` holds m*n floats, `result` has room for them.
    check_rt("cudaMemcpy D2H", unsafe {
        cudaMemcpy(
            result.as_mut_ptr().cast(),
            d_c.cast(),
            m * n * 4,
            cudaMemcpyDeviceToHost,
        )
    })?;
    // SAFETY: created above, not used afterwards.
    check_blas("cublasDestroy", unsafe { cublasDestroy_v2(handle) })?;
    for d in [d_a, d_b, d_c] {
        // SAFETY: allocated above, not used afterwards.
        check_rt("cudaFree", unsafe { cudaFree(d.cast()) })?;
    }

    let tol = SGEMM_TOLERANCE_PER_K * k as f32;
    let mut worst = 0f32;
    for j in 0..n {
        for i in 0..m {
            let mut acc = 0f64;
            let mut mag = 0f64;
            for l in 0..k {
                let p = a[i + l * m] as f64 * b[l + j * k] as f64;
                acc += p;
                mag += p.abs();
            }
            let expect = alpha as f64 * acc + beta as f64 * c[i + j * m] as f64;
            let scale = (alpha.abs() as f64 * mag + (beta * c[i + j * m]).abs() as f64).max(1.0);
            let err = ((result[i + j * m] as f64 - expect).abs() / scale) as f32;
            worst = worst.max(err);
            if err > tol || !result[i + j * m].is_finite() {
                return Err(format!(
                    "sgemm mismatch at ({i}, {j}): GPU {} vs CPU {expect}",
                    result[i + j * m]
                ));
            }
        }
    }
    Ok(format!(
        "cublasSgemm_v2: m {m}, n {n}, k {k}, max scaled error {worst:.2e} <= {tol:.1e}: ok"
    ))
}

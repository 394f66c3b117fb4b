//! Tier 1 (no GPU): what candle-core/candle-nn 0.11 use from cudarc 0.19
//! beyond `tier1_cudarc_api.rs`: f8 and `bool` element types and kernel
//! arguments, `driver::safe`, `cublas::sys`'s data types, the whole
//! `cublas::result` layer (signatures, and its argument checks, which
//! answer before any hipBLAS call), and the tensor-op GEMM algorithms'
//! translation to hipBLAS's default. The `uses_*` functions are type
//! checks: compiled, never run.

#![allow(dead_code)]

use cuda_compat::cublas::{result, sys, CublasError, CudaBlas, Gemm, StridedBatchedConfig};
use cuda_compat::driver::{
    CudaSlice, CudaView, DevicePtr, DevicePtrMut, DeviceRepr, DriverError, LaunchArgs,
    PushKernelArg, ValidAsZeroBits,
};
use float8::{F8E4M3, F8E5M2};
use half::{bf16, f16};
use hipblas_sys::hipblasGemmAlgo_t;
use std::ffi::{c_int, c_longlong, c_void};
use std::mem::{align_of, size_of};
use std::sync::Arc;

fn is_device_repr<T: DeviceRepr>() -> usize {
    size_of::<T>()
}

fn is_zeroable<T: ValidAsZeroBits>() -> usize {
    size_of::<T>()
}

/// candle's `barg!(builder, self.align_corners)` and f8 scalars as kernel
/// arguments, through the launch builder's `PushKernelArg<&T>`.
fn uses_bool_and_f8_kernel_arguments<'a>(
    builder: &mut LaunchArgs<'a>,
    flag: &'a bool,
    e4m3: &'a F8E4M3,
    e5m2: &'a F8E5M2,
    buffer: &'a mut CudaSlice<F8E4M3>,
) {
    builder.arg(flag).arg(e4m3).arg(e5m2).arg(buffer);
}

#[test]
fn f8_and_bool_are_one_byte_device_reprs() {
    assert_eq!(is_device_repr::<F8E4M3>(), 1);
    assert_eq!(is_device_repr::<F8E5M2>(), 1);
    assert_eq!(is_device_repr::<bool>(), 1);
    assert_eq!(is_zeroable::<F8E4M3>(), 1);
    assert_eq!(is_zeroable::<F8E5M2>(), 1);
    assert_eq!(is_zeroable::<(u8, f32)>(), 8);
    assert_eq!(
        (
            align_of::<F8E4M3>(),
            align_of::<F8E5M2>(),
            align_of::<bool>()
        ),
        (1, 1, 1)
    );
    // The byte is the value: what a kernel writes is what the host reads.
    let one = F8E4M3::from_f32(1.0);
    // SAFETY: F8E4M3 is a transparent u8.
    let byte: u8 = unsafe { std::mem::transmute::<F8E4M3, u8>(one) };
    assert_eq!(byte, one.to_bits());
    assert_eq!(F8E4M3::from_bits(byte).to_f32(), 1.0);
    // The arrays of them are element types too.
    assert_eq!(is_device_repr::<[F8E4M3; 4]>(), 4);
    assert_eq!(is_device_repr::<[bool; 3]>(), 3);
}

#[test]
fn only_bool_fixes_bytes_read_back_and_makes_non_zero_true() {
    assert!(<f32 as DeviceRepr>::read_back_fix().is_none());
    assert!(<F8E4M3 as DeviceRepr>::read_back_fix().is_none());
    assert!(<u8 as DeviceRepr>::read_back_fix().is_none());
    let fix = <bool as DeviceRepr>::read_back_fix().expect("bool fixes its bytes");
    // An array of bools fixes its bytes the same way.
    assert!(<[bool; 2] as DeviceRepr>::read_back_fix().is_some());
    // The trait is dyn-compatible, as cudarc's is.
    let params: [&dyn DeviceRepr; 2] = [&1.0f32, &true];
    assert_eq!(params.len(), 2);
    let mut bytes = [0u8, 1, 2, 0x80, 0xff, 0, 7];
    // SAFETY: `bytes` is 7 writable bytes nothing else refers to.
    unsafe { fix(bytes.as_mut_ptr(), bytes.len()) };
    assert_eq!(bytes, [0, 1, 1, 1, 1, 0, 1]);
}

#[test]
fn driver_safe_is_cudarcs_path_to_the_same_types() {
    use cuda_compat::driver::safe;
    use std::any::TypeId;
    // candle's tests: `cudarc::driver::safe::CudaContext::device_count()`.
    let count: fn() -> Result<i32, DriverError> = safe::CudaContext::device_count;
    let _ = count;
    assert_eq!(
        TypeId::of::<safe::CudaContext>(),
        TypeId::of::<cuda_compat::driver::CudaContext>()
    );
    let _: fn() -> Result<(), DriverError> = safe::profiler_start;
    let _: fn() -> Result<(), DriverError> = safe::profiler_stop;
    let _: fn() -> Result<safe::Profiler, DriverError> = safe::Profiler::new;
}

#[test]
fn cublas_sys_holds_cudarcs_data_types() {
    use std::any::TypeId;
    assert_eq!(
        TypeId::of::<sys::cudaDataType_t>(),
        TypeId::of::<cuda_compat::runtime::cudaDataType_t>()
    );
    assert_eq!(
        TypeId::of::<sys::cudaDataType>(),
        TypeId::of::<sys::cublasDataType_t>()
    );
    assert_eq!(
        TypeId::of::<sys::cudaStream_t>(),
        TypeId::of::<cuda_compat::driver::sys::CUstream>()
    );
    // HIP's values under CUDA's names (hipDataType is CUDA's numbering).
    assert_eq!(sys::cudaDataType_t::CUDA_R_32F.0, 0);
    assert_eq!(sys::cudaDataType_t::CUDA_R_16F.0, 2);
    assert_eq!(sys::cudaDataType_t::CUDA_R_16BF.0, 14);
}

/// The deprecated tensor-op algorithms, with CUDA's values.
fn tensor_ops() -> Vec<(sys::cublasGemmAlgo_t, u32, &'static str)> {
    use sys::cublasGemmAlgo_t as A;
    vec![
        (
            A::CUBLAS_GEMM_DEFAULT_TENSOR_OP,
            99,
            "CUBLAS_GEMM_DEFAULT_TENSOR_OP",
        ),
        (
            A::CUBLAS_GEMM_DFALT_TENSOR_OP,
            99,
            "CUBLAS_GEMM_DEFAULT_TENSOR_OP",
        ),
        (
            A::CUBLAS_GEMM_ALGO0_TENSOR_OP,
            100,
            "CUBLAS_GEMM_ALGO0_TENSOR_OP",
        ),
        (
            A::CUBLAS_GEMM_ALGO1_TENSOR_OP,
            101,
            "CUBLAS_GEMM_ALGO1_TENSOR_OP",
        ),
        (
            A::CUBLAS_GEMM_ALGO2_TENSOR_OP,
            102,
            "CUBLAS_GEMM_ALGO2_TENSOR_OP",
        ),
        (
            A::CUBLAS_GEMM_ALGO3_TENSOR_OP,
            103,
            "CUBLAS_GEMM_ALGO3_TENSOR_OP",
        ),
        (
            A::CUBLAS_GEMM_ALGO4_TENSOR_OP,
            104,
            "CUBLAS_GEMM_ALGO4_TENSOR_OP",
        ),
        (
            A::CUBLAS_GEMM_ALGO5_TENSOR_OP,
            105,
            "CUBLAS_GEMM_ALGO5_TENSOR_OP",
        ),
        (
            A::CUBLAS_GEMM_ALGO6_TENSOR_OP,
            106,
            "CUBLAS_GEMM_ALGO6_TENSOR_OP",
        ),
        (
            A::CUBLAS_GEMM_ALGO7_TENSOR_OP,
            107,
            "CUBLAS_GEMM_ALGO7_TENSOR_OP",
        ),
        (
            A::CUBLAS_GEMM_ALGO8_TENSOR_OP,
            108,
            "CUBLAS_GEMM_ALGO8_TENSOR_OP",
        ),
        (
            A::CUBLAS_GEMM_ALGO9_TENSOR_OP,
            109,
            "CUBLAS_GEMM_ALGO9_TENSOR_OP",
        ),
        (
            A::CUBLAS_GEMM_ALGO10_TENSOR_OP,
            110,
            "CUBLAS_GEMM_ALGO10_TENSOR_OP",
        ),
        (
            A::CUBLAS_GEMM_ALGO11_TENSOR_OP,
            111,
            "CUBLAS_GEMM_ALGO11_TENSOR_OP",
        ),
        (
            A::CUBLAS_GEMM_ALGO12_TENSOR_OP,
            112,
            "CUBLAS_GEMM_ALGO12_TENSOR_OP",
        ),
        (
            A::CUBLAS_GEMM_ALGO13_TENSOR_OP,
            113,
            "CUBLAS_GEMM_ALGO13_TENSOR_OP",
        ),
        (
            A::CUBLAS_GEMM_ALGO14_TENSOR_OP,
            114,
            "CUBLAS_GEMM_ALGO14_TENSOR_OP",
        ),
        (
            A::CUBLAS_GEMM_ALGO15_TENSOR_OP,
            115,
            "CUBLAS_GEMM_ALGO15_TENSOR_OP",
        ),
    ]
}

#[test]
fn every_tensor_op_algorithm_goes_to_hip_as_the_default() {
    let default = hipblasGemmAlgo_t::HIPBLAS_GEMM_DEFAULT;
    for (algo, cuda_value, name) in tensor_ops() {
        assert_eq!(algo.0, cuda_value, "{name}: CUDA's value");
        assert_eq!(algo.to_hip(), default, "{name}: to_hip");
        assert_eq!(hipblasGemmAlgo_t::from(algo), default, "{name}: From");
        assert_ne!(algo.0, default.0, "{name} keeps a value of its own");
        assert!(!algo.is_synthesized(), "{name}");
        assert_eq!(format!("{algo:?}"), name);
        assert_eq!(algo.name(), Some(name));
    }
    // The module-level names are the same values.
    assert_eq!(
        sys::CUBLAS_GEMM_DEFAULT_TENSOR_OP,
        sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT_TENSOR_OP
    );
    // The enum table lists them as mapped, under HIP's default's name.
    let table = cuda_compat::enums()
        .into_iter()
        .find(|t| t.cuda == "cublasGemmAlgo_t")
        .expect("cublasGemmAlgo_t's table");
    let v = table
        .variants
        .iter()
        .find(|v| v.name == "CUBLAS_GEMM_ALGO7_TENSOR_OP")
        .expect("listed without the feature");
    assert_eq!((v.value, v.synthesized), (107, false));
    assert_eq!(v.hip_name, Some("HIPBLAS_GEMM_DEFAULT"));
}

#[test]
fn other_algorithm_values_pass_to_hip_unchanged() {
    use sys::cublasGemmAlgo_t as A;
    let default = hipblasGemmAlgo_t::HIPBLAS_GEMM_DEFAULT;
    assert_eq!(A::CUBLAS_GEMM_DEFAULT.to_hip(), default);
    assert_eq!(A::CUBLAS_GEMM_DFALT.to_hip(), default);
    // Values next to the tensor-op range, and HIP's own, are untouched.
    for v in [0u32, 23, 98, 116, 160, 0x4000_0000, u32::MAX] {
        assert_eq!(A(v).to_hip().0, v, "{v}");
        assert_eq!(hipblasGemmAlgo_t::from(A(v)).0, v, "{v}");
    }
    // From HIP back to CUDA is the identity.
    assert_eq!(A::from(default), A::CUBLAS_GEMM_DEFAULT);
    // Another enum of the same machinery is untouched.
    assert_eq!(
        sys::cublasOperation_t::CUBLAS_OP_T.to_hip(),
        hipblas_sys::hipblasOperation_t::HIPBLAS_OP_T
    );
}

/// Every function of cudarc 0.19.10's `cublas::result`, with cudarc's
/// signature.
#[allow(clippy::type_complexity)]
fn uses_cudarcs_result_signatures() {
    use sys::{cublasComputeType_t as Compute, cublasGemmAlgo_t as Algo};
    use sys::{cublasHandle_t as H, cublasOperation_t as Op, cudaDataType as D};
    type R = Result<(), CublasError>;
    let _: fn() -> Result<H, CublasError> = result::create_handle;
    let _: unsafe fn(H) -> R = result::destroy_handle;
    let _: unsafe fn(H, sys::cudaStream_t) -> R = result::set_stream;
    let _: unsafe fn(
        H,
        Op,
        c_int,
        c_int,
        *const f32,
        *const f32,
        c_int,
        *const f32,
        c_int,
        *const f32,
        *mut f32,
        c_int,
    ) -> R = result::sgemv;
    let _: unsafe fn(
        H,
        Op,
        c_int,
        c_int,
        *const f64,
        *const f64,
        c_int,
        *const f64,
        c_int,
        *const f64,
        *mut f64,
        c_int,
    ) -> R = result::dgemv;
    let _: unsafe fn(
        H,
        Op,
        Op,
        c_int,
        c_int,
        c_int,
        *const f16,
        *const f16,
        c_int,
        *const f16,
        c_int,
        *const f16,
        *mut f16,
        c_int,
    ) -> R = result::hgemm;
    let _: unsafe fn(
        H,
        Op,
        Op,
        c_int,
        c_int,
        c_int,
        *const f32,
        *const f32,
        c_int,
        *const f32,
        c_int,
        *const f32,
        *mut f32,
        c_int,
    ) -> R = result::sgemm;
    let _: unsafe fn(
        H,
        Op,
        Op,
        c_int,
        c_int,
        c_int,
        *const f64,
        *const f64,
        c_int,
        *const f64,
        c_int,
        *const f64,
        *mut f64,
        c_int,
    ) -> R = result::dgemm;
    let _: unsafe fn(
        H,
        Op,
        Op,
        c_int,
        c_int,
        c_int,
        *const f16,
        *const f16,
        c_int,
        c_longlong,
        *const f16,
        c_int,
        c_longlong,
        *const f16,
        *mut f16,
        c_int,
        c_longlong,
        c_int,
    ) -> R = result::hgemm_strided_batched;
    let _: unsafe fn(
        H,
        Op,
        Op,
        c_int,
        c_int,
        c_int,
        *const f32,
        *const f32,
        c_int,
        c_longlong,
        *const f32,
        c_int,
        c_longlong,
        *const f32,
        *mut f32,
        c_int,
        c_longlong,
        c_int,
    ) -> R = result::sgemm_strided_batched;
    let _: unsafe fn(
        H,
        Op,
        Op,
        c_int,
        c_int,
        c_int,
        *const f64,
        *const f64,
        c_int,
        c_longlong,
        *const f64,
        c_int,
        c_longlong,
        *const f64,
        *mut f64,
        c_int,
        c_longlong,
        c_int,
    ) -> R = result::dgemm_strided_batched;
    let _: unsafe fn(
        H,
        Op,
        Op,
        c_int,
        c_int,
        c_int,
        *const c_void,
        *const c_void,
        D,
        c_int,
        *const c_void,
        D,
        c_int,
        *const c_void,
        *mut c_void,
        D,
        c_int,
        Compute,
        Algo,
    ) -> R = result::gemm_ex;
    let _: unsafe fn(
        H,
        Op,
        Op,
        c_int,
        c_int,
        c_int,
        *const c_void,
        *const c_void,
        D,
        c_int,
        c_longlong,
        *const c_void,
        D,
        c_int,
        c_longlong,
        *const c_void,
        *mut c_void,
        D,
        c_int,
        c_longlong,
        c_int,
        Compute,
        Algo,
    ) -> R = result::gemm_strided_batched_ex;
    let _: unsafe fn(H, c_int, *const f32, c_int, *mut f32) -> R = result::sasum;
    let _: unsafe fn(H, c_int, *const f64, c_int, *mut f64) -> R = result::dasum;
}

/// candle's `gemm_strided_batched_bf16` (cuda_backend/mod.rs), verbatim
/// but for the crate name and the views' elided lifetimes.
///
/// # Safety
///
/// As `result::gemm_strided_batched_ex`.
unsafe fn uses_gemm_strided_batched_ex_like_candle(
    cublas: &CudaBlas,
    cfg: StridedBatchedConfig<bf16>,
    a: &CudaView<'_, bf16>,
    b: &CudaView<'_, bf16>,
    c: &mut CudaSlice<bf16>,
) -> Result<(), CublasError> {
    let alpha_f32: f32 = cfg.gemm.alpha.to_f32();
    let beta_f32: f32 = cfg.gemm.beta.to_f32();
    let (compute_type, alpha, beta) = (
        sys::cublasComputeType_t::CUBLAS_COMPUTE_32F_FAST_16BF,
        (&alpha_f32) as *const f32 as *const _,
        (&beta_f32) as *const f32 as *const _,
    );
    let stream = c.stream().clone();
    let (a, _guard_a) = a.device_ptr(&stream);
    let (b, _guard_b) = b.device_ptr(&stream);
    let (c, _guard_c) = c.device_ptr_mut(&stream);
    // SAFETY: the caller's.
    unsafe {
        result::gemm_strided_batched_ex(
            *cublas.handle(),
            cfg.gemm.transa,
            cfg.gemm.transb,
            cfg.gemm.m,
            cfg.gemm.n,
            cfg.gemm.k,
            alpha,
            a as *const _,
            sys::cudaDataType_t::CUDA_R_16BF,
            cfg.gemm.lda,
            cfg.stride_a,
            b as *const _,
            sys::cudaDataType_t::CUDA_R_16BF,
            cfg.gemm.ldb,
            cfg.stride_b,
            beta,
            c as *mut _,
            sys::cudaDataType_t::CUDA_R_16BF,
            cfg.gemm.ldc,
            cfg.stride_c,
            cfg.batch_size,
            compute_type,
            sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT_TENSOR_OP,
        )
    }
}

/// candle's `Gemm` uses: f32, f64, f16 and bf16.
fn uses_gemm_for_candles_types(blas: &Arc<CudaBlas>) {
    fn gemm<T>(_: &impl Gemm<T>) {}
    gemm::<f32>(&**blas);
    gemm::<f64>(&**blas);
    gemm::<f16>(&**blas);
    gemm::<bf16>(&**blas);
}

fn invalid() -> Result<(), CublasError> {
    Err(CublasError(
        sys::cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE,
    ))
}

/// The result layer's checks answer before any call: a null handle and
/// null device pointers are never reached, whatever the machine has.
#[test]
fn result_layer_rejects_cublas_invalid_arguments_before_calling() {
    use sys::cublasOperation_t as Op;
    let h: sys::cublasHandle_t = std::ptr::null_mut();
    let (n_, t_) = (Op::CUBLAS_OP_N, Op::CUBLAS_OP_T);
    let one = 1.0f32;
    let (s, p) = (&one as *const f32, std::ptr::null::<f32>());
    let out = std::ptr::null_mut::<f32>();
    let sgemm = |ta, tb, m, n, k, alpha, lda, ldb, ldc| {
        // SAFETY: every case is rejected before any pointer is used.
        unsafe { result::sgemm(h, ta, tb, m, n, k, alpha, p, lda, p, ldb, s, out, ldc) }
    };
    // A valid shape is rejected only for its null alpha.
    assert_eq!(sgemm(n_, n_, 4, 3, 2, p, 4, 2, 4), invalid(), "null alpha");
    assert_eq!(sgemm(n_, n_, -1, 3, 2, s, 4, 2, 4), invalid(), "m < 0");
    assert_eq!(sgemm(n_, n_, 4, -3, 2, s, 4, 2, 4), invalid(), "n < 0");
    assert_eq!(sgemm(n_, n_, 4, 3, -2, s, 4, 2, 4), invalid(), "k < 0");
    assert_eq!(sgemm(n_, n_, 4, 3, 2, s, 3, 2, 4), invalid(), "lda < m");
    assert_eq!(
        sgemm(t_, n_, 4, 3, 2, s, 1, 2, 4),
        invalid(),
        "lda < k (A^T)"
    );
    assert_eq!(sgemm(n_, n_, 4, 3, 2, s, 4, 1, 4), invalid(), "ldb < k");
    assert_eq!(
        sgemm(n_, t_, 4, 3, 2, s, 4, 2, 4),
        invalid(),
        "ldb < n (B^T)"
    );
    assert_eq!(sgemm(n_, n_, 4, 3, 2, s, 4, 2, 3), invalid(), "ldc < m");
    assert_eq!(
        sgemm(Op(7), n_, 4, 3, 2, s, 4, 2, 4),
        invalid(),
        "unknown op"
    );
    assert_eq!(sgemm(n_, n_, 0, 0, 0, s, 0, 4, 4), invalid(), "lda 0");

    // SAFETY: rejected before any pointer is used (negative batch).
    let batched = unsafe {
        result::sgemm_strided_batched(h, n_, n_, 4, 3, 2, s, p, 4, 8, p, 2, 6, s, out, 4, 12, -1)
    };
    assert_eq!(batched, invalid(), "batch < 0");

    let v = p.cast::<c_void>();
    let sv = s.cast::<c_void>();
    let f32_ = sys::cudaDataType_t::CUDA_R_32F;
    let compute = sys::cublasComputeType_t::CUBLAS_COMPUTE_32F;
    let algo = sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT_TENSOR_OP;
    // SAFETY: rejected before any pointer is used (ldc < m).
    let ex = unsafe {
        result::gemm_ex(
            h,
            n_,
            n_,
            4,
            3,
            2,
            sv,
            v,
            f32_,
            4,
            v,
            f32_,
            2,
            sv,
            out.cast(),
            f32_,
            2,
            compute,
            algo,
        )
    };
    assert_eq!(ex, invalid(), "gemm_ex ldc < m");
    // SAFETY: rejected before any pointer is used (negative batch count).
    let ex = unsafe {
        result::gemm_strided_batched_ex(
            h,
            n_,
            n_,
            4,
            3,
            2,
            sv,
            v,
            f32_,
            4,
            8,
            v,
            f32_,
            2,
            6,
            sv,
            out.cast(),
            f32_,
            4,
            12,
            -2,
            compute,
            algo,
        )
    };
    assert_eq!(ex, invalid(), "gemm_strided_batched_ex batch < 0");
    // SAFETY: rejected before any pointer is used (null beta).
    let ex = unsafe {
        result::gemm_strided_batched_ex(
            h,
            n_,
            n_,
            4,
            3,
            2,
            sv,
            v,
            f32_,
            4,
            8,
            v,
            f32_,
            2,
            6,
            v,
            out.cast(),
            f32_,
            4,
            12,
            1,
            compute,
            algo,
        )
    };
    assert_eq!(ex, invalid(), "gemm_strided_batched_ex null beta");

    let sgemv = |m, n, lda, incx, incy| {
        // SAFETY: every case is rejected before any pointer is used.
        unsafe { result::sgemv(h, n_, m, n, s, p, lda, p, incx, s, out, incy) }
    };
    assert_eq!(sgemv(-1, 3, 4, 1, 1), invalid(), "gemv m < 0");
    assert_eq!(sgemv(4, 3, 3, 1, 1), invalid(), "gemv lda < m");
    assert_eq!(sgemv(4, 3, 4, 0, 1), invalid(), "gemv incx 0");
    assert_eq!(sgemv(4, 3, 4, 1, 0), invalid(), "gemv incy 0");

    // SAFETY: rejected before any pointer is used (null result).
    let asum = unsafe { result::sasum(h, 4, p, 1, out) };
    assert_eq!(asum, invalid(), "asum null result");
}

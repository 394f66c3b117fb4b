//! cudarc's safe cuBLASLt API (`CudaBlasLT`, `Matmul`, `MatmulConfig`,
//! `Activation`, `Workspace`) over hipBLASLt. Sizes, leading dimensions,
//! batch strides and buffer lengths are checked before any call: a bad one
//! is `CUBLAS_STATUS_INVALID_VALUE`, never an out-of-bounds access. Every
//! call goes through [`result`] (the `hipblaslt` crate's result layer
//! underneath), or that crate's result layer directly where the capture
//! gate is already held.

use super::result::{self, fail, ours, CublasError};
use super::sys;
use crate::driver::sys::CUdevice_attribute;
use crate::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut, DriverError};
use std::ffi::{c_int, c_void};
use std::sync::Arc;

/// A hipBLASLt handle with its workspace, working on one stream (cudarc's
/// `CudaBlasLT`).
///
/// **Threads**: `Send + Sync`, as in cudarc: hipBLASLt handles may be used
/// from any thread, and `matmul` creates its descriptors per call.
#[derive(Debug)]
pub struct CudaBlasLT {
    handle: sys::cublasLtHandle_t,
    workspace: Workspace,
    stream: Arc<CudaStream>,
}

// SAFETY: see the type's docs.
unsafe impl Send for CudaBlasLT {}
// SAFETY: as above.
unsafe impl Sync for CudaBlasLT {}

impl CudaBlasLT {
    /// A handle working on `stream`, with a [`Workspace`] on its device.
    pub fn new(stream: Arc<CudaStream>) -> Result<Self, CublasError> {
        let workspace = Workspace::new(stream.clone()).map_err(|e| {
            fail(
                sys::cublasStatus_t::CUBLAS_STATUS_NOT_INITIALIZED,
                &format!("allocating the workspace: {e}"),
            )
        })?;
        // Creating a handle acts on the whole device: not during a capture.
        let device = stream.context().device.clone();
        let held = device.hold_captures("CudaBlasLT::new").map_err(|e| {
            fail(
                sys::cublasStatus_t::CUBLAS_STATUS_NOT_SUPPORTED,
                &e.to_string(),
            )
        })?;
        let handle = hipblaslt::result::create(&held).map_err(ours)?;
        Ok(CudaBlasLT {
            handle,
            workspace,
            stream,
        })
    }
}

impl Drop for CudaBlasLT {
    fn drop(&mut self) {
        let handle = std::mem::replace(&mut self.handle, std::ptr::null_mut());
        if !handle.is_null() {
            // Made once no capture of the device is open (hip's gate).
            let handle = hip::SendPtr(handle);
            self.stream.context().release_outside_captures(move |held| {
                // SAFETY: we own the handle, and nothing uses it after this.
                unsafe { hipblaslt::result::destroy(handle.get(), held) }.map_err(|e| {
                    crate::driver::result::fail(
                        crate::driver::sys::CUresult::CUDA_ERROR_UNKNOWN,
                        &e.to_string(),
                    )
                })
            });
        }
    }
}

/// The handle's workspace (cudarc's `Workspace`): 32 MiB on devices of
/// compute capability 9 or more (every AMD Instinct and RDNA GPU reports 9
/// or more), 4 MiB below, as NVIDIA advises.
#[derive(Debug, Clone)]
pub struct Workspace {
    pub(crate) buffer: CudaSlice<u8>,
    pub(crate) size: usize,
}

impl Workspace {
    /// A workspace on `stream`'s device.
    pub fn new(stream: Arc<CudaStream>) -> Result<Self, DriverError> {
        stream.context().bind_to_thread()?;
        let major = stream
            .context()
            .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?;
        let size = if major >= 9 { 32 << 20 } else { 4 << 20 };
        // SAFETY: the workspace is scratch memory the library writes before
        // it reads; it is never read by the host.
        let buffer = unsafe { stream.alloc::<u8>(size) }?;
        Ok(Workspace { buffer, size })
    }
}

/// The activation fused after the matmul (and bias).
#[derive(Debug, Clone)]
pub enum Activation {
    /// `max(x, 0)`.
    Relu,
    /// GELU (tanh approximation).
    Gelu,
}

/// What [`Matmul`] needs of a handle (cudarc's `MatmulShared`).
pub trait MatmulShared {
    /// The raw handle.
    fn handle(&self) -> &sys::cublasLtHandle_t;
    /// The workspace.
    fn workspace(&self) -> &Workspace;
    /// The stream matmuls are enqueued on.
    fn stream(&self) -> &Arc<CudaStream>;
}

impl MatmulShared for CudaBlasLT {
    fn handle(&self) -> &sys::cublasLtHandle_t {
        &self.handle
    }
    fn workspace(&self) -> &Workspace {
        &self.workspace
    }
    fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }
}

/// One column-major matmul `C = act(alpha * op(A) * op(B) + beta * C +
/// bias)` (cudarc's `MatmulConfig`): `op(A)` is `m x k`, `op(B)` `k x n`,
/// `C` `m x n`; a batch applies to each matrix whose stride is given.
#[derive(Debug, Copy, Clone)]
pub struct MatmulConfig {
    /// Whether `A` is transposed.
    pub transa: bool,
    /// Whether `B` is transposed.
    pub transb: bool,
    /// Whether `C` is transposed (not supported by hipBLASLt: must be
    /// `false`).
    pub transc: bool,
    /// Rows of `op(A)` and `C`.
    pub m: u64,
    /// Columns of `op(B)` and `C`.
    pub n: u64,
    /// Columns of `op(A)`, rows of `op(B)`.
    pub k: u64,
    /// Scale of the product.
    pub alpha: f32,
    /// Leading dimension of `A`.
    pub lda: i64,
    /// Leading dimension of `B`.
    pub ldb: i64,
    /// Scale of `C`.
    pub beta: f32,
    /// Leading dimension of `C`.
    pub ldc: i64,
    /// Elements between the `A`s of a batch.
    pub stride_a: Option<i64>,
    /// Elements between the `B`s of a batch.
    pub stride_b: Option<i64>,
    /// Elements between the `C`s of a batch.
    pub stride_c: Option<i64>,
    /// Elements between the biases of a batch (hipBLASLt shares one bias:
    /// only `None` or 0 with a batch).
    pub stride_bias: Option<i64>,
    /// Number of matmuls.
    pub batch_size: Option<c_int>,
}

/// `CUBLAS_STATUS_INVALID_VALUE`, with the reason (the checks below are
/// cuBLASLt's documented ones).
#[cold]
fn invalid(why: impl std::fmt::Display) -> CublasError {
    fail(
        sys::cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE,
        &why.to_string(),
    )
}

/// `CUBLAS_STATUS_NOT_SUPPORTED`, with the reason.
#[cold]
fn not_supported(why: &str) -> CublasError {
    fail(sys::cublasStatus_t::CUBLAS_STATUS_NOT_SUPPORTED, why)
}

/// One operand's checked layout: stored `rows x cols`, its batch (count,
/// stride) and the elements a buffer must hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Operand {
    rows: u64,
    cols: u64,
    ld: i64,
    batch: Option<(c_int, i64)>,
    needed: usize,
}

fn operand(
    rows: u64,
    cols: u64,
    ld: i64,
    batch: Option<c_int>,
    stride: Option<i64>,
) -> Result<Operand, CublasError> {
    if rows == 0 || cols == 0 || rows > i32::MAX as u64 || cols > i32::MAX as u64 {
        return Err(invalid(format_args!(
            "a {rows} x {cols} operand: each size from 1 to {}",
            i32::MAX
        )));
    }
    let ld_u = u64::try_from(ld)
        .ok()
        .filter(|&l| l >= rows)
        .ok_or_else(|| invalid(format_args!("ld {ld} below the operand's {rows} rows")))?;
    let too_big = || {
        invalid(format_args!(
            "a {rows} x {cols} operand of ld {ld} spans more than 64 bits"
        ))
    };
    let span = ld_u
        .checked_mul(cols - 1)
        .and_then(|s| s.checked_add(rows))
        .ok_or_else(too_big)?;
    let (batch, needed) = match (batch, stride) {
        (Some(count), Some(stride)) => {
            let n = u64::try_from(count)
                .ok()
                .filter(|&n| n >= 1)
                .ok_or_else(|| invalid(format_args!("a batch of {count}")))?;
            let s = u64::try_from(stride)
                .ok()
                .filter(|&s| n == 1 || s >= span)
                .ok_or_else(|| {
                    invalid(format_args!(
                        "batch stride {stride} below the {span} elements one operand spans"
                    ))
                })?;
            let needed = s
                .checked_mul(n - 1)
                .and_then(|v| v.checked_add(span))
                .ok_or_else(too_big)?;
            (Some((count, stride)), needed)
        }
        _ => (None, span),
    };
    Ok(Operand {
        rows,
        cols,
        ld,
        batch,
        needed: usize::try_from(needed).map_err(|_| too_big())?,
    })
}

/// The three operands of `cfg`, checked (sizes at least 1 and 32-bit,
/// leading dimensions at least the stored rows, batch strides without
/// overlap), and the unsupported parts refused.
fn operands(cfg: &MatmulConfig, with_bias: bool) -> Result<[Operand; 3], CublasError> {
    if cfg.transc {
        return Err(not_supported(
            "transc: hipBLASLt has no transposed output (MatmulConfig::transc must be false)",
        ));
    }
    let batched = cfg.batch_size.is_some_and(|b| b > 1);
    if with_bias && batched && cfg.stride_bias.is_some_and(|s| s != 0) {
        return Err(not_supported(
            "stride_bias: hipBLASLt shares one bias across a batch (only None or 0)",
        ));
    }
    if cfg.k == 0 || cfg.k > i32::MAX as u64 {
        return Err(invalid(format_args!(
            "k = {}: from 1 to {}",
            cfg.k,
            i32::MAX
        )));
    }
    let (ar, ac) = if cfg.transa {
        (cfg.k, cfg.m)
    } else {
        (cfg.m, cfg.k)
    };
    let (br, bc) = if cfg.transb {
        (cfg.n, cfg.k)
    } else {
        (cfg.k, cfg.n)
    };
    Ok([
        operand(ar, ac, cfg.lda, cfg.batch_size, cfg.stride_a)?,
        operand(br, bc, cfg.ldb, cfg.batch_size, cfg.stride_b)?,
        operand(cfg.m, cfg.n, cfg.ldc, cfg.batch_size, cfg.stride_c)?,
    ])
}

/// A matrix layout, destroyed on drop.
struct Layout(sys::cublasLtMatrixLayout_t);

impl Layout {
    fn new(ty: sys::cudaDataType, o: &Operand) -> Result<Layout, CublasError> {
        let layout = Layout(result::create_matrix_layout(ty, o.rows, o.cols, o.ld)?);
        if let Some((count, stride)) = o.batch {
            use sys::cublasLtMatrixLayoutAttribute_t as A;
            // SAFETY: a live layout; the batch count is int32_t, the stride
            // int64_t, each read for the call.
            unsafe {
                result::set_matrix_layout_attribute(
                    layout.0,
                    A::CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
                    (&count as *const c_int).cast(),
                    size_of::<c_int>(),
                )?;
                result::set_matrix_layout_attribute(
                    layout.0,
                    A::CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                    (&stride as *const i64).cast(),
                    size_of::<i64>(),
                )?;
            }
        }
        Ok(layout)
    }
}

impl Drop for Layout {
    fn drop(&mut self) {
        // SAFETY: made by `create_matrix_layout`, destroyed once, here.
        let _ = unsafe { result::destroy_matrix_layout(self.0) };
    }
}

/// A matmul descriptor, destroyed on drop.
struct Desc(sys::cublasLtMatmulDesc_t);

impl Desc {
    /// Sets a 4-byte or pointer attribute.
    fn set<V: Copy>(
        &self,
        attr: sys::cublasLtMatmulDescAttributes_t,
        value: V,
    ) -> Result<(), CublasError> {
        // SAFETY: a live descriptor; `V` is the attribute's C type (the
        // callers below), read for the call.
        unsafe {
            result::set_matmul_desc_attribute(
                self.0,
                attr,
                (&value as *const V).cast(),
                size_of::<V>(),
            )
        }
    }
}

impl Drop for Desc {
    fn drop(&mut self) {
        // SAFETY: made by `create_matmul_desc`, destroyed once, here.
        let _ = unsafe { result::destroy_matmul_desc(self.0) };
    }
}

/// A heuristic preference, destroyed on drop.
struct Pref(sys::cublasLtMatmulPreference_t);

impl Drop for Pref {
    fn drop(&mut self) {
        // SAFETY: made by `create_matmul_pref`, destroyed once, here.
        let _ = unsafe { result::destroy_matmul_pref(self.0) };
    }
}

/// Matmul with elements of type `T` (cudarc's `Matmul<T>`).
pub trait Matmul<T>: MatmulShared {
    /// The CUDA data type of `T`.
    fn matrix_type() -> sys::cudaDataType;

    /// The compute type: `CUBLAS_COMPUTE_32F` for every `T` here (module
    /// doc: no TF32).
    fn compute_type() -> sys::cublasComputeType_t;

    /// `C = act(alpha * op(A) * op(B) + beta * C + bias)` on the handle's
    /// stream, with `bias` (at least `m` elements, one per row of `C`) and
    /// `act` fused into the kernel.
    ///
    /// The sizes, leading dimensions, batch strides and every buffer's
    /// length are checked first (`CUBLAS_STATUS_INVALID_VALUE`); `transc`
    /// and a per-batch bias stride are `CUBLAS_STATUS_NOT_SUPPORTED`.
    ///
    /// # Safety
    ///
    /// As in cudarc: the buffers must not be accessed in a way the stream
    /// does not order with this matmul.
    unsafe fn matmul<I: DevicePtr<T>, O: DevicePtrMut<T>>(
        &self,
        cfg: MatmulConfig,
        a: &I,
        b: &I,
        c: &mut O,
        bias: Option<&I>,
        act: Option<&Activation>,
    ) -> Result<(), CublasError> {
        let [oa, ob, oc] = operands(&cfg, bias.is_some())?;
        for (name, len, needed) in [
            ("a", a.len(), oa.needed),
            ("b", b.len(), ob.needed),
            ("c", c.len(), oc.needed),
        ] {
            if len < needed {
                return Err(invalid(format_args!(
                    "{name} holds {len} elements, the shapes span {needed}"
                )));
            }
        }
        if let Some(bias) = bias.filter(|bias| (bias.len() as u64) < cfg.m) {
            return Err(invalid(format_args!(
                "bias holds {} elements, below m = {}",
                bias.len(),
                cfg.m
            )));
        }
        let stream = self.stream();
        stream.context().bind_to_thread().map_err(|e| {
            fail(
                sys::cublasStatus_t::CUBLAS_STATUS_NOT_INITIALIZED,
                &e.to_string(),
            )
        })?;
        let ty = Self::matrix_type();
        let (la, lb, lc) = (
            Layout::new(ty, &oa)?,
            Layout::new(ty, &ob)?,
            Layout::new(ty, &oc)?,
        );
        let desc = Desc(result::create_matmul_desc(
            Self::compute_type(),
            sys::cudaDataType_t::CUDA_R_32F,
        )?);
        use sys::cublasLtEpilogue_t as E;
        use sys::cublasLtMatmulDescAttributes_t as A;
        let op = |t: bool| {
            if t {
                sys::cublasOperation_t::CUBLAS_OP_T
            } else {
                sys::cublasOperation_t::CUBLAS_OP_N
            }
        };
        desc.set(A::CUBLASLT_MATMUL_DESC_TRANSA, op(cfg.transa).0 as i32)?;
        desc.set(A::CUBLASLT_MATMUL_DESC_TRANSB, op(cfg.transb).0 as i32)?;
        let epilogue = match (bias.is_some(), act) {
            (false, None) => E::CUBLASLT_EPILOGUE_DEFAULT,
            (false, Some(Activation::Relu)) => E::CUBLASLT_EPILOGUE_RELU,
            (false, Some(Activation::Gelu)) => E::CUBLASLT_EPILOGUE_GELU,
            (true, None) => E::CUBLASLT_EPILOGUE_BIAS,
            (true, Some(Activation::Relu)) => E::CUBLASLT_EPILOGUE_RELU_BIAS,
            (true, Some(Activation::Gelu)) => E::CUBLASLT_EPILOGUE_GELU_BIAS,
        };
        desc.set(A::CUBLASLT_MATMUL_DESC_EPILOGUE, epilogue.0)?;
        let (bias_ptr, _record_bias) = bias.map(|b| b.device_ptr(stream)).unzip();
        if let Some(ptr) = bias_ptr {
            desc.set(
                A::CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                ptr as usize as *const c_void,
            )?;
            desc.set(A::CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, ty.0 as i32)?;
        }
        let workspace = self.workspace();
        let pref = Pref(result::create_matmul_pref()?);
        let size = workspace.size as u64;
        // SAFETY: a live preference; MAX_WORKSPACE_BYTES is a uint64_t.
        unsafe {
            result::set_matmul_pref_attribute(
                pref.0,
                sys::cublasLtMatmulPreferenceAttributes_t::CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                (&size as *const u64).cast(),
                size_of::<u64>(),
            )
        }?;
        // SAFETY: live handle, descriptor, layouts and preference.
        let heuristic = unsafe {
            result::get_matmul_algo_heuristic(
                *self.handle(),
                desc.0,
                la.0,
                lb.0,
                lc.0,
                lc.0,
                pref.0,
            )
        }?;
        let (pa, _ra) = a.device_ptr(stream);
        let (pb, _rb) = b.device_ptr(stream);
        let (pc, _rc) = c.device_ptr_mut(stream);
        let (pw, _rw) = workspace.buffer.device_ptr(stream);
        // SAFETY: every buffer was checked to hold what its layout spans,
        // and the bias `m` elements; the workspace holds `workspace.size`
        // bytes; the guards order the accesses on the stream.
        unsafe {
            result::matmul(
                *self.handle(),
                desc.0,
                (&cfg.alpha as *const f32).cast(),
                (&cfg.beta as *const f32).cast(),
                pa as usize as *const c_void,
                la.0,
                pb as usize as *const c_void,
                lb.0,
                pc as usize as *const c_void,
                lc.0,
                pc as usize as *mut c_void,
                lc.0,
                &heuristic.algo,
                pw as usize as *mut c_void,
                workspace.size,
                stream.cu_stream() as sys::cudaStream_t,
            )
        }
    }
}

impl Matmul<f32> for CudaBlasLT {
    fn matrix_type() -> sys::cudaDataType {
        sys::cudaDataType_t::CUDA_R_32F
    }
    fn compute_type() -> sys::cublasComputeType_t {
        sys::cublasComputeType_t::CUBLAS_COMPUTE_32F
    }
}

#[cfg(feature = "f16")]
impl Matmul<half::f16> for CudaBlasLT {
    fn matrix_type() -> sys::cudaDataType {
        sys::cudaDataType_t::CUDA_R_16F
    }
    fn compute_type() -> sys::cublasComputeType_t {
        sys::cublasComputeType_t::CUBLAS_COMPUTE_32F
    }
}

#[cfg(feature = "f16")]
impl Matmul<half::bf16> for CudaBlasLT {
    fn matrix_type() -> sys::cudaDataType {
        sys::cudaDataType_t::CUDA_R_16BF
    }
    fn compute_type() -> sys::cublasComputeType_t {
        sys::cublasComputeType_t::CUBLAS_COMPUTE_32F
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const INVALID: CublasError = CublasError(sys::cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE);

    fn cfg(m: u64, n: u64, k: u64) -> MatmulConfig {
        MatmulConfig {
            transa: false,
            transb: false,
            transc: false,
            m,
            n,
            k,
            alpha: 1.0,
            lda: m as i64,
            ldb: k as i64,
            beta: 0.0,
            ldc: m as i64,
            stride_a: None,
            stride_b: None,
            stride_c: None,
            stride_bias: None,
            batch_size: None,
        }
    }

    #[test]
    fn shapes_and_strides_are_checked_before_any_call() {
        let [a, b, c] = operands(&cfg(7, 5, 3), false).unwrap();
        assert_eq!((a.needed, b.needed, c.needed), (21, 15, 35));
        let mut bad = cfg(7, 5, 3);
        bad.lda = 6;
        assert_eq!(operands(&bad, false).map(|_| ()), Err(INVALID));
        let mut t = cfg(7, 5, 3);
        t.transa = true;
        t.lda = 3;
        assert!(operands(&t, false).is_ok());
        assert_eq!(operands(&cfg(0, 5, 3), false).map(|_| ()), Err(INVALID));
        assert_eq!(operands(&cfg(7, 5, 0), false).map(|_| ()), Err(INVALID));
        let mut batched = cfg(4, 3, 2);
        batched.batch_size = Some(3);
        batched.stride_c = Some(12);
        let [_, _, c] = operands(&batched, false).unwrap();
        assert_eq!(c.needed, 36);
        batched.stride_c = Some(11);
        assert_eq!(operands(&batched, false).map(|_| ()), Err(INVALID));
        let (_, why) = result::last_error_detail().expect("a reason");
        assert!(why.contains("batch stride 11"), "{why}");
        let mut tc = cfg(2, 2, 2);
        tc.transc = true;
        assert_eq!(operands(&tc, false), Err(not_supported("transc")));
        let mut sb = cfg(2, 2, 2);
        sb.batch_size = Some(2);
        sb.stride_bias = Some(2);
        assert_eq!(operands(&sb, true), Err(not_supported("stride_bias")));
        assert!(operands(&sb, false).is_ok());
    }
}

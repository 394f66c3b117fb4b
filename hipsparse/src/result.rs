//! The result layer: every hipSPARSE status becomes a [`Result`]
//! ([`Error::Sparse`] naming the call), and every descriptor the safe
//! types make is an owner that destroys it on drop. This is the only
//! module of the crate that calls `hipsparse_sys`: the generic API's
//! operations are thin functions here ([`spmv`], [`spmm`], the SpGEMM,
//! SpSV and SpSM phases, the conversions; each `*_buffer_size` returns the
//! bytes of work area), and the element types' typed entry points
//! ([`Scalar`](crate::Scalar)) call its per-type functions.
//!
//! ```no_run
//! # fn main() -> hipsparse::Result<()> {
//! use hipsparse::result;
//! let handle = result::Handle::new(&hip::Device::get(0)?)?;
//! println!("hipSPARSE handle {:?}", handle.as_raw());
//! # Ok(()) }
//! ```
//!
//! # Safety
//!
//! The `unsafe` operations take a handle, descriptors and pointers as the C
//! API does. For each: `handle` is live (a [`Handle`]'s) and used by one
//! thread at a time; every descriptor is live (made here, not yet dropped)
//! over device memory of the handle's device that spans its sizes, alive
//! until the work is done on the handle's stream; `alpha` and `beta` are
//! host pointers (the handle's default pointer mode) to values of the
//! compute type, aligned as its raw type (16 bytes for a double complex:
//! `hip::c64` is), valid for the call; a work buffer is device memory of the handle's
//! device, alive until the work using it is done.

use crate::error::DROP_ERRORS;
use crate::error::{Error, Result};
use crate::IndexBase;
use hipsparse_sys as sys;
use hipsparse_sys::{
    hipDataType, hipStream_t, hipsparseConstDnMatDescr_t, hipsparseConstDnVecDescr_t,
    hipsparseConstSpMatDescr_t, hipsparseDenseToSparseAlg_t, hipsparseDirection_t,
    hipsparseDnMatDescr_t, hipsparseDnVecDescr_t, hipsparseHandle_t, hipsparseIndexType_t,
    hipsparseMatDescr_t, hipsparseOperation_t, hipsparseOrder_t, hipsparseSpGEMMAlg_t,
    hipsparseSpGEMMDescr_t, hipsparseSpMMAlg_t, hipsparseSpMVAlg_t, hipsparseSpMatDescr_t,
    hipsparseSpSMAlg_t, hipsparseSpSMDescr_t, hipsparseSpSVAlg_t, hipsparseSpSVDescr_t,
    hipsparseSparseToDenseAlg_t, hipsparseStatus_t,
};
use std::ffi::{c_int, c_void};

/// The loaded hipSPARSE (cuSPARSE on the NVIDIA platform), or
/// [`Error::Load`] with every path tried.
pub fn library() -> Result<&'static sys::loader::Hipsparse> {
    sys::loader::hipsparse().map_err(|e| Error::Load(e.clone()))
}

/// `Ok(())` for `HIPSPARSE_STATUS_SUCCESS`, else [`Error::Sparse`] naming
/// `call` (see [`Error::from_sparse`]).
#[inline]
pub fn check(call: &'static str, status: hipsparseStatus_t) -> Result<()> {
    if status.is_success() {
        Ok(())
    } else {
        Err(Error::from_sparse(call, status))
    }
}

fn record(result: Result<()>) {
    if let Err(e) = result {
        DROP_ERRORS.record_error(e);
    }
}

/// `hipsparseCreate`: a new handle on the current device, on the null
/// stream (destroy it with [`destroy`]; [`Handle`] owns one).
///
/// It may act on the whole device, which CUDA forbids during any capture
/// of the device: `_held` proves the caller holds the device's capture
/// gate ([`hip::Device::hold_captures`], or
/// [`hip::Device::release_outside_captures`] in `Drop`).
pub fn create(_held: &hip::CaptureHold<'_>) -> Result<hipsparseHandle_t> {
    library()?;
    let mut handle: hipsparseHandle_t = std::ptr::null_mut();
    // SAFETY: `handle` is a valid place for the new handle.
    check("hipsparseCreate", unsafe {
        sys::hipsparseCreate(&mut handle)
    })?;
    Ok(handle)
}

/// `hipsparseDestroy`.
///
/// # Safety
///
/// `handle` was made by [`create`], is not used after this call and is
/// destroyed once. As [`create`], `_held` proves the capture gate is held.
pub unsafe fn destroy(handle: hipsparseHandle_t, _held: &hip::CaptureHold<'_>) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hipsparseDestroy", unsafe { sys::hipsparseDestroy(handle) })
}

/// `hipsparseSetStream`: the stream the handle's work is enqueued on.
///
/// # Safety
///
/// `handle` is live; `stream` is a stream of the handle's device (or null)
/// that outlives every call made with the handle until another stream is
/// set.
pub unsafe fn set_stream(handle: hipsparseHandle_t, stream: hipStream_t) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hipsparseSetStream", unsafe {
        sys::hipsparseSetStream(handle, stream)
    })
}

/// A `hipsparseHandle_t` of one device, destroyed on drop (once no capture
/// of the device is open: see [`hip::Device::release_outside_captures`]).
#[derive(Debug)]
pub struct Handle(hipsparseHandle_t, std::sync::Arc<hip::Device>);

impl Handle {
    /// `hipsparseCreate` on `device`. Creating a handle may act on the
    /// whole device, which CUDA forbids during any capture of it, so this
    /// waits for other threads' captures ([`hip::Device::hold_captures`]).
    pub fn new(device: &std::sync::Arc<hip::Device>) -> Result<Handle> {
        let held = device.hold_captures("hipsparse::result::Handle::new")?;
        device.bind()?;
        Ok(Handle(create(&held)?, device.clone()))
    }

    /// The raw handle.
    pub fn as_raw(&self) -> hipsparseHandle_t {
        self.0
    }

    /// `hipsparseSetStream`.
    ///
    /// # Safety
    /// `stream` must outlive every call made with this handle until another
    /// stream is set.
    pub unsafe fn set_stream(&self, stream: hipStream_t) -> Result<()> {
        // SAFETY: a live handle; the stream's lifetime is the caller's.
        unsafe { set_stream(self.0, stream) }
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        let raw = hip::SendPtr(self.0);
        self.1.release_outside_captures(move |held| {
            // SAFETY: made by `create`, destroyed once.
            record(unsafe { destroy(raw.get(), held) });
        });
    }
}

const I32: hipsparseIndexType_t = hipsparseIndexType_t::HIPSPARSE_INDEX_32I;

/// A sparse matrix descriptor (`hipsparseSpMatDescr_t`), destroyed on drop.
#[derive(Debug)]
pub struct SpMat(hipsparseSpMatDescr_t);

impl SpMat {
    /// `hipsparseCreateCsr` over 32-bit row offsets and column indices.
    ///
    /// # Safety
    /// The pointers must address a CSR matrix of these sizes on the device
    /// for as long as the descriptor is used.
    pub unsafe fn csr<T>(
        (rows, cols, nnz): (usize, usize, usize),
        offsets: *const i32,
        indices: *const i32,
        values: *const T,
        base: IndexBase,
        data_type: hipDataType,
    ) -> Result<SpMat> {
        let mut d = std::ptr::null_mut();
        // SAFETY: the caller's contract; hipSPARSE only reads through the
        // pointers when an operation writes no output into the matrix (the
        // operations taking it read it).
        check("hipsparseCreateCsr", unsafe {
            sys::hipsparseCreateCsr(
                &mut d,
                rows as i64,
                cols as i64,
                nnz as i64,
                offsets.cast_mut().cast(),
                indices.cast_mut().cast(),
                values.cast_mut().cast(),
                I32,
                I32,
                base.raw(),
                data_type,
            )
        })?;
        Ok(SpMat(d))
    }

    /// `hipsparseCreateCsc` over 32-bit column offsets and row indices.
    ///
    /// # Safety
    /// As [`csr`](Self::csr), for a CSC matrix.
    pub unsafe fn csc<T>(
        (rows, cols, nnz): (usize, usize, usize),
        offsets: *const i32,
        indices: *const i32,
        values: *const T,
        base: IndexBase,
        data_type: hipDataType,
    ) -> Result<SpMat> {
        let mut d = std::ptr::null_mut();
        // SAFETY: as in `csr`.
        check("hipsparseCreateCsc", unsafe {
            sys::hipsparseCreateCsc(
                &mut d,
                rows as i64,
                cols as i64,
                nnz as i64,
                offsets.cast_mut().cast(),
                indices.cast_mut().cast(),
                values.cast_mut().cast(),
                I32,
                I32,
                base.raw(),
                data_type,
            )
        })?;
        Ok(SpMat(d))
    }

    /// `hipsparseCreateCoo` over 32-bit indices.
    ///
    /// # Safety
    /// As [`csr`](Self::csr), for a COO matrix.
    pub unsafe fn coo<T>(
        (rows, cols, nnz): (usize, usize, usize),
        row_indices: *const i32,
        col_indices: *const i32,
        values: *const T,
        base: IndexBase,
        data_type: hipDataType,
    ) -> Result<SpMat> {
        let mut d = std::ptr::null_mut();
        // SAFETY: as in `csr`.
        check("hipsparseCreateCoo", unsafe {
            sys::hipsparseCreateCoo(
                &mut d,
                rows as i64,
                cols as i64,
                nnz as i64,
                row_indices.cast_mut().cast(),
                col_indices.cast_mut().cast(),
                values.cast_mut().cast(),
                I32,
                base.raw(),
                data_type,
            )
        })?;
        Ok(SpMat(d))
    }

    /// The raw descriptor.
    pub fn as_raw(&self) -> hipsparseSpMatDescr_t {
        self.0
    }

    /// `hipsparseSpMatGetSize`: rows, columns, stored entries.
    pub fn size(&self) -> Result<(i64, i64, i64)> {
        let (mut r, mut c, mut n) = (0, 0, 0);
        // SAFETY: a live descriptor; three valid places to write.
        check("hipsparseSpMatGetSize", unsafe {
            sys::hipsparseSpMatGetSize(self.0, &mut r, &mut c, &mut n)
        })?;
        Ok((r, c, n))
    }

    /// `hipsparseSpMatSetAttribute` with a 4-byte enum value (fill mode,
    /// diagonal type).
    pub fn set_attribute(
        &self,
        attribute: hipsparse_sys::hipsparseSpMatAttribute_t,
        value: i32,
    ) -> Result<()> {
        // SAFETY: a live descriptor; `value` is read as the attribute's
        // int-sized enum.
        check("hipsparseSpMatSetAttribute", unsafe {
            sys::hipsparseSpMatSetAttribute(
                self.0,
                attribute,
                (&value as *const i32).cast(),
                size_of::<i32>(),
            )
        })
    }

    /// `hipsparseCsrSetPointers`.
    ///
    /// # Safety
    /// The pointers must address the matrix's arrays of its current sizes
    /// for as long as the descriptor is used.
    pub unsafe fn csr_set_pointers<T>(
        &self,
        offsets: *mut i32,
        indices: *mut i32,
        values: *mut T,
    ) -> Result<()> {
        // SAFETY: the caller's contract.
        check("hipsparseCsrSetPointers", unsafe {
            sys::hipsparseCsrSetPointers(self.0, offsets.cast(), indices.cast(), values.cast())
        })
    }
}

impl Drop for SpMat {
    fn drop(&mut self) {
        // SAFETY: made by a create call, destroyed once.
        record(check("hipsparseDestroySpMat", unsafe {
            sys::hipsparseDestroySpMat(self.0.cast_const())
        }));
    }
}

/// A dense vector descriptor, destroyed on drop.
#[derive(Debug)]
pub struct DnVec(hipsparseDnVecDescr_t);

impl DnVec {
    /// `hipsparseCreateDnVec`.
    ///
    /// # Safety
    /// `values` must address `len` elements of `data_type` on the device
    /// for as long as the descriptor is used (written only when it is an
    /// operation's output).
    pub unsafe fn new<T>(len: usize, values: *const T, data_type: hipDataType) -> Result<DnVec> {
        let mut d = std::ptr::null_mut();
        // SAFETY: the caller's contract.
        check("hipsparseCreateDnVec", unsafe {
            sys::hipsparseCreateDnVec(&mut d, len as i64, values.cast_mut().cast(), data_type)
        })?;
        Ok(DnVec(d))
    }

    /// The raw descriptor.
    pub fn as_raw(&self) -> hipsparseDnVecDescr_t {
        self.0
    }
}

impl Drop for DnVec {
    fn drop(&mut self) {
        // SAFETY: made by hipsparseCreateDnVec, destroyed once.
        record(check("hipsparseDestroyDnVec", unsafe {
            sys::hipsparseDestroyDnVec(self.0.cast_const())
        }));
    }
}

/// A dense matrix descriptor, destroyed on drop.
#[derive(Debug)]
pub struct DnMat(hipsparseDnMatDescr_t);

impl DnMat {
    /// `hipsparseCreateDnMat`.
    ///
    /// # Safety
    /// `values` must address a `rows` x `cols` matrix with leading
    /// dimension `ld` in `order` on the device for as long as the
    /// descriptor is used.
    pub unsafe fn new<T>(
        (rows, cols, ld): (usize, usize, usize),
        values: *const T,
        data_type: hipDataType,
        order: hipsparseOrder_t,
    ) -> Result<DnMat> {
        let mut d = std::ptr::null_mut();
        // SAFETY: the caller's contract.
        check("hipsparseCreateDnMat", unsafe {
            sys::hipsparseCreateDnMat(
                &mut d,
                rows as i64,
                cols as i64,
                ld as i64,
                values.cast_mut().cast(),
                data_type,
                order,
            )
        })?;
        Ok(DnMat(d))
    }

    /// The raw descriptor.
    pub fn as_raw(&self) -> hipsparseDnMatDescr_t {
        self.0
    }
}

impl Drop for DnMat {
    fn drop(&mut self) {
        // SAFETY: made by hipsparseCreateDnMat, destroyed once.
        record(check("hipsparseDestroyDnMat", unsafe {
            sys::hipsparseDestroyDnMat(self.0.cast_const())
        }));
    }
}

macro_rules! op_descriptor {
    ($name:ident, $raw:ty, $create:ident, $destroy:ident) => {
        #[doc = concat!("`", stringify!($raw), "`, destroyed on drop.")]
        #[derive(Debug)]
        pub struct $name($raw);

        impl $name {
            #[doc = concat!("`", stringify!($create), "`.")]
            pub fn new() -> Result<$name> {
                let mut d = std::ptr::null_mut();
                // SAFETY: `d` is a valid place for the descriptor.
                check(stringify!($create), unsafe { sys::$create(&mut d) })?;
                Ok($name(d))
            }

            /// The raw descriptor.
            pub fn as_raw(&self) -> $raw {
                self.0
            }
        }

        impl Drop for $name {
            fn drop(&mut self) {
                // SAFETY: made by the create call, destroyed once.
                record(check(stringify!($destroy), unsafe {
                    sys::$destroy(self.0)
                }));
            }
        }
    };
}

op_descriptor!(
    SpGemmDescr,
    hipsparseSpGEMMDescr_t,
    hipsparseSpGEMM_createDescr,
    hipsparseSpGEMM_destroyDescr
);
op_descriptor!(
    SpSvDescr,
    hipsparseSpSVDescr_t,
    hipsparseSpSV_createDescr,
    hipsparseSpSV_destroyDescr
);
op_descriptor!(
    SpSmDescr,
    hipsparseSpSMDescr_t,
    hipsparseSpSM_createDescr,
    hipsparseSpSM_destroyDescr
);
op_descriptor!(
    MatDescr,
    hipsparseMatDescr_t,
    hipsparseCreateMatDescr,
    hipsparseDestroyMatDescr
);

impl MatDescr {
    /// `hipsparseSetMatIndexBase`.
    pub fn set_index_base(&self, base: IndexBase) -> Result<()> {
        // SAFETY: a live descriptor.
        check("hipsparseSetMatIndexBase", unsafe {
            sys::hipsparseSetMatIndexBase(self.0, base.raw())
        })
    }
}

// ---- the generic API's operations -------------------------------------------

/// `hipsparseSpMV_bufferSize`: the bytes of work area [`spmv`] needs.
///
/// # Safety
/// As the [module's](self#safety): a live handle and descriptors, host
/// scalars of `compute_type`.
#[allow(clippy::too_many_arguments)]
pub unsafe fn spmv_buffer_size(
    handle: hipsparseHandle_t,
    op: hipsparseOperation_t,
    alpha: *const c_void,
    a: hipsparseConstSpMatDescr_t,
    x: hipsparseConstDnVecDescr_t,
    beta: *const c_void,
    y: hipsparseDnVecDescr_t,
    compute_type: hipDataType,
    alg: hipsparseSpMVAlg_t,
) -> Result<usize> {
    let mut size = 0usize;
    // SAFETY: the caller's contract; `size` is a valid place to write.
    check("hipsparseSpMV_bufferSize", unsafe {
        sys::hipsparseSpMV_bufferSize(
            handle,
            op,
            alpha,
            a,
            x,
            beta,
            y,
            compute_type,
            alg,
            &mut size,
        )
    })?;
    Ok(size)
}

/// `hipsparseSpMV`: `y = alpha * op(A) * x + beta * y`.
///
/// # Safety
/// As [`spmv_buffer_size`], with `buffer` holding at least the bytes it
/// returned for these arguments, on the handle's device.
#[allow(clippy::too_many_arguments)]
pub unsafe fn spmv(
    handle: hipsparseHandle_t,
    op: hipsparseOperation_t,
    alpha: *const c_void,
    a: hipsparseConstSpMatDescr_t,
    x: hipsparseConstDnVecDescr_t,
    beta: *const c_void,
    y: hipsparseDnVecDescr_t,
    compute_type: hipDataType,
    alg: hipsparseSpMVAlg_t,
    buffer: *mut c_void,
) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hipsparseSpMV", unsafe {
        sys::hipsparseSpMV(handle, op, alpha, a, x, beta, y, compute_type, alg, buffer)
    })
}

/// `hipsparseSpMM_bufferSize`: the bytes of work area [`spmm`] needs.
///
/// # Safety
/// As the [module's](self#safety): a live handle and descriptors, host
/// scalars of `compute_type`.
#[allow(clippy::too_many_arguments)]
pub unsafe fn spmm_buffer_size(
    handle: hipsparseHandle_t,
    op_a: hipsparseOperation_t,
    op_b: hipsparseOperation_t,
    alpha: *const c_void,
    a: hipsparseConstSpMatDescr_t,
    b: hipsparseConstDnMatDescr_t,
    beta: *const c_void,
    c: hipsparseDnMatDescr_t,
    compute_type: hipDataType,
    alg: hipsparseSpMMAlg_t,
) -> Result<usize> {
    let mut size = 0usize;
    // SAFETY: the caller's contract; `size` is a valid place to write.
    check("hipsparseSpMM_bufferSize", unsafe {
        sys::hipsparseSpMM_bufferSize(
            handle,
            op_a,
            op_b,
            alpha,
            a,
            b,
            beta,
            c,
            compute_type,
            alg,
            &mut size,
        )
    })?;
    Ok(size)
}

/// `hipsparseSpMM`: `C = alpha * op(A) * op(B) + beta * C`.
///
/// # Safety
/// As [`spmm_buffer_size`], with `buffer` holding at least the bytes it
/// returned for these arguments, on the handle's device.
#[allow(clippy::too_many_arguments)]
pub unsafe fn spmm(
    handle: hipsparseHandle_t,
    op_a: hipsparseOperation_t,
    op_b: hipsparseOperation_t,
    alpha: *const c_void,
    a: hipsparseConstSpMatDescr_t,
    b: hipsparseConstDnMatDescr_t,
    beta: *const c_void,
    c: hipsparseDnMatDescr_t,
    compute_type: hipDataType,
    alg: hipsparseSpMMAlg_t,
    buffer: *mut c_void,
) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hipsparseSpMM", unsafe {
        sys::hipsparseSpMM(
            handle,
            op_a,
            op_b,
            alpha,
            a,
            b,
            beta,
            c,
            compute_type,
            alg,
            buffer,
        )
    })
}

/// `hipsparseSpGEMM_workEstimation`: with a null `buffer`, the bytes it
/// needs; else the first phase of `C = alpha * op(A) * op(B)` in `buffer`
/// of `buffer_size` bytes. Returns the size as the call leaves it.
///
/// # Safety
/// As the [module's](self#safety): a live handle and descriptors (`descr`
/// made by [`SpGemmDescr::new`]), host scalars of `compute_type`; a
/// non-null `buffer` holds `buffer_size` bytes on the handle's device and
/// lives until [`spgemm_copy`] has run.
#[allow(clippy::too_many_arguments)]
pub unsafe fn spgemm_work_estimation(
    handle: hipsparseHandle_t,
    op_a: hipsparseOperation_t,
    op_b: hipsparseOperation_t,
    alpha: *const c_void,
    a: hipsparseConstSpMatDescr_t,
    b: hipsparseConstSpMatDescr_t,
    beta: *const c_void,
    c: hipsparseSpMatDescr_t,
    compute_type: hipDataType,
    alg: hipsparseSpGEMMAlg_t,
    descr: hipsparseSpGEMMDescr_t,
    buffer_size: usize,
    buffer: *mut c_void,
) -> Result<usize> {
    let mut size = buffer_size;
    // SAFETY: the caller's contract; `size` is a valid place to read and
    // write.
    check("hipsparseSpGEMM_workEstimation", unsafe {
        sys::hipsparseSpGEMM_workEstimation(
            handle,
            op_a,
            op_b,
            alpha,
            a,
            b,
            beta,
            c,
            compute_type,
            alg,
            descr,
            &mut size,
            buffer,
        )
    })?;
    Ok(size)
}

/// `hipsparseSpGEMM_compute`: with a null `buffer`, the bytes it needs;
/// else the product's second phase in `buffer` of `buffer_size` bytes,
/// after [`spgemm_work_estimation`]. Returns the size as the call leaves
/// it.
///
/// # Safety
/// As [`spgemm_work_estimation`].
#[allow(clippy::too_many_arguments)]
pub unsafe fn spgemm_compute(
    handle: hipsparseHandle_t,
    op_a: hipsparseOperation_t,
    op_b: hipsparseOperation_t,
    alpha: *const c_void,
    a: hipsparseConstSpMatDescr_t,
    b: hipsparseConstSpMatDescr_t,
    beta: *const c_void,
    c: hipsparseSpMatDescr_t,
    compute_type: hipDataType,
    alg: hipsparseSpGEMMAlg_t,
    descr: hipsparseSpGEMMDescr_t,
    buffer_size: usize,
    buffer: *mut c_void,
) -> Result<usize> {
    let mut size = buffer_size;
    // SAFETY: the caller's contract; `size` is a valid place to read and
    // write.
    check("hipsparseSpGEMM_compute", unsafe {
        sys::hipsparseSpGEMM_compute(
            handle,
            op_a,
            op_b,
            alpha,
            a,
            b,
            beta,
            c,
            compute_type,
            alg,
            descr,
            &mut size,
            buffer,
        )
    })?;
    Ok(size)
}

/// `hipsparseSpGEMM_copy`: writes the product computed by
/// [`spgemm_compute`] into `c`'s arrays.
///
/// # Safety
/// As [`spgemm_work_estimation`], after both phases ran with their
/// buffers, which are still alive; `c`'s arrays are set
/// ([`SpMat::csr_set_pointers`]) to the product's sizes.
#[allow(clippy::too_many_arguments)]
pub unsafe fn spgemm_copy(
    handle: hipsparseHandle_t,
    op_a: hipsparseOperation_t,
    op_b: hipsparseOperation_t,
    alpha: *const c_void,
    a: hipsparseConstSpMatDescr_t,
    b: hipsparseConstSpMatDescr_t,
    beta: *const c_void,
    c: hipsparseSpMatDescr_t,
    compute_type: hipDataType,
    alg: hipsparseSpGEMMAlg_t,
    descr: hipsparseSpGEMMDescr_t,
) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hipsparseSpGEMM_copy", unsafe {
        sys::hipsparseSpGEMM_copy(
            handle,
            op_a,
            op_b,
            alpha,
            a,
            b,
            beta,
            c,
            compute_type,
            alg,
            descr,
        )
    })
}

/// `hipsparseSpSV_bufferSize`: the bytes of work area [`spsv_analysis`]
/// needs.
///
/// # Safety
/// As the [module's](self#safety): a live handle and descriptors (`descr`
/// made by [`SpSvDescr::new`]), a host scalar of `compute_type`.
#[allow(clippy::too_many_arguments)]
pub unsafe fn spsv_buffer_size(
    handle: hipsparseHandle_t,
    op: hipsparseOperation_t,
    alpha: *const c_void,
    a: hipsparseConstSpMatDescr_t,
    x: hipsparseConstDnVecDescr_t,
    y: hipsparseDnVecDescr_t,
    compute_type: hipDataType,
    alg: hipsparseSpSVAlg_t,
    descr: hipsparseSpSVDescr_t,
) -> Result<usize> {
    let mut size = 0usize;
    // SAFETY: the caller's contract; `size` is a valid place to write.
    check("hipsparseSpSV_bufferSize", unsafe {
        sys::hipsparseSpSV_bufferSize(
            handle,
            op,
            alpha,
            a,
            x,
            y,
            compute_type,
            alg,
            descr,
            &mut size,
        )
    })?;
    Ok(size)
}

/// `hipsparseSpSV_analysis`: analyses `op(A)` for [`spsv_solve`], keeping
/// `buffer` in `descr`.
///
/// # Safety
/// As [`spsv_buffer_size`], with `buffer` holding at least the bytes it
/// returned for these arguments, on the handle's device, alive until the
/// last solve with `descr` has run.
#[allow(clippy::too_many_arguments)]
pub unsafe fn spsv_analysis(
    handle: hipsparseHandle_t,
    op: hipsparseOperation_t,
    alpha: *const c_void,
    a: hipsparseConstSpMatDescr_t,
    x: hipsparseConstDnVecDescr_t,
    y: hipsparseDnVecDescr_t,
    compute_type: hipDataType,
    alg: hipsparseSpSVAlg_t,
    descr: hipsparseSpSVDescr_t,
    buffer: *mut c_void,
) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hipsparseSpSV_analysis", unsafe {
        sys::hipsparseSpSV_analysis(handle, op, alpha, a, x, y, compute_type, alg, descr, buffer)
    })
}

/// `hipsparseSpSV_solve`: solves `op(A) * y = alpha * x` for `y`.
///
/// # Safety
/// As [`spsv_analysis`], which has run on `descr` with these arguments
/// and whose buffer is still alive.
#[allow(clippy::too_many_arguments)]
pub unsafe fn spsv_solve(
    handle: hipsparseHandle_t,
    op: hipsparseOperation_t,
    alpha: *const c_void,
    a: hipsparseConstSpMatDescr_t,
    x: hipsparseConstDnVecDescr_t,
    y: hipsparseDnVecDescr_t,
    compute_type: hipDataType,
    alg: hipsparseSpSVAlg_t,
    descr: hipsparseSpSVDescr_t,
) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hipsparseSpSV_solve", unsafe {
        sys::hipsparseSpSV_solve(handle, op, alpha, a, x, y, compute_type, alg, descr)
    })
}

/// `hipsparseSpSM_bufferSize`: the bytes of work area [`spsm_analysis`]
/// needs.
///
/// # Safety
/// As the [module's](self#safety): a live handle and descriptors (`descr`
/// made by [`SpSmDescr::new`]), a host scalar of `compute_type`.
#[allow(clippy::too_many_arguments)]
pub unsafe fn spsm_buffer_size(
    handle: hipsparseHandle_t,
    op_a: hipsparseOperation_t,
    op_b: hipsparseOperation_t,
    alpha: *const c_void,
    a: hipsparseConstSpMatDescr_t,
    b: hipsparseConstDnMatDescr_t,
    c: hipsparseDnMatDescr_t,
    compute_type: hipDataType,
    alg: hipsparseSpSMAlg_t,
    descr: hipsparseSpSMDescr_t,
) -> Result<usize> {
    let mut size = 0usize;
    // SAFETY: the caller's contract; `size` is a valid place to write.
    check("hipsparseSpSM_bufferSize", unsafe {
        sys::hipsparseSpSM_bufferSize(
            handle,
            op_a,
            op_b,
            alpha,
            a,
            b,
            c,
            compute_type,
            alg,
            descr,
            &mut size,
        )
    })?;
    Ok(size)
}

/// `hipsparseSpSM_analysis`: analyses `op(A)` for [`spsm_solve`].
///
/// # Safety
/// As [`spsm_buffer_size`], with `buffer` holding at least the bytes it
/// returned for these arguments, on the handle's device, alive until the
/// last solve with `descr` has run.
#[allow(clippy::too_many_arguments)]
pub unsafe fn spsm_analysis(
    handle: hipsparseHandle_t,
    op_a: hipsparseOperation_t,
    op_b: hipsparseOperation_t,
    alpha: *const c_void,
    a: hipsparseConstSpMatDescr_t,
    b: hipsparseConstDnMatDescr_t,
    c: hipsparseDnMatDescr_t,
    compute_type: hipDataType,
    alg: hipsparseSpSMAlg_t,
    descr: hipsparseSpSMDescr_t,
    buffer: *mut c_void,
) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hipsparseSpSM_analysis", unsafe {
        sys::hipsparseSpSM_analysis(
            handle,
            op_a,
            op_b,
            alpha,
            a,
            b,
            c,
            compute_type,
            alg,
            descr,
            buffer,
        )
    })
}

/// `hipsparseSpSM_solve`: solves `op(A) * C = alpha * op(B)` for `C`.
///
/// # Safety
/// As [`spsm_analysis`], which has run on `descr` with these arguments
/// and whose buffer is still alive.
#[allow(clippy::too_many_arguments)]
pub unsafe fn spsm_solve(
    handle: hipsparseHandle_t,
    op_a: hipsparseOperation_t,
    op_b: hipsparseOperation_t,
    alpha: *const c_void,
    a: hipsparseConstSpMatDescr_t,
    b: hipsparseConstDnMatDescr_t,
    c: hipsparseDnMatDescr_t,
    compute_type: hipDataType,
    alg: hipsparseSpSMAlg_t,
    descr: hipsparseSpSMDescr_t,
    buffer: *mut c_void,
) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hipsparseSpSM_solve", unsafe {
        sys::hipsparseSpSM_solve(
            handle,
            op_a,
            op_b,
            alpha,
            a,
            b,
            c,
            compute_type,
            alg,
            descr,
            buffer,
        )
    })
}

/// `hipsparseSparseToDense_bufferSize`: the bytes of work area
/// [`sparse_to_dense`] needs.
///
/// # Safety
/// A live handle and descriptors.
pub unsafe fn sparse_to_dense_buffer_size(
    handle: hipsparseHandle_t,
    a: hipsparseConstSpMatDescr_t,
    b: hipsparseDnMatDescr_t,
    alg: hipsparseSparseToDenseAlg_t,
) -> Result<usize> {
    let mut size = 0usize;
    // SAFETY: the caller's contract; `size` is a valid place to write.
    check("hipsparseSparseToDense_bufferSize", unsafe {
        sys::hipsparseSparseToDense_bufferSize(handle, a, b, alg, &mut size)
    })?;
    Ok(size)
}

/// `hipsparseSparseToDense`: writes the sparse `a` into the dense `b`.
///
/// # Safety
/// As the [module's](self#safety), with `buffer` holding at least the
/// bytes [`sparse_to_dense_buffer_size`] returned for these arguments, on
/// the handle's device.
pub unsafe fn sparse_to_dense(
    handle: hipsparseHandle_t,
    a: hipsparseConstSpMatDescr_t,
    b: hipsparseDnMatDescr_t,
    alg: hipsparseSparseToDenseAlg_t,
    buffer: *mut c_void,
) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hipsparseSparseToDense", unsafe {
        sys::hipsparseSparseToDense(handle, a, b, alg, buffer)
    })
}

/// `hipsparseDenseToSparse_bufferSize`: the bytes of work area
/// [`dense_to_sparse_analysis`] and [`dense_to_sparse_convert`] need.
///
/// # Safety
/// A live handle and descriptors.
pub unsafe fn dense_to_sparse_buffer_size(
    handle: hipsparseHandle_t,
    a: hipsparseConstDnMatDescr_t,
    b: hipsparseSpMatDescr_t,
    alg: hipsparseDenseToSparseAlg_t,
) -> Result<usize> {
    let mut size = 0usize;
    // SAFETY: the caller's contract; `size` is a valid place to write.
    check("hipsparseDenseToSparse_bufferSize", unsafe {
        sys::hipsparseDenseToSparse_bufferSize(handle, a, b, alg, &mut size)
    })?;
    Ok(size)
}

/// `hipsparseDenseToSparse_analysis`: counts the dense `a`'s non-zeros,
/// writing `b`'s row offsets (then [`SpMat::size`] has the count).
///
/// # Safety
/// As the [module's](self#safety), with `buffer` holding at least the
/// bytes [`dense_to_sparse_buffer_size`] returned for these arguments, on
/// the handle's device.
pub unsafe fn dense_to_sparse_analysis(
    handle: hipsparseHandle_t,
    a: hipsparseConstDnMatDescr_t,
    b: hipsparseSpMatDescr_t,
    alg: hipsparseDenseToSparseAlg_t,
    buffer: *mut c_void,
) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hipsparseDenseToSparse_analysis", unsafe {
        sys::hipsparseDenseToSparse_analysis(handle, a, b, alg, buffer)
    })
}

/// `hipsparseDenseToSparse_convert`: writes the dense `a`'s non-zeros into
/// `b`'s arrays.
///
/// # Safety
/// As [`dense_to_sparse_analysis`], which has run with these arguments;
/// `b`'s arrays are set ([`SpMat::csr_set_pointers`]) to the count it
/// found.
pub unsafe fn dense_to_sparse_convert(
    handle: hipsparseHandle_t,
    a: hipsparseConstDnMatDescr_t,
    b: hipsparseSpMatDescr_t,
    alg: hipsparseDenseToSparseAlg_t,
    buffer: *mut c_void,
) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hipsparseDenseToSparse_convert", unsafe {
        sys::hipsparseDenseToSparse_convert(handle, a, b, alg, buffer)
    })
}

// ---- BSR, by element type ---------------------------------------------------

/// One `hipsparse?bsrmv` per element type, returning the raw status: the
/// entries behind [`Scalar::bsrmv`](crate::Scalar::bsrmv), whose caller
/// checks it (as `hipsparseXbsrmv`).
macro_rules! bsrmv {
    ($($name:ident = $c:ident($t:ty);)*) => {$(
        #[doc = concat!(
            "`", stringify!($c), "`: `y = alpha * op(A) * x + beta * y` for a BSR ",
            "matrix of `mb` x `nb` blocks; the raw status, for the caller to check."
        )]
        ///
        /// # Safety
        /// `hipsparseXbsrmv`'s contract: a live handle and matrix
        /// descriptor, device arrays of a BSR matrix of `mb` x `nb` blocks
        /// of `block_dim`², vectors of its sizes, and host scalars.
        #[allow(clippy::too_many_arguments)]
        pub(crate) unsafe fn $name(
            handle: hipsparseHandle_t,
            dir: hipsparseDirection_t,
            op: hipsparseOperation_t,
            mb: c_int,
            nb: c_int,
            nnzb: c_int,
            alpha: *const $t,
            descr: hipsparseMatDescr_t,
            values: *const $t,
            row_offsets: *const c_int,
            col_indices: *const c_int,
            block_dim: c_int,
            x: *const $t,
            beta: *const $t,
            y: *mut $t,
        ) -> hipsparseStatus_t {
            // SAFETY: the caller's contract.
            unsafe {
                sys::$c(
                    handle,
                    dir,
                    op,
                    mb,
                    nb,
                    nnzb,
                    alpha,
                    descr,
                    values,
                    row_offsets,
                    col_indices,
                    block_dim,
                    x,
                    beta,
                    y,
                )
            }
        }
    )*};
}
bsrmv! {
    sbsrmv = hipsparseSbsrmv(f32);
    dbsrmv = hipsparseDbsrmv(f64);
    cbsrmv = hipsparseCbsrmv(sys::hipComplex);
    zbsrmv = hipsparseZbsrmv(sys::hipDoubleComplex);
}

#[cfg(test)]
mod tests {
    use hip::{c32, c64};
    use std::mem::align_of;

    /// The SIGSEGV of the c64 SpMV, when `c64` was 8-byte aligned:
    /// cuSPARSE reads a `cuDoubleComplex` (hip-sys's `hipDoubleComplex`)
    /// host scalar with aligned 16-byte loads. Each element type is now
    /// aligned as its raw type, so its own address serves.
    #[test]
    fn element_types_are_aligned_as_the_raw_types() {
        assert_eq!(
            align_of::<c64>(),
            align_of::<hipsparse_sys::hipDoubleComplex>()
        );
        assert_eq!(align_of::<c32>(), align_of::<hipsparse_sys::hipComplex>());
        let on_stack = [c64::new(1.0, -2.0), c64::new(3.0, 4.0)];
        for z in &on_stack {
            assert_eq!(z as *const c64 as usize % 16, 0);
        }
    }
}

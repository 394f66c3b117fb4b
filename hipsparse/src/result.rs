//! The result layer: every hipSPARSE status becomes a [`Result`]
//! ([`Error::Sparse`] naming the call), and every descriptor the safe
//! types make is an owner that destroys it on drop. This is the only
//! module of the crate that calls `hipsparse_sys`, apart from the element
//! types' typed entry points ([`Scalar`](crate::Scalar)).
//!
//! ```no_run
//! # fn main() -> hipsparse::Result<()> {
//! use hipsparse::result;
//! let handle = result::Handle::new(&hip::Device::get(0)?)?;
//! println!("hipSPARSE handle {:?}", handle.as_raw());
//! # Ok(()) }
//! ```

use crate::error::{Error, Result};
use crate::IndexBase;
use hipsparse_sys as sys;
use hipsparse_sys::{
    hipDataType, hipStream_t, hipsparseDnMatDescr_t, hipsparseDnVecDescr_t, hipsparseHandle_t,
    hipsparseIndexType_t, hipsparseMatDescr_t, hipsparseOrder_t, hipsparseSpGEMMDescr_t,
    hipsparseSpMatDescr_t, hipsparseSpSMDescr_t, hipsparseSpSVDescr_t, hipsparseStatus_t,
};
use std::ffi::c_void;

static DROP_ERRORS: hip::DropErrorRegistry<Error> = hip::DropErrorRegistry::new();

/// Takes the errors seen while destroying handles and descriptors (in
/// `Drop`, which cannot return them), oldest first.
pub fn take_drop_errors() -> Vec<Error> {
    DROP_ERRORS.take_all()
}

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

/// A `hipsparseHandle_t` of one device, destroyed on drop (once no capture
/// of the device is open: see [`hip::Device::release_outside_captures`]).
#[derive(Debug)]
pub struct Handle(hipsparseHandle_t, std::sync::Arc<hip::Device>);

impl Handle {
    /// `hipsparseCreate` on `device`. Creating a handle may act on the
    /// whole device, which CUDA forbids during any capture of it, so this
    /// waits for other threads' captures ([`hip::Device::hold_captures`]).
    pub fn new(device: &std::sync::Arc<hip::Device>) -> Result<Handle> {
        let _held = device.hold_captures("hipsparse::result::Handle::new")?;
        device.bind()?;
        let mut h = std::ptr::null_mut();
        // SAFETY: `h` is a valid place for the handle.
        check("hipsparseCreate", unsafe { sys::hipsparseCreate(&mut h) })?;
        Ok(Handle(h, device.clone()))
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
        check("hipsparseSetStream", unsafe {
            sys::hipsparseSetStream(self.0, stream)
        })
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        let raw = hip::SendPtr(self.0);
        self.1.release_outside_captures(move |_held| {
            // SAFETY: made by hipsparseCreate, destroyed once.
            record(check("hipsparseDestroy", unsafe {
                sys::hipsparseDestroy(raw.get())
            }));
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

/// A host scalar (alpha, beta) at a 16-byte aligned address, as hipSPARSE
/// takes it in host pointer mode.
///
/// cuSPARSE reads a `cuDoubleComplex` scalar, a `double2` aligned to 16
/// bytes, with aligned 16-byte loads; [`hip::c64`] is two `f64`s aligned to
/// 8, so a `c64` on the stack at an address of 8 modulo 16 made its SpMV
/// die with SIGSEGV on the host. Every scalar goes through this holder,
/// whatever its type (the alignment costs nothing for the real ones).
#[repr(C, align(16))]
#[derive(Clone, Copy, Debug)]
pub(crate) struct HostScalar<T>(pub(crate) T);

impl<T> HostScalar<T> {
    /// The value's address, typed.
    pub(crate) fn as_ptr(&self) -> *const T {
        &self.0
    }

    /// The value's address as the `const void*` of the generic API.
    pub(crate) fn as_void(&self) -> *const c_void {
        self.as_ptr().cast()
    }
}

#[cfg(test)]
mod tests {
    use super::HostScalar;
    use hip::{c32, c64};
    use std::mem::align_of;

    /// The SIGSEGV of the c64 SpMV: `c64` alone is 8-byte aligned while
    /// cuSPARSE's `cuDoubleComplex` (hip-sys's `hipDoubleComplex`) is
    /// 16-byte aligned; the holder gives every scalar the larger alignment.
    #[test]
    fn host_scalars_are_aligned_as_the_raw_complex_types() {
        assert_eq!(align_of::<c64>(), 8);
        assert_eq!(align_of::<hipsparse_sys::hipDoubleComplex>(), 16);
        assert!(align_of::<HostScalar<c64>>() >= align_of::<hipsparse_sys::hipDoubleComplex>());
        assert!(align_of::<HostScalar<c32>>() >= align_of::<hipsparse_sys::hipComplex>());
        // On the stack beside values of smaller alignment.
        let a = HostScalar(c64 { re: 1.0, im: -2.0 });
        let b = HostScalar(3.0f32);
        let c = HostScalar(c32 { re: 4.0, im: 5.0 });
        for addr in [
            a.as_void() as usize,
            b.as_void() as usize,
            c.as_void() as usize,
        ] {
            assert_eq!(addr % 16, 0, "{addr:#x}");
        }
        // SAFETY: the pointers address the values just made.
        unsafe {
            assert_eq!(*a.as_ptr(), c64 { re: 1.0, im: -2.0 });
            assert_eq!(*b.as_ptr(), 3.0);
            assert_eq!(*c.as_ptr().cast::<[f32; 2]>(), [4.0, 5.0]);
        }
    }
}

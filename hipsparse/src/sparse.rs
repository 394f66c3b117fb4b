//! [`Sparse`]: a hipSPARSE handle bound to a stream, and the operations of
//! the generic API on it, each with its work buffers sized and owned here.

use crate::dense::DenseLayout;
use crate::error::{Error, Result};
use crate::matrix::{same_device, Bsr, BsrAsCsr, Csr, SparseMatrix};
use crate::result::{self, check, DnMat, DnVec, SpMat};
use crate::scalar::Scalar;
use crate::validate;
use crate::IndexBase;
use hip::{AccessEvents, DeviceBuffer, DeviceMemory, DeviceMemoryMut, Stream};
use hipsparse_sys as sys;
use hipsparse_sys::{
    hipsparseDenseToSparseAlg_t, hipsparseDiagType_t, hipsparseFillMode_t, hipsparseOperation_t,
    hipsparseSpGEMMAlg_t, hipsparseSpMMAlg_t, hipsparseSpMVAlg_t, hipsparseSpMatAttribute_t,
    hipsparseSpSMAlg_t, hipsparseSpSVAlg_t, hipsparseSparseToDenseAlg_t,
};
use std::cell::RefCell;
use std::ffi::c_void;

/// `op(A)`: the matrix itself, its transpose or its conjugate transpose.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Operation {
    /// `A`.
    #[default]
    NonTranspose,
    /// `Aᵀ`.
    Transpose,
    /// `Aᴴ` (`Aᵀ` for real types).
    ConjugateTranspose,
}

impl Operation {
    fn raw(self) -> hipsparseOperation_t {
        match self {
            Operation::NonTranspose => hipsparseOperation_t::HIPSPARSE_OPERATION_NON_TRANSPOSE,
            Operation::Transpose => hipsparseOperation_t::HIPSPARSE_OPERATION_TRANSPOSE,
            Operation::ConjugateTranspose => {
                hipsparseOperation_t::HIPSPARSE_OPERATION_CONJUGATE_TRANSPOSE
            }
        }
    }

    /// `(rows, cols)` of `op(A)` for an `A` of `rows` x `cols`.
    pub fn apply(self, (rows, cols): (usize, usize)) -> (usize, usize) {
        match self {
            Operation::NonTranspose => (rows, cols),
            _ => (cols, rows),
        }
    }
}

/// Which triangle of the matrix a triangular solve reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Triangle {
    /// The lower triangle, diagonal included.
    Lower,
    /// The upper triangle, diagonal included.
    Upper,
}

/// Whether a triangular solve reads the diagonal or takes it as ones.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Diagonal {
    /// The stored diagonal (every diagonal entry must be stored and
    /// non-zero).
    #[default]
    NonUnit,
    /// Ones, whatever is stored.
    Unit,
}

/// A hipSPARSE handle whose every operation is enqueued on one stream.
///
/// Operations return once their work is enqueued: read results with a copy
/// on the same stream (or after `stream.synchronize()`). Work buffers are
/// allocated in stream order, kept for the next call and grown when a call
/// needs more; matrices and vectors are checked before any hipSPARSE call.
pub struct Sparse {
    handle: result::Handle,
    stream: Stream,
    workspace: RefCell<Option<DeviceBuffer<u8>>>,
}

// SAFETY: a hipSPARSE (and cuSPARSE) handle may be used from any host
// thread, one at a time: `Sparse` moves between threads but is not `Sync`
// (the `RefCell` of its workspace already rules that out).
unsafe impl Send for Sparse {}

impl std::fmt::Debug for Sparse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sparse")
            .field("handle", &self.handle.as_raw())
            .field("device", &self.stream.device().ordinal())
            .finish_non_exhaustive()
    }
}

/// A host scalar (alpha, beta) as the `const void*` of the generic API.
/// Every element type is aligned as its raw type (`hip::c64` to 16, as
/// cuSPARSE's `cuDoubleComplex`, which it reads with aligned loads), so the
/// value's own address serves.
fn host_scalar<T: Scalar>(value: &T) -> *const c_void {
    (value as *const T).cast()
}

fn events<'a>(list: &[&'a AccessEvents]) -> Vec<&'a AccessEvents> {
    list.to_vec()
}

impl Sparse {
    /// `hipsparseCreate` on the stream's device, then `hipsparseSetStream`.
    pub fn new(stream: &Stream) -> Result<Sparse> {
        result::library()?;
        let handle = result::Handle::new(stream.device())?;
        // SAFETY: the handle keeps a clone of the stream, so the stream
        // outlives it.
        unsafe { handle.set_stream(stream.as_raw()) }?;
        Ok(Sparse {
            handle,
            stream: stream.clone(),
            workspace: RefCell::new(None),
        })
    }

    /// The stream every operation is enqueued on.
    pub fn stream(&self) -> &Stream {
        &self.stream
    }

    /// The raw handle (for calls this crate does not wrap).
    pub fn as_raw(&self) -> sys::hipsparseHandle_t {
        self.handle.as_raw()
    }

    fn device(&self) -> usize {
        self.stream.device().ordinal()
    }

    /// A work buffer of at least `bytes` (the cached one, grown if needed;
    /// at least 1 byte, so its address is never null). Its events are
    /// recorded as written by the caller's operation.
    fn workspace(&self, bytes: usize) -> Result<std::cell::RefMut<'_, DeviceBuffer<u8>>> {
        let mut slot = self.workspace.borrow_mut();
        if slot.as_ref().map_or(true, |b| b.len() < bytes.max(1)) {
            *slot = Some(self.stream.alloc::<u8>(bytes.max(1).next_power_of_two())?);
        }
        Ok(std::cell::RefMut::map(slot, |s| {
            s.as_mut().expect("set just above")
        }))
    }

    /// `y = alpha * op(A) * x + beta * y` (`hipsparseSpMV`, default
    /// algorithm) for a CSR, CSC or COO matrix: `x` has `op(A)`'s columns,
    /// `y` its rows.
    ///
    /// ```no_run
    /// # fn main() -> hipsparse::Result<()> {
    /// use hipsparse::{Csr, IndexBase, Operation, Sparse};
    /// let stream = hip::Stream::new(&hip::Device::get(0)?)?;
    /// let sparse = Sparse::new(&stream)?;
    /// let a = Csr::from_host(&stream, 2, 2, &[0, 1, 2], &[0, 1], &[2.0f64, 3.0], IndexBase::Zero)?;
    /// let x = stream.clone_htod(&[1.0f64, 1.0])?;
    /// let mut y = stream.alloc_zeroed::<f64>(2)?;
    /// sparse.spmv(Operation::NonTranspose, 1.0, &a, &x, 0.0, &mut y)?;
    /// assert_eq!(stream.clone_dtoh(&y)?, [2.0, 3.0]);
    /// # Ok(()) }
    /// ```
    pub fn spmv<T: Scalar, A: SparseMatrix<T>>(
        &self,
        op: Operation,
        alpha: T,
        a: &A,
        x: &impl DeviceMemory<T>,
        beta: T,
        y: &mut impl DeviceMemoryMut<T>,
    ) -> Result<()> {
        const OP: &str = "Sparse::spmv";
        let (m, n) = op.apply((a.rows(), a.cols()));
        validate::same(OP, "x length (columns of op(A))", x.len(), n)?;
        validate::same(OP, "y length (rows of op(A))", y.len(), m)?;
        same_device(OP, "A", a.device_ordinal(), self.device())?;
        same_device(OP, "x", x.device().ordinal(), self.device())?;
        same_device(OP, "y", y.device().ordinal(), self.device())?;
        self.stream.device().bind()?;
        let mat = a.descriptor()?;
        // SAFETY: `x` and `y` hold `n` and `m` elements (checked above) and
        // outlive the descriptors, which are dropped at the end of this call.
        let vx = unsafe { DnVec::new(n, x.device_ptr(), T::DATA_TYPE) }?;
        // SAFETY: as for `vx`.
        let vy = unsafe { DnVec::new(m, y.device_ptr_mut(), T::DATA_TYPE) }?;
        let (pa, pb) = (host_scalar(&alpha), host_scalar(&beta));
        let alg = hipsparseSpMVAlg_t::HIPSPARSE_SPMV_ALG_DEFAULT;
        // SAFETY: live handle and descriptors; host scalars of T.
        let size = unsafe {
            result::spmv_buffer_size(
                self.as_raw(),
                op.raw(),
                pa,
                mat.as_raw().cast_const(),
                vx.as_raw().cast_const(),
                pb,
                vy.as_raw(),
                T::DATA_TYPE,
                alg,
            )
        }?;
        let mut work = self.workspace(size)?;
        let work_ptr = work.as_device_ptr_mut().cast::<c_void>();
        let mut reads = a.access_events();
        reads.push(x.access_events());
        let writes = events(&[y.access_events(), work.access_events()]);
        self.stream.enqueue_tracked(&reads, &writes, || {
            // SAFETY: as for the size query, with a work buffer of at least
            // `size` bytes on the handle's stream.
            unsafe {
                result::spmv(
                    self.as_raw(),
                    op.raw(),
                    pa,
                    mat.as_raw().cast_const(),
                    vx.as_raw().cast_const(),
                    pb,
                    vy.as_raw(),
                    T::DATA_TYPE,
                    alg,
                    work_ptr,
                )
            }
        })
    }

    /// `y = alpha * A * x + beta * y` for a BSR matrix
    /// (`hipsparse?bsrmv`; hipSPARSE's generic API has no BSR descriptor).
    /// Blocks of 1 x 1, which cuSPARSE's bsrmv refuses, are the CSR matrix
    /// they spell and go through [`spmv`](Self::spmv).
    pub fn bsrmv<T: Scalar>(
        &self,
        alpha: T,
        a: &Bsr<T>,
        x: &impl DeviceMemory<T>,
        beta: T,
        y: &mut impl DeviceMemoryMut<T>,
    ) -> Result<()> {
        const OP: &str = "Sparse::bsrmv";
        if a.block_dim == 1 {
            return self.spmv(Operation::NonTranspose, alpha, &BsrAsCsr(a), x, beta, y);
        }
        validate::same(OP, "x length (columns of A)", x.len(), a.cols())?;
        validate::same(OP, "y length (rows of A)", y.len(), a.rows())?;
        same_device(OP, "A", a.values.device().ordinal(), self.device())?;
        same_device(OP, "x", x.device().ordinal(), self.device())?;
        same_device(OP, "y", y.device().ordinal(), self.device())?;
        self.stream.device().bind()?;
        let descr = result::MatDescr::new()?;
        descr.set_index_base(a.base)?;
        let reads = events(&[
            a.offsets.access_events(),
            a.indices.access_events(),
            a.values.access_events(),
            x.access_events(),
        ]);
        let yp = y.device_ptr_mut();
        let writes = events(&[y.access_events()]);
        self.stream.enqueue_tracked(&reads, &writes, || {
            // SAFETY: a live handle and descriptor; the arrays hold a
            // checked BSR matrix of these block counts (each fits an int),
            // `x` and `y` its column and row counts; the scalars are live
            // host values, aligned as their raw types.
            check("hipsparseXbsrmv", unsafe {
                T::bsrmv(
                    self.as_raw(),
                    a.order.raw(),
                    hipsparseOperation_t::HIPSPARSE_OPERATION_NON_TRANSPOSE,
                    (
                        a.block_rows as i32,
                        a.block_cols as i32,
                        a.indices.len() as i32,
                    ),
                    &alpha,
                    descr.as_raw(),
                    (
                        a.values.as_device_ptr(),
                        a.offsets.as_device_ptr(),
                        a.indices.as_device_ptr(),
                    ),
                    a.block_dim as i32,
                    x.device_ptr(),
                    &beta,
                    yp,
                )
            })
        })
    }

    /// `C = alpha * op(A) * B + beta * C` (`hipsparseSpMM`, default
    /// algorithm): `B` is `op(A)`'s columns x `n`, `C` its rows x `n`, both
    /// dense in the same order.
    #[allow(clippy::too_many_arguments)]
    pub fn spmm<T: Scalar, A: SparseMatrix<T>>(
        &self,
        op: Operation,
        alpha: T,
        a: &A,
        (b_layout, b): (DenseLayout, &impl DeviceMemory<T>),
        beta: T,
        (c_layout, c): (DenseLayout, &mut impl DeviceMemoryMut<T>),
    ) -> Result<()> {
        const OP: &str = "Sparse::spmm";
        let (m, k) = op.apply((a.rows(), a.cols()));
        b_layout.check(OP, "B", b.len())?;
        c_layout.check(OP, "C", c.len())?;
        validate::same(OP, "B rows (columns of op(A))", b_layout.rows, k)?;
        validate::same(OP, "C rows (rows of op(A))", c_layout.rows, m)?;
        validate::same(OP, "C columns (columns of B)", c_layout.cols, b_layout.cols)?;
        if b_layout.order != c_layout.order {
            return Err(Error::invalid(
                OP,
                format!(
                    "B is {:?} and C {:?}; both must have the same order",
                    b_layout.order, c_layout.order
                ),
            ));
        }
        same_device(OP, "A", a.device_ordinal(), self.device())?;
        same_device(OP, "B", b.device().ordinal(), self.device())?;
        same_device(OP, "C", c.device().ordinal(), self.device())?;
        self.stream.device().bind()?;
        let mat = a.descriptor()?;
        // SAFETY: the layouts were checked against the buffers, which
        // outlive the descriptors.
        let mb = unsafe { dn_mat(&b_layout, b.device_ptr()) }?;
        // SAFETY: as for `mb`.
        let mc = unsafe { dn_mat(&c_layout, c.device_ptr_mut()) }?;
        let (pa, pb) = (host_scalar(&alpha), host_scalar(&beta));
        let op_b = hipsparseOperation_t::HIPSPARSE_OPERATION_NON_TRANSPOSE;
        let alg = hipsparseSpMMAlg_t::HIPSPARSE_SPMM_ALG_DEFAULT;
        // SAFETY: live handle and descriptors; host scalars of T.
        let size = unsafe {
            result::spmm_buffer_size(
                self.as_raw(),
                op.raw(),
                op_b,
                pa,
                mat.as_raw().cast_const(),
                mb.as_raw().cast_const(),
                pb,
                mc.as_raw(),
                T::DATA_TYPE,
                alg,
            )
        }?;
        let mut work = self.workspace(size)?;
        let work_ptr = work.as_device_ptr_mut().cast::<c_void>();
        let mut reads = a.access_events();
        reads.push(b.access_events());
        let writes = events(&[c.access_events(), work.access_events()]);
        self.stream.enqueue_tracked(&reads, &writes, || {
            // SAFETY: as for the size query, with `size` bytes of work area.
            unsafe {
                result::spmm(
                    self.as_raw(),
                    op.raw(),
                    op_b,
                    pa,
                    mat.as_raw().cast_const(),
                    mb.as_raw().cast_const(),
                    pb,
                    mc.as_raw(),
                    T::DATA_TYPE,
                    alg,
                    work_ptr,
                )
            }
        })
    }

    /// `C = alpha * A * B` for CSR matrices (`hipsparseSpGEMM_*`, default
    /// algorithm): a new CSR matrix with `A`'s rows, `B`'s columns and
    /// `A`'s index base. Waits for the stream (the size of `C` is known only
    /// once hipSPARSE has computed it).
    pub fn spgemm<T: Scalar>(&self, alpha: T, a: &Csr<T>, b: &Csr<T>) -> Result<Csr<T>> {
        const OP: &str = "Sparse::spgemm";
        validate::same(OP, "B rows (columns of A)", b.rows(), a.cols())?;
        if a.index_base() != b.index_base() {
            return Err(Error::invalid(
                OP,
                format!(
                    "A has index base {:?} and B {:?}; both must have the same",
                    a.index_base(),
                    b.index_base()
                ),
            ));
        }
        same_device(OP, "A", a.device_ordinal(), self.device())?;
        same_device(OP, "B", b.device_ordinal(), self.device())?;
        self.stream.device().bind()?;
        let (m, n) = (a.rows(), b.cols());
        let base = a.index_base();
        let beta = T::ZERO;
        let (pa, pb) = (host_scalar(&alpha), host_scalar(&beta));
        let op = hipsparseOperation_t::HIPSPARSE_OPERATION_NON_TRANSPOSE;
        let alg = hipsparseSpGEMMAlg_t::HIPSPARSE_SPGEMM_DEFAULT;
        let da = a.descriptor()?;
        let db = b.descriptor()?;
        let mut offsets = self.stream.alloc::<i32>(m + 1)?;
        // SAFETY: `offsets` holds m + 1 ints; the other arrays are set once
        // the size is known, before the copy writes them.
        let dc = unsafe {
            SpMat::csr::<T>(
                (m, n, 0),
                offsets.as_device_ptr(),
                std::ptr::null(),
                std::ptr::null(),
                base,
                T::DATA_TYPE,
            )
        }?;
        let gemm = result::SpGemmDescr::new()?;
        let mut reads = a.access_events();
        reads.extend(b.access_events());
        let call = |f: SpGemmPhase, size: usize, buffer: *mut c_void| {
            // SAFETY: live handle and descriptors, host scalars of T; a
            // null buffer asks for the size, else `buffer` holds `size`
            // bytes and lives until the product is copied.
            unsafe {
                f(
                    self.as_raw(),
                    op,
                    op,
                    pa,
                    da.as_raw().cast_const(),
                    db.as_raw().cast_const(),
                    pb,
                    dc.as_raw(),
                    T::DATA_TYPE,
                    alg,
                    gemm.as_raw(),
                    size,
                    buffer,
                )
            }
        };
        let (buffer1, buffer2, nnz) = self.stream.enqueue_tracked(&reads, &[], || {
            let work: SpGemmPhase = result::spgemm_work_estimation;
            let size1 = call(work, 0, std::ptr::null_mut())?;
            let mut buffer1 = self.stream.alloc::<u8>(size1.max(1))?;
            call(work, size1, buffer1.as_device_ptr_mut().cast())?;
            let compute: SpGemmPhase = result::spgemm_compute;
            let size2 = call(compute, 0, std::ptr::null_mut())?;
            let mut buffer2 = self.stream.alloc::<u8>(size2.max(1))?;
            call(compute, size2, buffer2.as_device_ptr_mut().cast())?;
            let (_, _, nnz) = dc.size()?;
            Ok::<_, Error>((buffer1, buffer2, nnz as usize))
        })?;
        let mut indices = self.stream.alloc::<i32>(nnz)?;
        let mut values = self.stream.alloc::<T>(nnz)?;
        // SAFETY: m + 1 offsets, nnz indices and values, owned by the
        // result from here on.
        unsafe {
            dc.csr_set_pointers(
                offsets.as_device_ptr_mut(),
                indices.as_device_ptr_mut(),
                values.as_device_ptr_mut(),
            )
        }?;
        self.stream.enqueue_tracked(&reads, &[], || {
            // SAFETY: live handle and descriptors; C's arrays are set.
            unsafe {
                result::spgemm_copy(
                    self.as_raw(),
                    op,
                    op,
                    pa,
                    da.as_raw().cast_const(),
                    db.as_raw().cast_const(),
                    pb,
                    dc.as_raw(),
                    T::DATA_TYPE,
                    alg,
                    gemm.as_raw(),
                )
            }
        })?;
        // The work buffers are freed in stream order, after the copy.
        drop((buffer1, buffer2));
        Ok(Csr::from_parts((m, n, nnz), base, offsets, indices, values))
    }

    /// Solves `op(A) * y = alpha * x` for `y` with the `triangle` of a square
    /// CSR matrix (`hipsparseSpSV_*`, default algorithm).
    #[allow(clippy::too_many_arguments)]
    pub fn spsv<T: Scalar>(
        &self,
        op: Operation,
        alpha: T,
        a: &Csr<T>,
        (triangle, diagonal): (Triangle, Diagonal),
        x: &impl DeviceMemory<T>,
        y: &mut impl DeviceMemoryMut<T>,
    ) -> Result<()> {
        const OP: &str = "Sparse::spsv";
        validate::same(OP, "A's columns (A must be square)", a.cols(), a.rows())?;
        validate::same(OP, "x length", x.len(), a.rows())?;
        validate::same(OP, "y length", y.len(), a.rows())?;
        same_device(OP, "A", a.device_ordinal(), self.device())?;
        same_device(OP, "x", x.device().ordinal(), self.device())?;
        same_device(OP, "y", y.device().ordinal(), self.device())?;
        self.stream.device().bind()?;
        let n = a.rows();
        let mat = triangular(a, triangle, diagonal)?;
        // SAFETY: `x` and `y` hold n elements and outlive the descriptors.
        let vx = unsafe { DnVec::new(n, x.device_ptr(), T::DATA_TYPE) }?;
        // SAFETY: as for `vx`.
        let vy = unsafe { DnVec::new(n, y.device_ptr_mut(), T::DATA_TYPE) }?;
        let descr = result::SpSvDescr::new()?;
        let pa = host_scalar(&alpha);
        let alg = hipsparseSpSVAlg_t::HIPSPARSE_SPSV_ALG_DEFAULT;
        // SAFETY: live handle and descriptors; a host scalar of T.
        let size = unsafe {
            result::spsv_buffer_size(
                self.as_raw(),
                op.raw(),
                pa,
                mat.as_raw().cast_const(),
                vx.as_raw().cast_const(),
                vy.as_raw(),
                T::DATA_TYPE,
                alg,
                descr.as_raw(),
            )
        }?;
        // Its own buffer: the analysis keeps it in `descr` for the solve.
        let mut work = self.stream.alloc::<u8>(size.max(1))?;
        let work_ptr = work.as_device_ptr_mut().cast::<c_void>();
        let mut reads = a.access_events();
        reads.push(x.access_events());
        let writes = events(&[y.access_events(), work.access_events()]);
        self.stream.enqueue_tracked(&reads, &writes, || {
            // SAFETY: as for the size query; `work` holds `size` bytes and
            // lives until after the solve.
            unsafe {
                result::spsv_analysis(
                    self.as_raw(),
                    op.raw(),
                    pa,
                    mat.as_raw().cast_const(),
                    vx.as_raw().cast_const(),
                    vy.as_raw(),
                    T::DATA_TYPE,
                    alg,
                    descr.as_raw(),
                    work_ptr,
                )
            }?;
            // SAFETY: analysed just above with the same arguments.
            unsafe {
                result::spsv_solve(
                    self.as_raw(),
                    op.raw(),
                    pa,
                    mat.as_raw().cast_const(),
                    vx.as_raw().cast_const(),
                    vy.as_raw(),
                    T::DATA_TYPE,
                    alg,
                    descr.as_raw(),
                )
            }
        })
    }

    /// Solves `op(A) * C = alpha * B` for the dense `C` with the `triangle`
    /// of a square CSR matrix (`hipsparseSpSM_*`, default algorithm): `B`
    /// and `C` are `A`'s rows x `n`, in the same order.
    #[allow(clippy::too_many_arguments)]
    pub fn spsm<T: Scalar>(
        &self,
        op: Operation,
        alpha: T,
        a: &Csr<T>,
        (triangle, diagonal): (Triangle, Diagonal),
        (b_layout, b): (DenseLayout, &impl DeviceMemory<T>),
        (c_layout, c): (DenseLayout, &mut impl DeviceMemoryMut<T>),
    ) -> Result<()> {
        const OP: &str = "Sparse::spsm";
        validate::same(OP, "A's columns (A must be square)", a.cols(), a.rows())?;
        b_layout.check(OP, "B", b.len())?;
        c_layout.check(OP, "C", c.len())?;
        validate::same(OP, "B rows", b_layout.rows, a.rows())?;
        validate::same(OP, "C rows", c_layout.rows, a.rows())?;
        validate::same(OP, "C columns (columns of B)", c_layout.cols, b_layout.cols)?;
        if b_layout.order != c_layout.order {
            return Err(Error::invalid(
                OP,
                format!(
                    "B is {:?} and C {:?}; both must have the same order",
                    b_layout.order, c_layout.order
                ),
            ));
        }
        same_device(OP, "A", a.device_ordinal(), self.device())?;
        same_device(OP, "B", b.device().ordinal(), self.device())?;
        same_device(OP, "C", c.device().ordinal(), self.device())?;
        self.stream.device().bind()?;
        let mat = triangular(a, triangle, diagonal)?;
        // SAFETY: the layouts were checked against the buffers, which
        // outlive the descriptors.
        let mb = unsafe { dn_mat(&b_layout, b.device_ptr()) }?;
        // SAFETY: as for `mb`.
        let mc = unsafe { dn_mat(&c_layout, c.device_ptr_mut()) }?;
        let descr = result::SpSmDescr::new()?;
        let pa = host_scalar(&alpha);
        let op_b = hipsparseOperation_t::HIPSPARSE_OPERATION_NON_TRANSPOSE;
        let alg = hipsparseSpSMAlg_t::HIPSPARSE_SPSM_ALG_DEFAULT;
        // SAFETY: live handle and descriptors; a host scalar of T.
        let size = unsafe {
            result::spsm_buffer_size(
                self.as_raw(),
                op.raw(),
                op_b,
                pa,
                mat.as_raw().cast_const(),
                mb.as_raw().cast_const(),
                mc.as_raw(),
                T::DATA_TYPE,
                alg,
                descr.as_raw(),
            )
        }?;
        let mut work = self.stream.alloc::<u8>(size.max(1))?;
        let work_ptr = work.as_device_ptr_mut().cast::<c_void>();
        let mut reads = a.access_events();
        reads.push(b.access_events());
        let writes = events(&[c.access_events(), work.access_events()]);
        self.stream.enqueue_tracked(&reads, &writes, || {
            // SAFETY: as for the size query; `work` holds `size` bytes and
            // lives until after the solve.
            unsafe {
                result::spsm_analysis(
                    self.as_raw(),
                    op.raw(),
                    op_b,
                    pa,
                    mat.as_raw().cast_const(),
                    mb.as_raw().cast_const(),
                    mc.as_raw(),
                    T::DATA_TYPE,
                    alg,
                    descr.as_raw(),
                    work_ptr,
                )
            }?;
            // SAFETY: analysed just above with the same arguments.
            unsafe {
                result::spsm_solve(
                    self.as_raw(),
                    op.raw(),
                    op_b,
                    pa,
                    mat.as_raw().cast_const(),
                    mb.as_raw().cast_const(),
                    mc.as_raw(),
                    T::DATA_TYPE,
                    alg,
                    descr.as_raw(),
                    work_ptr,
                )
            }
        })
    }

    /// The dense form of a CSR, CSC or COO matrix
    /// (`hipsparseSparseToDense`), in a new buffer of `layout`
    /// (`layout.rows` x `layout.cols` must be the matrix's size).
    pub fn to_dense<T: Scalar, A: SparseMatrix<T>>(
        &self,
        a: &A,
        layout: DenseLayout,
    ) -> Result<DeviceBuffer<T>> {
        const OP: &str = "Sparse::to_dense";
        validate::same(OP, "layout rows", layout.rows, a.rows())?;
        validate::same(OP, "layout cols", layout.cols, a.cols())?;
        layout.check(OP, "the dense matrix", layout.min_len())?;
        same_device(OP, "A", a.device_ordinal(), self.device())?;
        self.stream.device().bind()?;
        let mut out = self.stream.alloc::<T>(layout.min_len())?;
        let mat = a.descriptor()?;
        // SAFETY: `out` holds the layout's elements and outlives `dense`.
        let dense = unsafe { dn_mat(&layout, out.as_device_ptr_mut()) }?;
        let alg = hipsparseSparseToDenseAlg_t::HIPSPARSE_SPARSETODENSE_ALG_DEFAULT;
        // SAFETY: live handle and descriptors.
        let size = unsafe {
            result::sparse_to_dense_buffer_size(
                self.as_raw(),
                mat.as_raw().cast_const(),
                dense.as_raw(),
                alg,
            )
        }?;
        let mut work = self.workspace(size)?;
        let work_ptr = work.as_device_ptr_mut().cast::<c_void>();
        let reads = a.access_events();
        let writes = events(&[out.access_events(), work.access_events()]);
        self.stream.enqueue_tracked(&reads, &writes, || {
            // SAFETY: as for the size query, with `size` bytes of work area.
            unsafe {
                result::sparse_to_dense(
                    self.as_raw(),
                    mat.as_raw().cast_const(),
                    dense.as_raw(),
                    alg,
                    work_ptr,
                )
            }
        })?;
        drop(work);
        Ok(out)
    }

    /// The CSR form of a dense matrix (`hipsparseDenseToSparse_*`): its
    /// non-zero entries, with `base`, column indices ascending within each
    /// row. Waits for the stream (the number of non-zeros is known only
    /// once hipSPARSE has counted them).
    ///
    /// cuSPARSE's conversion may leave a row's column indices in another
    /// order (NVIDIA calls that valid CSR; this crate's matrices are
    /// sorted): the offsets and indices are read back, and when a row is
    /// out of order its indices and values are sorted on the host and
    /// copied back (one more round trip of the values).
    pub fn dense_to_csr<T: Scalar>(
        &self,
        (layout, values): (DenseLayout, &impl DeviceMemory<T>),
        base: IndexBase,
    ) -> Result<Csr<T>> {
        const OP: &str = "Sparse::dense_to_csr";
        layout.check(OP, "the dense matrix", values.len())?;
        same_device(
            OP,
            "the dense matrix",
            values.device().ordinal(),
            self.device(),
        )?;
        self.stream.device().bind()?;
        let (m, n) = (layout.rows, layout.cols);
        // SAFETY: the layout was checked against `values`, which outlives
        // the descriptor.
        let dense = unsafe { dn_mat(&layout, values.device_ptr()) }?;
        let mut offsets = self.stream.alloc::<i32>(m + 1)?;
        // SAFETY: `offsets` holds m + 1 ints; the other arrays are set once
        // the count is known, before the conversion writes them.
        let sp = unsafe {
            SpMat::csr::<T>(
                (m, n, 0),
                offsets.as_device_ptr(),
                std::ptr::null(),
                std::ptr::null(),
                base,
                T::DATA_TYPE,
            )
        }?;
        let alg = hipsparseDenseToSparseAlg_t::HIPSPARSE_DENSETOSPARSE_ALG_DEFAULT;
        // SAFETY: live handle and descriptors.
        let size = unsafe {
            result::dense_to_sparse_buffer_size(
                self.as_raw(),
                dense.as_raw().cast_const(),
                sp.as_raw(),
                alg,
            )
        }?;
        let mut work = self.stream.alloc::<u8>(size.max(1))?;
        let work_ptr = work.as_device_ptr_mut().cast::<c_void>();
        let reads = events(&[values.access_events()]);
        let nnz = self
            .stream
            .enqueue_tracked(&reads, &[offsets.access_events()], || {
                // SAFETY: as for the size query, with `size` bytes of work area;
                // the analysis writes the row offsets.
                unsafe {
                    result::dense_to_sparse_analysis(
                        self.as_raw(),
                        dense.as_raw().cast_const(),
                        sp.as_raw(),
                        alg,
                        work_ptr,
                    )
                }?;
                let (_, _, nnz) = sp.size()?;
                Ok::<_, Error>(nnz as usize)
            })?;
        let mut indices = self.stream.alloc::<i32>(nnz)?;
        let mut out = self.stream.alloc::<T>(nnz)?;
        // SAFETY: m + 1 offsets, nnz indices and values, owned by the
        // result from here on.
        unsafe {
            sp.csr_set_pointers(
                offsets.as_device_ptr_mut(),
                indices.as_device_ptr_mut(),
                out.as_device_ptr_mut(),
            )
        }?;
        let writes = events(&[
            offsets.access_events(),
            indices.access_events(),
            out.access_events(),
        ]);
        self.stream.enqueue_tracked(&reads, &writes, || {
            // SAFETY: analysed above; the arrays are set.
            unsafe {
                result::dense_to_sparse_convert(
                    self.as_raw(),
                    dense.as_raw().cast_const(),
                    sp.as_raw(),
                    alg,
                    work_ptr,
                )
            }
        })?;
        drop(work);
        // Each copy back is on the stream, after the conversion.
        let host_offsets = self.stream.clone_dtoh(&offsets)?;
        let mut host_indices = self.stream.clone_dtoh(&indices)?;
        if let Some(wrong) = offsets_wrong(&host_offsets, nnz, base.offset()) {
            return Err(Error::Sparse {
                call: "hipsparseDenseToSparse_convert",
                status: sys::hipsparseStatus_t::HIPSPARSE_STATUS_INTERNAL_ERROR,
                message: format!("it returned inconsistent row offsets: {wrong}"),
            });
        }
        if !rows_sorted(&host_offsets, &host_indices, base.offset()) {
            let mut host_values = self.stream.clone_dtoh(&out)?;
            sort_within_rows(
                &host_offsets,
                &mut host_indices,
                &mut host_values,
                base.offset(),
            );
            self.stream.copy_htod(&host_indices, &mut indices)?;
            self.stream.copy_htod(&host_values, &mut out)?;
        }
        Ok(Csr::from_parts((m, n, nnz), base, offsets, indices, out))
    }
}

/// The entries of row `r` of a CSR matrix whose `offsets` count from
/// `base`, as a range of its index and value arrays.
fn row_range(offsets: &[i32], base: i32, r: usize) -> std::ops::Range<usize> {
    (offsets[r] - base) as usize..(offsets[r + 1] - base) as usize
}

/// What is wrong with a CSR matrix's `offsets` (counting from `base`)
/// for `nnz` entries, if anything: the first and last must be `base` and
/// `base + nnz`, and they must not decrease.
fn offsets_wrong(offsets: &[i32], nnz: usize, base: i32) -> Option<String> {
    let (first, last) = (offsets.first().copied(), offsets.last().copied());
    if first != Some(base) || last.map(|l| i64::from(l - base)) != Some(nnz as i64) {
        return Some(format!(
            "first {first:?} and last {last:?}, {base} and {} expected",
            nnz as i64 + i64::from(base)
        ));
    }
    let r = offsets.windows(2).position(|w| w[1] < w[0])?;
    Some(format!(
        "offset {} of row {} is below the {} before it",
        offsets[r + 1],
        r + 1,
        offsets[r]
    ))
}

/// Whether every row's column indices ascend.
fn rows_sorted(offsets: &[i32], indices: &[i32], base: i32) -> bool {
    (0..offsets.len().saturating_sub(1)).all(|r| {
        indices[row_range(offsets, base, r)]
            .windows(2)
            .all(|w| w[0] < w[1])
    })
}

/// Sorts each row's entries by column index, values alongside.
fn sort_within_rows<T: Copy>(offsets: &[i32], indices: &mut [i32], values: &mut [T], base: i32) {
    let mut row: Vec<(i32, T)> = Vec::new();
    for r in 0..offsets.len().saturating_sub(1) {
        let range = row_range(offsets, base, r);
        if indices[range.clone()].windows(2).all(|w| w[0] < w[1]) {
            continue;
        }
        row.clear();
        row.extend(
            indices[range.clone()]
                .iter()
                .copied()
                .zip(values[range.clone()].iter().copied()),
        );
        row.sort_by_key(|&(c, _)| c);
        for (k, (c, v)) in range.zip(row.iter().copied()) {
            indices[k] = c;
            values[k] = v;
        }
    }
}

/// [`result::spgemm_work_estimation`] or [`result::spgemm_compute`], which
/// share their signature.
type SpGemmPhase = unsafe fn(
    sys::hipsparseHandle_t,
    hipsparseOperation_t,
    hipsparseOperation_t,
    *const c_void,
    sys::hipsparseConstSpMatDescr_t,
    sys::hipsparseConstSpMatDescr_t,
    *const c_void,
    sys::hipsparseSpMatDescr_t,
    sys::hipDataType,
    hipsparseSpGEMMAlg_t,
    sys::hipsparseSpGEMMDescr_t,
    usize,
    *mut c_void,
) -> Result<usize>;

/// A descriptor of `a` with the triangular solves' attributes set.
fn triangular<T: Scalar>(a: &Csr<T>, triangle: Triangle, diagonal: Diagonal) -> Result<SpMat> {
    let mat = a.descriptor()?;
    let fill = match triangle {
        Triangle::Lower => hipsparseFillMode_t::HIPSPARSE_FILL_MODE_LOWER,
        Triangle::Upper => hipsparseFillMode_t::HIPSPARSE_FILL_MODE_UPPER,
    };
    let diag = match diagonal {
        Diagonal::NonUnit => hipsparseDiagType_t::HIPSPARSE_DIAG_TYPE_NON_UNIT,
        Diagonal::Unit => hipsparseDiagType_t::HIPSPARSE_DIAG_TYPE_UNIT,
    };
    mat.set_attribute(
        hipsparseSpMatAttribute_t::HIPSPARSE_SPMAT_FILL_MODE,
        fill.0 as i32,
    )?;
    mat.set_attribute(
        hipsparseSpMatAttribute_t::HIPSPARSE_SPMAT_DIAG_TYPE,
        diag.0 as i32,
    )?;
    Ok(mat)
}

/// A dense matrix descriptor over `values` in `layout`.
///
/// # Safety
/// `values` must hold `layout.min_len()` elements of `T` on the device for
/// as long as the descriptor is used.
unsafe fn dn_mat<T: Scalar>(layout: &DenseLayout, values: *const T) -> Result<DnMat> {
    // SAFETY: the caller's contract.
    unsafe {
        DnMat::new(
            (layout.rows, layout.cols, layout.ld),
            values,
            T::DATA_TYPE,
            layout.raw_order(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::{offsets_wrong, rows_sorted, sort_within_rows};

    #[test]
    fn inconsistent_offsets_are_named() {
        assert_eq!(offsets_wrong(&[1, 3, 3, 4], 3, 1), None);
        assert_eq!(offsets_wrong(&[0], 0, 0), None);
        let e = offsets_wrong(&[0, 2, 5], 4, 0).unwrap();
        assert!(e.contains("last Some(5)"), "{e}");
        let e = offsets_wrong(&[0, 3, 2, 4], 4, 0).unwrap();
        assert!(e.contains("offset 2 of row 2 is below the 3"), "{e}");
    }

    /// cuSPARSE's DenseToSparse may return a row's columns in any order
    /// (seen on an H100: the 1003 x 211 round trip's indices differed);
    /// the result is sorted within rows, values alongside, rows untouched.
    #[test]
    fn unsorted_rows_are_sorted_with_their_values() {
        for base in [0, 1] {
            // Rows: [3, 0, 2], [], [1], [4, 1].
            let offsets: Vec<i32> = [0, 3, 3, 4, 6].iter().map(|o| o + base).collect();
            let mut indices: Vec<i32> = [3, 0, 2, 1, 4, 1].iter().map(|c| c + base).collect();
            let mut values = [30.0, 0.0, 20.0, 11.0, 34.0, 31.0];
            assert!(!rows_sorted(&offsets, &indices, base));
            sort_within_rows(&offsets, &mut indices, &mut values, base);
            let want: Vec<i32> = [0, 2, 3, 1, 1, 4].iter().map(|c| c + base).collect();
            assert_eq!(indices, want);
            assert_eq!(values, [0.0, 20.0, 30.0, 11.0, 31.0, 34.0]);
            assert!(rows_sorted(&offsets, &indices, base));
        }
    }

    #[test]
    fn sorted_rows_are_recognised() {
        assert!(rows_sorted(&[0, 2, 2, 3], &[0, 4, 1], 0));
        assert!(rows_sorted(&[1, 1], &[], 1));
        // Equal columns in a row are not sorted CSR either.
        assert!(!rows_sorted(&[0, 2], &[1, 1], 0));
    }
}

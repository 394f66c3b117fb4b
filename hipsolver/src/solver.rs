//! The solver handle and its routines.

use crate::error::DROP_ERRORS;
use crate::error::{Error, Result};
use crate::result::{self, Lapack};
use crate::validate::{self, InfoMeaning, Layout};
use hip::{AccessEvents, DeviceBuffer, DeviceMemory, DeviceMemoryMut, Stream};
use hipsolver_sys::{
    hipblasFillMode_t, hipblasOperation_t, hipblasSideMode_t, hipsolverEigMode_t, hipsolverHandle_t,
};
use std::ffi::c_int;

/// The element types the routines take: `f32`, `f64`, [`hip::c32`] and
/// [`hip::c64`]. Sealed.
pub trait Scalar: Lapack {}
impl<T: Lapack> Scalar for T {}

/// Which triangle of a symmetric (Hermitian) matrix is stored and used.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Uplo {
    /// The lower triangle (the default, as in `torch.linalg`).
    #[default]
    Lower,
    /// The upper triangle.
    Upper,
}

impl Uplo {
    fn raw(self) -> hipblasFillMode_t {
        match self {
            Uplo::Lower => hipblasFillMode_t::HIPBLAS_FILL_MODE_LOWER,
            Uplo::Upper => hipblasFillMode_t::HIPBLAS_FILL_MODE_UPPER,
        }
    }
}

/// Whether a routine applies a matrix, its transpose or its conjugate
/// transpose.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Transpose {
    /// `A`.
    #[default]
    None,
    /// `Aᵀ` (for complex types, only `getrs` takes it; `ormqr`/`unmqr`
    /// take [`Transpose::Conjugate`]).
    Transpose,
    /// `Aᴴ` (for real types the same as `Aᵀ`).
    Conjugate,
}

impl Transpose {
    fn raw(self) -> hipblasOperation_t {
        match self {
            Transpose::None => hipblasOperation_t::HIPBLAS_OP_N,
            Transpose::Transpose => hipblasOperation_t::HIPBLAS_OP_T,
            Transpose::Conjugate => hipblasOperation_t::HIPBLAS_OP_C,
        }
    }
}

/// The side `Q` is applied from by [`Solver::ormqr`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// `Q C`.
    Left,
    /// `C Q`.
    Right,
}

/// Which singular vectors [`Solver::gesvd`] and [`Solver::gesvdj`]
/// compute.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SvdVectors {
    /// Singular values only.
    None,
    /// The first `min(m, n)` left and right singular vectors ("economy").
    #[default]
    Thin,
    /// All `m` left and `n` right singular vectors.
    Full,
}

/// A singular value decomposition `A = U diag(s) Vᴴ`, column-major.
#[derive(Debug)]
pub struct Svd<T: Scalar> {
    /// The `min(m, n)` singular values, descending.
    pub s: DeviceBuffer<T::Real>,
    /// `U`, `m` x `k` (`k` = `min(m, n)` thin, `m` full), leading dimension
    /// `m`; `None` without vectors.
    pub u: Option<DeviceBuffer<T>>,
    /// From [`Solver::gesvd`]: `Vᴴ`, `k` x `n` with leading dimension `k`
    /// (`k` = `n` both thin and full, since `m >= n`). From
    /// [`Solver::gesvdj`]: `V` (not transposed), `n` x `k` with leading
    /// dimension `n`. `None` without vectors.
    pub v: Option<DeviceBuffer<T>>,
    /// The columns of `U` (and of `V`, or rows of `Vᴴ`) computed.
    pub k: usize,
}

/// A hipSOLVER dense handle bound to one stream: every routine is enqueued
/// on it, its workspace sized and allocated for the call and freed in
/// stream order, and the routine's `info` read back and turned into an
/// error (so each call waits for its routine to finish).
///
/// Matrices are column-major (see [`Layout`]), as in LAPACK; every shape,
/// leading dimension, buffer length and device is checked before the
/// library is called.
pub struct Solver {
    raw: hipsolverHandle_t,
    stream: Stream,
}

// SAFETY: a hipSOLVER (and cuSOLVER) handle may be used from any host
// thread, one at a time: `Solver` moves between threads but is not `Sync`
// (every call takes `&self`, and the missing `Sync` rules out two threads
// calling at once).
unsafe impl Send for Solver {}

impl std::fmt::Debug for Solver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Solver")
            .field("device", &self.stream.device().ordinal())
            .finish_non_exhaustive()
    }
}

impl Drop for Solver {
    fn drop(&mut self) {
        let raw = hip::SendPtr(self.raw);
        self.stream.device().release_outside_captures(move |held| {
            // SAFETY: the handle was made by `hipsolverDnCreate` and is
            // destroyed once, here.
            if let Err(e) = unsafe { result::destroy(raw.get(), held) } {
                DROP_ERRORS.record_error(e);
            }
        });
    }
}

/// The device array of `batch` matrix pointers, `stride` elements apart.
fn pointer_array<T: Scalar>(
    stream: &Stream,
    base: *mut T,
    stride: usize,
    batch: usize,
) -> Result<DeviceBuffer<u64>> {
    let size = size_of::<T>() as u64;
    let pointers: Vec<u64> = (0..batch as u64)
        .map(|i| base as u64 + i * stride as u64 * size)
        .collect();
    Ok(stream.clone_htod(&pointers)?)
}

impl Solver {
    /// `hipsolverDnCreate` and `hipsolverDnSetStream` on the stream's
    /// device.
    pub fn new(stream: &Stream) -> Result<Solver> {
        result::library()?;
        let held = stream.device().hold_captures("Solver::new")?;
        stream.device().bind()?;
        let raw = result::create(&held)?;
        let solver = Solver {
            raw,
            stream: stream.clone(),
        };
        // SAFETY: a live handle; the solver holds a clone of the stream,
        // so the stream outlives every call.
        unsafe { result::set_stream(solver.raw, solver.stream.as_raw()) }?;
        Ok(solver)
    }

    /// The stream the routines run on.
    pub fn stream(&self) -> &Stream {
        &self.stream
    }

    /// The raw handle, for calls this crate does not wrap. It stays owned
    /// by the solver.
    pub fn as_raw(&self) -> hipsolverHandle_t {
        self.raw
    }

    fn on_device<E: hip::DeviceRepr>(
        &self,
        op: &'static str,
        name: &str,
        m: &(impl DeviceMemory<E> + ?Sized),
    ) -> Result<()> {
        validate::device(
            op,
            name,
            m.device().ordinal(),
            self.stream.device().ordinal(),
        )
    }

    /// A workspace of `lwork` elements (at least one), in stream order.
    fn workspace<T: Scalar>(&self, lwork: c_int) -> Result<DeviceBuffer<T>> {
        Ok(self.stream.alloc::<T>((lwork.max(1)) as usize)?)
    }

    /// Enqueues `call` with the tracked buffers, then reads `info` back
    /// and checks it.
    #[allow(clippy::too_many_arguments)]
    fn run(
        &self,
        op: &'static str,
        call: &'static str,
        reads: &[&AccessEvents],
        writes: &[&AccessEvents],
        info: &DeviceBuffer<c_int>,
        meaning: InfoMeaning,
        enqueue: impl FnOnce() -> Result<()>,
    ) -> Result<()> {
        self.stream.enqueue_tracked(reads, writes, enqueue)?;
        let infos = self.stream.clone_dtoh(info)?;
        validate::info(op, call, &infos, meaning)
    }

    /// LU factorization with partial pivoting (`getrf`): `A = P L U`,
    /// overwriting `a` (`m` x `n`) with `L` (unit diagonal, below) and `U`.
    /// Returns the `min(m, n)` pivots (1-based: row `i` was swapped with
    /// row `pivots[i]`). A zero on `U`'s diagonal is
    /// [`Error::Singular`] naming it ("U(3,3) is exactly zero").
    pub fn getrf<T: Scalar>(
        &self,
        a: &mut impl DeviceMemoryMut<T>,
        layout: Layout,
    ) -> Result<DeviceBuffer<c_int>> {
        const OP: &str = "Solver::getrf";
        validate::matrix(OP, "a", layout, a.len(), 1)?;
        self.on_device(OP, "a", &*a)?;
        let k = layout.rows.min(layout.cols);
        let mut ipiv = self.stream.alloc::<c_int>(k.max(1))?;
        if k == 0 {
            return Ok(ipiv);
        }
        let (m, n, lda) = (
            layout.rows as c_int,
            layout.cols as c_int,
            layout.ld as c_int,
        );
        self.stream.device().bind()?;
        let pa = a.device_ptr_mut();
        // SAFETY: live handle; `a` holds the layout (checked).
        let lwork = unsafe { T::getrf_buffer_size(self.raw, m, n, pa, lda) }?;
        let mut work = self.workspace::<T>(lwork)?;
        let mut info = self.stream.alloc::<c_int>(1)?;
        let (pw, pp, pi) = (
            work.device_ptr_mut(),
            ipiv.device_ptr_mut(),
            info.device_ptr_mut(),
        );
        self.run(
            OP,
            "hipsolverDnXgetrf",
            &[],
            &[a.access_events()],
            &info,
            InfoMeaning::ZeroPivot,
            || {
                // SAFETY: live handle on the stream; `a`, the workspace of the
                // queried size, `min(m, n)` pivots and one info, all on the
                // solver's device.
                unsafe { T::getrf(self.raw, m, n, pa, lda, pw, pp, pi) }
            },
        )?;
        Ok(ipiv)
    }

    /// Solves `op(A) X = B` (`getrs`) with the LU factors and pivots of
    /// [`getrf`](Self::getrf) of the `n` x `n` matrix `a`, overwriting `b`
    /// (`n` x `nrhs`) with `X`.
    pub fn getrs<T: Scalar>(
        &self,
        trans: Transpose,
        a: &impl DeviceMemory<T>,
        a_layout: Layout,
        ipiv: &impl DeviceMemory<c_int>,
        b: &mut impl DeviceMemoryMut<T>,
        b_layout: Layout,
    ) -> Result<()> {
        const OP: &str = "Solver::getrs";
        validate::square(OP, "a", a_layout)?;
        validate::matrix(OP, "a", a_layout, a.len(), 1)?;
        validate::rhs(OP, a_layout.rows, b_layout)?;
        validate::matrix(OP, "b", b_layout, b.len(), 1)?;
        validate::vector(OP, "ipiv", ipiv.len(), a_layout.rows)?;
        self.on_device(OP, "a", a)?;
        self.on_device(OP, "ipiv", ipiv)?;
        self.on_device(OP, "b", &*b)?;
        if a_layout.rows == 0 || b_layout.cols == 0 {
            return Ok(());
        }
        let n = a_layout.rows as c_int;
        let nrhs = b_layout.cols as c_int;
        self.stream.device().bind()?;
        let mut info = self.stream.alloc::<c_int>(1)?;
        let (pa, pp, pb, pi) = (
            a.device_ptr(),
            ipiv.device_ptr(),
            b.device_ptr_mut(),
            info.device_ptr_mut(),
        );
        let (lda, ldb) = (a_layout.ld as c_int, b_layout.ld as c_int);
        self.run(
            OP,
            "hipsolverDnXgetrs",
            &[a.access_events(), ipiv.access_events()],
            &[b.access_events()],
            &info,
            InfoMeaning::None,
            // SAFETY: live handle; buffers checked to hold their layouts,
            // on the solver's device.
            || unsafe { T::getrs(self.raw, trans.raw(), n, nrhs, pa, lda, pp, pb, ldb, pi) },
        )
    }

    /// Cholesky factorization (`potrf`) of the Hermitian positive definite
    /// `n` x `n` matrix `a`, overwriting its `uplo` triangle with `L`
    /// (`A = L Lᴴ`) or `U` (`A = Uᴴ U`). A matrix that is not positive
    /// definite is [`Error::NotPositiveDefinite`] naming the leading minor.
    pub fn potrf<T: Scalar>(
        &self,
        uplo: Uplo,
        a: &mut impl DeviceMemoryMut<T>,
        layout: Layout,
    ) -> Result<()> {
        const OP: &str = "Solver::potrf";
        validate::square(OP, "a", layout)?;
        validate::matrix(OP, "a", layout, a.len(), 1)?;
        self.on_device(OP, "a", &*a)?;
        if layout.rows == 0 {
            return Ok(());
        }
        let (n, lda) = (layout.rows as c_int, layout.ld as c_int);
        self.stream.device().bind()?;
        let pa = a.device_ptr_mut();
        // SAFETY: live handle; `a` holds the layout (checked).
        let lwork = unsafe { T::potrf_buffer_size(self.raw, uplo.raw(), n, pa, lda) }?;
        let mut work = self.workspace::<T>(lwork)?;
        let mut info = self.stream.alloc::<c_int>(1)?;
        let (pw, pi) = (work.device_ptr_mut(), info.device_ptr_mut());
        self.run(
            OP,
            "hipsolverDnXpotrf",
            &[],
            &[a.access_events()],
            &info,
            InfoMeaning::Minor,
            || {
                // SAFETY: live handle; `a`, the workspace of the queried size
                // and one info, on the solver's device.
                unsafe { T::potrf(self.raw, uplo.raw(), n, pa, lda, pw, lwork, pi) }
            },
        )
    }

    /// Solves `A X = B` (`potrs`) with the Cholesky factor of
    /// [`potrf`](Self::potrf) (same `uplo`), overwriting `b` (`n` x
    /// `nrhs`) with `X`.
    pub fn potrs<T: Scalar>(
        &self,
        uplo: Uplo,
        a: &impl DeviceMemory<T>,
        a_layout: Layout,
        b: &mut impl DeviceMemoryMut<T>,
        b_layout: Layout,
    ) -> Result<()> {
        const OP: &str = "Solver::potrs";
        validate::square(OP, "a", a_layout)?;
        validate::matrix(OP, "a", a_layout, a.len(), 1)?;
        validate::rhs(OP, a_layout.rows, b_layout)?;
        validate::matrix(OP, "b", b_layout, b.len(), 1)?;
        self.on_device(OP, "a", a)?;
        self.on_device(OP, "b", &*b)?;
        if a_layout.rows == 0 || b_layout.cols == 0 {
            return Ok(());
        }
        let (n, nrhs) = (a_layout.rows as c_int, b_layout.cols as c_int);
        let (lda, ldb) = (a_layout.ld as c_int, b_layout.ld as c_int);
        self.stream.device().bind()?;
        let mut info = self.stream.alloc::<c_int>(1)?;
        let (pa, pb, pi) = (a.device_ptr(), b.device_ptr_mut(), info.device_ptr_mut());
        self.run(
            OP,
            "hipsolverDnXpotrs",
            &[a.access_events()],
            &[b.access_events()],
            &info,
            InfoMeaning::None,
            // SAFETY: live handle; buffers checked, on the solver's device.
            || unsafe { T::potrs(self.raw, uplo.raw(), n, nrhs, pa, lda, pb, ldb, pi) },
        )
    }

    /// [`potrf`](Self::potrf) of `batch` matrices stored one after another
    /// in `a`, `ld * n` elements apart (`potrfBatched`). The first matrix
    /// that is not positive definite is named with its index in the batch.
    pub fn potrf_batched<T: Scalar>(
        &self,
        uplo: Uplo,
        a: &mut impl DeviceMemoryMut<T>,
        layout: Layout,
        batch: usize,
    ) -> Result<()> {
        const OP: &str = "Solver::potrf_batched";
        let count = validate::batch(OP, batch)?;
        validate::square(OP, "a", layout)?;
        validate::matrix(OP, "a", layout, a.len(), batch)?;
        self.on_device(OP, "a", &*a)?;
        if layout.rows == 0 {
            return Ok(());
        }
        let (n, lda) = (layout.rows as c_int, layout.ld as c_int);
        self.stream.device().bind()?;
        let stride = layout.stride().unwrap_or(0);
        let mut ptrs = pointer_array(&self.stream, a.device_ptr_mut(), stride, batch)?;
        let mut info = self.stream.alloc::<c_int>(batch)?;
        let (pp, pi) = (
            ptrs.device_ptr_mut().cast::<*mut T>(),
            info.device_ptr_mut(),
        );
        self.run(
            OP,
            "hipsolverDnXpotrfBatched",
            &[],
            &[a.access_events()],
            &info,
            InfoMeaning::Minor,
            || {
                // SAFETY: live handle; `ptrs` holds `batch` pointers to the
                // matrices of `a` (checked to hold them), `info` one int each.
                unsafe { T::potrf_batched(self.raw, uplo.raw(), n, pp, lda, pi, count) }
            },
        )
    }

    /// [`potrs`](Self::potrs) of `batch` systems (`potrsBatched`), each
    /// with one right-hand side (cuSOLVER's limit, applied everywhere):
    /// the factors one after another in `a` (`ld * n` apart), the
    /// right-hand sides in `b` (`b_layout.ld` apart, one column each).
    pub fn potrs_batched<T: Scalar>(
        &self,
        uplo: Uplo,
        a: &mut impl DeviceMemoryMut<T>,
        a_layout: Layout,
        b: &mut impl DeviceMemoryMut<T>,
        b_layout: Layout,
        batch: usize,
    ) -> Result<()> {
        const OP: &str = "Solver::potrs_batched";
        let count = validate::batch(OP, batch)?;
        validate::square(OP, "a", a_layout)?;
        validate::matrix(OP, "a", a_layout, a.len(), batch)?;
        validate::rhs(OP, a_layout.rows, b_layout)?;
        if b_layout.cols != 1 {
            return Err(Error::invalid(
                OP,
                format!(
                    "the batched Cholesky solve takes one right-hand side per system, not {}",
                    b_layout.cols
                ),
            ));
        }
        validate::matrix(OP, "b", b_layout, b.len(), batch)?;
        self.on_device(OP, "a", &*a)?;
        self.on_device(OP, "b", &*b)?;
        if a_layout.rows == 0 {
            return Ok(());
        }
        let (n, lda, ldb) = (
            a_layout.rows as c_int,
            a_layout.ld as c_int,
            b_layout.ld as c_int,
        );
        self.stream.device().bind()?;
        let mut pa = pointer_array(
            &self.stream,
            a.device_ptr_mut(),
            a_layout.stride().unwrap_or(0),
            batch,
        )?;
        let mut pb = pointer_array(
            &self.stream,
            b.device_ptr_mut(),
            b_layout.stride().unwrap_or(0),
            batch,
        )?;
        let mut info = self.stream.alloc::<c_int>(1)?;
        let (ppa, ppb, pi) = (
            pa.device_ptr_mut().cast::<*mut T>(),
            pb.device_ptr_mut().cast::<*mut T>(),
            info.device_ptr_mut(),
        );
        self.run(
            OP,
            "hipsolverDnXpotrsBatched",
            &[a.access_events()],
            &[b.access_events()],
            &info,
            InfoMeaning::None,
            // SAFETY: live handle; the pointer arrays hold `batch` pointers
            // into `a` and `b`, checked to hold them.
            || unsafe {
                T::potrs_batched(self.raw, uplo.raw(), n, 1, ppa, lda, ppb, ldb, pi, count)
            },
        )
    }

    /// QR factorization (`geqrf`): `A = Q R`, overwriting `a` (`m` x `n`)
    /// with `R` (on and above the diagonal) and the Householder vectors
    /// (below). Returns the `min(m, n)` scalars `tau` of the reflectors;
    /// [`orgqr`](Self::orgqr) forms `Q`, [`ormqr`](Self::ormqr) applies it.
    pub fn geqrf<T: Scalar>(
        &self,
        a: &mut impl DeviceMemoryMut<T>,
        layout: Layout,
    ) -> Result<DeviceBuffer<T>> {
        const OP: &str = "Solver::geqrf";
        validate::matrix(OP, "a", layout, a.len(), 1)?;
        self.on_device(OP, "a", &*a)?;
        let k = layout.rows.min(layout.cols);
        let mut tau = self.stream.alloc::<T>(k.max(1))?;
        if k == 0 {
            return Ok(tau);
        }
        let (m, n, lda) = (
            layout.rows as c_int,
            layout.cols as c_int,
            layout.ld as c_int,
        );
        self.stream.device().bind()?;
        let pa = a.device_ptr_mut();
        // SAFETY: live handle; `a` holds the layout.
        let lwork = unsafe { T::geqrf_buffer_size(self.raw, m, n, pa, lda) }?;
        let mut work = self.workspace::<T>(lwork)?;
        let mut info = self.stream.alloc::<c_int>(1)?;
        let (pt, pw, pi) = (
            tau.device_ptr_mut(),
            work.device_ptr_mut(),
            info.device_ptr_mut(),
        );
        self.run(
            OP,
            "hipsolverDnXgeqrf",
            &[],
            &[a.access_events()],
            &info,
            InfoMeaning::None,
            || {
                // SAFETY: live handle; `a`, `min(m, n)` taus, the workspace of
                // the queried size, one info.
                unsafe { T::geqrf(self.raw, m, n, pa, lda, pt, pw, lwork, pi) }
            },
        )?;
        Ok(tau)
    }

    /// Forms the `m` x `n` matrix `Q` with orthonormal columns (`orgqr`,
    /// `ungqr` for complex types) in `a` from the first `k` reflectors that
    /// [`geqrf`](Self::geqrf) left there. Needs `m >= n >= k`.
    pub fn orgqr<T: Scalar>(
        &self,
        a: &mut impl DeviceMemoryMut<T>,
        layout: Layout,
        tau: &impl DeviceMemory<T>,
        k: usize,
    ) -> Result<()> {
        const OP: &str = "Solver::orgqr";
        validate::matrix(OP, "a", layout, a.len(), 1)?;
        if layout.cols > layout.rows || k > layout.cols {
            return Err(Error::invalid(
                OP,
                format!(
                    "orgqr needs rows >= cols >= k, not rows = {}, cols = {}, k = {k}",
                    layout.rows, layout.cols
                ),
            ));
        }
        validate::vector(OP, "tau", tau.len(), k)?;
        self.on_device(OP, "a", &*a)?;
        self.on_device(OP, "tau", tau)?;
        if layout.cols == 0 {
            return Ok(());
        }
        let (m, n, kk, lda) = (
            layout.rows as c_int,
            layout.cols as c_int,
            k as c_int,
            layout.ld as c_int,
        );
        self.stream.device().bind()?;
        let (pa, pt) = (a.device_ptr_mut(), tau.device_ptr());
        // SAFETY: live handle; `a` and `tau` hold what the sizes reach.
        let lwork = unsafe { T::orgqr_buffer_size(self.raw, m, n, kk, pa, lda, pt) }?;
        let mut work = self.workspace::<T>(lwork)?;
        let mut info = self.stream.alloc::<c_int>(1)?;
        let (pw, pi) = (work.device_ptr_mut(), info.device_ptr_mut());
        self.run(
            OP,
            "hipsolverDnXorgqr",
            &[tau.access_events()],
            &[a.access_events()],
            &info,
            InfoMeaning::None,
            || {
                // SAFETY: as above, with the workspace of the queried size.
                unsafe { T::orgqr(self.raw, m, n, kk, pa, lda, pt, pw, lwork, pi) }
            },
        )
    }

    /// Overwrites `c` (`m` x `n`) with `op(Q) C` or `C op(Q)` (`ormqr`,
    /// `unmqr` for complex types), `Q` being the product of the `k`
    /// reflectors [`geqrf`](Self::geqrf) left in `a` (`m` x `k` for the left
    /// side, `n` x `k` for the right). `trans` is [`Transpose::None`] or,
    /// for `Qᴴ`, [`Transpose::Conjugate`] (`Transpose::Transpose` for real
    /// types only).
    #[allow(clippy::too_many_arguments)]
    pub fn ormqr<T: Scalar>(
        &self,
        side: Side,
        trans: Transpose,
        a: &impl DeviceMemory<T>,
        a_layout: Layout,
        tau: &impl DeviceMemory<T>,
        c: &mut impl DeviceMemoryMut<T>,
        c_layout: Layout,
    ) -> Result<()> {
        const OP: &str = "Solver::ormqr";
        validate::matrix(OP, "a", a_layout, a.len(), 1)?;
        validate::matrix(OP, "c", c_layout, c.len(), 1)?;
        let q_order = match side {
            Side::Left => c_layout.rows,
            Side::Right => c_layout.cols,
        };
        let k = a_layout.cols;
        if a_layout.rows != q_order || k > q_order {
            return Err(Error::invalid(
                OP,
                format!(
                    "Q applied from the {} of a {} x {} matrix is {q_order} x {q_order}: a must have {q_order} rows and at most {q_order} reflectors (columns), not {} x {}",
                    if side == Side::Left { "left" } else { "right" },
                    c_layout.rows,
                    c_layout.cols,
                    a_layout.rows,
                    a_layout.cols
                ),
            ));
        }
        if T::COMPLEX && trans == Transpose::Transpose {
            return Err(Error::invalid(
                OP,
                "for complex types Q is applied as Q or Qᴴ: use Transpose::Conjugate",
            ));
        }
        validate::vector(OP, "tau", tau.len(), k)?;
        self.on_device(OP, "a", a)?;
        self.on_device(OP, "tau", tau)?;
        self.on_device(OP, "c", &*c)?;
        if c_layout.rows == 0 || c_layout.cols == 0 || k == 0 {
            return Ok(());
        }
        let trans = if T::COMPLEX || trans == Transpose::None {
            trans
        } else {
            Transpose::Transpose
        };
        let (m, n, kk) = (c_layout.rows as c_int, c_layout.cols as c_int, k as c_int);
        let (lda, ldc) = (a_layout.ld as c_int, c_layout.ld as c_int);
        let side_raw = match side {
            Side::Left => hipblasSideMode_t::HIPBLAS_SIDE_LEFT,
            Side::Right => hipblasSideMode_t::HIPBLAS_SIDE_RIGHT,
        };
        self.stream.device().bind()?;
        let (pa, pt, pc) = (a.device_ptr(), tau.device_ptr(), c.device_ptr_mut());
        // SAFETY: live handle; buffers checked.
        let lwork = unsafe {
            T::ormqr_buffer_size(
                self.raw,
                side_raw,
                trans.raw(),
                m,
                n,
                kk,
                pa,
                lda,
                pt,
                pc,
                ldc,
            )
        }?;
        let mut work = self.workspace::<T>(lwork)?;
        let mut info = self.stream.alloc::<c_int>(1)?;
        let (pw, pi) = (work.device_ptr_mut(), info.device_ptr_mut());
        self.run(
            OP,
            "hipsolverDnXormqr",
            &[a.access_events(), tau.access_events()],
            &[c.access_events()],
            &info,
            InfoMeaning::None,
            // SAFETY: as above, with the workspace of the queried size.
            || unsafe {
                T::ormqr(
                    self.raw,
                    side_raw,
                    trans.raw(),
                    m,
                    n,
                    kk,
                    pa,
                    lda,
                    pt,
                    pc,
                    ldc,
                    pw,
                    lwork,
                    pi,
                )
            },
        )
    }

    /// Singular value decomposition by QR iteration (`gesvd`) of the `m` x
    /// `n` matrix `a` (`m >= n`; factor the transpose of a wide matrix),
    /// which it destroys. Returns `s`, and `U` and `Vᴴ` as `vectors` asks.
    pub fn gesvd<T: Scalar>(
        &self,
        a: &mut impl DeviceMemoryMut<T>,
        layout: Layout,
        vectors: SvdVectors,
    ) -> Result<Svd<T>> {
        const OP: &str = "Solver::gesvd";
        validate::matrix(OP, "a", layout, a.len(), 1)?;
        validate::tall(OP, layout)?;
        self.on_device(OP, "a", &*a)?;
        let (mu, nu) = (layout.rows, layout.cols);
        let k = nu;
        let (jobu, jobvt, ucols) = match vectors {
            SvdVectors::None => (b'N', b'N', 0),
            SvdVectors::Thin => (b'S', b'S', k),
            SvdVectors::Full => (b'A', b'A', mu),
        };
        let mut s = self.stream.alloc::<T::Real>(k.max(1))?;
        let mut u = (ucols > 0)
            .then(|| self.stream.alloc::<T>((mu * ucols).max(1)))
            .transpose()?;
        let mut vt = (ucols > 0)
            .then(|| self.stream.alloc::<T>((nu * nu).max(1)))
            .transpose()?;
        if k == 0 {
            return Ok(Svd { s, u, v: vt, k });
        }
        let (m, n, lda) = (mu as c_int, nu as c_int, layout.ld as c_int);
        validate::to_int(OP, "m * m", mu * ucols)?;
        self.stream.device().bind()?;
        // SAFETY: live handle.
        let lwork = unsafe { T::gesvd_buffer_size(self.raw, m, n) }?;
        let mut work = self.workspace::<T>(lwork)?;
        let mut info = self.stream.alloc::<c_int>(1)?;
        let pa = a.device_ptr_mut();
        let ps = s.device_ptr_mut();
        let pu = u
            .as_mut()
            .map_or(std::ptr::null_mut(), |b| b.device_ptr_mut());
        let pv = vt
            .as_mut()
            .map_or(std::ptr::null_mut(), |b| b.device_ptr_mut());
        // cuSOLVER writes the superdiagonals that did not converge of a
        // complex gesvd to `rwork`: always give it room.
        let mut rwork = self.stream.alloc::<T::Real>(k)?;
        let (pw, pr, pi) = (
            work.device_ptr_mut(),
            rwork.device_ptr_mut(),
            info.device_ptr_mut(),
        );
        let ldu = mu.max(1) as c_int;
        let ldvt = nu.max(1) as c_int;
        self.run(
            OP,
            "hipsolverDnXgesvd",
            &[],
            &[a.access_events()],
            &info,
            InfoMeaning::NotConverged(
                "superdiagonals of the intermediate bidiagonal form did not converge to zero",
            ),
            // SAFETY: live handle; `a` checked; `s` and `rwork` hold `n`,
            // `u` `m` x `ucols`, `vt` `n` x `n` (or null without vectors);
            // workspace of the queried size.
            || unsafe {
                T::gesvd(
                    self.raw,
                    jobu as i8,
                    jobvt as i8,
                    m,
                    n,
                    pa,
                    lda,
                    ps,
                    pu,
                    ldu,
                    pv,
                    ldvt,
                    pw,
                    lwork,
                    pr,
                    pi,
                )
            },
        )?;
        Ok(Svd { s, u, v: vt, k })
    }

    /// Singular value decomposition by Jacobi rotations (`gesvdj`, default
    /// tolerance and sweeps) of any `m` x `n` matrix `a`, which it
    /// destroys. Returns `s` and, as `vectors` asks, `U` and `V` (not
    /// transposed).
    pub fn gesvdj<T: Scalar>(
        &self,
        a: &mut impl DeviceMemoryMut<T>,
        layout: Layout,
        vectors: SvdVectors,
    ) -> Result<Svd<T>> {
        const OP: &str = "Solver::gesvdj";
        validate::matrix(OP, "a", layout, a.len(), 1)?;
        self.on_device(OP, "a", &*a)?;
        let (mu, nu) = (layout.rows, layout.cols);
        let k = mu.min(nu);
        let (jobz, econ, ucols, vcols) = match vectors {
            SvdVectors::None => (hipsolverEigMode_t::HIPSOLVER_EIG_MODE_NOVECTOR, 0, 0, 0),
            SvdVectors::Thin => (hipsolverEigMode_t::HIPSOLVER_EIG_MODE_VECTOR, 1, k, k),
            SvdVectors::Full => (hipsolverEigMode_t::HIPSOLVER_EIG_MODE_VECTOR, 0, mu, nu),
        };
        let mut s = self.stream.alloc::<T::Real>(k.max(1))?;
        // cuSOLVER writes U and V even for NOVECTOR in some versions:
        // give it room for them always.
        let mut u = self
            .stream
            .alloc::<T>((mu * ucols.max(mu.min(1) * k)).max(1))?;
        let mut v = self
            .stream
            .alloc::<T>((nu * vcols.max(nu.min(1) * k)).max(1))?;
        if k == 0 {
            return Ok(Svd {
                s,
                u: (ucols > 0).then_some(u),
                v: (vcols > 0).then_some(v),
                k,
            });
        }
        let (m, n, lda) = (mu as c_int, nu as c_int, layout.ld as c_int);
        let (ldu, ldv) = (mu.max(1) as c_int, nu.max(1) as c_int);
        self.stream.device().bind()?;
        let params = JacobiSvd::new()?;
        let pa = a.device_ptr_mut();
        let (ps, pu, pv) = (s.device_ptr_mut(), u.device_ptr_mut(), v.device_ptr_mut());
        // SAFETY: live handle and parameters; buffers as sized above.
        let lwork = unsafe {
            T::gesvdj_buffer_size(
                self.raw, jobz, econ, m, n, pa, lda, ps, pu, ldu, pv, ldv, params.0,
            )
        }?;
        let mut work = self.workspace::<T>(lwork)?;
        let mut info = self.stream.alloc::<c_int>(1)?;
        let (pw, pi) = (work.device_ptr_mut(), info.device_ptr_mut());
        self.run(
            OP,
            "hipsolverDnXgesvdj",
            &[],
            &[a.access_events()],
            &info,
            InfoMeaning::NotConverged("the Jacobi sweeps did not reach the tolerance"),
            // SAFETY: as above, with the workspace of the queried size.
            || unsafe {
                T::gesvdj(
                    self.raw, jobz, econ, m, n, pa, lda, ps, pu, ldu, pv, ldv, pw, lwork, pi,
                    params.0,
                )
            },
        )?;
        Ok(Svd {
            s,
            u: (ucols > 0).then_some(u),
            v: (vcols > 0).then_some(v),
            k,
        })
    }

    /// [`gesvdj`](Self::gesvdj) of `batch` matrices of at most 32 x 32
    /// stored one after another in `a` (`ld * n` apart), with all vectors
    /// (`gesvdjBatched`). Returns `s` (`min(m, n)` per matrix), `U`
    /// (`m` x `m` each) and `V` (`n` x `n` each), packed one after another.
    pub fn gesvdj_batched<T: Scalar>(
        &self,
        a: &mut impl DeviceMemoryMut<T>,
        layout: Layout,
        batch: usize,
    ) -> Result<Svd<T>> {
        const OP: &str = "Solver::gesvdj_batched";
        let count = validate::batch(OP, batch)?;
        validate::jacobi_batched(OP, layout)?;
        validate::matrix(OP, "a", layout, a.len(), batch)?;
        self.on_device(OP, "a", &*a)?;
        let (mu, nu) = (layout.rows, layout.cols);
        let k = mu.min(nu);
        let mut s = self.stream.alloc::<T::Real>((batch * k).max(1))?;
        let mut u = self.stream.alloc::<T>((batch * mu * mu).max(1))?;
        let mut v = self.stream.alloc::<T>((batch * nu * nu).max(1))?;
        if k == 0 {
            return Ok(Svd {
                s,
                u: Some(u),
                v: Some(v),
                k,
            });
        }
        let (m, n, lda) = (mu as c_int, nu as c_int, layout.ld as c_int);
        let jobz = hipsolverEigMode_t::HIPSOLVER_EIG_MODE_VECTOR;
        self.stream.device().bind()?;
        let params = JacobiSvd::new()?;
        let pa = a.device_ptr_mut();
        let (ps, pu, pv) = (s.device_ptr_mut(), u.device_ptr_mut(), v.device_ptr_mut());
        // SAFETY: live handle and parameters; buffers as sized above.
        let lwork = unsafe {
            T::gesvdj_batched_buffer_size(
                self.raw, jobz, m, n, pa, lda, ps, pu, m, pv, n, params.0, count,
            )
        }?;
        let mut work = self.workspace::<T>(lwork)?;
        let mut info = self.stream.alloc::<c_int>(batch)?;
        let (pw, pi) = (work.device_ptr_mut(), info.device_ptr_mut());
        self.run(
            OP,
            "hipsolverDnXgesvdjBatched",
            &[],
            &[a.access_events()],
            &info,
            InfoMeaning::NotConverged("the Jacobi sweeps did not reach the tolerance"),
            // SAFETY: as above, with the workspace of the queried size and
            // one info per matrix.
            || unsafe {
                T::gesvdj_batched(
                    self.raw, jobz, m, n, pa, lda, ps, pu, m, pv, n, pw, lwork, pi, params.0, count,
                )
            },
        )?;
        Ok(Svd {
            s,
            u: Some(u),
            v: Some(v),
            k,
        })
    }

    /// Eigenvalues (ascending), and with `vectors` the orthonormal
    /// eigenvectors written over `a`, of the symmetric (Hermitian) `n` x
    /// `n` matrix whose `uplo` triangle `a` holds (`syevd`, `heevd`:
    /// divide and conquer).
    pub fn syevd<T: Scalar>(
        &self,
        uplo: Uplo,
        a: &mut impl DeviceMemoryMut<T>,
        layout: Layout,
        vectors: bool,
    ) -> Result<DeviceBuffer<T::Real>> {
        self.eigen(Eigen::Syevd, uplo, a, layout, vectors, 1)
    }

    /// As [`syevd`](Self::syevd), by Jacobi rotations (`syevj`, `heevj`;
    /// default tolerance and sweeps).
    pub fn syevj<T: Scalar>(
        &self,
        uplo: Uplo,
        a: &mut impl DeviceMemoryMut<T>,
        layout: Layout,
        vectors: bool,
    ) -> Result<DeviceBuffer<T::Real>> {
        self.eigen(Eigen::Syevj, uplo, a, layout, vectors, 1)
    }

    /// [`syevj`](Self::syevj) of `batch` matrices of at most 32 x 32 one
    /// after another in `a` (`ld * n` apart; `syevjBatched`); the
    /// eigenvalues are `n` per matrix, packed.
    pub fn syevj_batched<T: Scalar>(
        &self,
        uplo: Uplo,
        a: &mut impl DeviceMemoryMut<T>,
        layout: Layout,
        vectors: bool,
        batch: usize,
    ) -> Result<DeviceBuffer<T::Real>> {
        self.eigen(Eigen::SyevjBatched, uplo, a, layout, vectors, batch)
    }

    fn eigen<T: Scalar>(
        &self,
        kind: Eigen,
        uplo: Uplo,
        a: &mut impl DeviceMemoryMut<T>,
        layout: Layout,
        vectors: bool,
        batch: usize,
    ) -> Result<DeviceBuffer<T::Real>> {
        let op = match kind {
            Eigen::Syevd => "Solver::syevd",
            Eigen::Syevj => "Solver::syevj",
            Eigen::SyevjBatched => "Solver::syevj_batched",
        };
        let count = validate::batch(op, batch)?;
        validate::square(op, "a", layout)?;
        if kind == Eigen::SyevjBatched {
            validate::jacobi_batched(op, layout)?;
        }
        validate::matrix(op, "a", layout, a.len(), batch)?;
        self.on_device(op, "a", &*a)?;
        let nn = layout.rows;
        let mut w = self.stream.alloc::<T::Real>((batch * nn).max(1))?;
        if nn == 0 {
            return Ok(w);
        }
        let (n, lda) = (nn as c_int, layout.ld as c_int);
        let jobz = if vectors {
            hipsolverEigMode_t::HIPSOLVER_EIG_MODE_VECTOR
        } else {
            hipsolverEigMode_t::HIPSOLVER_EIG_MODE_NOVECTOR
        };
        let fill = uplo.raw();
        self.stream.device().bind()?;
        let params = match kind {
            Eigen::Syevd => None,
            _ => Some(JacobiEig::new()?),
        };
        let pp = params.as_ref().map_or(std::ptr::null_mut(), |p| p.0);
        let (pa, pwv) = (a.device_ptr_mut(), w.device_ptr_mut());
        // SAFETY: live handle (and parameters); `a` checked, `w` holds `n`
        // per matrix.
        let lwork = unsafe {
            match kind {
                Eigen::Syevd => T::syevd_buffer_size(self.raw, jobz, fill, n, pa, lda, pwv),
                Eigen::Syevj => T::syevj_buffer_size(self.raw, jobz, fill, n, pa, lda, pwv, pp),
                Eigen::SyevjBatched => {
                    T::syevj_batched_buffer_size(self.raw, jobz, fill, n, pa, lda, pwv, pp, count)
                }
            }
        }?;
        let mut work = self.workspace::<T>(lwork)?;
        let mut info = self.stream.alloc::<c_int>(batch)?;
        let (pw, pi) = (work.device_ptr_mut(), info.device_ptr_mut());
        let (call, meaning) = match kind {
            Eigen::Syevd => ("hipsolverDnXsyevd", InfoMeaning::NotConverged("off-diagonal elements of an intermediate tridiagonal form did not converge to zero")),
            Eigen::Syevj => ("hipsolverDnXsyevj", InfoMeaning::NotConverged("the Jacobi sweeps did not reach the tolerance")),
            Eigen::SyevjBatched => ("hipsolverDnXsyevjBatched", InfoMeaning::NotConverged("the Jacobi sweeps did not reach the tolerance")),
        };
        self.run(op, call, &[], &[a.access_events()], &info, meaning, || {
            // SAFETY: as above, with the workspace of the queried size and
            // one info per matrix.
            unsafe {
                match kind {
                    Eigen::Syevd => T::syevd(self.raw, jobz, fill, n, pa, lda, pwv, pw, lwork, pi),
                    Eigen::Syevj => {
                        T::syevj(self.raw, jobz, fill, n, pa, lda, pwv, pw, lwork, pi, pp)
                    }
                    Eigen::SyevjBatched => T::syevj_batched(
                        self.raw, jobz, fill, n, pa, lda, pwv, pw, lwork, pi, pp, count,
                    ),
                }
            }
        })?;
        Ok(w)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Eigen {
    Syevd,
    Syevj,
    SyevjBatched,
}

/// Jacobi SVD parameters, destroyed on drop (after the call that used
/// them was enqueued: hipSOLVER reads them when the call is made).
struct JacobiSvd(hipsolver_sys::hipsolverGesvdjInfo_t);

impl JacobiSvd {
    fn new() -> Result<JacobiSvd> {
        Ok(JacobiSvd(result::create_gesvdj_info()?))
    }
}

impl Drop for JacobiSvd {
    fn drop(&mut self) {
        // SAFETY: made by `create_gesvdj_info`, destroyed once.
        if let Err(e) = unsafe { result::destroy_gesvdj_info(self.0) } {
            DROP_ERRORS.record_error(e);
        }
    }
}

/// Jacobi eigensolver parameters, destroyed on drop.
struct JacobiEig(hipsolver_sys::hipsolverSyevjInfo_t);

impl JacobiEig {
    fn new() -> Result<JacobiEig> {
        Ok(JacobiEig(result::create_syevj_info()?))
    }
}

impl Drop for JacobiEig {
    fn drop(&mut self) {
        // SAFETY: made by `create_syevj_info`, destroyed once.
        if let Err(e) = unsafe { result::destroy_syevj_info(self.0) } {
            DROP_ERRORS.record_error(e);
        }
    }
}

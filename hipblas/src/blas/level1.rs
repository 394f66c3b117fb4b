//! Level 1: vector-vector routines (axpy, dot, nrm2, asum, scal, iamax,
//! copy, swap).

use super::Blas;
use crate::error::Result;
use crate::routines::Blas1;
use crate::validate::int;
use hip::{DeviceMemory, DeviceMemoryMut};
use hipblas_sys::hipblasHandle_t;

impl Blas {
    /// `y = alpha x + y` over `n` elements with increments `incx`, `incy`
    /// (`hipblas<T>axpy`).
    pub fn axpy<T: Blas1>(
        &self,
        n: usize,
        alpha: T,
        x: &impl DeviceMemory<T>,
        incx: usize,
        y: &mut impl DeviceMemoryMut<T>,
        incy: usize,
    ) -> Result<()> {
        const OP: &str = "Blas::axpy";
        let ni = int(OP, "n", n)?;
        self.vec_arg(OP, "x", "incx", x, n, incx)?;
        self.vec_arg(OP, "y", "incy", y, n, incy)?;
        let y_ptr = y.device_ptr_mut();
        self.tracked(&[x.access_events()], &[y.access_events()], || {
            // SAFETY: x and y span n elements at their increments.
            unsafe {
                T::axpy(
                    self.raw,
                    ni,
                    &alpha,
                    x.device_ptr(),
                    incx as i32,
                    y_ptr,
                    incy as i32,
                )
            }
        })
    }

    /// The dot product `sum x_i y_i` (unconjugated for complex;
    /// `hipblas<T>dot`/`dotu`). Waits for the result.
    pub fn dot<T: Blas1 + Default>(
        &self,
        n: usize,
        x: &impl DeviceMemory<T>,
        incx: usize,
        y: &impl DeviceMemory<T>,
        incy: usize,
    ) -> Result<T> {
        const OP: &str = "Blas::dot";
        let ni = int(OP, "n", n)?;
        self.vec_arg(OP, "x", "incx", x, n, incx)?;
        self.vec_arg(OP, "y", "incy", y, n, incy)?;
        let mut r = T::default();
        let reads = [x.access_events(), y.access_events()];
        self.tracked(&reads, &[], || {
            // SAFETY: x and y span n elements; the result goes to host memory
            // (host pointer mode, the default), written before the call returns.
            unsafe {
                T::dot(
                    self.raw,
                    ni,
                    x.device_ptr(),
                    incx as i32,
                    y.device_ptr(),
                    incy as i32,
                    &mut r,
                )
            }
        })?;
        Ok(r)
    }

    /// The Euclidean norm of `x` (`hipblas<T>nrm2`). Waits for the result.
    pub fn nrm2<T: Blas1>(
        &self,
        n: usize,
        x: &impl DeviceMemory<T>,
        incx: usize,
    ) -> Result<T::Real> {
        self.real_reduction("Blas::nrm2", n, x, incx, T::nrm2)
    }

    /// The sum of magnitudes `sum |re| + |im|` (`hipblas<T>asum`). Waits
    /// for the result.
    pub fn asum<T: Blas1>(
        &self,
        n: usize,
        x: &impl DeviceMemory<T>,
        incx: usize,
    ) -> Result<T::Real> {
        self.real_reduction("Blas::asum", n, x, incx, T::asum)
    }

    /// `nrm2` and `asum`: `reduce` over `n` elements of `x` into a real
    /// host result, after the checks; waits for the result.
    fn real_reduction<T: Blas1>(
        &self,
        op: &'static str,
        n: usize,
        x: &impl DeviceMemory<T>,
        incx: usize,
        reduce: unsafe fn(hipblasHandle_t, i32, *const T, i32, *mut T::Real) -> Result<()>,
    ) -> Result<T::Real> {
        let ni = int(op, "n", n)?;
        self.vec_arg(op, "x", "incx", x, n, incx)?;
        let mut r = T::Real::default();
        self.tracked(&[x.access_events()], &[], || {
            // SAFETY: x spans n elements (checked); the result is a host
            // place that outlives the call, which waits for it.
            unsafe { reduce(self.raw, ni, x.device_ptr(), incx as i32, &mut r) }
        })?;
        Ok(r)
    }

    /// `x = alpha x` (`hipblas<T>scal`).
    pub fn scal<T: Blas1>(
        &self,
        n: usize,
        alpha: T,
        x: &mut impl DeviceMemoryMut<T>,
        incx: usize,
    ) -> Result<()> {
        const OP: &str = "Blas::scal";
        let ni = int(OP, "n", n)?;
        self.vec_arg(OP, "x", "incx", x, n, incx)?;
        let x_ptr = x.device_ptr_mut();
        self.tracked(&[], &[x.access_events()], || {
            // SAFETY: x spans n elements.
            unsafe { T::scal(self.raw, ni, &alpha, x_ptr, incx as i32) }
        })
    }

    /// The 0-based index of the first element of largest magnitude
    /// (`hipblasI<T>amax`, which counts from 1), or `None` for `n == 0`.
    pub fn iamax<T: Blas1>(
        &self,
        n: usize,
        x: &impl DeviceMemory<T>,
        incx: usize,
    ) -> Result<Option<usize>> {
        const OP: &str = "Blas::iamax";
        let ni = int(OP, "n", n)?;
        self.vec_arg(OP, "x", "incx", x, n, incx)?;
        let mut r = 0i32;
        self.tracked(&[x.access_events()], &[], || {
            // SAFETY: x spans n elements; host result.
            unsafe { T::iamax(self.raw, ni, x.device_ptr(), incx as i32, &mut r) }
        })?;
        Ok(if r >= 1 { Some(r as usize - 1) } else { None })
    }

    /// `y = x` (`hipblas<T>copy`).
    pub fn copy<T: Blas1>(
        &self,
        n: usize,
        x: &impl DeviceMemory<T>,
        incx: usize,
        y: &mut impl DeviceMemoryMut<T>,
        incy: usize,
    ) -> Result<()> {
        const OP: &str = "Blas::copy";
        let ni = int(OP, "n", n)?;
        self.vec_arg(OP, "x", "incx", x, n, incx)?;
        self.vec_arg(OP, "y", "incy", y, n, incy)?;
        let y_ptr = y.device_ptr_mut();
        self.tracked(&[x.access_events()], &[y.access_events()], || {
            // SAFETY: x and y span n elements.
            unsafe {
                T::copy(
                    self.raw,
                    ni,
                    x.device_ptr(),
                    incx as i32,
                    y_ptr,
                    incy as i32,
                )
            }
        })
    }

    /// Exchanges `x` and `y` (`hipblas<T>swap`).
    pub fn swap<T: Blas1>(
        &self,
        n: usize,
        x: &mut impl DeviceMemoryMut<T>,
        incx: usize,
        y: &mut impl DeviceMemoryMut<T>,
        incy: usize,
    ) -> Result<()> {
        const OP: &str = "Blas::swap";
        let ni = int(OP, "n", n)?;
        self.vec_arg(OP, "x", "incx", x, n, incx)?;
        self.vec_arg(OP, "y", "incy", y, n, incy)?;
        let (x_ptr, y_ptr) = (x.device_ptr_mut(), y.device_ptr_mut());
        let writes = [x.access_events(), y.access_events()];
        self.tracked(&[], &writes, || {
            // SAFETY: x and y span n elements; both borrowed mutably, so they
            // are distinct buffers.
            unsafe { T::swap(self.raw, ni, x_ptr, incx as i32, y_ptr, incy as i32) }
        })
    }
}

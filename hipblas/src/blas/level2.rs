//! Level 2: matrix-vector routines (gemv).

use super::Blas;
use crate::error::Result;
use crate::routines::Blas1;
use crate::validate::{self, int};
use crate::Op;
use hip::{DeviceMemory, DeviceMemoryMut};

impl Blas {
    /// `y = alpha op(A) x + beta y` with A `m x n` column-major
    /// (`hipblas<T>gemv`).
    #[allow(clippy::too_many_arguments)]
    pub fn gemv<T: Blas1>(
        &self,
        trans: Op,
        m: usize,
        n: usize,
        alpha: T,
        a: &impl DeviceMemory<T>,
        lda: usize,
        x: &impl DeviceMemory<T>,
        incx: usize,
        beta: T,
        y: &mut impl DeviceMemoryMut<T>,
        incy: usize,
    ) -> Result<()> {
        const OP: &str = "Blas::gemv";
        let (mi, ni) = (int(OP, "m", m)?, int(OP, "n", n)?);
        int(OP, "lda", lda)?;
        validate::length(OP, "a", a.len(), validate::matrix(OP, "lda", m, n, lda)?)?;
        self.same_device(OP, "a", a)?;
        let (xl, yl) = match trans {
            Op::N => (n, m),
            Op::T | Op::C => (m, n),
        };
        self.vec_arg(OP, "x", "incx", x, xl, incx)?;
        self.vec_arg(OP, "y", "incy", y, yl, incy)?;
        let y_ptr = y.device_ptr_mut();
        let reads = [a.access_events(), x.access_events()];
        self.tracked(&reads, &[y.access_events()], || {
            // SAFETY: A spans m x n at lda; x and y span op(A)'s sizes.
            unsafe {
                T::gemv(
                    self.raw,
                    trans.raw(),
                    mi,
                    ni,
                    &alpha,
                    a.device_ptr(),
                    lda as i32,
                    x.device_ptr(),
                    incx as i32,
                    &beta,
                    y_ptr,
                    incy as i32,
                )
            }
        })
    }
}

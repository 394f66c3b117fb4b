//! The error type of every safe call.

use hipsolver_sys::hipsolverStatus_t;
use hipsolver_sys::loader::LoadError;

hip::library_error! {
    library: "hipSOLVER",
    status: Solver(hipsolverStatus_t),
    load: LoadError,
    example_call: "hipsolverDnSgetrf",
    extra: {
        /// LU factorization: `U(index, index)` is exactly zero (`info = index`,
        /// 1-based): the matrix is singular and a solve would divide by zero.
        #[error("{operation}: {}U({index},{index}) is exactly zero: the matrix is singular", batch_prefix(*.batch))]
        Singular {
            /// The operation, e.g. `"Solver::getrf"`.
            operation: &'static str,
            /// The 1-based index of the zero pivot.
            index: usize,
            /// The matrix of a batch, when batched (0-based).
            batch: Option<usize>,
        },
        /// Cholesky factorization: the leading minor of order `order` is not
        /// positive definite (`info = order`).
        #[error("{operation}: {}the leading minor of order {order} is not positive definite", batch_prefix(*.batch))]
        NotPositiveDefinite {
            /// The operation, e.g. `"Solver::potrf"`.
            operation: &'static str,
            /// The order of the first minor that is not positive definite.
            order: usize,
            /// The matrix of a batch, when batched (0-based).
            batch: Option<usize>,
        },
        /// An iterative routine (SVD, eigenvalues) did not converge; `info` is
        /// the routine's count (e.g. superdiagonals or off-diagonal elements
        /// that did not converge to zero, or sweeps exceeded).
        #[error("{operation}: {}did not converge (info = {info}: {what})", batch_prefix(*.batch))]
        NotConverged {
            /// The operation, e.g. `"Solver::gesvd"`.
            operation: &'static str,
            /// The routine's positive `info`.
            info: i32,
            /// What the count means for this routine.
            what: &'static str,
            /// The matrix of a batch, when batched (0-based).
            batch: Option<usize>,
        },
        /// The library refused its `position`-th argument (`info = -position`):
        /// a rule this crate does not check.
        #[error("{call} refused its argument number {position}")]
        IllegalArgument {
            /// The C function called.
            call: &'static str,
            /// The 1-based position of the argument.
            position: usize,
        },
    }
}

fn batch_prefix(batch: Option<usize>) -> String {
    match batch {
        Some(i) => format!("matrix {i} of the batch: "),
        None => String::new(),
    }
}

impl Error {
    /// Builds an [`Error::Solver`] for `status` returned by `call`: its
    /// meaning, and whether the loaded library lacks `call`; or
    /// [`Error::Load`] when `HIPSOLVER_STATUS_NOT_INITIALIZED` means no
    /// library.
    #[cold]
    #[inline(never)]
    pub fn from_solver(call: &'static str, status: hipsolverStatus_t) -> Error {
        let library = hipsolver_sys::loader::hipsolver();
        if status == hipsolverStatus_t::HIPSOLVER_STATUS_NOT_INITIALIZED {
            if let Err(e) = library {
                return Error::Load(e.clone());
            }
        }
        let mut message = status.description().to_string();
        if status == hipsolverStatus_t::HIPSOLVER_STATUS_NOT_SUPPORTED
            && library.is_ok_and(|l| !l.is_available(call))
        {
            message.push_str(" (the loaded library does not provide this function)");
        }
        Error::Solver {
            call,
            status,
            message,
        }
    }
}

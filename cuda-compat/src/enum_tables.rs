//! The CUDA enums of this crate as data, for introspection and the tests.

#[cfg(feature = "cublaslt")]
use crate::cublaslt;
#[cfg(feature = "cufft")]
use crate::cufft;
#[cfg(feature = "curand")]
use crate::curand;
#[cfg(feature = "cusolver")]
use crate::cusolver;
#[cfg(feature = "cusparse")]
use crate::cusparse;
use crate::{cublas, driver, nvrtc, runtime};

/// One CUDA enum of this crate, for introspection (and the tests): which
/// HIP enum it stands on and every enumerator defined.
#[derive(Clone, Debug)]
pub struct EnumTable {
    /// The CUDA name, e.g. `"cudaError"`.
    pub cuda: &'static str,
    /// The HIP enum whose values it takes, e.g. `"hipError_t"`.
    pub hip: &'static str,
    /// Every enumerator defined in this build, in CUDA's order.
    pub variants: Vec<EnumVariant>,
    /// CUDA enumerators HIP lacks (defined only with `synthesized-enums`).
    pub no_hip_counterpart: &'static [&'static str],
}

/// One enumerator of an [`EnumTable`].
#[derive(Clone, Debug)]
pub struct EnumVariant {
    /// The CUDA name.
    pub name: &'static str,
    /// Its value (HIP's, or a synthesized one).
    pub value: i64,
    /// Whether it is synthesized (no HIP counterpart).
    pub synthesized: bool,
    /// HIP's name for the value, `None` for a value HIP does not know.
    pub hip_name: Option<&'static str>,
    /// How the value prints (`Debug`).
    pub debug: String,
}

/// Every enum of every module ([`runtime`], [`driver`], [`nvrtc`],
/// [`cublas`], and `cublaslt`, `curand`, `cufft`, `cusolver` and `cusparse`
/// with their features).
pub fn enums() -> Vec<EnumTable> {
    let mut all = runtime::enums();
    all.extend(driver::enums());
    all.extend(nvrtc::enums());
    all.extend(cublas::enums());
    #[cfg(feature = "cublaslt")]
    all.extend(cublaslt::enums());
    #[cfg(feature = "curand")]
    all.extend(curand::enums());
    #[cfg(feature = "cufft")]
    all.extend(cufft::enums());
    #[cfg(feature = "cusolver")]
    all.extend(cusolver::enums());
    #[cfg(feature = "cusparse")]
    all.extend(cusparse::enums());
    all
}

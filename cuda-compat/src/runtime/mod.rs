//! The CUDA runtime API (`cuda*`) over HIP.
//!
//! The raw names are generated from hipify-perl's table (see `COVERAGE.md`)
//! and reachable both here (`cuda_compat::runtime::cudaMalloc`) and at
//! cudarc's path (`cuda_compat::runtime::sys::cudaMalloc`). [`result`] is
//! cudarc's thin layer ([`result::RuntimeError`], `result::stream::create`,
//! ...), over the `hip` crate's result layer.

mount_generated!("../generated/runtime.rs");

pub mod result;

pub use library_property::*;

// C's names, as cudarc's bindings have them.
#[allow(non_camel_case_types)]
mod library_property {
    /// CUDA's `libraryPropertyType_t` (`library_types.h`), as cudarc's
    /// bindings have it in each library's `sys` module: which part of a
    /// library's version `*GetProperty` reports. The values are HIP's
    /// `hipLibraryPropertyType` (`HIP_LIBRARY_MAJOR_VERSION`, ... 0, 1, 2),
    /// which hipFFT's `HIPFFT_MAJOR_VERSION`, ... share.
    #[repr(u32)]
    #[derive(Debug, Copy, Clone, Hash, PartialOrd, Ord, PartialEq, Eq)]
    pub enum libraryPropertyType_t {
        /// The major version.
        MAJOR_VERSION = 0,
        /// The minor version.
        MINOR_VERSION = 1,
        /// The patch level.
        PATCH_LEVEL = 2,
    }
    /// CUDA's name for [`libraryPropertyType_t`].
    pub use self::libraryPropertyType_t as libraryPropertyType;
}

/// The raw runtime names at cudarc's path (`cudarc::runtime::sys`).
pub mod sys {
    pub use super::generated::*;
    pub use super::jit_enums::*;
    pub use crate::driver::{
        CUevent_st, CUfunc_st, CUgraphExec_st, CUgraphNode_st, CUgraph_st, CUmemPoolHandle_st,
        CUstream_st, CUuserObject_st, CUuuid_st,
    };
    culib_present!("the HIP runtime", hip_sys::loader::runtime().is_ok());
}

impl cudaMemLocationType {
    /// CUDA 13's second name for [`Self::cudaMemLocationTypeInvalid`] (no
    /// location), as cudarc's bindings have it.
    #[allow(non_upper_case_globals)]
    pub const cudaMemLocationTypeNone: Self = Self::cudaMemLocationTypeInvalid;
}

// The runtime's names of the two JIT enums hipify-perl's table does not
// map (see `driver::sys::CUjit_cacheMode`), in the raw layer.
#[allow(non_camel_case_types, non_upper_case_globals)]
mod jit_enums {
    cuda_enum! {
        /// CUDA `cudaJit_CacheMode`, with HIP's values ([`hipJitCacheMode`](hip_sys::hipJitCacheMode), the same numbers); converts with `From` both ways.
        pub struct cudaJit_CacheMode(::std::os::raw::c_uint) = hip_sys::hipJitCacheMode, plain;
        aliases [];
        synthesized [];
        cudaJitCacheOptionNone = hipJitCacheOptionNone,
        cudaJitCacheOptionCG = hipJitCacheOptionCG,
        cudaJitCacheOptionCA = hipJitCacheOptionCA,
    }

    cuda_enum! {
        /// CUDA `cudaJit_Fallback`, with HIP's values ([`hipJitFallback`](hip_sys::hipJitFallback), the same numbers); converts with `From` both ways.
        pub struct cudaJit_Fallback(::std::os::raw::c_uint) = hip_sys::hipJitFallback, plain;
        aliases [];
        synthesized [];
        cudaPreferPtx = hipJitPreferPTX,
        cudaPreferBinary = hipJitPreferBinary,
    }
}

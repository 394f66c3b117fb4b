//! The raw driver names at cudarc's path (`cudarc::driver::sys`).
//!
//! Everything in [`crate::driver`]'s raw layer is here too, with two
//! differences that let cudarc code `match` exhaustively:
//!
//! - [`CUfunc_cache`] is a closed Rust enum (as in cudarc), because CUDA's and
//!   HIP's value sets are the same four values. The functions here that
//!   return one ([`cuCtxGetCacheConfig`]) read HIP's value into the open
//!   newtype first and convert with a checked `TryFrom`: a value the runtime
//!   returns that the enum does not know becomes `CUDA_ERROR_UNKNOWN`, never
//!   an invalid enum.
//! - [`CUlimit`] is a closed Rust enum with CUDA's values; it is only ever
//!   an input. Limits HIP lacks (`CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH`, ...)
//!   exist so that code naming them compiles, and every call given one
//!   returns `CUDA_ERROR_NOT_SUPPORTED` before reaching HIP.
//!
//! Every other enum is the open newtype of [`crate::driver`]; an exhaustive
//! `match` on one needs a final `_ =>` arm.

#![allow(non_camel_case_types, non_snake_case)]

use super::generated as raw;
pub use super::generated::*;

culib_present!("the HIP runtime", hip_sys::loader::runtime().is_ok());

/// A closed Rust enum over one of this crate's open enum newtypes, for a C
/// enum whose CUDA and HIP value sets are identical and closed. Each variant
/// has the newtype's value (so the casts are HIP's values); `From` goes to
/// the newtype and to HIP's type, and `TryFrom<newtype>` rejects any value
/// the enum does not list, so no runtime value can become an invalid enum.
macro_rules! closed_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident over $open:ty, $hip:ty {
            $($(#[$vmeta:meta])* $variant:ident),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[repr(u32)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vmeta])* $variant = <$open>::$variant.0,)+
        }

        impl From<$name> for $open {
            #[inline]
            fn from(v: $name) -> $open {
                match v {
                    $($name::$variant => <$open>::$variant,)+
                }
            }
        }

        impl From<$name> for $hip {
            #[inline]
            fn from(v: $name) -> $hip {
                <$open>::from(v).into()
            }
        }

        impl TryFrom<$open> for $name {
            /// The value, which no variant has.
            type Error = $open;
            #[inline]
            fn try_from(v: $open) -> Result<$name, $open> {
                $(if v == <$open>::$variant {
                    return Ok($name::$variant);
                })+
                Err(v)
            }
        }
    };
}

closed_enum! {
    /// CUDA `CUfunc_cache`: cache preference (`hipFuncCache_t`'s values).
    pub enum CUfunc_cache over raw::CUfunc_cache_enum, hip::sys::hipFuncCache_t {
        /// No preference.
        CU_FUNC_CACHE_PREFER_NONE,
        /// Prefer shared memory.
        CU_FUNC_CACHE_PREFER_SHARED,
        /// Prefer L1 cache.
        CU_FUNC_CACHE_PREFER_L1,
        /// Equal L1 and shared memory.
        CU_FUNC_CACHE_PREFER_EQUAL,
    }
}

/// CUDA `CUfunc_cache_enum` (= [`CUfunc_cache`]).
pub type CUfunc_cache_enum = CUfunc_cache;

/// CUDA `CUlimit`, with CUDA's values, as an input only: see
/// [`CUlimit::to_hip`].
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CUlimit {
    /// Stack size per thread (`hipLimitStackSize`).
    CU_LIMIT_STACK_SIZE = 0,
    /// `printf` buffer size (`hipLimitPrintfFifoSize`).
    CU_LIMIT_PRINTF_FIFO_SIZE = 1,
    /// Device `malloc` heap size (`hipLimitMallocHeapSize`).
    CU_LIMIT_MALLOC_HEAP_SIZE = 2,
    /// Not in HIP: calls return `CUDA_ERROR_NOT_SUPPORTED`.
    CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH = 3,
    /// Not in HIP: calls return `CUDA_ERROR_NOT_SUPPORTED`.
    CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT = 4,
    /// Not in HIP: calls return `CUDA_ERROR_NOT_SUPPORTED`.
    CU_LIMIT_MAX_L2_FETCH_GRANULARITY = 5,
    /// Not in HIP: calls return `CUDA_ERROR_NOT_SUPPORTED`.
    CU_LIMIT_PERSISTING_L2_CACHE_SIZE = 6,
    /// Not in HIP: calls return `CUDA_ERROR_NOT_SUPPORTED`.
    CU_LIMIT_SHMEM_SIZE = 7,
    /// Not in HIP: calls return `CUDA_ERROR_NOT_SUPPORTED`.
    CU_LIMIT_CIG_ENABLED = 8,
    /// Not in HIP: calls return `CUDA_ERROR_NOT_SUPPORTED`.
    CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED = 9,
}

/// CUDA `CUlimit_enum` (= [`CUlimit`]).
pub type CUlimit_enum = CUlimit;

impl CUlimit {
    /// HIP's limit of the same meaning, `None` where HIP has none.
    pub fn to_hip(self) -> Option<hip::sys::hipLimit_t> {
        use hip::sys::hipLimit_t as L;
        match self {
            CUlimit::CU_LIMIT_STACK_SIZE => Some(L::hipLimitStackSize),
            CUlimit::CU_LIMIT_PRINTF_FIFO_SIZE => Some(L::hipLimitPrintfFifoSize),
            CUlimit::CU_LIMIT_MALLOC_HEAP_SIZE => Some(L::hipLimitMallocHeapSize),
            _ => None,
        }
    }
}

/// CUDA `cuCtxGetCacheConfig` over `hipCtxGetCacheConfig`, writing the
/// closed [`CUfunc_cache`]: an unknown value from the runtime returns
/// `CUDA_ERROR_UNKNOWN` and leaves `*pconfig` unwritten.
///
/// # Safety
///
/// `pconfig` is valid for a write.
pub unsafe fn cuCtxGetCacheConfig(pconfig: *mut CUfunc_cache) -> CUresult {
    let mut open = raw::CUfunc_cache_enum::CU_FUNC_CACHE_PREFER_NONE;
    // SAFETY: `open` is a valid place for the value.
    let status = unsafe { raw::cuCtxGetCacheConfig(&mut open) };
    if status != CUresult::CUDA_SUCCESS {
        return status;
    }
    match CUfunc_cache::try_from(open) {
        Ok(v) => {
            // SAFETY: the caller's contract: `pconfig` is valid for a write.
            unsafe { pconfig.write(v) };
            CUresult::CUDA_SUCCESS
        }
        Err(_) => CUresult::CUDA_ERROR_UNKNOWN,
    }
}

/// CUDA `cuCtxSetCacheConfig` over `hipCtxSetCacheConfig`.
///
/// # Safety
///
/// None beyond the runtime being usable; unsafe as every raw call.
pub unsafe fn cuCtxSetCacheConfig(config: CUfunc_cache) -> CUresult {
    // SAFETY: takes a value.
    unsafe { raw::cuCtxSetCacheConfig(config.into()) }
}

/// CUDA `cuCtxGetLimit` over `hipDeviceGetLimit`; a limit HIP lacks returns
/// `CUDA_ERROR_NOT_SUPPORTED`.
///
/// # Safety
///
/// `pvalue` is valid for a write.
pub unsafe fn cuCtxGetLimit(pvalue: *mut usize, limit: CUlimit) -> CUresult {
    match limit.to_hip() {
        // SAFETY: the caller's contract.
        Some(l) => unsafe { hip::sys::hipDeviceGetLimit(pvalue, l) }.into(),
        None => CUresult::CUDA_ERROR_NOT_SUPPORTED,
    }
}

/// CUDA `cuCtxSetLimit` over `hipDeviceSetLimit`; a limit HIP lacks returns
/// `CUDA_ERROR_NOT_SUPPORTED`.
///
/// # Safety
///
/// None beyond the runtime being usable; unsafe as every raw call.
pub unsafe fn cuCtxSetLimit(limit: CUlimit, value: usize) -> CUresult {
    match limit.to_hip() {
        // SAFETY: takes values.
        Some(l) => unsafe { hip::sys::hipDeviceSetLimit(l, value) }.into(),
        None => CUresult::CUDA_ERROR_NOT_SUPPORTED,
    }
}

/// CUDA `CUevent_flags` (an input only): how an event is created. The
/// values are HIP's (`hipEventDefault`, ...).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CUevent_flags {
    /// Timing on, spin when waited for.
    CU_EVENT_DEFAULT = hip::sys::hipEventDefault,
    /// Block the host thread when waited for (`hipEventBlockingSync`).
    CU_EVENT_BLOCKING_SYNC = hip::sys::hipEventBlockingSync,
    /// No timing (`hipEventDisableTiming`): cheaper to record and wait for.
    CU_EVENT_DISABLE_TIMING = hip::sys::hipEventDisableTiming,
    /// For inter-process use (`hipEventInterprocess`).
    CU_EVENT_INTERPROCESS = hip::sys::hipEventInterprocess,
}

/// CUDA `CUevent_flags_enum` (= [`CUevent_flags`]).
pub type CUevent_flags_enum = CUevent_flags;

/// CUDA `CUevent_wait_flags` (an input only): how a stream waits for an
/// event.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CUevent_wait_flags {
    /// An ordinary wait (`0`, HIP's only kind).
    CU_EVENT_WAIT_DEFAULT = 0,
    /// A wait on an event captured as an external node: not in HIP; calls
    /// given it return `CUDA_ERROR_NOT_SUPPORTED`.
    CU_EVENT_WAIT_EXTERNAL = 1,
}

/// CUDA `CUevent_wait_flags_enum` (= [`CUevent_wait_flags`]).
pub type CUevent_wait_flags_enum = CUevent_wait_flags;

/// CUDA `CUmemAttach_flags` (an input only): who may access managed memory.
/// The values are HIP's too (`hipMemAttachGlobal`, ...).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CUmemAttach_flags {
    /// Any stream of any device.
    CU_MEM_ATTACH_GLOBAL = hip::sys::hipMemAttachGlobal,
    /// The host only.
    CU_MEM_ATTACH_HOST = hip::sys::hipMemAttachHost,
    /// One stream.
    CU_MEM_ATTACH_SINGLE = hip::sys::hipMemAttachSingle,
}

/// CUDA `CUmemAttach_flags_enum` (= [`CUmemAttach_flags`]).
pub type CUmemAttach_flags_enum = CUmemAttach_flags;

/// Closed enums of CUDA flag values that HIP has only as `#define`
/// constants, with those constants' values (the same bits as CUDA's). The
/// functions taking such flags take a `c_uint`, as CUDA's do: these carry
/// the names, `as u32` gives the value.
macro_rules! macro_valued_flags {
    ($(
        $(#[$meta:meta])*
        pub enum $name:ident = $alias:ident {
            $($(#[$vmeta:meta])* $variant:ident = $hip:ident,)+
        }
    )+) => {$(
        $(#[$meta])*
        #[repr(u32)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $($(#[$vmeta])* $variant = hip::sys::$hip,)+
        }
        #[doc = concat!("CUDA `", stringify!($alias), "` (= [`", stringify!($name), "`]).")]
        pub type $alias = $name;
    )+};
}

macro_valued_flags! {
    /// CUDA `CUctx_flags` (an input only): how a context's host threads
    /// wait. The values are HIP's device flags (`hipDeviceScheduleAuto`,
    /// ...).
    pub enum CUctx_flags = CUctx_flags_enum {
        /// Let the runtime choose.
        CU_CTX_SCHED_AUTO = hipDeviceScheduleAuto,
        /// Spin while waiting.
        CU_CTX_SCHED_SPIN = hipDeviceScheduleSpin,
        /// Yield while waiting.
        CU_CTX_SCHED_YIELD = hipDeviceScheduleYield,
        /// Block while waiting.
        CU_CTX_SCHED_BLOCKING_SYNC = hipDeviceScheduleBlockingSync,
        /// Allow mapped pinned memory.
        CU_CTX_MAP_HOST = hipDeviceMapHost,
        /// Keep local memory at its largest size.
        CU_CTX_LMEM_RESIZE_TO_MAX = hipDeviceLmemResizeToMax,
        /// The scheduling bits (`hipDeviceScheduleMask`).
        CU_CTX_SCHED_MASK = hipDeviceScheduleMask,
    }
    /// CUDA `CUstream_flags`: `cuStreamCreate`'s flags (`hipStreamDefault`,
    /// `hipStreamNonBlocking`).
    pub enum CUstream_flags = CUstream_flags_enum {
        /// Synchronizes with the null stream.
        CU_STREAM_DEFAULT = hipStreamDefault,
        /// Does not synchronize with the null stream.
        CU_STREAM_NON_BLOCKING = hipStreamNonBlocking,
    }
    /// CUDA `CUevent_record_flags`: `cuEventRecordWithFlags`'s flags
    /// (`hipEventRecordDefault`, `hipEventRecordExternal`).
    pub enum CUevent_record_flags = CUevent_record_flags_enum {
        /// A plain record.
        CU_EVENT_RECORD_DEFAULT = hipEventRecordDefault,
        /// An external node when captured.
        CU_EVENT_RECORD_EXTERNAL = hipEventRecordExternal,
    }
    /// CUDA `CUipcMem_flags`: `cuIpcOpenMemHandle`'s flags
    /// (`hipIpcMemLazyEnablePeerAccess`).
    pub enum CUipcMem_flags = CUipcMem_flags_enum {
        /// Enable peer access on demand.
        CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS = hipIpcMemLazyEnablePeerAccess,
    }
    /// CUDA `CUstreamWaitValue_flags`: `cuStreamWaitValue32/64`'s
    /// comparisons (`hipStreamWaitValueGte`, ...). CUDA's
    /// `CU_STREAM_WAIT_VALUE_FLUSH` has no HIP value and is left out.
    pub enum CUstreamWaitValue_flags = CUstreamWaitValue_flags_enum {
        /// Wait until `*addr >= value` (cyclic).
        CU_STREAM_WAIT_VALUE_GEQ = hipStreamWaitValueGte,
        /// Wait until `*addr == value`.
        CU_STREAM_WAIT_VALUE_EQ = hipStreamWaitValueEq,
        /// Wait until `*addr & value != 0`.
        CU_STREAM_WAIT_VALUE_AND = hipStreamWaitValueAnd,
        /// Wait until `!(*addr | value) != 0`.
        CU_STREAM_WAIT_VALUE_NOR = hipStreamWaitValueNor,
    }
}

impl CUctx_flags {
    /// CUDA's deprecated name for [`Self::CU_CTX_SCHED_BLOCKING_SYNC`].
    pub const CU_CTX_BLOCKING_SYNC: Self = Self::CU_CTX_SCHED_BLOCKING_SYNC;
}

/// CUDA `CUoccupancyB2DSize`: the dynamic shared memory a block size needs.
/// HIP's occupancy calls take no such function; see
/// [`result::occupancy`](super::result::occupancy).
pub type CUoccupancyB2DSize = Option<unsafe extern "C" fn(blockSize: ::core::ffi::c_int) -> usize>;

/// CUDA `CUctxCreateParams` (execution affinity and CIG parameters of
/// `cuCtxCreate_v4`), which HIP does not have: a context is created only
/// when both are absent.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUctxCreateParams {
    /// Execution-affinity parameters (must be null here).
    pub execAffinityParams: *mut ::core::ffi::c_void,
    /// How many (must be 0 here).
    pub numExecAffinityParams: ::core::ffi::c_int,
    /// CIG parameters (must be null here).
    pub cigParams: *mut ::core::ffi::c_void,
}

/// CUDA `CUoccupancy_flags` (an input only): how the occupancy calculator
/// treats the kernel's cache preference. The values are HIP's too
/// (`hipOccupancyDefault`, `hipOccupancyDisableCachingOverride`).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CUoccupancy_flags {
    /// The default calculation.
    CU_OCCUPANCY_DEFAULT = hip::sys::hipOccupancyDefault,
    /// Assume the global caching preference rather than the kernel's (on
    /// AMD, where there is no such preference, the same as the default).
    CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE = hip::sys::hipOccupancyDisableCachingOverride,
}

// CUDA `CUoccupancy_flags_enum`: the same enum under its C name (a
// re-export, as in cudarc, so that its variants can be imported by it).
pub use self::CUoccupancy_flags as CUoccupancy_flags_enum;

/// CUDA `CUcigDataType`: what a CIG (CUDA in Graphics) context shares with
/// the graphics API. HIP has no CIG contexts: see
/// [`CudaContext::new_cig`](crate::driver::CudaContext::new_cig).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CUcigDataType {
    /// A D3D12 command queue.
    CIG_DATA_TYPE_D3D12_COMMAND_QUEUE = 1,
    /// An NVIDIA blob.
    CIG_DATA_TYPE_NV_BLOB = 2,
}

// CUDA `CUcigDataType_enum`: the same enum under its C name (a re-export,
// as in cudarc).
pub use self::CUcigDataType as CUcigDataType_enum;

/// CUDA `CUctxCigParam`: the graphics object a CIG context shares, for
/// [`CudaContext::new_cig`](crate::driver::CudaContext::new_cig), which
/// HIP cannot honour (there it is `CUDA_ERROR_NOT_SUPPORTED`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CUctxCigParam_st {
    /// What `sharedData` is.
    pub sharedDataType: CUcigDataType,
    /// The shared graphics object.
    pub sharedData: *mut ::core::ffi::c_void,
}

/// CUDA `CUctxCigParam` (= [`CUctxCigParam_st`]).
pub type CUctxCigParam = CUctxCigParam_st;

impl CUmemLocationType_enum {
    /// CUDA 13's second name for [`Self::CU_MEM_LOCATION_TYPE_INVALID`]
    /// (no location), as cudarc's bindings have it.
    pub const CU_MEM_LOCATION_TYPE_NONE: Self = Self::CU_MEM_LOCATION_TYPE_INVALID;
}

/// `|`, `&`, `|=` and `&=` for the enums cudarc's bindings treat as bit
/// sets (bindgen's bitfield enums): the flags of graph instantiation and
/// the memory handle types, which CUDA code combines.
macro_rules! bit_set_ops {
    ($($name:ident),+) => {$(
        impl ::core::ops::BitOr for $name {
            type Output = Self;
            fn bitor(self, other: Self) -> Self {
                Self(self.0 | other.0)
            }
        }
        impl ::core::ops::BitOrAssign for $name {
            fn bitor_assign(&mut self, other: Self) {
                self.0 |= other.0;
            }
        }
        impl ::core::ops::BitAnd for $name {
            type Output = Self;
            fn bitand(self, other: Self) -> Self {
                Self(self.0 & other.0)
            }
        }
        impl ::core::ops::BitAndAssign for $name {
            fn bitand_assign(&mut self, other: Self) {
                self.0 &= other.0;
            }
        }
    )+};
}
bit_set_ops!(
    CUgraphInstantiate_flags_enum,
    CUmemAllocationHandleType_enum
);

// Two JIT enums hipify-perl's table does not map, though HIP has them
// with CUDA's values (hipJitCacheMode, hipJitFallback: hiprtc's and
// hipModuleLoadDataEx's options).
cuda_enum! {
    /// CUDA `CUjit_cacheMode_enum`, with HIP's values ([`hipJitCacheMode`](hip_sys::hipJitCacheMode), the same numbers); converts with `From` both ways.
    pub struct CUjit_cacheMode_enum(::std::os::raw::c_uint) = hip_sys::hipJitCacheMode, plain;
    aliases [CUjit_cacheMode];
    synthesized [];
    CU_JIT_CACHE_OPTION_NONE = hipJitCacheOptionNone,
    CU_JIT_CACHE_OPTION_CG = hipJitCacheOptionCG,
    CU_JIT_CACHE_OPTION_CA = hipJitCacheOptionCA,
}

cuda_enum! {
    /// CUDA `CUjit_fallback_enum`, with HIP's values ([`hipJitFallback`](hip_sys::hipJitFallback), the same numbers); converts with `From` both ways.
    pub struct CUjit_fallback_enum(::std::os::raw::c_uint) = hip_sys::hipJitFallback, plain;
    aliases [CUjit_fallback];
    synthesized [];
    CU_PREFER_PTX = hipJitPreferPTX,
    CU_PREFER_BINARY = hipJitPreferBinary,
}

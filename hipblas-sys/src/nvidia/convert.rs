//! hipBLAS values to cuBLAS values, as hipBLAS's own NVIDIA backend
//! translates them (`hipblas/library/src/nvidia_detail/hipblas.cpp`), and
//! cuBLAS statuses back.

use crate::{
    hipblasAtomicsMode_t, hipblasComputeType_t, hipblasDatatype_t, hipblasDiagType_t,
    hipblasFillMode_t, hipblasGemmAlgo_t, hipblasHandle_t, hipblasMath_t, hipblasOperation_t,
    hipblasPointerMode_t, hipblasSideMode_t, hipblasStatus_t,
};
use core::cell::UnsafeCell;
use core::ffi::c_void;
use hip_sys::hipDataType;
use hip_sys::loader::adapter::{Held, Kind, Library, ToCuda};
use hip_sys::loader::common::Symbol;

/// The library these conversions belong to, for hip-sys's adapter kit.
impl Library for hipblasStatus_t {
    type Status = hipblasStatus_t;
}

/// `cublasStatus_t`.
pub(crate) type CublasStatus = i32;

hip_sys::cuda_unchanged!(hipblasStatus_t: i32, i64);

// Pointers (buffers, handles, streams, result slots) pass unchanged: the
// pointees have the same layout on both sides (`hipComplex` and
// `cuComplex` are two floats; `hipStream_t` is the `cudaStream_t` on the
// NVIDIA platform of hip-sys).
hip_sys::cuda_unchanged!(hipblasStatus_t: pointers);

const INVALID_ENUM: hipblasStatus_t = hipblasStatus_t::HIPBLAS_STATUS_INVALID_ENUM;
const NOT_SUPPORTED: hipblasStatus_t = hipblasStatus_t::HIPBLAS_STATUS_NOT_SUPPORTED;

impl ToCuda<hipblasStatus_t> for hipblasOperation_t {
    type Held = i32;
    fn to_cuda(self) -> Result<i32, hipblasStatus_t> {
        match self {
            Self::HIPBLAS_OP_N => Ok(0),
            Self::HIPBLAS_OP_T => Ok(1),
            Self::HIPBLAS_OP_C => Ok(2),
            _ => Err(INVALID_ENUM),
        }
    }
}

impl ToCuda<hipblasStatus_t> for hipblasFillMode_t {
    type Held = i32;
    fn to_cuda(self) -> Result<i32, hipblasStatus_t> {
        match self {
            Self::HIPBLAS_FILL_MODE_LOWER => Ok(0),
            Self::HIPBLAS_FILL_MODE_UPPER => Ok(1),
            Self::HIPBLAS_FILL_MODE_FULL => Ok(2),
            _ => Err(INVALID_ENUM),
        }
    }
}

impl ToCuda<hipblasStatus_t> for hipblasDiagType_t {
    type Held = i32;
    fn to_cuda(self) -> Result<i32, hipblasStatus_t> {
        match self {
            Self::HIPBLAS_DIAG_NON_UNIT => Ok(0),
            Self::HIPBLAS_DIAG_UNIT => Ok(1),
            _ => Err(INVALID_ENUM),
        }
    }
}

impl ToCuda<hipblasStatus_t> for hipblasSideMode_t {
    type Held = i32;
    fn to_cuda(self) -> Result<i32, hipblasStatus_t> {
        match self {
            Self::HIPBLAS_SIDE_LEFT => Ok(0),
            Self::HIPBLAS_SIDE_RIGHT => Ok(1),
            // cuBLAS has no "both sides".
            Self::HIPBLAS_SIDE_BOTH => Err(NOT_SUPPORTED),
            _ => Err(INVALID_ENUM),
        }
    }
}

impl ToCuda<hipblasStatus_t> for hipblasPointerMode_t {
    type Held = i32;
    fn to_cuda(self) -> Result<i32, hipblasStatus_t> {
        match self {
            Self::HIPBLAS_POINTER_MODE_HOST => Ok(0),
            Self::HIPBLAS_POINTER_MODE_DEVICE => Ok(1),
            _ => Err(INVALID_ENUM),
        }
    }
}

impl ToCuda<hipblasStatus_t> for hipblasAtomicsMode_t {
    type Held = i32;
    fn to_cuda(self) -> Result<i32, hipblasStatus_t> {
        match self {
            Self::HIPBLAS_ATOMICS_NOT_ALLOWED => Ok(0),
            Self::HIPBLAS_ATOMICS_ALLOWED => Ok(1),
            _ => Err(INVALID_ENUM),
        }
    }
}

impl ToCuda<hipblasStatus_t> for hipblasMath_t {
    type Held = i32;
    fn to_cuda(self) -> Result<i32, hipblasStatus_t> {
        match self {
            Self::HIPBLAS_DEFAULT_MATH => Ok(0),
            Self::HIPBLAS_TENSOR_OP_MATH => Ok(1),
            Self::HIPBLAS_PEDANTIC_MATH => Ok(2),
            Self::HIPBLAS_TF32_TENSOR_OP_MATH => Ok(3),
            Self::HIPBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION => Ok(16),
            // rocBLAS's xf32 has no cuBLAS counterpart.
            Self::HIPBLAS_XF32_XDL_MATH => Err(NOT_SUPPORTED),
            _ => Err(INVALID_ENUM),
        }
    }
}

/// `cublasMath_t` back to hipBLAS's (for `hipblasGetMathMode`).
pub(crate) fn math_from_cu(v: i32) -> Option<hipblasMath_t> {
    // The low bits are the mode; DISALLOW_REDUCED_PRECISION_REDUCTION (16)
    // may be or-ed onto any of them (hipBLAS has one value for it alone).
    let mode = v & 0xf;
    if v & !0x1f != 0 || (v & 16 != 0 && mode != 0) {
        return math_from_cu(mode);
    }
    Some(match v {
        0 => hipblasMath_t::HIPBLAS_DEFAULT_MATH,
        1 => hipblasMath_t::HIPBLAS_TENSOR_OP_MATH,
        2 => hipblasMath_t::HIPBLAS_PEDANTIC_MATH,
        3 => hipblasMath_t::HIPBLAS_TF32_TENSOR_OP_MATH,
        16 => hipblasMath_t::HIPBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION,
        _ => return None,
    })
}

/// `hipDataType` has cudaDataType's numbering (0..=29); the FNUZ fp8
/// formats (1000, 1001) exist only on AMD.
impl ToCuda<hipblasStatus_t> for hipDataType {
    type Held = i32;
    fn to_cuda(self) -> Result<i32, hipblasStatus_t> {
        match self.0 {
            0..=29 => Ok(self.0 as i32),
            1000 | 1001 => Err(NOT_SUPPORTED),
            _ => Err(INVALID_ENUM),
        }
    }
}

/// hipBLAS's v1 datatype enum (150..) to cudaDataType.
impl ToCuda<hipblasStatus_t> for hipblasDatatype_t {
    type Held = i32;
    fn to_cuda(self) -> Result<i32, hipblasStatus_t> {
        Ok(match self {
            Self::HIPBLAS_R_16F => 2,
            Self::HIPBLAS_R_32F => 0,
            Self::HIPBLAS_R_64F => 1,
            Self::HIPBLAS_C_16F => 6,
            Self::HIPBLAS_C_32F => 4,
            Self::HIPBLAS_C_64F => 5,
            Self::HIPBLAS_R_8I => 3,
            Self::HIPBLAS_R_8U => 8,
            Self::HIPBLAS_R_32I => 10,
            Self::HIPBLAS_R_32U => 12,
            Self::HIPBLAS_C_8I => 7,
            Self::HIPBLAS_C_8U => 9,
            Self::HIPBLAS_C_32I => 11,
            Self::HIPBLAS_C_32U => 13,
            Self::HIPBLAS_R_16B => 14,
            Self::HIPBLAS_C_16B => 15,
            _ => return Err(INVALID_ENUM),
        })
    }
}

impl ToCuda<hipblasStatus_t> for hipblasComputeType_t {
    type Held = i32;
    fn to_cuda(self) -> Result<i32, hipblasStatus_t> {
        match self {
            Self::HIPBLAS_COMPUTE_16F => Ok(64),
            Self::HIPBLAS_COMPUTE_16F_PEDANTIC => Ok(65),
            Self::HIPBLAS_COMPUTE_32F => Ok(68),
            Self::HIPBLAS_COMPUTE_32F_PEDANTIC => Ok(69),
            Self::HIPBLAS_COMPUTE_32F_FAST_16F => Ok(74),
            Self::HIPBLAS_COMPUTE_32F_FAST_16BF => Ok(75),
            Self::HIPBLAS_COMPUTE_32F_FAST_TF32 => Ok(77),
            Self::HIPBLAS_COMPUTE_64F => Ok(70),
            Self::HIPBLAS_COMPUTE_64F_PEDANTIC => Ok(71),
            Self::HIPBLAS_COMPUTE_32I => Ok(72),
            Self::HIPBLAS_COMPUTE_32I_PEDANTIC => Ok(73),
            // AMD's FNUZ fp8 compute types have no cuBLAS counterpart.
            Self::HIPBLAS_COMPUTE_32F_FAST_8F_FNUZ
            | Self::HIPBLAS_COMPUTE_32F_FAST_8BF_FNUZ
            | Self::HIPBLAS_COMPUTE_32F_FAST_8F8BF_FNUZ
            | Self::HIPBLAS_COMPUTE_32F_FAST_8BF8F_FNUZ => Err(NOT_SUPPORTED),
            _ => Err(INVALID_ENUM),
        }
    }
}

impl ToCuda<hipblasStatus_t> for hipblasGemmAlgo_t {
    type Held = i32;
    fn to_cuda(self) -> Result<i32, hipblasStatus_t> {
        match self {
            // CUBLAS_GEMM_DEFAULT
            Self::HIPBLAS_GEMM_DEFAULT => Ok(-1),
            _ => Err(INVALID_ENUM),
        }
    }
}

/// `cublasStatus_t` to hipBLAS's, as hipBLAS's NVIDIA backend maps it.
pub(crate) fn from_cublas(s: CublasStatus) -> hipblasStatus_t {
    match s {
        0 => hipblasStatus_t::HIPBLAS_STATUS_SUCCESS,
        1 => hipblasStatus_t::HIPBLAS_STATUS_NOT_INITIALIZED,
        3 => hipblasStatus_t::HIPBLAS_STATUS_ALLOC_FAILED,
        7 => hipblasStatus_t::HIPBLAS_STATUS_INVALID_VALUE,
        8 => hipblasStatus_t::HIPBLAS_STATUS_ARCH_MISMATCH,
        11 => hipblasStatus_t::HIPBLAS_STATUS_MAPPING_ERROR,
        13 => hipblasStatus_t::HIPBLAS_STATUS_EXECUTION_FAILED,
        14 => hipblasStatus_t::HIPBLAS_STATUS_INTERNAL_ERROR,
        15 => hipblasStatus_t::HIPBLAS_STATUS_NOT_SUPPORTED,
        _ => hipblasStatus_t::HIPBLAS_STATUS_UNKNOWN,
    }
}

/// `cublasGetMathMode`: the v1 compute-type migration and
/// `hipblasGetMathMode` need it.
pub(crate) static GET_MATH_MODE: Symbol = Symbol::new(&super::CUBLAS, c"cublasGetMathMode");

/// The handle's cuBLAS math mode.
pub(crate) fn cublas_math_mode(handle: hipblasHandle_t) -> Result<i32, hipblasStatus_t> {
    let f = GET_MATH_MODE.address().ok_or(NOT_SUPPORTED)?;
    // SAFETY: `f` is `cublasGetMathMode(cublasHandle_t, cublasMath_t*)`.
    let f: unsafe extern "C" fn(hipblasHandle_t, *mut i32) -> CublasStatus =
        unsafe { core::mem::transmute::<*mut c_void, _>(f) };
    let mut mode = 0;
    // SAFETY: `mode` is a valid int to write; the handle is the caller's.
    from_cublas(unsafe { f(handle, &mut mode) }).ok()?;
    Ok(mode)
}

/// The v1 `computeType` (a datatype) as a `cublasComputeType_t`, exactly as
/// cuBLAS's own `cublasMigrateComputeType` does for old callers: pedantic
/// when the handle's math mode is pedantic.
pub(crate) fn v1_compute_type(
    handle: hipblasHandle_t,
    t: hipblasDatatype_t,
) -> Result<i32, hipblasStatus_t> {
    let pedantic = (cublas_math_mode(handle)? & 0xf) == 2;
    let (fast, exact) = match t {
        hipblasDatatype_t::HIPBLAS_R_32F | hipblasDatatype_t::HIPBLAS_C_32F => (68, 69),
        hipblasDatatype_t::HIPBLAS_R_64F | hipblasDatatype_t::HIPBLAS_C_64F => (70, 71),
        hipblasDatatype_t::HIPBLAS_R_16F => (64, 65),
        hipblasDatatype_t::HIPBLAS_R_32I => (72, 73),
        _ => return Err(NOT_SUPPORTED),
    };
    Ok(if pedantic { exact } else { fast })
}

/// `cublasGetPointerMode_v2`.
static GET_POINTER_MODE: Symbol = Symbol::new(&super::CUBLAS, c"cublasGetPointerMode_v2");

/// Whether scalars of this handle live on the host (`CUBLAS_POINTER_MODE_HOST`).
fn host_pointer_mode(handle: hipblasHandle_t) -> Result<bool, hipblasStatus_t> {
    let f = GET_POINTER_MODE.address().ok_or(NOT_SUPPORTED)?;
    // SAFETY: `f` is `cublasGetPointerMode_v2(cublasHandle_t, cublasPointerMode_t*)`.
    let f: unsafe extern "C" fn(hipblasHandle_t, *mut i32) -> CublasStatus =
        unsafe { core::mem::transmute::<*mut c_void, _>(f) };
    let mut mode = 0;
    // SAFETY: `mode` is a valid int to write; the handle is the caller's.
    from_cublas(unsafe { f(handle, &mut mode) }).ok()?;
    Ok(mode == 0)
}

/// Room for one 16-byte scalar at a 16-byte boundary.
#[repr(C, align(16))]
struct Slot16([u8; 16]);

/// Whether a double-complex host pointer must go through an aligned slot:
/// cuBLAS may read and write `cuDoubleComplex` host scalars with 16-byte
/// aligned accesses (`cuDoubleComplex` is declared `__align__(16)`;
/// `hipDoubleComplex` from C only guarantees 8). Null, aligned and device
/// pointers pass unchanged; the pointer mode is asked only for a misaligned
/// one.
fn needs_slot<T>(handle: hipblasHandle_t, p: *const T) -> Result<bool, hipblasStatus_t> {
    if p.is_null() || (p as usize) % 16 == 0 {
        return Ok(false);
    }
    host_pointer_mode(handle)
}

/// A double-complex scalar argument as cuBLAS reads it: the caller's
/// pointer, or an aligned copy of a misaligned host value.
pub(crate) struct HostScalar16<T> {
    caller: *const T,
    copy: Option<Slot16>,
}

impl<T> HostScalar16<T> {
    /// Copies `p`'s 16 bytes into an aligned slot when it is a misaligned
    /// host pointer.
    ///
    /// # Safety
    /// In host pointer mode, a non-null `p` points to 16 readable bytes.
    pub(crate) unsafe fn new(
        handle: hipblasHandle_t,
        p: *const T,
    ) -> Result<Self, hipblasStatus_t> {
        let copy = if needs_slot(handle, p)? {
            let mut slot = Slot16([0; 16]);
            // SAFETY: a host scalar of 16 bytes (the caller's contract).
            unsafe { core::ptr::copy_nonoverlapping(p.cast::<u8>(), slot.0.as_mut_ptr(), 16) };
            Some(slot)
        } else {
            None
        };
        Ok(HostScalar16 { caller: p, copy })
    }

    /// The pointer to pass: valid while `self` is neither moved nor dropped.
    pub(crate) fn as_ptr(&self) -> *const T {
        match &self.copy {
            Some(slot) => slot.0.as_ptr().cast(),
            None => self.caller,
        }
    }
}

/// A double-complex result argument as cuBLAS writes it: the caller's
/// pointer, or an aligned slot for a misaligned host one, copied back by
/// [`HostResult16::finish`].
pub(crate) struct HostResult16<T> {
    caller: *mut T,
    slot: Option<UnsafeCell<Slot16>>,
}

impl<T> HostResult16<T> {
    /// Sets up an aligned slot when `p` is a misaligned host pointer.
    pub(crate) fn new(handle: hipblasHandle_t, p: *mut T) -> Result<Self, hipblasStatus_t> {
        let slot = needs_slot(handle, p)?.then(|| UnsafeCell::new(Slot16([0; 16])));
        Ok(HostResult16 { caller: p, slot })
    }

    /// The pointer to pass: valid while `self` is neither moved nor dropped.
    pub(crate) fn as_mut_ptr(&self) -> *mut T {
        match &self.slot {
            Some(slot) => slot.get().cast(),
            None => self.caller,
        }
    }

    /// After the call: copies a redirected result to the caller's pointer
    /// when the call succeeded (a failed call leaves the caller's value
    /// untouched).
    ///
    /// # Safety
    /// In host pointer mode, a non-null caller pointer points to 16
    /// writable bytes; cuBLAS has returned.
    pub(crate) unsafe fn finish(&self, succeeded: bool) {
        if let (Some(slot), true) = (&self.slot, succeeded) {
            // SAFETY: the caller's pointer has 16 writable bytes (the
            // contract above); the slot is not borrowed elsewhere.
            unsafe {
                core::ptr::copy_nonoverlapping(
                    slot.get().cast::<u8>(),
                    self.caller.cast::<u8>(),
                    16,
                )
            };
        }
    }
}

impl<T> Held for HostScalar16<T> {
    type Cuda = *const T;
    fn pass(&mut self) -> *const T {
        self.as_ptr()
    }
}

impl<T> Held for HostResult16<T> {
    type Cuda = *mut T;
    fn pass(&mut self) -> *mut T {
        self.as_mut_ptr()
    }
    unsafe fn finish(self, ok: bool) {
        // SAFETY: the caller's pointer comes from a call that upholds the
        // binding's contract (16 writable bytes in host pointer mode), and
        // cuBLAS has returned (`Held::finish`'s contract).
        unsafe { HostResult16::finish(&self, ok) }
    }
}

/// `@ V1Compute` on an adapter line: a v1 `computeType` (a datatype)
/// converted by [`v1_compute_type`] with the handle's math mode.
pub(crate) enum V1Compute {}

impl Kind<hipblasDatatype_t, hipblasHandle_t, hipblasStatus_t> for V1Compute {
    type Held = i32;
    unsafe fn convert(
        handle: hipblasHandle_t,
        t: hipblasDatatype_t,
    ) -> Result<i32, hipblasStatus_t> {
        v1_compute_type(handle, t)
    }
}

/// `@ Scalar16`: a double-complex host scalar, through [`HostScalar16`].
pub(crate) enum Scalar16 {}

impl<T> Kind<*const T, hipblasHandle_t, hipblasStatus_t> for Scalar16 {
    type Held = HostScalar16<T>;
    unsafe fn convert(
        handle: hipblasHandle_t,
        p: *const T,
    ) -> Result<HostScalar16<T>, hipblasStatus_t> {
        // SAFETY: in host pointer mode a non-null double-complex scalar has
        // 16 readable bytes (the binding's contract, `Kind::convert`'s).
        unsafe { HostScalar16::new(handle, p) }
    }
}

/// `@ Result16`: a double-complex host result, through [`HostResult16`].
pub(crate) enum Result16 {}

impl<T> Kind<*mut T, hipblasHandle_t, hipblasStatus_t> for Result16 {
    type Held = HostResult16<T>;
    unsafe fn convert(
        handle: hipblasHandle_t,
        p: *mut T,
    ) -> Result<HostResult16<T>, hipblasStatus_t> {
        HostResult16::new(handle, p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combined_cublas_math_modes_read_back_as_their_mode() {
        // TF32_TENSOR_OP_MATH | DISALLOW_REDUCED_PRECISION_REDUCTION
        assert_eq!(
            math_from_cu(3 | 16),
            Some(hipblasMath_t::HIPBLAS_TF32_TENSOR_OP_MATH)
        );
        assert_eq!(
            math_from_cu(16),
            Some(hipblasMath_t::HIPBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)
        );
        assert_eq!(math_from_cu(0), Some(hipblasMath_t::HIPBLAS_DEFAULT_MATH));
        assert_eq!(math_from_cu(7), None);
    }

    #[test]
    fn enums_follow_hipblas_nvidia_backend() {
        assert_eq!(hipblasOperation_t::HIPBLAS_OP_N.to_cuda(), Ok(0));
        assert_eq!(hipblasOperation_t::HIPBLAS_OP_C.to_cuda(), Ok(2));
        assert_eq!(hipblasOperation_t(0).to_cuda(), Err(INVALID_ENUM));
        assert_eq!(hipblasFillMode_t::HIPBLAS_FILL_MODE_UPPER.to_cuda(), Ok(1));
        assert_eq!(hipblasFillMode_t::HIPBLAS_FILL_MODE_LOWER.to_cuda(), Ok(0));
        assert_eq!(hipblasDiagType_t::HIPBLAS_DIAG_UNIT.to_cuda(), Ok(1));
        assert_eq!(hipblasSideMode_t::HIPBLAS_SIDE_RIGHT.to_cuda(), Ok(1));
        assert_eq!(hipblasDatatype_t::HIPBLAS_R_16B.to_cuda(), Ok(14));
        assert_eq!(hipblasDatatype_t::HIPBLAS_R_16F.to_cuda(), Ok(2));
        assert_eq!(hipDataType::HIP_R_16BF.to_cuda(), Ok(14));
        assert_eq!(
            hipDataType::HIP_R_8F_E4M3_FNUZ.to_cuda(),
            Err(NOT_SUPPORTED)
        );
        assert_eq!(
            hipblasComputeType_t::HIPBLAS_COMPUTE_32F_FAST_TF32.to_cuda(),
            Ok(77)
        );
        assert_eq!(hipblasGemmAlgo_t::HIPBLAS_GEMM_DEFAULT.to_cuda(), Ok(-1));
        assert_eq!(hipblasMath_t::HIPBLAS_TF32_TENSOR_OP_MATH.to_cuda(), Ok(3));
        for m in 0..6 {
            if let Ok(cu) = hipblasMath_t(m).to_cuda() {
                assert_eq!(math_from_cu(cu), Some(hipblasMath_t(m)));
            }
        }
    }

    #[test]
    fn statuses_map_back() {
        assert_eq!(from_cublas(0), hipblasStatus_t::HIPBLAS_STATUS_SUCCESS);
        assert_eq!(
            from_cublas(7),
            hipblasStatus_t::HIPBLAS_STATUS_INVALID_VALUE
        );
        assert_eq!(
            from_cublas(15),
            hipblasStatus_t::HIPBLAS_STATUS_NOT_SUPPORTED
        );
        assert_eq!(from_cublas(16), hipblasStatus_t::HIPBLAS_STATUS_UNKNOWN);
    }

    #[test]
    fn aligned_scalars_pass_unchanged() {
        let v = Slot16([7; 16]);
        let p = v.0.as_ptr();
        // Aligned (and null) pointers never need the pointer mode.
        // SAFETY: `p` has 16 readable bytes.
        let aligned = unsafe { HostScalar16::new(std::ptr::null_mut(), p) }.unwrap();
        assert_eq!(aligned.as_ptr(), p);
        // SAFETY: null is passed through.
        let null = unsafe { HostScalar16::<u8>::new(std::ptr::null_mut(), std::ptr::null()) };
        assert_eq!(null.unwrap().as_ptr(), std::ptr::null());
        let mut out = Slot16([0; 16]);
        let result = HostResult16::new(std::ptr::null_mut(), out.0.as_mut_ptr()).unwrap();
        assert_eq!(result.as_mut_ptr(), out.0.as_mut_ptr());
        // A misaligned one needs the mode; without cuBLAS loaded (or with a
        // null handle) that fails and is reported rather than guessed.
        // SAFETY: `p + 8` has 8 bytes of `v` then is never read (the mode
        // query fails first).
        let r = unsafe { HostScalar16::new(std::ptr::null_mut(), p.wrapping_add(8)) };
        assert!(r.is_err());
        let r = HostResult16::new(std::ptr::null_mut(), out.0.as_mut_ptr().wrapping_add(8));
        assert!(r.is_err());
    }
}

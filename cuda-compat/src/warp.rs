//! The warp size CUDA code is told.
//!
//! CUDA's warp is 32 lanes, and CUDA code sizes blocks, shared memory and
//! lane arithmetic by the warp size it reads from the device (candle's
//! quantized matmul launches `warp size x 256 / warp size` threads and
//! indexes them as 32-lane warps). hip-cuda-layer, which compiles CUDA
//! source for AMD, gives that code 32-lane warps on every target: on a
//! wave64 GPU (CDNA) each half of the wavefront is one warp, so shuffles,
//! ballots and reductions act on 32 lanes. HIP answers the hardware's
//! wavefront instead, 64 there, and a launch sized by it is wrong for
//! such code, silently.
//!
//! So the result and safe layers (`driver::result::device::get_attribute`,
//! `CudaContext::attribute`, `runtime::result::device::get_attribute` and
//! `get_device_prop`) answer 32, as CUDA does on every NVIDIA GPU. The raw
//! `sys` functions pass HIP's value through, like every other attribute;
//! the wavefront itself stays available there and through `hip`.

/// The lanes of a CUDA warp.
pub(crate) const CUDA_WARP_SIZE: i32 = 32;

/// `value`, HIP's answer for the device attribute `attr`, as CUDA code
/// must see it: the warp size is CUDA's, every other value is HIP's.
pub(crate) fn cuda_attribute(attr: hip_sys::hipDeviceAttribute_t, value: i32) -> i32 {
    if attr == hip_sys::hipDeviceAttribute_t::hipDeviceAttributeWarpSize {
        CUDA_WARP_SIZE
    } else {
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hip_sys::hipDeviceAttribute_t as A;

    #[test]
    fn a_wave64_device_reports_cudas_warp_and_other_values_pass_through() {
        assert_eq!(cuda_attribute(A::hipDeviceAttributeWarpSize, 64), 32);
        assert_eq!(cuda_attribute(A::hipDeviceAttributeWarpSize, 32), 32);
        assert_eq!(
            cuda_attribute(A::hipDeviceAttributeMaxThreadsPerBlock, 1024),
            1024
        );
        assert_eq!(
            cuda_attribute(A::hipDeviceAttributeMultiprocessorCount, 304),
            304
        );
    }
}

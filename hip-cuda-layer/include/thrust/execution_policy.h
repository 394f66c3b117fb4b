// Thrust's <thrust/execution_policy.h> for AMD: rocThrust's, plus the CUDA
// system's policy names that CUDA code passes (`thrust::cuda::par`,
// `thrust::cuda::par.on(stream)`, `thrust::cuda::par_nosync`), as the HIP
// system's (`thrust::hip::par`, ...): rocThrust's device system on AMD is
// HIP (thrust/detail/config/config.h), whose policies run on the given
// stream as CUDA's do on theirs.
#pragma once
#include "../hiprs_cuda.h"
#include_next <thrust/execution_policy.h>
#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_HIP
THRUST_NAMESPACE_BEGIN
namespace cuda {
using thrust::hip_rocprim::par;
using thrust::hip_rocprim::par_nosync;
}  // namespace cuda
namespace system {
namespace cuda {
using thrust::hip_rocprim::par;
using thrust::hip_rocprim::par_nosync;
}  // namespace cuda
}  // namespace system
THRUST_NAMESPACE_END
#endif

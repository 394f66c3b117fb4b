// rocThrust's configuration, read as hipcc would have it: rocThrust (ROCm's
// Thrust, whose own `thrust/` headers CUDA sources include unchanged) picks
// its device compiler and backend from the compiler's macros, and takes
// `__CUDACC__`, which the layer defines for CUDA sources, as nvcc, for which
// it has no backend on AMD. Every rocThrust header includes this file
// first (through <thrust/detail/config.h> or <thrust/version.h>): it reads
// rocThrust's with `__CUDACC__` hidden, so the HIP backend is chosen
// (THRUST_DEVICE_SYSTEM_HIP; `thrust::cuda::par` is rocThrust's alias of
// `thrust::hip::par`), and restores the macro after.
#pragma once
#include "../../../hiprs_cuda.h"
#pragma push_macro("__CUDACC__")
#pragma push_macro("__CUDA_ARCH__")
#undef __CUDACC__
#undef __CUDA_ARCH__
#include_next <thrust/detail/config/config.h>
#pragma pop_macro("__CUDA_ARCH__")
#pragma pop_macro("__CUDACC__")

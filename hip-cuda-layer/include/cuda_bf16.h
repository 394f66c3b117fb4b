// Resolves to the hip-rs CUDA-over-HIP layer (hiprs_cuda.h).
#pragma once
#include "hiprs_cuda.h"
#if !HIPRS_CUDA_BF16
#error "cuda_bf16.h: this run-time compile has no HIP bf16 header (hip/hip_bf16.h). cuda-compat's nvrtc passes the HIP include folder it finds (HIP_PATH, ROCM_PATH, /opt/rocm): install HIP's headers or set one of them."
#endif

// Resolves to the hip-rs CUDA-over-HIP layer (hiprs_cuda.h): CUDA's
// runtime types (cudaError_t, cudaStream_t, ...), as nvcc's headers give them.
#pragma once
#include "hiprs_cuda.h"

// Resolves to the hip-rs CUDA-over-HIP layer (hiprs_cuda.h): the device
// runtime's declarations that nvcc's headers give device code.
#pragma once
#include "hiprs_cuda.h"

// Resolves to the hip-rs CUDA-over-HIP layer (hiprs_cuda.h).
#pragma once
#include "hiprs_cuda.h"

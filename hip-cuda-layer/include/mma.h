// <mma.h> for AMD: CUDA's WMMA tensor-core fragments have no counterpart in
// HIP's headers. The namespace exists so that a source including this
// preprocesses (the drop-in reads its kernel names); any use of it fails to
// compile, and the drop-in lists the kernels it affects as unavailable.
#pragma once
#include "hiprs_cuda.h"
namespace nvcuda {
namespace wmma {}
}  // namespace nvcuda

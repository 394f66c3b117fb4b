// <cooperative_groups.h> for AMD: HIP's cooperative groups, which keep
// CUDA's namespace and names (this_thread_block, this_grid, tiled_partition,
// thread_block_tile, ...). A grid-wide sync needs a cooperative launch, as
// on CUDA.
#pragma once
#include "hiprs_cuda.h"
#include <hip/hip_cooperative_groups.h>

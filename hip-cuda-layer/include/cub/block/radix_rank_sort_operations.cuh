// CUB's <cub/block/radix_rank_sort_operations.cuh> for AMD: hipCUB's
// <hipcub/block/radix_rank_sort_operations.hpp>, under namespace cub (hiprs_cuda_cub.h),
// through all of hipCUB: hipCUB 6.4's header of this name uses names of
// rocPRIM headers it does not include, and fails after hipcub/config.hpp.
#pragma once
#include "../../hiprs_cuda_cub.h"
#include <hipcub/hipcub.hpp>

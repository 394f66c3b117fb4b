// CUB's <cub/block/block_raking_layout.cuh> for AMD: hipCUB's
// <hipcub/block/block_raking_layout.hpp>, under namespace cub (hiprs_cuda_cub.h),
// through all of hipCUB: hipCUB 6.4's header of this name uses names of
// rocPRIM headers it does not include, and fails after hipcub/config.hpp.
#pragma once
#include "../../hiprs_cuda_cub.h"
#include <hipcub/hipcub.hpp>

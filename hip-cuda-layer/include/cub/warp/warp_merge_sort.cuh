// CUB's <cub/warp/warp_merge_sort.cuh> for AMD: hipCUB's
// <hipcub/warp/warp_merge_sort.hpp>, under namespace cub (hiprs_cuda_cub.h).
#pragma once
#include "../../hiprs_cuda_cub.h"
#include <hipcub/warp/warp_merge_sort.hpp>

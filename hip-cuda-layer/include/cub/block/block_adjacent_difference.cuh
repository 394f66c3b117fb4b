// CUB's <cub/block/block_adjacent_difference.cuh> for AMD: hipCUB's
// <hipcub/block/block_adjacent_difference.hpp>, under namespace cub (hiprs_cuda_cub.h).
#pragma once
#include "../../hiprs_cuda_cub.h"
#include <hipcub/block/block_adjacent_difference.hpp>

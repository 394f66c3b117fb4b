// CUB's <cub/block/block_radix_rank.cuh> for AMD: hipCUB's
// <hipcub/block/block_radix_rank.hpp>, under namespace cub (hiprs_cuda_cub.h).
#pragma once
#include "../../hiprs_cuda_cub.h"
#include <hipcub/block/block_radix_rank.hpp>

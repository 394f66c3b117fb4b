// CUB's <cub/util_allocator.cuh> for AMD: hipCUB's
// <hipcub/util_allocator.hpp>, under namespace cub (hiprs_cuda_cub.h).
#pragma once
#include "../hiprs_cuda_cub.h"
#include <hipcub/util_allocator.hpp>

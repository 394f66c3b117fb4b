// CUB's <cub/util_ptx.cuh> for AMD: hipCUB's
// <hipcub/util_ptx.hpp>, under namespace cub (hiprs_cuda_cub.h).
#pragma once
#include "../hiprs_cuda_cub.h"
#include <hipcub/util_ptx.hpp>

// CUB's <cub/util_type.cuh> for AMD: hipCUB's
// <hipcub/util_type.hpp>, under namespace cub (hiprs_cuda_cub.h).
#pragma once
#include "../hiprs_cuda_cub.h"
#include <hipcub/util_type.hpp>

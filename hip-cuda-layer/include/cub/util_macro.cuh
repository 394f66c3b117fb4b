// CUB's <cub/util_macro.cuh> for AMD: hipCUB's
// <hipcub/util_macro.hpp>, under namespace cub (hiprs_cuda_cub.h).
#pragma once
#include "../hiprs_cuda_cub.h"
#include <hipcub/util_macro.hpp>

// CUB's <cub/util_device.cuh> for AMD: hipCUB's
// <hipcub/util_device.hpp>, under namespace cub (hiprs_cuda_cub.h).
#pragma once
#include "../hiprs_cuda_cub.h"
#include <hipcub/util_device.hpp>

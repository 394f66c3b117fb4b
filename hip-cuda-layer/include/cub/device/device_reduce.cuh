// CUB's <cub/device/device_reduce.cuh> for AMD: hipCUB's
// <hipcub/device/device_reduce.hpp>, under namespace cub (hiprs_cuda_cub.h).
#pragma once
#include "../../hiprs_cuda_cub.h"
#include <hipcub/device/device_reduce.hpp>

// CUB's <cub/device/device_spmv.cuh> for AMD: hipCUB's
// <hipcub/device/device_spmv.hpp>, under namespace cub (hiprs_cuda_cub.h).
#pragma once
#include "../../hiprs_cuda_cub.h"
#include <hipcub/device/device_spmv.hpp>

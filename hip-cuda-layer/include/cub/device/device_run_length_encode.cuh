// CUB's <cub/device/device_run_length_encode.cuh> for AMD: hipCUB's
// <hipcub/device/device_run_length_encode.hpp>, under namespace cub (hiprs_cuda_cub.h).
#pragma once
#include "../../hiprs_cuda_cub.h"
#include <hipcub/device/device_run_length_encode.hpp>

// CUB's <cub/device/device_select.cuh> for AMD: hipCUB's
// <hipcub/device/device_select.hpp>, under namespace cub (hiprs_cuda_cub.h).
#pragma once
#include "../../hiprs_cuda_cub.h"
#include <hipcub/device/device_select.hpp>

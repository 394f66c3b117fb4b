// CUB's <cub/warp/warp_scan.cuh> for AMD: hipCUB's
// <hipcub/warp/warp_scan.hpp>, under namespace cub (hiprs_cuda_cub.h).
#pragma once
#include "../../hiprs_cuda_cub.h"
#include <hipcub/warp/warp_scan.hpp>

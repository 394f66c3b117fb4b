// CUB's <cub/warp/warp_exchange.cuh> for AMD: hipCUB's
// <hipcub/warp/warp_exchange.hpp>, under namespace cub (hiprs_cuda_cub.h).
#pragma once
#include "../../hiprs_cuda_cub.h"
#include <hipcub/warp/warp_exchange.hpp>

// CUB's <cub/grid/grid_even_share.cuh> for AMD: hipCUB's
// <hipcub/grid/grid_even_share.hpp>, under namespace cub (hiprs_cuda_cub.h).
#pragma once
#include "../../hiprs_cuda_cub.h"
#include <hipcub/grid/grid_even_share.hpp>

// CUB's <cub/grid/grid_mapping.cuh> for AMD: hipCUB's
// <hipcub/grid/grid_mapping.hpp>, under namespace cub (hiprs_cuda_cub.h).
#pragma once
#include "../../hiprs_cuda_cub.h"
#include <hipcub/grid/grid_mapping.hpp>

// CUB's <cub/config.cuh> for AMD: hipCUB's
// <hipcub/config.hpp>, under namespace cub (hiprs_cuda_cub.h).
#pragma once
#include "../hiprs_cuda_cub.h"
#include <hipcub/config.hpp>

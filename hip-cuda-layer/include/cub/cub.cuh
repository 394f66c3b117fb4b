// CUB's <cub/cub.cuh> for AMD: all of hipCUB (<hipcub/hipcub.hpp>), under
// namespace cub (hiprs_cuda_cub.h).
#pragma once
#include "../hiprs_cuda_cub.h"
#include <hipcub/hipcub.hpp>

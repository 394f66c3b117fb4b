// CUB's <cub/iterator/constant_input_iterator.cuh> for AMD: hipCUB's
// <hipcub/iterator/constant_input_iterator.hpp>, under namespace cub (hiprs_cuda_cub.h).
#pragma once
#include "../../hiprs_cuda_cub.h"
#include <hipcub/iterator/constant_input_iterator.hpp>

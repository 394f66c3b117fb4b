// CUB's <cub/iterator/arg_index_input_iterator.cuh> for AMD: hipCUB's
// <hipcub/iterator/arg_index_input_iterator.hpp>, under namespace cub (hiprs_cuda_cub.h).
#pragma once
#include "../../hiprs_cuda_cub.h"
#include <hipcub/iterator/arg_index_input_iterator.hpp>

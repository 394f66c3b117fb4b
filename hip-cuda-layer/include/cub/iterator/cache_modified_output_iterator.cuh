// CUB's <cub/iterator/cache_modified_output_iterator.cuh> for AMD: hipCUB's
// <hipcub/iterator/cache_modified_output_iterator.hpp>, under namespace cub (hiprs_cuda_cub.h).
#pragma once
#include "../../hiprs_cuda_cub.h"
#include <hipcub/iterator/cache_modified_output_iterator.hpp>

// CUB's <cub/iterator/discard_output_iterator.cuh> for AMD: hipCUB's
// <hipcub/iterator/discard_output_iterator.hpp>, under namespace cub (hiprs_cuda_cub.h).
#pragma once
#include "../../hiprs_cuda_cub.h"
#include <hipcub/iterator/discard_output_iterator.hpp>

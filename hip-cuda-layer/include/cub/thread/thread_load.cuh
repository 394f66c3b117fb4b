// CUB's <cub/thread/thread_load.cuh> for AMD: hipCUB's
// <hipcub/thread/thread_load.hpp>, under namespace cub (hiprs_cuda_cub.h).
#pragma once
#include "../../hiprs_cuda_cub.h"
#include <hipcub/thread/thread_load.hpp>

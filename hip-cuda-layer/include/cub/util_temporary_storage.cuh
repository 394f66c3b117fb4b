// CUB's <cub/util_temporary_storage.cuh> for AMD: hipCUB's
// <hipcub/util_temporary_storage.hpp>, under namespace cub (hiprs_cuda_cub.h).
#pragma once
#include "../hiprs_cuda_cub.h"
#include <hipcub/util_temporary_storage.hpp>

// CUB for AMD: hipCUB, ROCm's CUB over rocPRIM, under CUB's namespace. The
// layer's `cub/*.cuh` headers (CUB's own paths: <cub/cub.cuh>,
// <cub/block/block_load.cuh>, <cub/device/device_reduce.cuh>, ...) include
// this and hipCUB's header of the same name (<hipcub/block/block_load.hpp>,
// ...); <cub/cub.cuh> includes all of hipCUB (<hipcub/hipcub.hpp>).
//
// hipCUB has CUB's class, function and enum names (cub::BlockLoad,
// cub::BLOCK_LOAD_WARP_TRANSPOSE, cub::DeviceReduce::Sum, ...) in namespace
// `hipcub`, and returns hipError_t where CUB returns cudaError_t (the same
// type under the layer). Its headers come with ROCm (hipcub, rocprim;
// scripts/hip-toolchain.sh unpacks Debian's libhipcub-dev and
// librocprim-dev beside the HIP headers).
//
// Warp size: hipCUB's warp-level and warp-transposing block algorithms use
// the hardware's wavefront (64 lanes on CDNA), not the layer's 32-lane
// warps of the *_sync functions: CUB code that sizes its blocks in
// multiples of 32 may need multiples of 64 there (hipCUB checks this at
// compile time where an algorithm requires it).
#pragma once
#include "hiprs_cuda.h"
#if !__has_include(<hipcub/config.hpp>)
#error "cub/*.cuh: the layer maps CUB to hipCUB, whose headers were not found (hipcub/config.hpp): install ROCm's hipcub and rocprim (Debian: libhipcub-dev)"
#endif
// rocPRIM 6.4 marks the storage type behind hipCUB's TempStorage types
// deprecated (rocprim::detail::raw_storage), so CUB's own way of declaring
// a block algorithm's shared memory, `__shared__ typename
// cub::BlockReduce<...>::TempStorage`, warns: rocPRIM's internals are not
// the CUDA code's to change.
#ifndef ROCPRIM_NO_DEPRECATION_WARNINGS
#define ROCPRIM_NO_DEPRECATION_WARNINGS
#endif
#include <hipcub/config.hpp>
#include <hipcub/util_macro.hpp>

namespace cub = ::hipcub;

// CUB's macros that hipCUB has under its own prefix, with the same meaning.
#ifndef CUB_MAX
#define CUB_MAX(a, b) HIPCUB_MAX(a, b)
#define CUB_MIN(a, b) HIPCUB_MIN(a, b)
#define CUB_QUOTIENT_FLOOR(x, y) HIPCUB_QUOTIENT_FLOOR(x, y)
#define CUB_QUOTIENT_CEILING(x, y) HIPCUB_QUOTIENT_CEILING(x, y)
#define CUB_ROUND_UP_NEAREST(x, y) HIPCUB_ROUND_UP_NEAREST(x, y)
#define CUB_ROUND_DOWN_NEAREST(x, y) HIPCUB_ROUND_DOWN_NEAREST(x, y)
#endif
#ifndef CubDebug
#define CubDebug(e) HipcubDebug(e)
#endif
#ifndef CUB_RUNTIME_FUNCTION
#define CUB_RUNTIME_FUNCTION HIPCUB_RUNTIME_FUNCTION
#endif

// CUDA names over HIP: the compatibility layer the hip-rs cudaforge drop-in
// force-includes (-include) when it compiles a crate's unmodified `.cu`
// sources for AMD GPUs. The `cuda_*.h` headers beside it include this one,
// so `#include <cuda_fp16.h>` and the like resolve here.
//
// What it does, in order:
// 1. HIP's runtime, half and bfloat16 headers.
// 2. The CUDA version and architecture macros nvcc defines. In the device
//    pass `__CUDA_ARCH__` is HIPRS_CUDA_ARCH (default 890, Ada), so code
//    guarded by `#if __CUDA_ARCH__ >= N` for bf16 (800) and fp8 (890) is
//    compiled: HIP and this header provide those types on every AMD target.
//    `__CUDA_ARCH_LIST__` is the same value, in both passes.
// 3. Types and functions CUDA has and HIP lacks or names differently:
//    __nv_bfloat16, __nv_fp8_e4m3 (OCP E4M3, in software: AMD's own fp8
//    types are FNUZ on gfx94x, a different format), the *_sync warp
//    functions and __reduce_*_sync (hiprs_cuda_warp.h), 16-bit and packed
//    atomics, integer-to-bf16 conversions, __ldg of bf16.
// 4. Runtime API names (cudaStream_t, cudaMemcpyAsync, ...) for host code.
// Beside it, not included by it: CUB's headers (cub/cub.cuh,
// cub/block/block_load.cuh, ...) over ROCm's hipCUB, under namespace cub
// (hiprs_cuda_cub.h), and two of Thrust's over ROCm's rocThrust, whose own
// thrust/ headers CUDA code includes: its configuration, read as for HIP
// (thrust/detail/config/config.h), and thrust::cuda::par
// (thrust/execution_policy.h).
//
// Warp size: CUDA code assumes 32-lane warps. On wave64 targets (CDNA:
// gfx9xx) every *_sync shuffle and reduction here works on 32-lane halves of
// the wavefront (shuffle width 32), so a warp-level result is what it is on
// a 32-lane warp. On wave32 targets (RDNA: gfx10xx-gfx12xx) the wavefront
// is the warp. Code that reads `warpSize` itself gets the hardware's value;
// host code asking cuda-compat for the warp size gets 32, the warp this
// layer gives (launches sized by it match the device code's warps).
#pragma once
#ifndef HIPRS_CUDA_H
#define HIPRS_CUDA_H

// clang includes its HIP wrapper ahead of every source, but a forced include
// can come first: take the wrapper now, so HIP's headers see clang's math
// declarations as they expect.
// hiprtc (__HIPCC_RTC__) has HIP's runtime and half types built in, and
// neither the wrapper nor hip_runtime.h to include; its bf16 header comes
// from the HIP include folder the compile names (cuda-compat's nvrtc passes
// it when it finds one).
#if defined(__clang__) && defined(__HIP__) && !defined(__HIPCC_RTC__)
#include <__clang_hip_runtime_wrapper.h>
#endif
#ifndef __HIPCC_RTC__
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#endif
#if !defined(__HIPCC_RTC__) || __has_include(<hip/hip_bf16.h>)
#include <hip/hip_bf16.h>
#define HIPRS_CUDA_BF16 1
#else
// A run-time compile given no HIP include folder: no bf16 (cuda_bf16.h
// says so if a source asks for it).
#define HIPRS_CUDA_BF16 0
#endif

#ifndef HIPRS_CUDA_ARCH
#define HIPRS_CUDA_ARCH 890
#endif
#if defined(__HIP_DEVICE_COMPILE__) && !defined(__CUDA_ARCH__)
#define __CUDA_ARCH__ HIPRS_CUDA_ARCH
#endif
// nvcc defines the list of compiled architectures in both passes; host code
// that picks a kernel variant by the GPU's compute capability (llama.cpp's
// ggml_cuda_highest_compiled_arch) reads it to stay within what the device
// pass compiled.
#ifndef __CUDA_ARCH_LIST__
#define __CUDA_ARCH_LIST__ HIPRS_CUDA_ARCH
#endif
#ifndef __CUDACC__
#define __CUDACC__ 1
#endif
#ifndef __CUDACC_VER_MAJOR__
#define __CUDACC_VER_MAJOR__ 12
#define __CUDACC_VER_MINOR__ 8
#define __CUDACC_VER_BUILD__ 0
#endif
#ifndef CUDART_VERSION
#define CUDART_VERSION 12080
#endif

#define __trap() __builtin_trap()

// ---- bfloat16 ----------------------------------------------------------
#if HIPRS_CUDA_BF16
typedef __hip_bfloat16 __nv_bfloat16;
typedef __hip_bfloat162 __nv_bfloat162;
typedef __hip_bfloat16_raw __nv_bfloat16_raw;
typedef __hip_bfloat16 nv_bfloat16;
typedef __hip_bfloat162 nv_bfloat162;

__device__ __forceinline__ __nv_bfloat16 __hmax_nan(__nv_bfloat16 a, __nv_bfloat16 b) {
  const float x = __bfloat162float(a), y = __bfloat162float(b);
  return x != x ? a : y != y ? b : (x < y ? b : a);
}
__device__ __forceinline__ __nv_bfloat16 __hmin_nan(__nv_bfloat16 a, __nv_bfloat16 b) {
  const float x = __bfloat162float(a), y = __bfloat162float(b);
  return x != x ? a : y != y ? b : (y < x ? b : a);
}
#endif  // HIPRS_CUDA_BF16

// ---- 16-bit compare-and-swap (CUDA 7.0+), on the aligned 32-bit word -----
__device__ __forceinline__ unsigned short atomicCAS(unsigned short* address, unsigned short compare,
                                                    unsigned short val) {
  unsigned* word = (unsigned*)((size_t)address & ~(size_t)3);
  const unsigned shift = ((size_t)address & 2) ? 16u : 0u;
  unsigned old = *word;
  for (;;) {
    const unsigned short current = (unsigned short)(old >> shift);
    if (current != compare) return current;
    const unsigned desired = (old & ~(0xffffu << shift)) | ((unsigned)val << shift);
    const unsigned seen = atomicCAS(word, old, desired);
    if (seen == old) return compare;
    old = seen;
  }
}

// ---- 16-bit float atomics (CUDA 7.0+ / 8.0+), as CAS loops -------------
__device__ __forceinline__ __half atomicAdd(__half* address, __half val) {
  unsigned short* p = (unsigned short*)address;
  unsigned short old = *p, assumed;
  do {
    assumed = old;
    old = atomicCAS(p, assumed, __half_as_ushort(__hadd(__ushort_as_half(assumed), val)));
  } while (assumed != old);
  return __ushort_as_half(old);
}
// Packed pairs (CUDA 8.0+ for half2, 8.0+ on sm_80 for bf162): one CAS loop
// on the 32-bit word, both halves added at once. Each half is rounded as
// CUDA's does it (the pair's own addition).
__device__ __forceinline__ __half2 atomicAdd(__half2* address, __half2 val) {
  unsigned* p = (unsigned*)address;
  unsigned old = *p, assumed;
  do {
    assumed = old;  // .x is the low half, as CUDA lays the pair out
    const __half2 sum = __hadd2(__halves2half2(__ushort_as_half((unsigned short)assumed),
                                               __ushort_as_half((unsigned short)(assumed >> 16))),
                                val);
    old = atomicCAS(p, assumed,
                    __half_as_ushort(__low2half(sum)) |
                        ((unsigned)__half_as_ushort(__high2half(sum)) << 16));
  } while (assumed != old);
  return __halves2half2(__ushort_as_half((unsigned short)old),
                        __ushort_as_half((unsigned short)(old >> 16)));
}
#if HIPRS_CUDA_BF16
__device__ __forceinline__ __nv_bfloat162 atomicAdd(__nv_bfloat162* address, __nv_bfloat162 val) {
  unsigned* p = (unsigned*)address;
  unsigned old = *p, assumed;
  do {
    assumed = old;  // .x is the low half, as CUDA lays the pair out
    const float x = __bfloat162float(__ushort_as_bfloat16((unsigned short)assumed));
    const float y = __bfloat162float(__ushort_as_bfloat16((unsigned short)(assumed >> 16)));
    const unsigned sum = __bfloat16_as_ushort(__float2bfloat16(x + __bfloat162float(val.x))) |
                         ((unsigned)__bfloat16_as_ushort(__float2bfloat16(y + __bfloat162float(val.y)))
                          << 16);
    old = atomicCAS(p, assumed, sum);
  } while (assumed != old);
  __nv_bfloat162 r;
  r.x = __ushort_as_bfloat16((unsigned short)old);
  r.y = __ushort_as_bfloat16((unsigned short)(old >> 16));
  return r;
}
__device__ __forceinline__ __nv_bfloat16 atomicAdd(__nv_bfloat16* address, __nv_bfloat16 val) {
  unsigned short* p = (unsigned short*)address;
  unsigned short old = *p, assumed;
  do {
    assumed = old;
    const float sum = __bfloat162float(__ushort_as_bfloat16(assumed)) + __bfloat162float(val);
    old = atomicCAS(p, assumed, __bfloat16_as_ushort(__float2bfloat16(sum)));
  } while (assumed != old);
  return __ushort_as_bfloat16(old);
}
// gfx950 converts f32 to bf16 in one instruction (v_cvt_pk_bf16_f32, round
// to nearest even, NaN stays NaN, as HIP's software conversion): device code
// there gets it for the conversions CUDA code calls by name. HIP's own
// operators and constructors keep its software conversion (same results).
#if defined(__HIP_DEVICE_COMPILE__) && defined(__gfx950__)
__device__ __forceinline__ __hip_bfloat16 hiprs_float2bfloat16(float f) {
  return __builtin_bit_cast(__hip_bfloat16, (__bf16)f);
}
#define __float2bfloat16(f) hiprs_float2bfloat16(f)
#define __float22bfloat162_rn(v) hiprs_floats2bfloat162((v).x, (v).y)
#endif
// CUDA's __floats2bfloat162_rn, which HIP lacks.
__host__ __device__ __forceinline__ __hip_bfloat162 hiprs_floats2bfloat162(float a, float b) {
  __hip_bfloat162 r;
  r.x = __float2bfloat16(a);
  r.y = __float2bfloat16(b);
  return r;
}
#define __floats2bfloat162_rn(a, b) hiprs_floats2bfloat162((a), (b))
__host__ __device__ __forceinline__ __nv_bfloat16 __float2bfloat16_rn(float f) {
  return __float2bfloat16(f);
}
// CUDA's integer-to-bf16 conversions (round to nearest, ties to even), which
// HIP lacks. Rounded once, exactly: the magnitude is cut to bf16's 8
// significant bits by hand, and the float that then holds it exactly is
// converted (a conversion through float would round twice above 2^24).
__host__ __device__ __forceinline__ __nv_bfloat16 hiprs_u64_to_bfloat16_rn(unsigned long long m,
                                                                         bool negative) {
  float f = 0.0f;
  if (m >> 8) {
    const int shift = 56 - __builtin_clzll(m);  // bits below the top 8
    unsigned long long kept = m >> shift;
    const unsigned long long rest = m & ((1ull << shift) - 1), half = 1ull << (shift - 1);
    if (rest > half || (rest == half && (kept & 1))) kept += 1;  // 256 is still exact
    f = (float)kept * __builtin_ldexpf(1.0f, shift);
  } else {
    f = (float)m;
  }
  return __float2bfloat16(negative ? -f : f);
}
#define HIPRS_SIGNED_TO_BF16(NAME, T)                                              \
  __host__ __device__ __forceinline__ __nv_bfloat16 hiprs_##NAME(T i) {               \
    const bool negative = i < 0;                                                   \
    const unsigned long long m =                                                   \
        negative ? (unsigned long long)(-(i + 1)) + 1ull : (unsigned long long)i;  \
    return hiprs_u64_to_bfloat16_rn(m, negative);                                  \
  }
#define HIPRS_UNSIGNED_TO_BF16(NAME, T)                                \
  __host__ __device__ __forceinline__ __nv_bfloat16 hiprs_##NAME(T i) {   \
    return hiprs_u64_to_bfloat16_rn((unsigned long long)i, false);     \
  }
HIPRS_SIGNED_TO_BF16(short2bfloat16_rn, short)
HIPRS_SIGNED_TO_BF16(int2bfloat16_rn, int)
HIPRS_SIGNED_TO_BF16(ll2bfloat16_rn, long long)
HIPRS_UNSIGNED_TO_BF16(ushort2bfloat16_rn, unsigned short)
HIPRS_UNSIGNED_TO_BF16(uint2bfloat16_rn, unsigned int)
HIPRS_UNSIGNED_TO_BF16(ull2bfloat16_rn, unsigned long long)
#undef HIPRS_SIGNED_TO_BF16
#undef HIPRS_UNSIGNED_TO_BF16
#define __short2bfloat16_rn(i) hiprs_short2bfloat16_rn(i)
#define __int2bfloat16_rn(i) hiprs_int2bfloat16_rn(i)
#define __ll2bfloat16_rn(i) hiprs_ll2bfloat16_rn(i)
#define __ushort2bfloat16_rn(i) hiprs_ushort2bfloat16_rn(i)
#define __uint2bfloat16_rn(i) hiprs_uint2bfloat16_rn(i)
#define __ull2bfloat16_rn(i) hiprs_ull2bfloat16_rn(i)

// __ldg for bf16 (HIP has it for half and the vector types): on AMD a
// read-only load is a load.
__device__ __forceinline__ __nv_bfloat16 __ldg(const __nv_bfloat16* p) { return *p; }
__device__ __forceinline__ __nv_bfloat162 __ldg(const __nv_bfloat162* p) { return *p; }
#endif  // HIPRS_CUDA_BF16

// ---- SIMD-within-a-word integer intrinsics --------------------------------
// __dp4a: a four-byte dot product added to c, wrapping as nvcc's IDP4A
// does. Where the target has a four-byte dot instruction it is one
// instruction: v_dot4_i32_i8 / v_dot4_u32_u8 (dot1-insts and dot7-insts:
// gfx906, gfx908, CDNA 2 and 3, gfx950, gfx1011/1012, RDNA 2) and
// v_dot4_i32_iu8 (dot8-insts: RDNA 3 and 4), without clamping. Elsewhere,
// four byte products. (As byte products, candle's quantized matmuls spend
// registers enough to spill on RDNA 3: 2,767 VGPRs spilled in quantized.cu
// on gfx1100, against 738 with the instruction; see CHANGELOG.)
#if defined(__gfx906__) || defined(__gfx908__) || defined(__gfx90a__) || defined(__gfx940__) || \
    defined(__gfx941__) || defined(__gfx942__) || defined(__gfx950__) || defined(__gfx1011__) || \
    defined(__gfx1012__) || defined(__gfx1030__) || defined(__gfx1031__) || defined(__gfx1032__) || \
    defined(__gfx1033__) || defined(__gfx1034__) || defined(__gfx1035__) || defined(__gfx1036__)
#define HIPRS_DOT4_I8 1
#elif (defined(__gfx1100__) || defined(__gfx1101__) || defined(__gfx1102__) ||   \
       defined(__gfx1103__) || defined(__gfx1150__) || defined(__gfx1151__) ||   \
       defined(__gfx1152__) || defined(__gfx1153__) || defined(__gfx1200__) ||   \
       defined(__gfx1201__)) && __has_builtin(__builtin_amdgcn_sudot4)
#define HIPRS_DOT4_IU8 1
#endif
__device__ __forceinline__ int __dp4a(int a, int b, int c) {
#if defined(HIPRS_DOT4_I8)
  return __builtin_amdgcn_sdot4(a, b, c, false);
#elif defined(HIPRS_DOT4_IU8)
  return __builtin_amdgcn_sudot4(true, a, true, b, c, false);
#else
#pragma unroll
  for (int i = 0; i < 32; i += 8) c += (int)(signed char)(a >> i) * (int)(signed char)(b >> i);
  return c;
#endif
}
__device__ __forceinline__ unsigned __dp4a(unsigned a, unsigned b, unsigned c) {
#if defined(HIPRS_DOT4_I8) || defined(HIPRS_DOT4_IU8)
  return __builtin_amdgcn_udot4(a, b, c, false);
#else
#pragma unroll
  for (int i = 0; i < 32; i += 8) c += ((a >> i) & 0xffu) * ((b >> i) & 0xffu);
  return c;
#endif
}
#define HIPRS_BYTEWISE(NAME, EXPR)                                            \
  __device__ __forceinline__ unsigned NAME(unsigned a, unsigned b) {          \
    unsigned r = 0;                                                           \
    _Pragma("unroll") for (int i = 0; i < 32; i += 8) {                       \
      const int x = (int)(signed char)(a >> i), y = (int)(signed char)(b >> i); \
      const unsigned ux = (a >> i) & 0xffu, uy = (b >> i) & 0xffu;            \
      (void)x; (void)y; (void)ux; (void)uy;                                   \
      r |= ((unsigned)(EXPR) & 0xffu) << i;                                   \
    }                                                                         \
    return r;                                                                 \
  }
HIPRS_BYTEWISE(__vsubss4, (x - y < -128 ? -128 : x - y > 127 ? 127 : x - y))
HIPRS_BYTEWISE(__vaddss4, (x + y < -128 ? -128 : x + y > 127 ? 127 : x + y))
HIPRS_BYTEWISE(__vsub4, ux - uy)
HIPRS_BYTEWISE(__vadd4, ux + uy)
HIPRS_BYTEWISE(__vcmpne4, (ux != uy ? 0xffu : 0u))
HIPRS_BYTEWISE(__vcmpeq4, (ux == uy ? 0xffu : 0u))
#undef HIPRS_BYTEWISE

#include "hiprs_cuda_warp.h"


#include "hiprs_cuda_fp8.h"

// The helpers of translated inline PTX (hip-cuda-layer's ptx.rs); after
// the fp8 types, which its fp8x2 conversions use.
#include "hiprs_cuda_ptx.h"
// Host-side runtime names: a run-time compile (hiprtc) has no host code.
// There, device code gets `assert` as nvcc's headers give it (from the
// layer's run-time stand-in for assert.h).
#ifndef __HIPCC_RTC__
#include "hiprs_cuda_runtime.h"
#else
#include <assert.h>
#endif

#endif  // HIPRS_CUDA_H

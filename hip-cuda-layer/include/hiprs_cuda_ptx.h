// Helpers of the inline PTX translation (hip-cuda-layer's src/ptx.rs):
// the C++ that replaces a CUDA source's `asm("cvt.rn.f16.f32 ...")` and the
// like calls these. Included by hiprs_cuda.h after HIP's half and bfloat16
// headers. Each follows PTX's definition of the instruction it stands for.
#pragma once
#ifndef HIPRS_CUDA_PTX_H
#define HIPRS_CUDA_PTX_H

// f16 and packed f16x2 as the bits PTX's `h` and `r` operands carry.
__device__ __forceinline__ __half hiprs_ptx_half(unsigned short u) {
  return __ushort_as_half(u);
}
__device__ __forceinline__ unsigned short hiprs_ptx_bits(__half h) {
  return __half_as_ushort(h);
}
__device__ __forceinline__ __half2 hiprs_ptx_half2(unsigned int u) {
  return __builtin_bit_cast(__half2, u);
}
__device__ __forceinline__ unsigned int hiprs_ptx_bits2(__half2 h) {
  return __builtin_bit_cast(unsigned int, h);
}

// f32 to bf16, rounding to nearest even; a NaN stays a (quiet) NaN.
__device__ __forceinline__ unsigned short hiprs_ptx_f32_to_bf16_rn(float f) {
  unsigned int u = __builtin_bit_cast(unsigned int, f);
  if ((u & 0x7fffffffu) > 0x7f800000u) {
    return (unsigned short)((u >> 16) | 0x40u);
  }
  u += 0x7fffu + ((u >> 16) & 1u);
  return (unsigned short)(u >> 16);
}

// `.ftz`: a subnormal f32 becomes zero of the same sign.
__device__ __forceinline__ float hiprs_ptx_ftz(float f) {
  unsigned int u = __builtin_bit_cast(unsigned int, f);
  return (u & 0x7f800000u) == 0 ? __builtin_bit_cast(float, u & 0x80000000u) : f;
}

// An f32 function applied to each half of a packed f16x2, each result
// rounded once to f16.
template <class F>
__device__ __forceinline__ unsigned int hiprs_ptx_map_f16x2(unsigned int x, F f) {
  unsigned short lo = __half_as_ushort(__float2half_rn(f(__half2float(__ushort_as_half((unsigned short)(x & 0xffffu))))));
  unsigned short hi = __half_as_ushort(__float2half_rn(f(__half2float(__ushort_as_half((unsigned short)(x >> 16))))));
  return (unsigned int)lo | ((unsigned int)hi << 16);
}

// lop3.b32: bit i of the result is bit (a_i * 4 + b_i * 2 + c_i) of the
// truth table (the table of F over a = 0xF0, b = 0xCC, c = 0xAA).
__device__ __forceinline__ unsigned int hiprs_ptx_lop3(unsigned int a, unsigned int b, unsigned int c,
                                                       unsigned int lut) {
  unsigned int r = 0;
#pragma unroll
  for (int m = 0; m < 8; ++m) {
    if (lut >> m & 1u) {
      r |= ((m & 4) ? a : ~a) & ((m & 2) ? b : ~b) & ((m & 1) ? c : ~c);
    }
  }
  return r;
}

// prmt.b32 (default mode): byte i of the result is byte (s & 7) of the
// 8-byte {b, a} (a bytes 0-3, b bytes 4-7), where s is nibble i of the
// selector; with s & 8, that byte's sign bit fills the byte instead.
__device__ __forceinline__ unsigned int hiprs_ptx_prmt(unsigned int a, unsigned int b, unsigned int sel) {
  unsigned long long bytes = (unsigned long long)a | ((unsigned long long)b << 32);
  unsigned int r = 0;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    unsigned int s = sel >> (4 * i) & 0xfu;
    unsigned int byte = (unsigned int)(bytes >> (8 * (s & 7u))) & 0xffu;
    if (s & 8u) {
      byte = (byte & 0x80u) ? 0xffu : 0u;
    }
    r |= byte << (8 * i);
  }
  return r;
}

// CUDA's __cvta_generic_to_shared: a shared-memory (LDS) pointer's address
// in the shared window, what PTX's `.shared` operands take.
__device__ __forceinline__ size_t __cvta_generic_to_shared(const void* p) {
  return (size_t)(unsigned int)(size_t)(const __attribute__((address_space(3))) void*)p;
}

// cp.async: cp_size bytes (4, 8 or 16) to shared memory at `dst` (a
// shared-window address) from global memory at `src`, the first src_size
// of them copied, the rest zero. Done at once by the calling thread.
__device__ __forceinline__ void hiprs_ptx_cp_async(unsigned int dst, unsigned long long src,
                                                   unsigned int cp_size, unsigned int src_size) {
  __attribute__((address_space(3))) unsigned char* d = (__attribute__((address_space(3))) unsigned char*)(size_t)dst;
  const unsigned char* s = (const unsigned char*)src;
  if (src_size >= cp_size && cp_size % 4 == 0) {
    for (unsigned int i = 0; i < cp_size; i += 4) {
      *(__attribute__((address_space(3))) unsigned int*)(d + i) = *(const unsigned int*)(s + i);
    }
  } else {
    for (unsigned int i = 0; i < cp_size; ++i) {
      d[i] = i < src_size ? s[i] : 0;
    }
  }
}

// Two fp8 (OCP e4m3 or e5m2, the upper byte first in the pair's upper
// half) to a packed f16x2, and back with round-to-nearest-even and
// saturation to the largest finite value (NaN stays NaN).
__device__ __forceinline__ unsigned int hiprs_ptx_fp8x2_to_f16x2(unsigned short v,
                                                                 __nv_fp8_interpretation_t fmt) {
  unsigned int lo = __nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)(v & 0xffu), fmt).x;
  unsigned int hi = __nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)(v >> 8), fmt).x;
  return lo | (hi << 16);
}
__device__ __forceinline__ unsigned short hiprs_ptx_f16x2_to_fp8x2(unsigned int v,
                                                                  __nv_fp8_interpretation_t fmt) {
  __half_raw lo, hi;
  lo.x = (unsigned short)(v & 0xffffu);
  hi.x = (unsigned short)(v >> 16);
  return (unsigned short)(__nv_cvt_halfraw_to_fp8(lo, __NV_SATFINITE, fmt) |
                          ((unsigned int)__nv_cvt_halfraw_to_fp8(hi, __NV_SATFINITE, fmt) << 8));
}

#endif  // HIPRS_CUDA_PTX_H

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

#endif  // HIPRS_CUDA_PTX_H

// CUDA's 8-bit floating-point types (cuda_fp8.h) in software, for every AMD
// target: __nv_fp8_e4m3 and __nv_fp8_e5m2 are the OCP formats (E4M3: bias 7,
// no infinity, NaN 0x7F/0xFF, largest finite 448; E5M2: IEEE-like, bias 15).
// AMD's hardware fp8 on gfx94x is the FNUZ variant, a different format, so
// HIP's types cannot stand in. Conversions to fp8 round to nearest even;
// the constructors saturate to the largest finite value as CUDA's do.
//
// Where the hardware's fp8 is OCP (gfx950, and gfx1200/gfx1201: RDNA4),
// device code converts with its instructions: v_cvt_f32_fp8/bf8 decode, and
// v_cvt_pk_fp8/bf8_f32 encode (round to nearest even) the values inside the
// finite range. NaN and values at or past the largest finite one take the
// software path on every target, so saturation and NaN codes stay CUDA's.
// gfx94x's instructions are FNUZ and are never used.
// hip-cuda-layer/tests/cvt.cu is compiled for each kind of target and its
// instructions checked (scripts/candle.sh amd).
#pragma once

#if defined(__HIP_DEVICE_COMPILE__) && \
    (defined(__gfx950__) || defined(__gfx1200__) || defined(__gfx1201__))
#define HIPRS_FP8_OCP_HARDWARE 1
#else
#define HIPRS_FP8_OCP_HARDWARE 0
#endif

typedef unsigned char __nv_fp8_storage_t;
typedef unsigned short __nv_fp8x2_storage_t;
typedef unsigned int __nv_fp8x4_storage_t;
typedef enum __nv_saturation_t { __NV_NOSAT, __NV_SATFINITE } __nv_saturation_t;
typedef enum __nv_fp8_interpretation_t { __NV_E4M3, __NV_E5M2 } __nv_fp8_interpretation_t;

// ldexp and frexp: in device code the AMDGPU instructions themselves, since
// older compilers (ROCm 5's hiprtc) lower the generic builtins to library
// calls the device libraries do not have.
__host__ __device__ inline float hiprs_ldexpf(float x, int e) {
#ifdef __HIP_DEVICE_COMPILE__
  return __builtin_amdgcn_ldexpf(x, e);
#else
  return __builtin_ldexpf(x, e);
#endif
}
// The exponent `e` of `a = frac * 2^e`, frac in [0.5, 1) (0 for 0).
__host__ __device__ inline int hiprs_frexp_exp(float a) {
#ifdef __HIP_DEVICE_COMPILE__
  return __builtin_amdgcn_frexp_expf(a);
#else
  int e;
  (void)__builtin_frexpf(a, &e);
  return e;
#endif
}

__host__ __device__ inline float hiprs_fp8_to_float(__nv_fp8_storage_t x,
                                                    __nv_fp8_interpretation_t fmt) {
#if HIPRS_FP8_OCP_HARDWARE
  // Exact: every code is a float (NaN codes decode to NaN, E5M2's
  // infinities to infinities).
  return fmt == __NV_E4M3 ? __builtin_amdgcn_cvt_f32_fp8((int)x, 0)
                          : __builtin_amdgcn_cvt_f32_bf8((int)x, 0);
#else
  const int mbits = fmt == __NV_E4M3 ? 3 : 2;
  const int bias = fmt == __NV_E4M3 ? 7 : 15;
  const int emax = fmt == __NV_E4M3 ? 15 : 31;
  const bool neg = (x & 0x80) != 0;
  const int e = (x & 0x7F) >> mbits;
  const int m = x & ((1 << mbits) - 1);
  float v;
  if (fmt == __NV_E4M3 && e == emax && m == (1 << mbits) - 1) {
    v = __builtin_nanf("");
  } else if (fmt == __NV_E5M2 && e == emax) {
    v = m == 0 ? __builtin_inff() : __builtin_nanf("");
  } else if (e == 0) {
    v = hiprs_ldexpf((float)m, 1 - bias - mbits);
  } else {
    v = hiprs_ldexpf((float)((1 << mbits) + m), e - bias - mbits);
  }
  return neg ? -v : v;
#endif
}

__host__ __device__ inline __nv_fp8_storage_t hiprs_float_to_fp8(
    float f, __nv_saturation_t sat, __nv_fp8_interpretation_t fmt) {
  const int mbits = fmt == __NV_E4M3 ? 3 : 2;
  const float max_finite = fmt == __NV_E4M3 ? 448.0f : 57344.0f;
  const unsigned char max_code = fmt == __NV_E4M3 ? 0x7E : 0x7B;
  const unsigned char sign = __builtin_signbit(f) ? 0x80 : 0;
  if (__builtin_isnan(f)) return (unsigned char)(sign | 0x7F);
  const float a = __builtin_fabsf(f);
  // Halfway past the largest finite value rounds out of range.
  const float overflow = max_finite + hiprs_ldexpf(1.0f, (fmt == __NV_E4M3 ? 8 : 15) - mbits - 1);
  if (fmt == __NV_E4M3) {
    if (a >= max_finite && (sat == __NV_SATFINITE || a < overflow)) return (unsigned char)(sign | max_code);
    if (a >= overflow) return (unsigned char)(sign | 0x7F);  // no infinity: NaN
  } else {
    if (a >= overflow || __builtin_isinf(a))
      return (unsigned char)(sign | (sat == __NV_SATFINITE ? max_code : 0x7C));
    if (a >= max_finite) return (unsigned char)(sign | max_code);
  }
#if HIPRS_FP8_OCP_HARDWARE
  // `f` is finite and below the largest finite value: no saturation or
  // overflow is left, only the rounding, which the instruction does (the
  // sign included: -0 and negative underflow give 0x80).
  const int packed = fmt == __NV_E4M3 ? __builtin_amdgcn_cvt_pk_fp8_f32(f, f, 0, false)
                                      : __builtin_amdgcn_cvt_pk_bf8_f32(f, f, 0, false);
  return (unsigned char)(packed & 0xFF);
#else
  const int bias = fmt == __NV_E4M3 ? 7 : 15;
  const int ea = hiprs_frexp_exp(a) - 1;  // a = 1.x * 2^ea
  unsigned code;
  if (a == 0.0f || ea < 1 - bias) {
    // Subnormal: units of 2^(1 - bias - mbits); 1 << mbits is the smallest normal.
    code = (unsigned)__builtin_rintf(hiprs_ldexpf(a, bias - 1 + mbits));
  } else {
    const unsigned q = (unsigned)__builtin_rintf(hiprs_ldexpf(a, mbits - ea));  // in [2^m, 2^(m+1)]
    code = ((unsigned)(ea + bias) << mbits) + (q - (1u << mbits));
  }
  return (unsigned char)(sign | code);
#endif
}

__host__ __device__ inline __half_raw __nv_cvt_fp8_to_halfraw(__nv_fp8_storage_t x,
                                                             __nv_fp8_interpretation_t fmt) {
  __half_raw r;
  r.x = __half_as_ushort(__float2half(hiprs_fp8_to_float(x, fmt)));
  return r;
}
__host__ __device__ inline __nv_fp8_storage_t __nv_cvt_float_to_fp8(float x, __nv_saturation_t s,
                                                                   __nv_fp8_interpretation_t f) {
  return hiprs_float_to_fp8(x, s, f);
}
__host__ __device__ inline __nv_fp8_storage_t __nv_cvt_double_to_fp8(double x, __nv_saturation_t s,
                                                                    __nv_fp8_interpretation_t f) {
  return hiprs_float_to_fp8((float)x, s, f);
}
__host__ __device__ inline __nv_fp8_storage_t __nv_cvt_halfraw_to_fp8(__half_raw x, __nv_saturation_t s,
                                                                     __nv_fp8_interpretation_t f) {
  return hiprs_float_to_fp8(__half2float(__half(x)), s, f);
}
#if HIPRS_CUDA_BF16
__host__ __device__ inline __nv_fp8_storage_t __nv_cvt_bfloat16raw_to_fp8(__hip_bfloat16_raw x,
                                                                         __nv_saturation_t s,
                                                                         __nv_fp8_interpretation_t f) {
  return hiprs_float_to_fp8(__bfloat162float(__hip_bfloat16(x)), s, f);
}
// The fp8 types' conversions from and to bf16.
#define HIPRS_FP8_BF16(NAME)                                                                   \
  __host__ __device__ explicit NAME(__hip_bfloat16 h) : NAME(__bfloat162float(h)) {}        \
  __host__ __device__ explicit operator __hip_bfloat16() const { return __float2bfloat16((float)*this); }
#else
#define HIPRS_FP8_BF16(NAME)
#endif

// fp8 to integer: toward zero, NaN to 0, clamped to the type's range.
template <typename I>
__host__ __device__ inline I hiprs_fp8_int(float f) {
  const bool is_signed = (I)-1 < (I)0;
  const int bits = (int)sizeof(I) * 8 - (is_signed ? 1 : 0);
  // 2^bits, and the type's largest value, without a shift by 64.
  const double limit = 2.0 * (double)((unsigned long long)1 << (bits - 1));
  const I max = is_signed ? (I)(~0ull >> (64 - bits)) : (I) ~(I)0;
  if (__builtin_isnan(f)) return (I)0;
  if ((double)f >= limit) return max;
  if (is_signed ? (double)f < -limit : f <= 0.0f) return is_signed ? (I)(-max - 1) : (I)0;
  return (I)f;
}

#define HIPRS_FP8_TYPE(NAME, FMT)                                                              \
  struct __align__(1) NAME {                                                                   \
    __nv_fp8_storage_t __x;                                                                    \
    NAME() = default;                                                                          \
    __host__ __device__ explicit NAME(float f) : __x(hiprs_float_to_fp8(f, __NV_SATFINITE, FMT)) {} \
    __host__ __device__ explicit NAME(double f) : NAME((float)f) {}                            \
    __host__ __device__ explicit NAME(__half h) : NAME(__half2float(h)) {}                    \
    HIPRS_FP8_BF16(NAME)                                                                       \
    __host__ __device__ explicit NAME(int v) : NAME((float)v) {}                              \
    __host__ __device__ explicit NAME(unsigned v) : NAME((float)v) {}                         \
    __host__ __device__ explicit NAME(long long v) : NAME((float)v) {}                        \
    __host__ __device__ explicit NAME(unsigned long long v) : NAME((float)v) {}               \
    __host__ __device__ explicit NAME(long v) : NAME((float)v) {}                             \
    __host__ __device__ explicit NAME(unsigned long v) : NAME((float)v) {}                    \
    __host__ __device__ explicit NAME(short v) : NAME((float)v) {}                            \
    __host__ __device__ explicit NAME(unsigned short v) : NAME((float)v) {}                   \
    __host__ __device__ explicit operator float() const { return hiprs_fp8_to_float(__x, FMT); } \
    __host__ __device__ explicit operator double() const { return (double)(float)*this; }     \
    __host__ __device__ explicit operator __half() const { return __float2half((float)*this); } \
    __host__ __device__ explicit operator __half_raw() const { return __nv_cvt_fp8_to_halfraw(__x, FMT); } \
    __host__ __device__ explicit operator bool() const { return (__x & 0x7F) != 0; }         \
    __host__ __device__ explicit operator int() const { return hiprs_fp8_int<int>((float)*this); } \
    __host__ __device__ explicit operator unsigned() const { return hiprs_fp8_int<unsigned>((float)*this); } \
    __host__ __device__ explicit operator long long() const { return hiprs_fp8_int<long long>((float)*this); } \
    __host__ __device__ explicit operator unsigned long long() const { return hiprs_fp8_int<unsigned long long>((float)*this); } \
    __host__ __device__ explicit operator short() const { return hiprs_fp8_int<short>((float)*this); } \
    __host__ __device__ explicit operator unsigned short() const { return hiprs_fp8_int<unsigned short>((float)*this); } \
    __host__ __device__ explicit operator char() const { return hiprs_fp8_int<char>((float)*this); } \
    __host__ __device__ explicit operator signed char() const { return hiprs_fp8_int<signed char>((float)*this); } \
    __host__ __device__ explicit operator unsigned char() const { return hiprs_fp8_int<unsigned char>((float)*this); } \
  };

HIPRS_FP8_TYPE(__nv_fp8_e4m3, __NV_E4M3)
HIPRS_FP8_TYPE(__nv_fp8_e5m2, __NV_E5M2)
#undef HIPRS_FP8_TYPE
#undef HIPRS_FP8_BF16

// The layer's bf16 and fp8 conversions, as CUDA code calls them: scripts/
// candle.sh amd compiles this with the layer force-included to assembly, for
// a target of each kind, and checks each kernel's conversion instructions:
// - gfx950: v_cvt_pk_bf16_f32 for the bf16 conversions; OCP fp8 instructions
//   (v_cvt_pk_fp8_f32, v_cvt_pk_bf8_f32, v_cvt_f32_fp8, v_cvt_f32_bf8);
// - gfx1201 (RDNA4, OCP fp8): the fp8 instructions, bf16 in software;
// - gfx942: none of them (its fp8 instructions are FNUZ, another format).
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>

extern "C" __global__ void cvt_bf16(const float* a, __nv_bfloat16* c) {
  const int i = threadIdx.x;
  c[i] = __float2bfloat16(a[i]);
}

extern "C" __global__ void cvt_bf16_rn(const float* a, __nv_bfloat16* c) {
  const int i = threadIdx.x;
  c[i] = __float2bfloat16_rn(a[i]);
}

extern "C" __global__ void cvt_bf16x2(const float2* a, __nv_bfloat162* c) {
  const int i = threadIdx.x;
  c[i] = __float22bfloat162_rn(a[i]);
}

extern "C" __global__ void cvt_bf16_pair(const float* a, __nv_bfloat162* c) {
  const int i = threadIdx.x;
  c[i] = __floats2bfloat162_rn(a[2 * i], a[2 * i + 1]);
}

extern "C" __global__ void cvt_to_e4m3(const float* a, __nv_fp8_e4m3* c) {
  const int i = threadIdx.x;
  c[i] = __nv_fp8_e4m3(a[i]);
}

extern "C" __global__ void cvt_to_e5m2(const float* a, __nv_fp8_storage_t* c) {
  const int i = threadIdx.x;
  c[i] = __nv_cvt_float_to_fp8(a[i], __NV_NOSAT, __NV_E5M2);
}

extern "C" __global__ void cvt_from_e4m3(const __nv_fp8_e4m3* a, float* c) {
  const int i = threadIdx.x;
  c[i] = (float)a[i];
}

extern "C" __global__ void cvt_from_e5m2(const __nv_fp8_e5m2* a, float* c) {
  const int i = threadIdx.x;
  c[i] = (float)a[i];
}

// bfloat16 kernels over <cuda_bf16.h>: __nv_bfloat16 / __nv_bfloat162
// conversions and arithmetic (__hadd, __hmul, __hfma), and atomicAdd on
// __nv_bfloat16 for gradient accumulation.
#include <cuda_bf16.h>

extern "C" __global__ void f32_to_bf16(const float* in, __nv_bfloat16* out, size_t n) {
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __float2bfloat16(in[i]);
}

extern "C" __global__ void bf16_to_f32(const __nv_bfloat16* in, float* out, size_t n) {
  const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __bfloat162float(in[i]);
}

// out = x * w + b in bf16 arithmetic, with a bf16 residual added.
extern "C" __global__ void bf16_fma_residual(const __nv_bfloat16* x, const __nv_bfloat16* w, const __nv_bfloat16* b,
                                            const __nv_bfloat16* res, __nv_bfloat16* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const __nv_bfloat16 y = __hfma(x[i], w[i], b[i]);
  out[i] = __hadd(y, __hmul(res[i], __float2bfloat16(0.5f)));
}

// Pairs: scale a __nv_bfloat162 vector in float and repack.
extern "C" __global__ void bf162_scale(__nv_bfloat162* x, float scale, unsigned int n2) {
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n2) return;
  const float2 f = __bfloat1622float2(x[i]);
  x[i] = __float22bfloat162_rn(make_float2(f.x * scale, f.y * scale));
}

// Embedding-gradient style accumulation: rows of a bf16 table receive
// atomicAdd(__nv_bfloat16*) contributions.
extern "C" __global__ void bf16_embedding_backward(const float* grad, const int* ids, __nv_bfloat16* table,
                                                  int tokens, int dim) {
  const int t = blockIdx.x;
  if (t >= tokens) return;
  const int row = ids[t];
  for (int d = threadIdx.x; d < dim; d += blockDim.x)
    atomicAdd(&table[(size_t)row * dim + d], __float2bfloat16(grad[(size_t)t * dim + d]));
}

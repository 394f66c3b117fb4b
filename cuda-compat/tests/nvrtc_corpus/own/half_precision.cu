// Half-precision kernels over <cuda_fp16.h>: __half and __half2 arithmetic
// (__hadd, __hmul, __hfma, __hfma2), float conversions, and atomicAdd on
// __half for accumulation into a half-precision buffer.
#include <cuda_fp16.h>

// y = a * x + y in half precision, one __half per thread, grid-stride.
extern "C" __global__ void haxpy(size_t n, float alpha, const __half* x, __half* y) {
  const __half a = __float2half(alpha);
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)blockDim.x * gridDim.x)
    y[i] = __hfma(a, x[i], y[i]);
}

// Vectorised two-at-a-time: out = x * scale + bias, with __half2.
extern "C" __global__ void half2_scale_bias(const __half2* x, const __half2* bias, __half2* out, float scale,
                                            unsigned int n2) {
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n2) return;
  const __half2 s = __float2half2_rn(scale);
  out[i] = __hfma2(x[i], s, bias[i]);
}

// Mixed precision: accumulate in float, convert at both ends.
extern "C" __global__ void half_residual_add(const __half* a, const __half* b, __half* out, float gamma, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const __half sum = __hadd(a[i], __hmul(b[i], __float2half(gamma)));
  const float f = __half2float(sum);
  out[i] = __float2half(f > 65504.0f ? 65504.0f : (f < -65504.0f ? -65504.0f : f));
}

// Bucketed accumulation into a half-precision output with atomicAdd(__half*).
extern "C" __global__ void half_segment_sum(const __half* values, const int* segment, __half* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&out[segment[i]], values[i]);
}

// Dot product of __half2 vectors: float accumulation, unpacked with
// __low2float/__high2float, then one float atomicAdd per warp.
extern "C" __global__ void half2_dot(const __half2* a, const __half2* b, float* result, unsigned int n2) {
  float acc = 0.0f;
  for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n2; i += blockDim.x * gridDim.x) {
    const __half2 p = __hmul2(a[i], b[i]);
    acc += __low2float(p) + __high2float(p);
  }
  for (int off = 16; off > 0; off >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, off);
  if ((threadIdx.x & 31) == 0) atomicAdd(result, acc);
}

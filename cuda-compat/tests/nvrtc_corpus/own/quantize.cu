// Low-precision quantisation kernels: float <-> __nv_fp8_e4m3 through
// <cuda_fp8.h> with a per-tensor scale, and an int8 dot product with __dp4a
// over packed 4-byte lanes.
#include <cuda_fp8.h>

extern "C" __global__ void quantize_fp8_e4m3(const float* x, __nv_fp8_e4m3* q, const float* scale, size_t n) {
  const float inv = 1.0f / *scale;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)blockDim.x * gridDim.x)
    q[i] = __nv_fp8_e4m3(x[i] * inv);
}

extern "C" __global__ void dequantize_fp8_e4m3(const __nv_fp8_e4m3* q, float* x, const float* scale, size_t n) {
  const float s = *scale;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)blockDim.x * gridDim.x)
    x[i] = static_cast<float>(q[i]) * s;
}

// int8 GEMV: each row of A and the vector x are packed four int8 per int;
// one warp per row, __dp4a accumulates, shuffles reduce.
extern "C" __global__ void int8_gemv_dp4a(const int* A, const int* x, const float* row_scale, float* y, int rows,
                                          int cols4) {
  const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows) return;
  int acc = 0;
  for (int c = lane; c < cols4; c += 32) acc = __dp4a(A[(size_t)row * cols4 + c], x[c], acc);
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, off);
  if (lane == 0) y[row] = (float)acc * row_scale[row];
}

// __dp4a at its edges, element-wise: signed and unsigned bytes at their
// extremes, accumulators near the ends of int's and unsigned's range, so
// the sum wraps as IDP4A's does (no clamping).
extern "C" __global__ void dp4a_edges(const unsigned* a, const unsigned* b, const unsigned* c, int* s,
                                      unsigned* u, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  s[i] = __dp4a((int)a[i], (int)b[i], (int)c[i]);
  u[i] = __dp4a(a[i], b[i], c[i]);
}

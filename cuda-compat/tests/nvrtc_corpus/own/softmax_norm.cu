// Row-wise normalisation kernels: softmax with one warp per row, LayerNorm
// and RMSNorm with block reductions (static and dynamic shared memory), the
// shapes and epsilon passed as a struct by value.
#define WARP 32
#define FULL 0xffffffffu

struct NormParams {
  int rows;
  int cols;
  float eps;
};

static __device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int o = WARP / 2; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(FULL, v, o));
  return v;
}
static __device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = WARP / 2; o > 0; o >>= 1) v += __shfl_xor_sync(FULL, v, o);
  return v;
}

// Numerically stable softmax, one warp per row.
extern "C" __global__ void softmax_rows(const float* x, float* y, int rows, int cols) {
  const int row = blockIdx.x * (blockDim.x / WARP) + threadIdx.x / WARP;
  const int lane = threadIdx.x % WARP;
  if (row >= rows) return;
  const float* in = x + (size_t)row * cols;
  float* out = y + (size_t)row * cols;
  float m = -3.402823466e38f;
  for (int c = lane; c < cols; c += WARP) m = fmaxf(m, in[c]);
  m = warp_max(m);
  float s = 0.0f;
  for (int c = lane; c < cols; c += WARP) s += expf(in[c] - m);
  s = warp_sum(s);
  const float inv = 1.0f / s;
  for (int c = lane; c < cols; c += WARP) out[c] = expf(in[c] - m) * inv;
}

// Sum over the block: warps reduce, warp 0 reduces the warp sums. `stage`
// has a slot per warp (at most 32).
static __device__ __forceinline__ float block_sum(float v, float* stage) {
  const int lane = threadIdx.x % WARP, warp = threadIdx.x / WARP;
  v = warp_sum(v);
  __syncthreads();
  if (lane == 0) stage[warp] = v;
  __syncthreads();
  v = (threadIdx.x < blockDim.x / WARP) ? stage[lane] : 0.0f;
  if (warp == 0) v = warp_sum(v);
  if (threadIdx.x == 0) stage[0] = v;
  __syncthreads();
  return stage[0];
}

// LayerNorm, one block per row, affine weight and bias.
extern "C" __global__ void __launch_bounds__(256) layernorm(const float* x, const float* gamma, const float* beta,
                                                           float* y, NormParams p) {
  __shared__ float stage[WARP];
  const float* in = x + (size_t)blockIdx.x * p.cols;
  float sum = 0.0f;
  for (int c = threadIdx.x; c < p.cols; c += blockDim.x) sum += in[c];
  const float mean = block_sum(sum, stage) / p.cols;
  float var = 0.0f;
  for (int c = threadIdx.x; c < p.cols; c += blockDim.x) { const float d = in[c] - mean; var += d * d; }
  const float rstd = rsqrtf(block_sum(var, stage) / p.cols + p.eps);
  for (int c = threadIdx.x; c < p.cols; c += blockDim.x)
    y[(size_t)blockIdx.x * p.cols + c] = (in[c] - mean) * rstd * gamma[c] + beta[c];
}

// RMSNorm, one block per row; the row is cached in dynamic shared memory
// (cols floats) so global memory is read once.
extern "C" __global__ void rmsnorm(const float* x, const float* weight, float* y, NormParams p) {
  extern __shared__ float row[];
  __shared__ float stage[WARP];
  const float* in = x + (size_t)blockIdx.x * p.cols;
  float ss = 0.0f;
  for (int c = threadIdx.x; c < p.cols; c += blockDim.x) { const float v = in[c]; row[c] = v; ss += v * v; }
  const float scale = rsqrtf(block_sum(ss, stage) / p.cols + p.eps);
  for (int c = threadIdx.x; c < p.cols; c += blockDim.x) y[(size_t)blockIdx.x * p.cols + c] = row[c] * scale * weight[c];
}

// Log-softmax of one row per block (fewer rows, wide vocabularies).
extern "C" __global__ void log_softmax_block(const float* x, float* y, int cols) {
  __shared__ float stage[WARP];
  __shared__ float s_max[WARP];
  const float* in = x + (size_t)blockIdx.x * cols;
  float m = -3.402823466e38f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, in[c]);
  m = warp_max(m);
  if (threadIdx.x % WARP == 0) s_max[threadIdx.x / WARP] = m;
  __syncthreads();
  m = s_max[0];
  for (int w = 1; w < (int)(blockDim.x / WARP); ++w) m = fmaxf(m, s_max[w]);
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += __expf(in[c] - m);
  const float lse = m + logf(block_sum(s, stage));
  for (int c = threadIdx.x; c < cols; c += blockDim.x) y[(size_t)blockIdx.x * cols + c] = in[c] - lse;
}

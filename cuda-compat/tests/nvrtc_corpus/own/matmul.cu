// Dense matrix products: a 16x16 shared-memory tiled SGEMM, the same with
// the tile size as a template parameter (instantiated for 8 and 32), and a
// GEMV in namespace `gemm` (a C++ kernel with a mangled, namespaced name).
#define TILE16 16

extern "C" __global__ void __launch_bounds__(256) sgemm_tiled16(const float* A, const float* B, float* C, int M,
                                                               int N, int K) {
  __shared__ float As[TILE16][TILE16];
  __shared__ float Bs[TILE16][TILE16];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE16 + ty;
  const int col = blockIdx.x * TILE16 + tx;
  float acc = 0.0f;
  for (int t = 0; t < K; t += TILE16) {
    As[ty][tx] = (row < M && t + tx < K) ? A[(size_t)row * K + t + tx] : 0.0f;
    Bs[ty][tx] = (col < N && t + ty < K) ? B[(size_t)(t + ty) * N + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE16; ++k) acc = fmaf(As[ty][k], Bs[k][tx], acc);
    __syncthreads();
  }
  if (row < M && col < N) C[(size_t)row * N + col] = acc;
}

// C = alpha * A * B + beta * C, tile size a template parameter.
template <int TILE>
__global__ void sgemm_tiled(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
                            int N, int K, float alpha, float beta) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int t = 0; t < K; t += TILE) {
    As[ty][tx] = (row < M && t + tx < K) ? A[(size_t)row * K + t + tx] : 0.0f;
    Bs[ty][tx] = (col < N && t + ty < K) ? B[(size_t)(t + ty) * N + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  if (row < M && col < N) {
    const size_t o = (size_t)row * N + col;
    C[o] = alpha * acc + (beta == 0.0f ? 0.0f : beta * C[o]);
  }
}
template __global__ void sgemm_tiled<8>(const float* __restrict__, const float* __restrict__, float* __restrict__,
                                        int, int, int, float, float);
template __global__ void sgemm_tiled<32>(const float* __restrict__, const float* __restrict__, float* __restrict__,
                                         int, int, int, float, float);

namespace gemm {
// y = A x, one warp per row.
__global__ void gemv(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y, int rows,
                     int cols) {
  const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  const int lane = threadIdx.x & 31;
  if (row >= rows) return;
  float acc = 0.0f;
  for (int c = lane; c < cols; c += 32) acc = fmaf(__ldg(&A[(size_t)row * cols + c]), __ldg(&x[c]), acc);
  for (int off = 16; off > 0; off >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, off);
  if (lane == 0) y[row] = acc;
}
}  // namespace gemm

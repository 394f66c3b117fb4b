// Shared-memory data-movement kernels: a 32x32 tiled transpose padded by one
// column against bank conflicts, a 256-bin byte histogram with shared-memory
// atomics, and block-wide exclusive prefix sums (warp-shuffle and Blelloch).
#define TILE 32
#define ROWS_PER_PASS 8
#define WARP 32

// Launched with blockDim (32, 8): each thread moves 4 elements.
extern "C" __global__ void transpose_padded(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
#pragma unroll
  for (int j = 0; j < TILE; j += ROWS_PER_PASS)
    if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
#pragma unroll
  for (int j = 0; j < TILE; j += ROWS_PER_PASS)
    if (x < rows && y + j < cols) out[(size_t)(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

extern "C" __global__ void __launch_bounds__(256) histogram256(const unsigned char* data, unsigned int* bins, size_t n) {
  __shared__ unsigned int local[256];
  local[threadIdx.x] = 0;
  __syncthreads();
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)blockDim.x * gridDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  if (local[threadIdx.x]) atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

// Exclusive scan of one block's elements: warp scans with __shfl_up_sync,
// then a scan of the warp totals. Block totals go to `sums` for a second pass.
extern "C" __global__ void __launch_bounds__(256) block_exclusive_scan(const unsigned int* in, unsigned int* out,
                                                                      unsigned int* sums, unsigned int n) {
  __shared__ unsigned int warp_tot[256 / WARP];
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x % WARP, warp = threadIdx.x / WARP;
  const unsigned int v = i < n ? in[i] : 0u;
  unsigned int s = v;
#pragma unroll
  for (int d = 1; d < WARP; d *= 2) {
    const unsigned int t = __shfl_up_sync(0xffffffffu, s, d);
    if (lane >= d) s += t;
  }
  if (lane == WARP - 1) warp_tot[warp] = s;
  __syncthreads();
  if (warp == 0) {
    unsigned int t = lane < (int)(blockDim.x / WARP) ? warp_tot[lane] : 0u;
    for (int d = 1; d < WARP; d *= 2) {
      const unsigned int u = __shfl_up_sync(0xffffffffu, t, d);
      if (lane >= d) t += u;
    }
    if (lane < (int)(blockDim.x / WARP)) warp_tot[lane] = t;
  }
  __syncthreads();
  const unsigned int offset = warp > 0 ? warp_tot[warp - 1] : 0u;
  if (i < n) out[i] = offset + s - v;
  if (threadIdx.x == blockDim.x - 1) sums[blockIdx.x] = warp_tot[blockDim.x / WARP - 1];
}

// Work-efficient (Blelloch) scan over 2 * blockDim.x floats in dynamic shared memory.
extern "C" __global__ void blelloch_scan(const float* in, float* out, int n) {
  extern __shared__ float temp[];
  const int tid = threadIdx.x, m = 2 * blockDim.x;
  const int base = blockIdx.x * m;
  temp[2 * tid] = base + 2 * tid < n ? in[base + 2 * tid] : 0.0f;
  temp[2 * tid + 1] = base + 2 * tid + 1 < n ? in[base + 2 * tid + 1] : 0.0f;
  int offset = 1;
  for (int d = m >> 1; d > 0; d >>= 1, offset <<= 1) {
    __syncthreads();
    if (tid < d) temp[offset * (2 * tid + 2) - 1] += temp[offset * (2 * tid + 1) - 1];
  }
  if (tid == 0) temp[m - 1] = 0.0f;
  for (int d = 1; d < m; d <<= 1) {
    offset >>= 1;
    __syncthreads();
    if (tid < d) {
      const int a = offset * (2 * tid + 1) - 1, b = offset * (2 * tid + 2) - 1;
      const float t = temp[a];
      temp[a] = temp[b];
      temp[b] += t;
    }
  }
  __syncthreads();
  if (base + 2 * tid < n) out[base + 2 * tid] = temp[2 * tid];
  if (base + 2 * tid + 1 < n) out[base + 2 * tid + 1] = temp[2 * tid + 1];
}

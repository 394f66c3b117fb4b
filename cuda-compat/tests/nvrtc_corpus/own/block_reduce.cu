// Block-wide reductions in shared memory: a static __shared__ tree reduction
// under __launch_bounds__(256), one over extern __shared__ (dynamic) memory,
// a templated max reduction instantiated for float and double, and argmax.
#define WARP 32

extern "C" __global__ void __launch_bounds__(256) block_sum_static(const float* in, float* out, unsigned int n) {
  __shared__ float buf[256];
  const unsigned int tid = threadIdx.x;
  float acc = 0.0f;
  for (unsigned int i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x) acc += in[i];
  buf[tid] = acc;
  __syncthreads();
#pragma unroll
  for (unsigned int s = 128; s > 0; s >>= 1) {
    if (tid < s) buf[tid] += buf[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = buf[0];
}

// Dynamic shared memory sized at launch (blockDim.x floats); warps finish
// the last 32 elements with shuffles.
extern "C" __global__ void block_sum_dynamic(const float* in, float* out, size_t n) {
  extern __shared__ float sdata[];
  const unsigned int tid = threadIdx.x;
  const size_t i = (size_t)blockIdx.x * blockDim.x + tid;
  sdata[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s >= WARP; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid < WARP) {
    float v = sdata[tid];
    for (int off = WARP / 2; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    if (tid == 0) out[blockIdx.x] = v;
  }
}

template <typename T>
static __device__ __forceinline__ T max_of(T a, T b) { return a > b ? a : b; }

// Templated max reduction over a typed view of raw dynamic shared memory.
template <typename T>
__global__ void block_max(const T* __restrict__ in, T* __restrict__ out, unsigned int n, T init) {
  extern __shared__ __align__(sizeof(double)) unsigned char smem_raw[];
  T* smem = reinterpret_cast<T*>(smem_raw);
  const unsigned int tid = threadIdx.x;
  T m = init;
  for (unsigned int i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x) m = max_of(m, in[i]);
  smem[tid] = m;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) smem[tid] = max_of(smem[tid], smem[tid + s]);
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = smem[0];
}
template __global__ void block_max<float>(const float* __restrict__, float* __restrict__, unsigned int, float);
template __global__ void block_max<double>(const double* __restrict__, double* __restrict__, unsigned int, double);

// Row-wise argmax, one block of 256 threads per row: value and index travel
// together through the warp shuffles and a shared-memory stage.
extern "C" __global__ void __launch_bounds__(256) argmax_rows(const float* x, int* idx, int cols) {
  __shared__ float s_val[256 / WARP];
  __shared__ int s_idx[256 / WARP];
  const float* row = x + (size_t)blockIdx.x * cols;
  float best = -3.402823466e38f;
  int best_i = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    if (row[c] > best) { best = row[c]; best_i = c; }
#pragma unroll
  for (int off = WARP / 2; off > 0; off >>= 1) {
    const float v = __shfl_xor_sync(0xffffffffu, best, off);
    const int j = __shfl_xor_sync(0xffffffffu, best_i, off);
    if (v > best || (v == best && j < best_i)) { best = v; best_i = j; }
  }
  const int warp = threadIdx.x / WARP, lane = threadIdx.x % WARP;
  if (lane == 0) { s_val[warp] = best; s_idx[warp] = best_i; }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < (int)(blockDim.x / WARP); ++w)
      if (s_val[w] > best || (s_val[w] == best && s_idx[w] < best_i)) { best = s_val[w]; best_i = s_idx[w]; }
    idx[blockIdx.x] = best_i;
  }
}

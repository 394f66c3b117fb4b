// Warp-level primitives with full 32-bit masks: xor/down butterflies, an
// inclusive scan with __shfl_up_sync, broadcasts, votes (__ballot_sync,
// __any_sync, __all_sync, __activemask) and __reduce_add_sync.
#define WARP 32
#define FULL_MASK 0xffffffffu

static __device__ __forceinline__ float warp_sum_xor(float v) {
#pragma unroll
  for (int off = WARP / 2; off > 0; off >>= 1) v += __shfl_xor_sync(FULL_MASK, v, off);
  return v;
}

// One warp per row: every lane ends with the row's sum; lane 0 stores it.
extern "C" __global__ void warp_row_sum(const float* x, float* out, int rows, int cols) {
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / WARP;
  const int lane = threadIdx.x % WARP;
  if (warp >= rows) return;
  float acc = 0.0f;
  for (int c = lane; c < cols; c += WARP) acc += x[(size_t)warp * cols + c];
  acc = warp_sum_xor(acc);
  if (lane == 0) out[warp] = acc;
}

// Tree reduction with __shfl_down_sync in double precision: lane 0 holds the sum.
extern "C" __global__ void warp_sum_down_f64(const double* x, double* partial, unsigned int n) {
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  double v = i < n ? x[i] : 0.0;
#pragma unroll
  for (unsigned int off = WARP / 2; off > 0; off /= 2) v += __shfl_down_sync(FULL_MASK, v, off);
  if ((threadIdx.x & (WARP - 1)) == 0) partial[i / WARP] = v;
}

// Inclusive scan of each 32-element segment with __shfl_up_sync.
extern "C" __global__ void warp_inclusive_scan(const int* in, int* out, unsigned int n) {
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x & (WARP - 1);
  int v = i < n ? in[i] : 0;
#pragma unroll
  for (int d = 1; d < WARP; d <<= 1) {
    const int up = __shfl_up_sync(FULL_MASK, v, d);
    if (lane >= d) v += up;
  }
  if (i < n) out[i] = v;
}

// Lane 0 loads a per-warp scale and broadcasts it with __shfl_sync.
extern "C" __global__ void warp_broadcast_scale(const float* scales, float* x, unsigned int n) {
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned int w = i / WARP;
  float s = 0.0f;
  if ((threadIdx.x % WARP) == 0) s = scales[w];
  s = __shfl_sync(FULL_MASK, s, 0);
  if (i < n) x[i] *= s;
}

// Votes: per warp, how many elements are positive, whether any is NaN and
// whether all are finite.
extern "C" __global__ void warp_vote_stats(const float* x, unsigned int* positive, int* any_nan,
                                          int* all_finite, unsigned int n) {
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float v = i < n ? x[i] : 0.0f;
  const unsigned int ballot = __ballot_sync(FULL_MASK, v > 0.0f);
  const int nan = __any_sync(FULL_MASK, v != v);
  const int fin = __all_sync(FULL_MASK, isfinite(v));
  if ((threadIdx.x % WARP) == 0) {
    const unsigned int w = i / WARP;
    positive[w] = __popc(ballot);
    any_nan[w] = nan;
    all_finite[w] = fin;
  }
}

// Stream compaction inside a warp: each warp packs its non-zero values to
// the front of its own 32-element segment of `out`. __activemask in a
// divergent branch, __reduce_add_sync on unsigned for the warp's count,
// __syncwarp before the lanes read what the others wrote.
extern "C" __global__ void __launch_bounds__(256) warp_compact(const int* in, int* out, unsigned int* counts,
                                                              unsigned int n) {
  __shared__ int stage[256];
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned int lane = threadIdx.x % WARP;
  const unsigned int base = threadIdx.x - lane;
  const unsigned int segment = i - lane;
  const int v = i < n ? in[i] : 0;
  const unsigned int keep = v != 0;
  const unsigned int total = __reduce_add_sync(FULL_MASK, keep);
  if (keep) {
    const unsigned int active = __activemask();
    const unsigned int slot = __popc(active & ((1u << lane) - 1u));
    stage[base + slot] = v;
  }
  __syncwarp();
  if (lane < total) out[segment + lane] = stage[base + lane];
  if (lane == 0) counts[i / WARP] = total;
}

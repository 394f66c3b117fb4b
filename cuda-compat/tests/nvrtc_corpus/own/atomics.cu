// Global-memory atomics: atomicAdd on float, double and int, atomicMax on
// int, a float max built from atomicCAS, and atomicExch for a simple
// first-writer-wins slot table.

extern "C" __global__ void atomic_sum_f32(const float* x, float* total, unsigned int n) {
  float acc = 0.0f;
  for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) acc += x[i];
  for (int off = 16; off > 0; off >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, off);
  if ((threadIdx.x & 31) == 0) atomicAdd(total, acc);
}

extern "C" __global__ void atomic_sum_sq_f64(const double* x, double* total, unsigned int n) {
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(total, x[i] * x[i]);
}

// Count labels and track the largest label seen.
extern "C" __global__ void atomic_label_stats(const int* labels, int* counts, int* max_label, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int l = labels[i];
  atomicAdd(&counts[l], 1);
  atomicMax(max_label, l);
}

static __device__ __forceinline__ float atomic_max_float(float* addr, float val) {
  int* p = reinterpret_cast<int*>(addr);
  int old = *p, assumed;
  do {
    assumed = old;
    if (__int_as_float(assumed) >= val) break;
    old = atomicCAS(p, assumed, __float_as_int(val));
  } while (assumed != old);
  return __int_as_float(old);
}

// Absolute maximum (for quantisation scales) through an atomicCAS loop.
extern "C" __global__ void atomic_absmax_f32(const float* x, float* amax, unsigned int n) {
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomic_max_float(amax, fabsf(x[i]));
}

// Hash-table style slot claim: each key writes its index into its bucket
// with atomicExch; the previous occupant is chained behind it.
extern "C" __global__ void atomic_bucket_insert(const unsigned int* keys, int* heads, int* next,
                                               unsigned int buckets, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned int b = (keys[i] * 2654435761u) % buckets;
  next[i] = atomicExch(&heads[b], i);
}

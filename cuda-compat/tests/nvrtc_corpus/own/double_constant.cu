// Double-precision and __constant__-memory kernels: a Gaussian density and
// vector norms in double (exp, sqrt), a polynomial whose coefficients live
// in __constant__ memory, and a Welford mean/variance in namespace `stats`.

__constant__ float c_poly[8];
__constant__ double c_gauss[2];  // mean, standard deviation

extern "C" __global__ void gaussian_pdf_f64(const double* x, double* y, size_t n) {
  const double mu = c_gauss[0], sigma = c_gauss[1];
  const double norm = 1.0 / (sigma * sqrt(2.0 * 3.14159265358979323846));
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)blockDim.x * gridDim.x) {
    const double z = (x[i] - mu) / sigma;
    y[i] = norm * exp(-0.5 * z * z);
  }
}

// Euclidean norm of each row of a double matrix, one warp per row.
extern "C" __global__ void row_norm_f64(const double* a, double* norms, int rows, int cols) {
  const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows) return;
  double ss = 0.0;
  for (int c = lane; c < cols; c += 32) { const double v = a[(size_t)row * cols + c]; ss += v * v; }
  for (int off = 16; off > 0; off >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, off);
  if (lane == 0) norms[row] = sqrt(ss);
}

// Horner evaluation of a degree-7 polynomial from constant memory.
extern "C" __global__ void poly_eval_const(const float* x, float* y, unsigned int n) {
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float v = x[i];
  float acc = c_poly[7];
#pragma unroll
  for (int k = 6; k >= 0; --k) acc = fmaf(acc, v, c_poly[k]);
  y[i] = acc;
}

namespace stats {
struct Moments {
  float mean;
  float m2;
  unsigned int count;
};

static __device__ __forceinline__ Moments merge(Moments a, Moments b) {
  const unsigned int n = a.count + b.count;
  if (n == 0) return a;
  const float d = b.mean - a.mean;
  const float fb = (float)b.count / n;
  return Moments{a.mean + d * fb, a.m2 + b.m2 + d * d * a.count * fb, n};
}

// Per-row mean and variance (Welford, merged across the warp). One warp per row.
__global__ void welford_rows(const float* __restrict__ x, float* __restrict__ mean, float* __restrict__ var,
                             int rows, int cols) {
  const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows) return;
  Moments m{0.0f, 0.0f, 0u};
  for (int c = lane; c < cols; c += 32) m = merge(m, Moments{x[(size_t)row * cols + c], 0.0f, 1u});
  for (int off = 16; off > 0; off >>= 1) {
    Moments o;
    o.mean = __shfl_xor_sync(0xffffffffu, m.mean, off);
    o.m2 = __shfl_xor_sync(0xffffffffu, m.m2, off);
    o.count = __shfl_xor_sync(0xffffffffu, m.count, off);
    m = merge(m, o);
  }
  if (lane == 0) { mean[row] = m.mean; var[row] = m.count ? m.m2 / m.count : 0.0f; }
}
}  // namespace stats

// Elementwise activation kernels with grid-stride loops over size_t
// indices: GELU (erf and tanh forms), SiLU, softplus, a templated SwiGLU
// for float and __half, and a C++ (mangled) ReLU.
#include <cuda_fp16.h>

#define GRID_STRIDE(i, n) \
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (size_t)blockDim.x * gridDim.x)

extern "C" __global__ void __launch_bounds__(128, 2) gelu_erf(const float* x, float* y, size_t n) {
  GRID_STRIDE(i, n) {
    const float v = x[i];
    y[i] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
  }
}

extern "C" __global__ void __launch_bounds__(128, 2) gelu_tanh(const float* x, float* y, size_t n) {
  const float k = 0.7978845608028654f;  // sqrt(2/pi)
  GRID_STRIDE(i, n) {
    const float v = x[i];
    y[i] = 0.5f * v * (1.0f + tanhf(k * fmaf(0.044715f * v, v * v, v)));
  }
}

// Fast-math SiLU: x * sigmoid(x) with __expf and __fdividef.
extern "C" __global__ void silu_fast(const float* x, float* y, size_t n) {
  GRID_STRIDE(i, n) {
    const float v = x[i];
    y[i] = __fdividef(v, 1.0f + __expf(-v));
  }
}

// softplus(x) = log(1 + e^x), linear past a threshold.
extern "C" __global__ void softplus(const float* x, float* y, float beta, float threshold, size_t n) {
  GRID_STRIDE(i, n) {
    const float bx = beta * x[i];
    y[i] = bx > threshold ? x[i] : log1pf(expf(bx)) / beta;
  }
}

static __device__ __forceinline__ float to_f32(float v) { return v; }
static __device__ __forceinline__ float to_f32(__half v) { return __half2float(v); }
template <typename T> static __device__ __forceinline__ T from_f32(float v);
template <> __device__ __forceinline__ float from_f32<float>(float v) { return v; }
template <> __device__ __forceinline__ __half from_f32<__half>(float v) { return __float2half(v); }

// SwiGLU: out = silu(gate) * up, computed in float for any storage type.
template <typename T>
__global__ void swiglu(const T* __restrict__ gate, const T* __restrict__ up, T* __restrict__ out, size_t n) {
  GRID_STRIDE(i, n) {
    const float g = to_f32(gate[i]);
    out[i] = from_f32<T>(g / (1.0f + expf(-g)) * to_f32(up[i]));
  }
}
template __global__ void swiglu<float>(const float* __restrict__, const float* __restrict__, float* __restrict__, size_t);
template __global__ void swiglu<__half>(const __half* __restrict__, const __half* __restrict__, __half* __restrict__,
                                        size_t);

// A C++ kernel without extern "C": its symbol is the Itanium-mangled name.
__global__ void relu_inplace(float* x, size_t n) {
  GRID_STRIDE(i, n) x[i] = fmaxf(x[i], 0.0f);
}

// What the layer adds for mistral.rs's kernels (hiprs_cuda.h), as their
// CUDA code calls it: scripts/candle.sh amd compiles this for each target
// with -Wall -Werror, so a missing or ambiguous overload fails there.
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
// CUB and Thrust by CUDA's header paths: hipCUB under namespace cub
// (hiprs_cuda_cub.h) and rocThrust with its HIP backend.
#include <cub/block/block_load.cuh>
#include <cub/block/block_store.cuh>
#include <cub/cub.cuh>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/scan.h>

extern "C" __global__ void ldg_bf16(const __nv_bfloat16* a, const __nv_bfloat162* b, float* c) {
  const int i = threadIdx.x;
  const __nv_bfloat162 pair = __ldg(b + i);
  c[i] = __bfloat162float(__ldg(a + i)) + __bfloat162float(pair.x) + __bfloat162float(pair.y);
}

extern "C" __global__ void ldg_half(const __half* a, const __half2* b, float* c) {
  const int i = threadIdx.x;
  c[i] = __half2float(__ldg(a + i)) + __low2float(__ldg(b + i));
}

extern "C" __global__ void atomic_add_pairs(__half2* h, __nv_bfloat162* b, __half2 hv,
                                            __nv_bfloat162 bv) {
  atomicAdd(h, hv);
  atomicAdd(b, bv);
}

extern "C" __global__ void int_to_bf16(const unsigned* u, const int* s, const long long* l,
                                       __nv_bfloat16* c) {
  const int i = threadIdx.x;
  c[4 * i] = __uint2bfloat16_rn(u[i]);
  c[4 * i + 1] = __int2bfloat16_rn(s[i]);
  c[4 * i + 2] = __ll2bfloat16_rn(l[i]);
  c[4 * i + 3] = __ushort2bfloat16_rn((unsigned short)u[i]);
}

// bitsandbytes' dequantization tile: a block load and store through
// shared memory (BLOCK_*_WARP_TRANSPOSE), 64 threads, as mistral.rs has it.
extern "C" __global__ void cub_block_load_store(const unsigned char* in, float* out, int n) {
  typedef cub::BlockLoad<unsigned char, 64, 4, cub::BLOCK_LOAD_WARP_TRANSPOSE> Load;
  typedef cub::BlockStore<float, 64, 4, cub::BLOCK_STORE_WARP_TRANSPOSE> Store;
  __shared__ typename Load::TempStorage load;
  __shared__ typename Store::TempStorage store;
  unsigned char q[4];
  float v[4];
  const int base = blockIdx.x * 256;
  Load(load).Load(in + base, q, n - base, 0);
  for (int j = 0; j < 4; j++) v[j] = (float)q[j];
  __syncthreads();
  Store(store).Store(out + base, v, n - base);
}

extern "C" __global__ void cub_block_reduce(const float* in, float* out) {
  typedef cub::BlockReduce<float, 128> Reduce;
  __shared__ typename Reduce::TempStorage tmp;
  const float sum = Reduce(tmp).Sum(in[blockIdx.x * 128 + threadIdx.x]);
  if (threadIdx.x == 0) out[blockIdx.x] = CUB_MAX(sum, 0.0f);
}

template <typename T>
struct NonZero {
  __host__ __device__ __forceinline__ bool operator()(const T& a) const { return a != T(0); }
};

// ops.cu's count_nonzero and nonzero: device-wide CUB calls on fancy
// iterators, returning cudaError_t, checked by CubDebug.
cudaError_t cub_device_calls(const float* in, unsigned n, unsigned* count, unsigned* selected,
                             unsigned* num_selected, void* tmp, size_t& tmp_bytes,
                             cudaStream_t stream) {
  cub::TransformInputIterator<bool, NonZero<float>, const float*> nonzero(in, NonZero<float>());
  cub::CountingInputIterator<unsigned> index(0);
  cudaError_t e = CubDebug(cub::DeviceReduce::Sum(tmp, tmp_bytes, nonzero, count, (int)n, stream));
  if (e != cudaSuccess) return e;
  return cub::DeviceSelect::Flagged(tmp, tmp_bytes, index, nonzero, selected, num_selected,
                                    (int)n, stream);
}

// mistral.rs's moe_utils.h: an inclusive scan on a stream with CUDA's
// policy name.
void thrust_scan_on_stream(const int* counts, int* offsets, int n, cudaStream_t stream) {
  thrust::device_ptr<const int> c(counts);
  thrust::device_ptr<int> o(offsets);
  thrust::inclusive_scan(thrust::cuda::par.on(stream), c, c + n, o);
  static_assert(CUB_QUOTIENT_CEILING(10, 4) == 3, "CUB's macros");
}

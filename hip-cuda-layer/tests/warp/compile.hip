// Every warp-level function of the layer (hiprs_cuda_warp.h), for the AMD
// toolchain to compile for a wave64 and a wave32 target, the layer
// force-included as the cudaforge drop-in does:
//   export ROCM_PATH=$(bash scripts/hip-toolchain.sh)
//   $ROCM_PATH/llvm/bin/clang++ -x hip --rocm-path=$ROCM_PATH
//     --hip-device-lib-path=$ROCM_PATH/amdgcn/bitcode -isystem $ROCM_PATH/include
//     -include hiprs_cuda.h -I hip-cuda-layer/include --offload-arch=gfx90a
//     --offload-arch=gfx1100 -c hip-cuda-layer/tests/warp/compile.hip -o /dev/null
// (or hipcc -include hiprs_cuda.h ..., with a ROCm that has hip_bf16.h).
// It only has to compile: tests/warp/model.cpp checks the results.
struct hiprs_test_h16 {
  unsigned short bits;
};

template <typename T>
__device__ T shuffles(T v, unsigned m, int lane) {
  T r = __shfl_sync(m, v, lane ^ 1) + __shfl_xor_sync(m, v, 1) + __shfl_up_sync(m, v, 1u) +
        __shfl_down_sync(m, v, 1u);
  for (int w = 1; w <= 32; w *= 2) {
    r += __shfl_sync(m, v, lane + 1, w) + __shfl_xor_sync(m, v, w / 2, w) +
         __shfl_up_sync(m, v, 1u, w) + __shfl_down_sync(m, v, 1u, w);
  }
  return r;
}

__global__ void every_warp_function(int* ints, unsigned* uints, float* floats, double* doubles,
                                    long long* longs, short* shorts, hiprs_test_h16* h16s) {
  const int t = threadIdx.x, lane = t & 31;
  const unsigned m = __activemask();
  ints[t] = shuffles(ints[t], m, lane);
  uints[t] = shuffles(uints[t], m, lane);
  floats[t] = shuffles(floats[t], m, lane);
  doubles[t] = shuffles(doubles[t], m, lane);
  longs[t] = shuffles(longs[t], m, lane);
  shorts[t] = shuffles(shorts[t], m, lane);
  h16s[t] = __shfl_sync(m, h16s[t], 0);
  h16s[t] = __shfl_xor_sync(m, h16s[t], 1, 16);
  h16s[t] = __shfl_up_sync(m, h16s[t], 2u, 8);
  h16s[t] = __shfl_down_sync(m, h16s[t], 3u);
  __syncwarp();
  __syncwarp(m);
  const int p = ints[t] > 0;
  uints[t] += __ballot_sync(m, p) + __any_sync(m, p) + __all_sync(m, p);
  uints[t] += __reduce_add_sync(m, uints[t]) + __reduce_min_sync(m, uints[t]) +
              __reduce_max_sync(m, uints[t]) + __reduce_and_sync(m, uints[t]) +
              __reduce_or_sync(m, uints[t]) + __reduce_xor_sync(m, uints[t]);
  ints[t] += __reduce_add_sync(m, ints[t]) + __reduce_min_sync(m, ints[t]) +
             __reduce_max_sync(m, ints[t]);
}

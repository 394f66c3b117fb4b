// Reverses each block's slice through dynamic `extern __shared__` memory,
// plus a small static shared array.
#include <hip/hip_runtime.h>

extern "C" __global__ void reverse_block(const float* in, float* out) {
    extern __shared__ float tile[];
    __shared__ int block_sum[4];
    unsigned t = threadIdx.x;
    unsigned base = blockIdx.x * blockDim.x;
    if (t < 4) {
        block_sum[t] = 0;
    }
    tile[t] = in[base + t];
    __syncthreads();
    atomicAdd(&block_sum[t & 3], 1);
    out[base + t] = tile[blockDim.x - 1 - t] + (float)block_sum[t & 3] * 0.0f;
}

// A `__device__` global and a `__constant__` table, both reached through
// PC-relative addressing, and a pointer to the global kept in a third
// global (a dynamic relocation the loader must apply).
#include <hip/hip_runtime.h>

__device__ int counter = 5;
__device__ int* counter_ptr = &counter;
__constant__ float table[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

extern "C" __global__ void lookup(const int* idx, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = table[idx[i] & 15] + (float)counter;
    }
    if (i == 0) {
        atomicAdd(counter_ptr, 1);
    }
}

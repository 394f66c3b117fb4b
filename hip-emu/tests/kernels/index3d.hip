// Writes each work-item's global linear index using blockIdx, blockDim,
// threadIdx and gridDim in all three dimensions.
#include <hip/hip_runtime.h>

extern "C" __global__ void index3d(unsigned* out) {
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
    unsigned z = blockIdx.z * blockDim.z + threadIdx.z;
    unsigned width = gridDim.x * blockDim.x;
    unsigned height = gridDim.y * blockDim.y;
    out[(z * height + y) * width + x] = x + 1000u * y + 1000000u * z;
}

// LDS instructions whose ISA pseudocode addresses `MEM[ADDR]` with the
// instruction's offset folded in (16-bit and 8-bit loads and stores, the
// d16 halves, atomics): each kernel reaches LDS at constant offsets from
// one address register, as rocBLAS's Tensile kernels do.
#include <hip/hip_runtime.h>

typedef _Float16 h2 __attribute__((ext_vector_type(2)));

// out[t] packs tile[2t + 1] (low half) and tile[2t + 33] (high half): a
// 16-bit load and a d16_hi load at offsets from the same address.
extern "C" __global__ void lds_halves(const _Float16 *in, h2 *out) {
    __shared__ _Float16 tile[320];
    int t = threadIdx.x;
    tile[t] = in[t];
    tile[t + 64] = in[t + 64];
    tile[t + 128] = in[t + 128];
    tile[t + 192] = in[t + 192];
    tile[t + 256] = in[t + 256];
    __syncthreads();
    const _Float16 *p = &tile[2 * t];
    h2 v;
    v.x = p[1];
    v.y = p[33];
    out[t] = v;
}

// Bytes and shorts stored at offsets, read back at other offsets, and an
// LDS atomic at an offset.
extern "C" __global__ void lds_bytes_and_atomics(const unsigned *in, unsigned *out) {
    __shared__ unsigned char bytes[256];
    __shared__ unsigned short shorts[256];
    __shared__ unsigned counts[80];
    int t = threadIdx.x;
    if (t < 80) counts[t] = 0;
    __syncthreads();
    unsigned x = in[t];
    unsigned char *b = &bytes[t * 2];
    b[1] = (unsigned char)x;
    unsigned short *s = &shorts[t * 2];
    s[1] = (unsigned short)(x >> 8);
    atomicAdd(&counts[t % 16 + 16], x & 7);
    __syncthreads();
    out[t] = bytes[2 * ((t + 1) % 64) + 1] | (unsigned)shorts[2 * ((t + 3) % 64) + 1] << 8;
    out[64 + t] = t < 80 ? counts[t] : 0;
}

// Kernels that exercise the interpreter's instruction classes: scalar and
// vector ALU, 64-bit addressing, LDS with barriers, atomics, lane
// exchanges, conversions and transcendental approximations.
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>

extern "C" __global__ void saxpy(float a, const float* x, float* y, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

// One partial sum per block in LDS, then one atomic add per block.
extern "C" __global__ void reduce(const float* x, float* out, unsigned n) {
    __shared__ float s[256];
    unsigned t = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? x[i] : 0.f;
    __syncthreads();
    for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0) atomicAdd(out, s[0]);
}

// Integer arithmetic: 64-bit multiply, division, shifts, bit counts.
extern "C" __global__ void integer_ops(const unsigned* x, unsigned long long* out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned v = x[i];
    unsigned long long a = (unsigned long long)v * 2654435761u;
    unsigned q = v / 7u + v % 13u;
    int s = (int)v >> 3;
    out[4 * i + 0] = a ^ (a >> 17);
    out[4 * i + 1] = q;
    out[4 * i + 2] = (unsigned long long)(long long)s;
    out[4 * i + 3] = __popc(v) + (__clz(v | 1) << 8) + ((unsigned long long)__brev(v) << 16);
}

// Float arithmetic and conversions.
extern "C" __global__ void float_ops(const float* x, float* out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    out[6 * i + 0] = v / 3.0f;
    out[6 * i + 1] = sqrtf(fabsf(v));
    out[6 * i + 2] = (float)(int)v;
    out[6 * i + 3] = fmaxf(v, 0.5f) - fminf(v, -0.5f);
    out[6 * i + 4] = (float)((double)v * 1.0000001);
    out[6 * i + 5] = __half2float(__float2half(v));
}

// Lane exchanges: a butterfly sum over each wave.
extern "C" __global__ void wave_sum(const int* x, int* out) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = x[i];
    for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_xor(v, o);
    out[i] = v;
}

// An out-of-bounds write: the interpreter must fault, naming the address.
extern "C" __global__ void write_at(int* p, long long offset) {
    p[offset] = 1;
}

// Byte permutes (v_perm_b32 on both targets).
extern "C" __global__ void byte_perm(const unsigned* x, const unsigned* s, unsigned* out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = __byte_perm(x[i], x[(i + 1) % n], s[i]);
}

// A private array indexed at run time: lives in scratch (the private
// segment), one copy per work-item.
extern "C" __global__ void private_array(const unsigned* idx, unsigned* out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    volatile unsigned a[48];
    for (unsigned k = 0; k < 48; ++k) a[k] = i * 100 + k;
    unsigned s = 0;
    for (unsigned k = 0; k < 4; ++k) s += a[(idx[i] + 7 * k) % 48];
    out[i] = s;
}

// Clocks: wall_clock64 (s_memrealtime on gfx942, s_sendmsg_rtn on gfx1100)
// and clock64.
extern "C" __global__ void clocks(unsigned long long* out) {
    unsigned long long w0 = wall_clock64();
    unsigned long long c0 = clock64();
    float x = 1.0f;
    for (int k = 0; k < 100; ++k) x = x * 1.0001f + 0.5f;
    unsigned long long w1 = wall_clock64();
    out[0] = w0;
    out[1] = w1;
    out[2] = c0;
    out[3] = (unsigned long long)x;
}

// Waits for a flag that nobody sets: the launch's time limit stops it.
extern "C" __global__ void wait_forever(const volatile int* flag, int* out) {
    while (*flag == 0) {}
    out[threadIdx.x] = 1;
}

// printf: a hostcall (the runtime's hostcall buffer).
extern "C" __global__ void says_hello(const int* x) {
    int v = x[threadIdx.x];
    const char* word = (v % 2) ? "odd" : "even";
    printf("hello %d: %s %.2f %#x%%\n", v, word, v / 4.0, v);
}

// Buffer (MUBUF) loads and stores through a raw buffer resource of
// `bytes` bytes over `x`: reads past its end give 0, writes past it are
// dropped (range checking), whatever the memory beyond holds.
#if defined(__gfx1100__)
#define HIPRS_RSRC_FLAGS 0x31014000 // OOB_SELECT 3 (raw), 32-bit float format
#else
#define HIPRS_RSRC_FLAGS 0x00027000 // gfx9: 32-bit data format
#endif
extern "C" __global__ void buffer_copy(float* x, float* out, int bytes, int soffset) {
    __amdgpu_buffer_rsrc_t r = __builtin_amdgcn_make_buffer_rsrc(x, 0, bytes, HIPRS_RSRC_FLAGS);
    int i = threadIdx.x;
    out[i] = __builtin_bit_cast(float,
        __builtin_amdgcn_raw_buffer_load_b32(r, i * 4, soffset, 0));
    // Each lane writes -i at its own offset: lanes past the range do not.
    __builtin_amdgcn_raw_buffer_store_b32(__builtin_bit_cast(unsigned, -(float)i), r, i * 4, soffset, 0);
}

// Every inline PTX idiom hip-cuda-layer translates (src/ptx.rs), written
// as CUDA sources write it: tests/ptx.rs translates this file, compiles it
// with the layer and compares each result with PTX's definition.
// Thread i reads in[IN * i ..]: a, b, c (32 bits each), x, y (f32 bits),
// and writes OUT words at out[OUT * i ..], in the order of the cases.
#include <cuda_fp16.h>

#define IN 5
#define OUT 32

__device__ unsigned short lo16(unsigned int v) { return (unsigned short)(v & 0xffffu); }

extern "C" __global__ void ptx_cases(const unsigned int* in, unsigned int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned int a = in[IN * i], b = in[IN * i + 1], c = in[IN * i + 2];
  float x = __uint_as_float(in[IN * i + 3]), y = __uint_as_float(in[IN * i + 4]);
  unsigned int* o = out + OUT * i;
  unsigned short ha = lo16(a), hb = lo16(b), hc = lo16(c);
  unsigned int r;
  unsigned short h, h2;
  unsigned long long l;
  float f;

  // 0: packing two halves; 1, 2: unpacking.
  asm volatile("mov.b32 %0, {%1, %2};" : "=r"(r) : "h"(ha), "h"(hb));
  o[0] = r;
  asm volatile("mov.b32 {%0, %1}, %2;\n" : "=h"(h), "=h"(h2) : "r"(a));
  o[1] = h;
  o[2] = h2;
  // 3, 4: 64-bit packing, then unpacking it again (swapped).
  asm("mov.b64 %0, {%1, %2};" : "=l"(l) : "r"(a), "r"(b));
  o[3] = (unsigned int)(l >> 32);
  unsigned int w0, w1;
  asm("mov.b64 {%0, %1}, %2;" : "=r"(w0), "=r"(w1) : "l"(l));
  o[4] = w0 ^ w1;
  // 5-10: conversions.
  asm volatile("cvt.f32.f16 %0, %1;\n" : "=f"(f) : "h"(ha));
  o[5] = __float_as_uint(f);
  asm volatile("cvt.rn.f16.f32 %0, %1;\n" : "=h"(h) : "f"(x));
  o[6] = h;
  asm volatile("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(x), "f"(y));
  o[7] = r;
  asm("cvt.f32.bf16 %0, %1;" : "=f"(f) : "h"(ha));
  o[8] = __float_as_uint(f);
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(x));
  o[9] = h;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(x), "f"(y));
  o[10] = r;
  // 11-18: f16 and f16x2 arithmetic.
  asm volatile("add.f16 %0, %1, %2;\n" : "=h"(h) : "h"(ha), "h"(hb));
  o[11] = h;
  asm volatile("sub.f16 %0, %1, %2;\n" : "=h"(h) : "h"(ha), "h"(hb));
  o[12] = h;
  asm volatile("mul.f16 %0, %1, %2;\n" : "=h"(h) : "h"(ha), "h"(hb));
  o[13] = h;
  asm volatile("fma.rn.f16 %0, %1, %2, %3;\n" : "=h"(h) : "h"(ha), "h"(hb), "h"(hc));
  o[14] = h;
  asm volatile("add.f16x2 %0, %1, %2;\n" : "=r"(r) : "r"(a), "r"(b));
  o[15] = r;
  asm volatile("sub.f16x2 %0, %1, %2;\n" : "=r"(r) : "r"(a), "r"(b));
  o[16] = r;
  asm volatile("mul.f16x2 %0, %1, %2;\n" : "=r"(r) : "r"(a), "r"(b));
  o[17] = r;
  r = c;
  asm volatile("fma.rn.f16x2 %0, %1, %2, %0;\n" : "+r"(r) : "r"(a), "r"(b));
  o[18] = r;
  // 19-23: f32 approximations (x as it is, |x|, x / 16 for 2^x; for the
  // reciprocals x's sign and mantissa at an exponent in [-20, 19], from
  // y: quotients that need no scaling (see tests/ptx.rs)).
  float xm = __uint_as_float((__float_as_uint(x) & 0x807fffffu) | ((107u + __float_as_uint(y) % 40u) << 23));
  asm volatile("tanh.approx.f32 %0, %1;" : "=f"(f) : "f"(x));
  o[19] = __float_as_uint(f);
  asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(f) : "f"(x / 16.0f));
  o[20] = __float_as_uint(f);
  asm volatile("lg2.approx.ftz.f32 %0, %1;" : "=f"(f) : "f"(fabsf(x)));
  o[21] = __float_as_uint(f);
  asm volatile("rcp.approx.ftz.f32 %0, %1;" : "=f"(f) : "f"(xm));
  o[22] = __float_as_uint(f);
  asm volatile("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(f) : "f"(fabsf(xm)));
  o[23] = __float_as_uint(f);
  // 24-26: logic and byte permutes.
  asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  o[24] = r;
  asm("lop3.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(a), "r"(b), "r"(c), "n"(0xE8));
  o[25] = r;
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  o[26] = r;
  // 27-30: f16 approximations.
  asm("tanh.approx.f16 %0, %1;" : "=h"(h) : "h"(ha));
  o[27] = h;
  asm("ex2.approx.f16 %0, %1;" : "=h"(h) : "h"(hc));
  o[28] = h;
  asm("tanh.approx.f16x2 %0, %1;" : "=r"(r) : "r"(a));
  o[29] = r;
  asm("ex2.approx.f16x2 %0, %1;" : "=r"(r) : "r"(c));
  o[30] = r;
  // 31: copies, and a fence that changes nothing here.
  asm volatile("mov.u32 %0, %1;" : "=r"(r) : "r"(b));
  asm volatile("membar.gl;" ::: "memory");
  o[31] = r;
}

// The memory, synchronization, shuffle and fp8 idioms. Blocks of 64
// threads (n a multiple of 64); thread i writes OUT2 words at
// out[OUT2 * i ..] and uses buf[BUF * i ..]; counters[blockIdx.x] starts
// at 0.
#define OUT2 34
#define BUF 16

extern "C" __global__ void ptx_memory_cases(const unsigned int* in, unsigned int* out, unsigned int* buf,
                                            int* counters, int n) {
  __shared__ unsigned int lds[64 * 16];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  const unsigned int* src = in + IN * i;
  unsigned int* o = out + OUT2 * i;
  unsigned int* b = buf + BUF * i;
  unsigned int* l = &lds[16 * t];
  for (int k = 0; k < 16; ++k) l[k] = 0xdeadbeefu;
  unsigned int smem = (unsigned int)__cvta_generic_to_shared(l);
  unsigned int a = src[0];
  // 0-3: 16 bytes; 4-7: the first a % 17 of 16 bytes, the rest zero;
  // 8-11: 16 bytes when a is odd, else left as they were.
  asm volatile("cp.async.cg.shared.global [%0], [%1], %2;\n" ::"r"(smem), "l"(src), "n"(16));
  asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], %2, %3;\n" ::"r"(smem + 16), "l"(src + 1),
               "n"(16), "r"(a % 17));
  asm volatile(
      "{\n"
      " .reg .pred p;\n"
      " setp.ne.b32 p, %0, 0;\n"
      " @p cp.async.cg.shared.global [%1], [%2], %3;\n"
      "}\n" ::"r"((int)(a & 1)),
      "r"(smem + 32), "l"(src + 1), "n"(16));
  asm volatile("cp.async.commit_group;\n" ::);
  asm volatile("cp.async.wait_group %0;\n" ::"n"(0));
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("prefetch.global.L2 [%0];" ::"l"(src));
  __syncthreads();
  for (int k = 0; k < 12; ++k) o[k] = l[k];
  // 12-14: streaming loads; 15-17: streaming stores, read back.
  unsigned int w, w0, w1;
  asm volatile("ld.global.cs.b32 %0, [%1];" : "=r"(w) : "l"(src + 3));
  o[12] = w;
  asm volatile("ld.global.cs.v2.b32 {%0, %1}, [%2];" : "=r"(w0), "=r"(w1) : "l"(src + 1));
  o[13] = w0;
  o[14] = w1;
  asm volatile("st.global.cs.b32 [%0], %1;" ::"l"(b), "r"(a ^ 0x5a5a5a5au));
  asm volatile("st.global.cs.v2.b32 [%0], {%1, %2};" ::"l"(b + 2), "r"(src[1]), "r"(src[2]));
  o[15] = b[0];
  o[16] = b[2];
  o[17] = b[3];
  // 18-21: volatile and acquire/release vectors.
  unsigned int v[4];
  asm volatile("ld.volatile.global.v4.b32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3])
               : "l"(src));
  o[18] = v[0] ^ v[1] ^ v[2] ^ v[3];
  asm volatile("st.volatile.global.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(b + 4), "r"(v[3]), "r"(v[2]), "r"(v[1]),
               "r"(v[0]));
  o[19] = b[4] + 2 * b[5] + 3 * b[6] + 5 * b[7];
  asm volatile("ld.acquire.global.sys.v4.b32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3])
               : "l"(src + 1));
  o[20] = v[0] + v[1] + v[2] + v[3];
  asm volatile("st.release.global.sys.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(b + 8), "r"(v[0]), "r"(v[1]),
               "r"(v[2]), "r"(v[3]));
  o[21] = b[8] + 2 * b[9] + 3 * b[10] + 5 * b[11];
  // 22: an acquire load; 23: the block's counter after every thread added
  // 1 + i % 7 (relaxed), with fences.
  asm volatile("ld.global.acquire.gpu.b32 %0, [%1];\n" : "=r"(w) : "l"(src + 4));
  o[22] = w;
  asm volatile("fence.acq_rel.gpu;\n");
  asm volatile("red.relaxed.gpu.global.add.s32 [%0], %1;\n" ::"l"(counters + blockIdx.x), "r"(1 + i % 7));
  asm volatile("fence.acq_rel.gpu;\n");
  __syncthreads();
  asm volatile("ld.global.acquire.gpu.b32 %0, [%1];\n" : "=r"(w) : "l"(counters + blockIdx.x));
  o[23] = w;
  asm volatile("griddepcontrol.launch_dependents;" :::);
  // 24-28: butterfly shuffles of a float, lane masks 1 to 16; 29: the lane.
  float x = __uint_as_float(src[3]);
  for (int k = 0; k < 5; ++k) {
    float y;
    asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=f"(y) : "f"(x), "r"(1 << k));
    o[24 + k] = __float_as_uint(y);
  }
  unsigned int lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  o[29] = lane;
  // 30-33: fp8 pairs to f16x2 and back.
  unsigned short h;
  asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(w) : "h"((unsigned short)(a & 0xffffu)));
  o[30] = w;
  asm("cvt.rn.f16x2.e5m2x2 %0, %1;" : "=r"(w) : "h"((unsigned short)(a >> 16)));
  o[31] = w;
  asm("cvt.rn.satfinite.e4m3x2.f16x2 %0, %1;" : "=h"(h) : "r"(src[1]));
  o[32] = h;
  asm("cvt.rn.satfinite.e5m2x2.f16x2 %0, %1;" : "=h"(h) : "r"(src[2]));
  o[33] = h;
}

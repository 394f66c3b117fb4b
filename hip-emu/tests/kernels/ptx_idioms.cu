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

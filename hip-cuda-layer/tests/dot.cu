// The layer's __dp4a, as quantized kernels use it (candle's vec_dot_q*
// and llama.cpp's mmq/mmvq): scripts/candle.sh amd compiles this with the
// layer force-included, for each AMD target, to assembly, and checks that
// each function is one hardware dot instruction (v_dot4_i32_i8 or
// v_dot4_i32_iu8, v_dot4_u32_u8), not byte products. The layer calls the
// dot builtins on the targets that have the instruction: clang recognised
// the byte loop the layer spelled out before in a kernel like this one,
// but not inside candle's unrolled matmuls (mmq_gguf's Q4_K tile: no dot
// instruction, 1,026 24-bit multiplies), which then spilled.
#include <cuda_runtime.h>

extern "C" __global__ void dot_signed(const int* a, const int* b, int* c) {
  const int i = threadIdx.x;
  c[i] = __dp4a(a[i], b[i], c[i]);
}

extern "C" __global__ void dot_unsigned(const unsigned* a, const unsigned* b, unsigned* c) {
  const int i = threadIdx.x;
  c[i] = __dp4a(a[i], b[i], c[i]);
}

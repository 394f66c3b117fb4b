// The layer's __dp4a, as quantized kernels use it (candle's vec_dot_q*
// and llama.cpp's mmq/mmvq): scripts/candle.sh amd compiles this with the
// layer force-included, for each AMD target, to assembly, and checks that
// each function is one hardware dot instruction (v_dot4_i32_i8 or
// v_dot4_i32_iu8, v_dot4_u32_u8) and not the byte-by-byte loop the layer
// spells out. clang recognises the loop; this keeps it so.
#include <cuda_runtime.h>

extern "C" __global__ void dot_signed(const int* a, const int* b, int* c) {
  const int i = threadIdx.x;
  c[i] = __dp4a(a[i], b[i], c[i]);
}

extern "C" __global__ void dot_unsigned(const unsigned* a, const unsigned* b, unsigned* c) {
  const int i = threadIdx.x;
  c[i] = __dp4a(a[i], b[i], c[i]);
}

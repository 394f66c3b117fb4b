// Matrix instructions through the compiler's builtins: MFMA on gfx942,
// WMMA on gfx1100 (wave32, and wave64 when built with
// -mwavefrontsize64). One wave per launch; every matrix is row-major in
// global memory (A: M x K per block, B: K x N, C and D: M x N), and each
// kernel places the elements in registers as AMD's ISA documents lay
// them out (the tests in tests/isa.rs compare D with a host product).
// No HIP header: HIP's refuses gfx1100 at wave64, which the hardware and
// the compiler support (built then with -mwavefrontsize64 -DWAVE64).
#define KERNEL extern "C" __attribute__((global))
#define threadIdx_x ((int)__builtin_amdgcn_workitem_id_x())

typedef _Float16 h4 __attribute__((ext_vector_type(4)));
typedef _Float16 h16 __attribute__((ext_vector_type(16)));
typedef short s4 __attribute__((ext_vector_type(4)));
typedef short s16 __attribute__((ext_vector_type(16)));
typedef float f4 __attribute__((ext_vector_type(4)));
typedef float f8 __attribute__((ext_vector_type(8)));
typedef float f16v __attribute__((ext_vector_type(16)));
typedef int i2 __attribute__((ext_vector_type(2)));
typedef int i4 __attribute__((ext_vector_type(4)));
typedef int i8v __attribute__((ext_vector_type(8)));
typedef double d4 __attribute__((ext_vector_type(4)));

#if defined(__gfx942__)

// 16x16x16 f16: A[i][k] at lane i + 16*(k/4), element k%4; B[k][j] at
// lane j + 16*(k/4); D[i][j] at lane j + 16*(i/4), element i%4.
KERNEL void mfma_16x16x16_f16(const _Float16 *a, const _Float16 *b,
                                             const float *c, float *d) {
    int lane = threadIdx_x, r = lane % 16, g = lane / 16;
    h4 va, vb;
    f4 vc;
    for (int e = 0; e < 4; e++) {
        va[e] = a[r * 16 + 4 * g + e];
        vb[e] = b[(4 * g + e) * 16 + r];
        vc[e] = c[(4 * g + e) * 16 + r];
    }
    f4 vd = __builtin_amdgcn_mfma_f32_16x16x16f16(va, vb, vc, 0, 0, 0);
    for (int e = 0; e < 4; e++) d[(4 * g + e) * 16 + r] = vd[e];
}

// 32x32x8 f16: A[i][k] at lane i + 32*(k/4); D[i][j] at lane j +
// 32*((i/4)%2), element 4*(i/8) + i%4. Two in a row, the second
// accumulating on the first (the result stays in AGPRs between them).
KERNEL void mfma_32x32x8_f16(const _Float16 *a, const _Float16 *b,
                                            const float *c, float *d) {
    int lane = threadIdx_x, r = lane % 32, g = lane / 32;
    h4 va, vb;
    f16v vc;
    for (int e = 0; e < 4; e++) {
        va[e] = a[r * 8 + 4 * g + e];
        vb[e] = b[(4 * g + e) * 32 + r];
    }
    for (int e = 0; e < 16; e++) vc[e] = c[(8 * (e / 4) + 4 * g + e % 4) * 32 + r];
    f16v vd = __builtin_amdgcn_mfma_f32_32x32x8f16(va, vb, vc, 0, 0, 0);
    vd = __builtin_amdgcn_mfma_f32_32x32x8f16(va, vb, vd, 0, 0, 0);
    for (int e = 0; e < 16; e++) d[(8 * (e / 4) + 4 * g + e % 4) * 32 + r] = vd[e];
}

// 4x4x1, 16 blocks of f32: block blk's A[i][0] at lane 4*blk + i, B[0][j]
// at lane 4*blk + j, D[i][j] at lane 4*blk + j, element i. With CBSZ 4
// and ABID 3 every block multiplies block 3's A (a broadcast).
KERNEL void mfma_4x4x1_f32(const float *a, const float *b, const float *c,
                                          float *d, float *d_bcast) {
    int lane = threadIdx_x, blk = lane / 4, r = lane % 4;
    float va = a[blk * 4 + r], vb = b[blk * 4 + r];
    f4 vc;
    for (int e = 0; e < 4; e++) vc[e] = c[blk * 16 + e * 4 + r];
    f4 vd = __builtin_amdgcn_mfma_f32_4x4x1f32(va, vb, vc, 0, 0, 0);
    f4 ve = __builtin_amdgcn_mfma_f32_4x4x1f32(va, vb, vc, 4, 3, 0);
    for (int e = 0; e < 4; e++) {
        d[blk * 16 + e * 4 + r] = vd[e];
        d_bcast[blk * 16 + e * 4 + r] = ve[e];
    }
}

// 16x16x32 i8: A[i][k] at lane i + 16*(k/8), byte k%8.
KERNEL void mfma_16x16x32_i8(const signed char *a, const signed char *b,
                                            const int *c, int *d) {
    int lane = threadIdx_x, r = lane % 16, g = lane / 16;
    long va = 0, vb = 0;
    for (int e = 0; e < 8; e++) {
        va |= (long)(unsigned char)a[r * 32 + 8 * g + e] << (8 * e);
        vb |= (long)(unsigned char)b[(8 * g + e) * 16 + r] << (8 * e);
    }
    i4 vc;
    for (int e = 0; e < 4; e++) vc[e] = c[(4 * g + e) * 16 + r];
    i4 vd = __builtin_amdgcn_mfma_i32_16x16x32_i8(va, vb, vc, 0, 0, 0);
    for (int e = 0; e < 4; e++) d[(4 * g + e) * 16 + r] = vd[e];
}

// 16x16x4 f64: A[i][k] at lane i + 16*k; D[i][j] at lane j + 16*(i%4),
// element i/4. BLGP 1 negates A (f64 MFMA's BLGP bits are NEG).
KERNEL void mfma_16x16x4_f64(const double *a, const double *b,
                                            const double *c, double *d, double *d_neg) {
    int lane = threadIdx_x, r = lane % 16, g = lane / 16;
    double va = a[r * 4 + g], vb = b[g * 16 + r];
    d4 vc;
    for (int e = 0; e < 4; e++) vc[e] = c[(4 * e + g) * 16 + r];
    d4 vd = __builtin_amdgcn_mfma_f64_16x16x4f64(va, vb, vc, 0, 0, 0);
    d4 ve = __builtin_amdgcn_mfma_f64_16x16x4f64(va, vb, vc, 0, 0, 1);
    for (int e = 0; e < 4; e++) {
        d[(4 * e + g) * 16 + r] = vd[e];
        d_neg[(4 * e + g) * 16 + r] = ve[e];
    }
}

// 16x16x32 FP8 x BF8 (gfx942's FNUZ formats), bytes as 16x16x32 i8.
KERNEL void mfma_16x16x32_fp8_bf8(const unsigned char *a,
                                                 const unsigned char *b, const float *c,
                                                 float *d) {
    int lane = threadIdx_x, r = lane % 16, g = lane / 16;
    long va = 0, vb = 0;
    for (int e = 0; e < 8; e++) {
        va |= (long)a[r * 32 + 8 * g + e] << (8 * e);
        vb |= (long)b[(8 * g + e) * 16 + r] << (8 * e);
    }
    f4 vc;
    for (int e = 0; e < 4; e++) vc[e] = c[(4 * g + e) * 16 + r];
    f4 vd = __builtin_amdgcn_mfma_f32_16x16x32_fp8_bf8(va, vb, vc, 0, 0, 0);
    for (int e = 0; e < 4; e++) d[(4 * g + e) * 16 + r] = vd[e];
}

// 16x16x16 bf16: the f16 layout.
KERNEL void mfma_16x16x16_bf16(const short *a, const short *b,
                                              const float *c, float *d) {
    int lane = threadIdx_x, r = lane % 16, g = lane / 16;
    s4 va, vb;
    f4 vc;
    for (int e = 0; e < 4; e++) {
        va[e] = a[r * 16 + 4 * g + e];
        vb[e] = b[(4 * g + e) * 16 + r];
        vc[e] = c[(4 * g + e) * 16 + r];
    }
    f4 vd = __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(va, vb, vc, 0, 0, 0);
    for (int e = 0; e < 4; e++) d[(4 * g + e) * 16 + r] = vd[e];
}

#endif

#if defined(__gfx1100__)

// WMMA 16x16x16: A[i][k] at lane i (and i+16, i+32, i+48), element k;
// B[k][j] at lane j, element k; D[i][j] at lane 16*(i%G) + j, element
// i/G, with G = wave size / 16.
#ifdef WAVE64
#define G 4
#else
#define G 2
#endif

KERNEL void wmma_f32_f16(const _Float16 *a, const _Float16 *b, const float *c,
                                        float *d) {
    int lane = threadIdx_x, r = lane % 16, g = lane / 16;
    h16 va, vb;
    for (int k = 0; k < 16; k++) {
        va[k] = a[r * 16 + k];
        vb[k] = b[k * 16 + r];
    }
#ifdef WAVE64
    f4 vc;
    for (int e = 0; e < 4; e++) vc[e] = c[(G * e + g) * 16 + r];
    f4 vd = __builtin_amdgcn_wmma_f32_16x16x16_f16_w64(va, vb, vc);
    for (int e = 0; e < 4; e++) d[(G * e + g) * 16 + r] = vd[e];
#else
    f8 vc;
    for (int e = 0; e < 8; e++) vc[e] = c[(G * e + g) * 16 + r];
    f8 vd = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32(va, vb, vc);
    for (int e = 0; e < 8; e++) d[(G * e + g) * 16 + r] = vd[e];
#endif
}

#ifndef WAVE64
// f16 and bf16 results: OPSEL chooses the halves C is read from and D is
// written to; `d_hi` gets the high halves (C there too).
KERNEL void wmma_f16_f16(const _Float16 *a, const _Float16 *b,
                                        const _Float16 *c, _Float16 *d, _Float16 *d_hi) {
    int lane = threadIdx_x, r = lane % 16, g = lane / 16;
    h16 va, vb, vc, vc_hi;
    for (int k = 0; k < 16; k++) {
        va[k] = a[r * 16 + k];
        vb[k] = b[k * 16 + r];
    }
    for (int e = 0; e < 8; e++) {
        vc[2 * e] = c[(G * e + g) * 16 + r];
        vc[2 * e + 1] = 0;
        vc_hi[2 * e] = 0;
        vc_hi[2 * e + 1] = c[(G * e + g) * 16 + r];
    }
    h16 vd = __builtin_amdgcn_wmma_f16_16x16x16_f16_w32(va, vb, vc, false);
    h16 ve = __builtin_amdgcn_wmma_f16_16x16x16_f16_w32(va, vb, vc_hi, true);
    for (int e = 0; e < 8; e++) {
        d[(G * e + g) * 16 + r] = vd[2 * e];
        d_hi[(G * e + g) * 16 + r] = ve[2 * e + 1];
    }
}

KERNEL void wmma_bf16_bf16(const short *a, const short *b, const short *c,
                                          short *d) {
    int lane = threadIdx_x, r = lane % 16, g = lane / 16;
    s16 va, vb, vc;
    for (int k = 0; k < 16; k++) {
        va[k] = a[r * 16 + k];
        vb[k] = b[k * 16 + r];
    }
    for (int e = 0; e < 8; e++) {
        vc[2 * e] = c[(G * e + g) * 16 + r];
        vc[2 * e + 1] = 0;
    }
    s16 vd = __builtin_amdgcn_wmma_bf16_16x16x16_bf16_w32(va, vb, vc, false);
    for (int e = 0; e < 8; e++) d[(G * e + g) * 16 + r] = vd[2 * e];
}

// Integers: A signed, B unsigned (the NEG bits), with and without clamp.
KERNEL void wmma_i32_iu8(const unsigned char *a, const unsigned char *b,
                                        const int *c, int *d, int *d_clamp) {
    int lane = threadIdx_x, r = lane % 16, g = lane / 16;
    i4 va = {0, 0, 0, 0}, vb = {0, 0, 0, 0};
    for (int k = 0; k < 16; k++) {
        va[k / 4] |= (int)a[r * 16 + k] << (8 * (k % 4));
        vb[k / 4] |= (int)b[k * 16 + r] << (8 * (k % 4));
    }
    i8v vc;
    for (int e = 0; e < 8; e++) vc[e] = c[(G * e + g) * 16 + r];
    i8v vd = __builtin_amdgcn_wmma_i32_16x16x16_iu8_w32(true, va, false, vb, vc, false);
    i8v ve = __builtin_amdgcn_wmma_i32_16x16x16_iu8_w32(true, va, false, vb, vc, true);
    for (int e = 0; e < 8; e++) {
        d[(G * e + g) * 16 + r] = vd[e];
        d_clamp[(G * e + g) * 16 + r] = ve[e];
    }
}

// As rocBLAS's gfx1100 int8 GEMMs encode it: `neg_lo:[1,1,1]`, both
// inputs signed and NEG[2] set, which has no meaning for integers.
KERNEL void wmma_i32_iu8_neg_lo_all(const unsigned char *a, const unsigned char *b,
                                    const int *c, int *d) {
    int lane = threadIdx_x, r = lane % 16, g = lane / 16;
    i4 va = {0, 0, 0, 0}, vb = {0, 0, 0, 0};
    for (int k = 0; k < 16; k++) {
        va[k / 4] |= (int)a[r * 16 + k] << (8 * (k % 4));
        vb[k / 4] |= (int)b[k * 16 + r] << (8 * (k % 4));
    }
    i8v vc;
    for (int e = 0; e < 8; e++) vc[e] = c[(G * e + g) * 16 + r];
    asm volatile("v_wmma_i32_16x16x16_iu8 %0, %1, %2, %0 neg_lo:[1,1,1]"
                 : "+v"(vc)
                 : "v"(va), "v"(vb));
    for (int e = 0; e < 8; e++) d[(G * e + g) * 16 + r] = vc[e];
}

// 4-bit: both signed; nibbles packed low first.
KERNEL void wmma_i32_iu4(const unsigned char *a, const unsigned char *b,
                                        const int *c, int *d) {
    int lane = threadIdx_x, r = lane % 16, g = lane / 16;
    i2 va = {0, 0}, vb = {0, 0};
    for (int k = 0; k < 16; k++) {
        va[k / 8] |= (int)(a[r * 16 + k] & 15) << (4 * (k % 8));
        vb[k / 8] |= (int)(b[k * 16 + r] & 15) << (4 * (k % 8));
    }
    i8v vc;
    for (int e = 0; e < 8; e++) vc[e] = c[(G * e + g) * 16 + r];
    i8v vd = __builtin_amdgcn_wmma_i32_16x16x16_iu4_w32(true, va, true, vb, vc, false);
    for (int e = 0; e < 8; e++) d[(G * e + g) * 16 + r] = vd[e];
}

// A lane of the second 16-lane group holding other data than the first:
// undefined on hardware, so the emulator must refuse it.
KERNEL void wmma_unreplicated(const _Float16 *a, const _Float16 *b,
                                             float *d) {
    int lane = threadIdx_x, r = lane % 16;
    h16 va, vb;
    for (int k = 0; k < 16; k++) {
        va[k] = a[lane * 16 + k];
        vb[k] = b[k * 16 + r];
    }
    f8 vc = {0, 0, 0, 0, 0, 0, 0, 0};
    f8 vd = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32(va, vb, vc);
    for (int e = 0; e < 8; e++) d[e * 32 + lane] = vd[e];
}
#endif

#endif

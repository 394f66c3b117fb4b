// The compatibility layer's software fp8 (hiprs_cuda_fp8.h) against an
// independent reference, on the host: decoding by the OCP formula, and
// encoding (round to nearest, ties to even, saturating as CUDA's
// constructors do) by searching every finite code for the nearest value.
// scripts/candle.sh amd compiles it with the AMD toolchain (host pass only)
// and runs it; it prints one line and exits 1 on the first mismatch.
#include "hiprs_cuda.h"
#include <cmath>
#include <cstdio>
#include <cstdlib>

static float ref_decode(unsigned code, __nv_fp8_interpretation_t fmt) {
  const int m_bits = fmt == __NV_E4M3 ? 3 : 2, bias = fmt == __NV_E4M3 ? 7 : 15;
  const int e = (code & 0x7f) >> m_bits, m = code & ((1 << m_bits) - 1);
  const float sign = (code & 0x80) ? -1.0f : 1.0f;
  if (fmt == __NV_E4M3 && e == 15 && m == 7) return NAN;
  if (fmt == __NV_E5M2 && e == 31) return m ? NAN : sign * INFINITY;
  const float mag = e == 0 ? std::ldexp((float)m, 1 - bias - m_bits)
                           : std::ldexp(1.0f + (float)m / (1 << m_bits), e - bias);
  return sign * mag;
}

static unsigned ref_encode(float x, __nv_fp8_interpretation_t fmt) {
  const unsigned sign = std::signbit(x) ? 0x80 : 0;
  if (std::isnan(x)) return sign | 0x7f;
  // Saturating: beyond the largest finite value is the largest finite value.
  const double max = fmt == __NV_E4M3 ? 448.0 : 57344.0;
  const double a = std::fmin(std::fabs((double)x), max);
  unsigned best = 0;
  double best_d = INFINITY;
  for (unsigned c = 0; c < 0x80; c++) {
    const float v = ref_decode(c, fmt);
    if (!std::isfinite(v)) continue;
    const double d = std::fabs((double)v - a);
    if (d < best_d || (d == best_d && (c & 1) == 0)) {
      best = c;
      best_d = d;
    }
  }
  return sign | best;
}

static int failures;

static void check(float x, __nv_fp8_interpretation_t fmt) {
  const unsigned got = hiprs_float_to_fp8(x, __NV_SATFINITE, fmt), want = ref_encode(x, fmt);
  if (got != want && failures++ < 5)
    std::printf("fp8 %s: encode(%.9g) = 0x%02x, reference 0x%02x\n",
                fmt == __NV_E4M3 ? "e4m3" : "e5m2", x, got, want);
}

int main() {
  unsigned long checked = 0;
  for (__nv_fp8_interpretation_t fmt : {__NV_E4M3, __NV_E5M2}) {
    for (unsigned c = 0; c < 256; c++) {
      const float want = ref_decode(c, fmt), got = hiprs_fp8_to_float((unsigned char)c, fmt);
      if (!(got == want || (std::isnan(got) && std::isnan(want))) && failures++ < 5)
        std::printf("fp8: decode(0x%02x) = %g, reference %g\n", c, got, want);
      checked++;
      // Every value, the midpoints to its neighbour (ties), and just off them.
      if (!std::isfinite(want)) continue;
      const float next = ref_decode(c + 1 < 256 ? c + 1 : c, fmt);
      for (float x : {want, -want, std::nextafter(want, INFINITY), std::nextafter(want, -INFINITY)}) {
        check(x, fmt);
        checked++;
      }
      if (std::isfinite(next) && (c & 0x7f) != 0x7f) {
        const float mid = (want + next) / 2;
        for (float x : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, INFINITY)}) {
          check(x, fmt);
          checked++;
        }
      }
    }
    srand(12345);
    for (int i = 0; i < 200000; i++) {
      const float x = std::ldexp((float)rand() / (float)RAND_MAX * 2 - 1, rand() % 48 - 24);
      check(x, fmt);
      checked++;
    }
    for (float x : {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e30f, -1e30f, 1e-30f, 448.0f, 464.0f,
                    480.0f, 57344.0f, 61440.0f, 65536.0f}) {
      check(x, fmt);
      checked++;
    }
  }
  // The type: CUDA's constructor saturates, and converts back.
  const __nv_fp8_e4m3 big(1000.0f), third(1.0f / 3.0f);
  if (big.__x != 0x7e || (float)big != 448.0f || (float)third != 0.34375f) {
    std::printf("fp8: __nv_fp8_e4m3(1000) = 0x%02x, (1/3) = %g\n", big.__x, (float)third);
    failures++;
  }
  std::printf("fp8 check: %lu conversions, %d mismatches\n", checked, failures);
  return failures ? 1 : 0;
}

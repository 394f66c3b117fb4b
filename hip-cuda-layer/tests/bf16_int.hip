// The layer's integer-to-bf16 conversions (__int2bfloat16_rn and its
// siblings, hiprs_cuda.h) against an independent reference, on the host:
// the nearest bf16 value found with 80-bit long double arithmetic, which
// holds every 64-bit integer exactly, ties to even. scripts/candle.sh amd
// compiles it with the AMD toolchain (host pass only) and runs it; it
// prints one line and exits 1 on the first mismatch.
#include "hiprs_cuda.h"
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

// The nearest value with 8 significant bits to `x`, ties to even.
static long double ref_round(long double x) {
  if (x == 0) return x;
  const long double a = std::fabs(x);
  const int e = std::ilogb(a);  // 2^e <= a < 2^(e+1)
  const long double ulp = std::ldexp(1.0L, e - 7);
  const long double q = a / ulp;  // exact: a power-of-two division
  std::fesetround(FE_TONEAREST);
  const long double r = std::nearbyint(q) * ulp;
  return x < 0 ? -r : r;
}

static int failures = 0;
static long checked = 0;

static void check(const char* what, long double x, __nv_bfloat16 got) {
  checked++;
  const long double want = ref_round(x);
  const long double have = (long double)__bfloat162float(got);
  if (have != want && failures++ == 0) {
    std::printf("%s(%.0Lf): got %.6Lg, want %.6Lg\n", what, x, have, want);
  }
}

int main() {
  // Every 16-bit value, signed and unsigned.
  for (int i = -32768; i <= 32767; i++) check("__short2bfloat16_rn", i, __short2bfloat16_rn((short)i));
  for (int i = 0; i <= 65535; i++)
    check("__ushort2bfloat16_rn", i, __ushort2bfloat16_rn((unsigned short)i));
  // Around every power of two, where ties and carries happen, and the ends.
  for (int e = 0; e < 64; e++) {
    for (long long d = -300; d <= 300; d++) {
      const unsigned long long u = (1ull << e) + (unsigned long long)d;
      if (d < 0 && (unsigned long long)(-d) > (1ull << e)) continue;
      check("__ull2bfloat16_rn", (long double)u, __ull2bfloat16_rn(u));
      const long long s = (long long)u;
      check("__ll2bfloat16_rn", (long double)s, __ll2bfloat16_rn(s));
      if (u <= 0xffffffffull) {
        check("__uint2bfloat16_rn", (long double)u, __uint2bfloat16_rn((unsigned)u));
        const int si = (int)(unsigned)u;
        check("__int2bfloat16_rn", (long double)si, __int2bfloat16_rn(si));
      }
    }
  }
  check("__int2bfloat16_rn", -2147483648.0L, __int2bfloat16_rn(-2147483647 - 1));
  check("__ll2bfloat16_rn", -9223372036854775808.0L, __ll2bfloat16_rn(INT64_MIN));
  check("__ull2bfloat16_rn", 18446744073709551615.0L, __ull2bfloat16_rn(UINT64_MAX));
  // Pseudo-random 32- and 64-bit values.
  unsigned long long x = 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < 2000000; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    check("__ull2bfloat16_rn", (long double)x, __ull2bfloat16_rn(x));
    check("__int2bfloat16_rn", (long double)(int)(unsigned)x, __int2bfloat16_rn((int)(unsigned)x));
  }
  if (failures) {
    std::printf("bf16 integer conversions: %d of %ld differ from the reference\n", failures, checked);
    return 1;
  }
  std::printf("bf16 integer conversions: %ld values, each the reference's nearest-even bf16\n", checked);
  return 0;
}

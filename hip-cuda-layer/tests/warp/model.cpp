// The layer's CUDA warp functions (include/hiprs_cuda_warp.h) checked on the
// host, without an AMD GPU, against CUDA's documented semantics for a
// 32-lane warp.
//
// How: the layer's header is compiled as it is, over a model of the HIP
// device functions it calls. Each lane of a wavefront (32 or 64 lanes,
// HIPRS_MODEL_WAVE) runs the code as a fiber of its own (ucontext); a
// collective builtin (ds_bpermute, ballot, wave_barrier) suspends each active
// lane where it calls it, and when every active lane has arrived the model
// computes every lane's result the way the hardware does and resumes them.
// Lanes outside the exec mask never run: they are the lanes a CUDA kernel
// has diverged away from, or that exited.
//
// The model is at the level of the amdgcn builtins HIP's headers use:
//   __builtin_amdgcn_ds_bpermute(addr, data): lane (addr / 4) mod wave size
//     gives its data; an inactive source lane reads as 0 (the ISA manuals'
//     DS_BPERMUTE_B32; on wave64 the whole wavefront, as on CDNA).
//   __builtin_amdgcn_mbcnt_lo / _hi(mask, acc): acc plus the set bits of mask
//     below this lane, in lanes 0-31 / 32-63.
//   __builtin_amdgcn_ballot_w64(p), __builtin_amdgcn_uicmp(p, 0, ICMP_NE):
//     a bit per active lane whose p is true.
//   __builtin_amdgcn_wave_barrier(): every active lane arrives before any
//     goes on (the lanes of a wavefront run in lockstep).
// HIP's own __shfl, __shfl_xor, __shfl_up, __shfl_down, __ballot, __lane_id
// and warpSize on top of them come from one of (HIPRS_MODEL_HIP):
//   1  ROCm 5.2-5.6, as written in ROCm 5.2.3's amd_warp_functions.h and
//      amd_device_functions.h: __shfl reads lane src_lane of its segment
//      without reducing it modulo width (fixed in 5.7, clr commit 23e99dbb);
//      __ballot is uicmp; warpSize is a constexpr int.
//   2  ROCm 5.7 and later, as written in ROCm/clr's amd_warp_functions.h
//      (hipamd/include/hip/amd_detail, newest): src_lane & (width - 1);
//      __ballot is ballot_w64; __lane_id reads mbcnt_lo only on wave32;
//      warpSize is an object that converts to
//      __builtin_amdgcn_wavefrontsize().
//   0  HIP's real headers, from the include folder given with -I (the
//      folder holding hip/hip_version.h): amd_warp_functions.h itself,
//      compiled for the host over the builtins above. Before ROCm 6.2,
//      __lane_id and __ballot are in amd_device_functions.h, which does not
//      compile for the host: they are taken from (1) then.
// Only the int and long long overloads of HIP's shuffles are written out in
// (1) and (2): those are the ones the layer calls.
//
// The reference (namespace ref) is CUDA's semantics as the CUDA C++
// Programming Guide states them ("Warp Shuffle Functions", "Warp Vote
// Functions", "Warp Reduce Functions", __syncwarp), for each 32-lane warp:
// on wave64, lanes 0-31 and 32-63 are two warps. A lane's result is checked
// only where CUDA defines it: a shuffle that reads an inactive lane is
// undefined, and is not checked; nor are laneMask 33-63 and delta past 32,
// where the Guide and NVIDIA's hardware (PTX shfl.sync: the low 5 bits)
// disagree (laneMask 32 and 64 are checked: the caller's own value, on
// either reading). Masks are what CUDA code passes: the warp's active
// lanes, all 32 lanes (lanes named that have exited are allowed), or one
// group of a partition of the warp (groups with disjoint masks calling at
// once).
//
// Build and run (tests/warp_model.rs does, for both wave sizes):
//   c++ -std=c++17 -O1 -DHIPRS_MODEL_WAVE=64 -DHIPRS_MODEL_HIP=2
//     -I hip-cuda-layer/include hip-cuda-layer/tests/warp/model.cpp -o model
//   ./model [--mutate=bpermute|mbcnt|ballot|barrier|reference] [--quick] [--print=N]
// It prints every mismatch (function, type, width, wave size, exec mask,
// argument, lane, got, want), up to --print of them (default 100), then a
// line per function with its numbers of checks and mismatches and the
// lanes checked, one per function, type and width, and last
//   total checks N mismatches M model-errors E
// where a model error is lanes waiting at different collectives (control
// flow that diverges around one). Exit status 0 when M and E are 0.
// --mutate breaks one builtin of the model, or the reference, on purpose:
// the run must then report mismatches. --quick shuffles int and long long
// only (the 4- and 8-byte paths), for such runs.
#include <ucontext.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#ifndef HIPRS_MODEL_WAVE
#error "define HIPRS_MODEL_WAVE (32 or 64)"
#endif
#ifndef HIPRS_MODEL_HIP
#error "define HIPRS_MODEL_HIP (0: the real headers, 1: ROCm 5.2-5.6, 2: ROCm 5.7+)"
#endif

// ---- the wavefront: lanes as fibers ---------------------------------------
namespace model {
constexpr int kWave = HIPRS_MODEL_WAVE;
static_assert(kWave == 32 || kWave == 64, "a wavefront has 32 or 64 lanes");
constexpr uint64_t kWaveBits = kWave == 64 ? ~0ull : 0xffffffffull;

enum Mutation { kNone, kBpermute, kMbcnt, kBallot, kBarrier, kReference };
Mutation mutation = kNone;

enum class Op { kRunning, kDone, kBpermute, kBallot, kBarrier };
const char* op_name(Op op) {
  switch (op) {
    case Op::kRunning: return "running";
    case Op::kDone: return "done";
    case Op::kBpermute: return "ds_bpermute";
    case Op::kBallot: return "ballot";
    case Op::kBarrier: return "wave_barrier";
  }
  return "?";
}

struct Wave {
  ucontext_t scheduler;
  ucontext_t lane_ctx[kWave];
  std::unique_ptr<char[]> stacks[kWave];
  bool started[kWave] = {};
  uint64_t exec = 0;
  int lane = -1;  // the lane running now
  Op op[kWave];
  uint64_t in_a[kWave], in_b[kWave], out[kWave];
  const std::function<void()>* kernel = nullptr;
  std::vector<std::string> errors;  // the model's own complaints
};
Wave wave;
constexpr size_t kStack = 256 * 1024;

[[noreturn]] void lane_main() {
  for (;;) {
    (*wave.kernel)();
    wave.op[wave.lane] = Op::kDone;
    swapcontext(&wave.lane_ctx[wave.lane], &wave.scheduler);
  }
}

// Called by a lane: wait here until every active lane reaches a collective,
// then return this lane's result.
uint64_t collective(Op op, uint64_t a, uint64_t b = 0) {
  const int l = wave.lane;
  wave.op[l] = op;
  wave.in_a[l] = a;
  wave.in_b[l] = b;
  swapcontext(&wave.lane_ctx[l], &wave.scheduler);
  return wave.out[l];
}

void resolve(Op op, uint64_t active) {
  if (op == Op::kBpermute) {
    for (int l = 0; l < kWave; ++l) {
      if (!(active >> l & 1)) continue;
      int src = (int)(((uint32_t)wave.in_a[l] >> 2) & (kWave - 1));
      if (mutation == kBpermute && src == 7) src = 6;
      wave.out[l] = (active >> src & 1) ? (uint32_t)wave.in_b[src] : 0u;
    }
  } else if (op == Op::kBallot) {
    uint64_t bits = 0;
    for (int l = 0; l < kWave; ++l)
      if ((active >> l & 1) && wave.in_a[l] != 0) bits |= 1ull << l;
    if (mutation == kBallot && active != kWaveBits) {
      // Report the lowest inactive lane as voting: a ballot of the wrong exec.
      for (int l = 0; l < kWave; ++l)
        if (!(active >> l & 1)) {
          bits |= 1ull << l;
          break;
        }
    }
    for (int l = 0; l < kWave; ++l)
      if (active >> l & 1) wave.out[l] = bits;
  }
  // kBarrier: arriving is all it does.
}

// Runs `kernel` on the lanes of `exec`, each as lane `wave.lane`.
void run(uint64_t exec, const std::function<void()>& kernel) {
  wave.kernel = &kernel;
  wave.exec = exec & kWaveBits;
  for (int l = 0; l < kWave; ++l) {
    wave.op[l] = Op::kRunning;
    if ((wave.exec >> l & 1) && !wave.started[l]) {
      wave.stacks[l].reset(new char[kStack]);
      getcontext(&wave.lane_ctx[l]);
      wave.lane_ctx[l].uc_stack.ss_sp = wave.stacks[l].get();
      wave.lane_ctx[l].uc_stack.ss_size = kStack;
      wave.lane_ctx[l].uc_link = nullptr;
      makecontext(&wave.lane_ctx[l], (void (*)())lane_main, 0);
      wave.started[l] = true;
    }
  }
  for (;;) {
    for (int l = 0; l < kWave; ++l) {
      if (!(wave.exec >> l & 1) || wave.op[l] == Op::kDone) continue;
      wave.lane = l;
      swapcontext(&wave.scheduler, &wave.lane_ctx[l]);
    }
    uint64_t waiting = 0;
    Op op = Op::kDone;
    bool mixed = false;
    for (int l = 0; l < kWave; ++l) {
      if (!(wave.exec >> l & 1) || wave.op[l] == Op::kDone) continue;
      if (waiting && wave.op[l] != op) mixed = true;
      op = wave.op[l];
      waiting |= 1ull << l;
    }
    if (!waiting) break;
    // The layer's functions run the same collectives on every lane: lanes
    // that wait at different ones, or finish while others wait, mean
    // lane-divergent control flow around a collective.
    if (mixed || waiting != wave.exec) {
      char line[160];
      snprintf(line, sizeof line,
               "lanes %016" PRIx64 " of exec %016" PRIx64 " wait at %s%s", waiting, wave.exec,
               op_name(op), mixed ? " and other collectives" : "");
      wave.errors.push_back(line);
    }
    resolve(op, waiting);
    for (int l = 0; l < kWave; ++l)
      if (waiting >> l & 1) wave.op[l] = Op::kRunning;
  }
  wave.lane = -1;
}

// ---- the amdgcn builtins -----------------------------------------------
int ds_bpermute(int addr, int data) {
  return (int)(uint32_t)collective(Op::kBpermute, (uint32_t)addr, (uint32_t)data);
}
unsigned mbcnt_lo(unsigned mask, unsigned acc) {
  const int l = wave.lane;
  if (mutation == kMbcnt && l == 20) ++acc;
  const unsigned below = l >= 32 ? 0xffffffffu : (1u << l) - 1u;
  return acc + (unsigned)__builtin_popcount(mask & below);
}
unsigned mbcnt_hi(unsigned mask, unsigned acc) {
  const int l = wave.lane;
  if (mutation == kMbcnt && l == 40) ++acc;
  const unsigned below = l < 32 ? 0u : (1u << (l - 32)) - 1u;
  return acc + (unsigned)__builtin_popcount(mask & below);
}
uint64_t ballot_w64(bool p) { return collective(Op::kBallot, p ? 1 : 0); }
uint64_t uicmp(int a, int b, int cond) {
  if (cond != 33) {  // ICMP_NE, the only one HIP uses
    fprintf(stderr, "model: uicmp condition %d not modelled\n", cond);
    abort();
  }
  return collective(Op::kBallot, a != b ? 1 : 0);
}
void wave_barrier() {
  if (mutation == kBarrier) return;
  collective(Op::kBarrier, 0);
}
int wavefrontsize() { return kWave; }
[[noreturn]] int unmodelled(const char* what) {
  fprintf(stderr, "model: %s is not modelled\n", what);
  abort();
}
}  // namespace model

// ---- HIP's device functions over the builtins -----------------------------
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __AMDGCN_WAVEFRONT_SIZE HIPRS_MODEL_WAVE
#define __builtin_amdgcn_ds_bpermute(addr, data) model::ds_bpermute((addr), (data))
#define __builtin_amdgcn_mbcnt_lo(mask, acc) model::mbcnt_lo((unsigned)(mask), (acc))
#define __builtin_amdgcn_mbcnt_hi(mask, acc) model::mbcnt_hi((unsigned)(mask), (acc))
#define __builtin_amdgcn_ballot_w64(p) model::ballot_w64((p))
#define __builtin_amdgcn_uicmp(a, b, cond) model::uicmp((a), (b), (cond))
#define __builtin_amdgcn_wave_barrier() model::wave_barrier()
#define __builtin_amdgcn_wavefrontsize() model::wavefrontsize()
#define __builtin_amdgcn_ds_permute(...) model::unmodelled("ds_permute")
#define __builtin_amdgcn_ds_swizzle(...) model::unmodelled("ds_swizzle")
#define __builtin_amdgcn_mov_dpp(...) model::unmodelled("mov_dpp")
#define __builtin_amdgcn_readfirstlane(...) model::unmodelled("readfirstlane")
typedef uint64_t __hip_uint64_t;
typedef uint32_t __hip_uint32_t;
int __ockl_wfall_i32(int p) { return model::ballot_w64(p != 0) == model::ballot_w64(true); }
int __ockl_wfany_i32(int p) { return model::ballot_w64(p != 0) != 0; }

// ROCm 5.2-6.1 keep __lane_id and __ballot in amd_device_functions.h; as
// written there (ROCm 5.2.3, lines 324 and 725).
#define HIPRS_MODEL_ROCM5_DEVICE_FUNCTIONS                                   \
  __device__ static inline unsigned int __lane_id() {                        \
    return __builtin_amdgcn_mbcnt_hi(-1, __builtin_amdgcn_mbcnt_lo(-1, 0));  \
  }                                                                          \
  __device__ inline unsigned long long int __ballot(int predicate) {         \
    return __builtin_amdgcn_uicmp(predicate, 0, ICMP_NE);                    \
  }

// An 8-byte shuffle as HIP writes it: two 4-byte ones.
#define HIPRS_MODEL_SHFL_8(NAME, ARG)                                           \
  __device__ inline long long NAME(long long var, ARG, int width = warpSize) { \
    int tmp[2];                                                                 \
    __builtin_memcpy(tmp, &var, sizeof(tmp));                                  \
    tmp[0] = NAME(tmp[0], arg, width);                                          \
    tmp[1] = NAME(tmp[1], arg, width);                                          \
    uint64_t tmp0 = (static_cast<uint64_t>(tmp[1]) << 32ull) |                  \
                    static_cast<uint32_t>(tmp[0]);                              \
    long long tmp1;                                                             \
    __builtin_memcpy(&tmp1, &tmp0, sizeof(tmp0));                               \
    return tmp1;                                                                \
  }

#if HIPRS_MODEL_HIP == 0
#include <hip/hip_version.h>
#if HIP_VERSION_MAJOR * 100 + HIP_VERSION_MINOR < 602
#define ICMP_NE 33
HIPRS_MODEL_ROCM5_DEVICE_FUNCTIONS
#endif
#define __HIPCC_RTC__ 1
#define __HIP_DEVICE_COMPILE__ 1
#include <hip/amd_detail/amd_warp_functions.h>
#undef __HIP_DEVICE_COMPILE__
#undef __HIPCC_RTC__
static char hip_model_name[64];
static const char* hip_model() {
  snprintf(hip_model_name, sizeof hip_model_name, "HIP %d.%d.%d headers", HIP_VERSION_MAJOR,
           HIP_VERSION_MINOR, HIP_VERSION_PATCH);
  return hip_model_name;
}

#elif HIPRS_MODEL_HIP == 1
// ROCm 5.2.3: amd_device_functions.h and amd_warp_functions.h.
#define ICMP_NE 33
static constexpr int warpSize = __AMDGCN_WAVEFRONT_SIZE;
HIPRS_MODEL_ROCM5_DEVICE_FUNCTIONS
__device__ inline int __shfl(int var, int src_lane, int width = warpSize) {
  int self = __lane_id();
  int index = src_lane + (self & ~(width - 1));
  return __builtin_amdgcn_ds_bpermute(index << 2, var);
}
__device__ inline int __shfl_up(int var, unsigned int lane_delta, int width = warpSize) {
  int self = __lane_id();
  int index = self - lane_delta;
  index = (index < (self & ~(width - 1))) ? self : index;
  return __builtin_amdgcn_ds_bpermute(index << 2, var);
}
__device__ inline int __shfl_down(int var, unsigned int lane_delta, int width = warpSize) {
  int self = __lane_id();
  int index = self + lane_delta;
  index = (int)((self & (width - 1)) + lane_delta) >= width ? self : index;
  return __builtin_amdgcn_ds_bpermute(index << 2, var);
}
__device__ inline int __shfl_xor(int var, int lane_mask, int width = warpSize) {
  int self = __lane_id();
  int index = self ^ lane_mask;
  index = index >= ((self + width) & ~(width - 1)) ? self : index;
  return __builtin_amdgcn_ds_bpermute(index << 2, var);
}
HIPRS_MODEL_SHFL_8(__shfl, int arg)
HIPRS_MODEL_SHFL_8(__shfl_up, unsigned int arg)
HIPRS_MODEL_SHFL_8(__shfl_down, unsigned int arg)
HIPRS_MODEL_SHFL_8(__shfl_xor, int arg)
static const char* hip_model() { return "ROCm 5.2-5.6 (transcribed)"; }

#elif HIPRS_MODEL_HIP == 2
// ROCm/clr, hipamd/include/hip/amd_detail/amd_warp_functions.h (2025).
inline const struct final {
  __attribute__((always_inline, const)) operator int() const noexcept {
    return __builtin_amdgcn_wavefrontsize();
  }
} warpSize{};
__device__ inline unsigned long long int __ballot(int predicate) {
  return __builtin_amdgcn_ballot_w64(predicate);
}
__device__ static inline unsigned int __lane_id() {
  if (warpSize == 32) return __builtin_amdgcn_mbcnt_lo(-1, 0);
  return __builtin_amdgcn_mbcnt_hi(-1, __builtin_amdgcn_mbcnt_lo(-1, 0));
}
__device__ inline int __shfl(int var, int src_lane, int width = warpSize) {
  int self = __lane_id();
  int index = (src_lane & (width - 1)) + (self & ~(width - 1));
  return __builtin_amdgcn_ds_bpermute(index << 2, var);
}
__device__ inline int __shfl_up(int var, unsigned int lane_delta, int width = warpSize) {
  int self = __lane_id();
  int index = self - lane_delta;
  index = (index < (self & ~(width - 1))) ? self : index;
  return __builtin_amdgcn_ds_bpermute(index << 2, var);
}
__device__ inline int __shfl_down(int var, unsigned int lane_delta, int width = warpSize) {
  int self = __lane_id();
  int index = self + lane_delta;
  index = (int)((self & (width - 1)) + lane_delta) >= width ? self : index;
  return __builtin_amdgcn_ds_bpermute(index << 2, var);
}
__device__ inline int __shfl_xor(int var, int lane_mask, int width = warpSize) {
  int self = __lane_id();
  int index = self ^ lane_mask;
  index = index >= ((self + width) & ~(width - 1)) ? self : index;
  return __builtin_amdgcn_ds_bpermute(index << 2, var);
}
HIPRS_MODEL_SHFL_8(__shfl, int arg)
HIPRS_MODEL_SHFL_8(__shfl_up, unsigned int arg)
HIPRS_MODEL_SHFL_8(__shfl_down, unsigned int arg)
HIPRS_MODEL_SHFL_8(__shfl_xor, int arg)
static const char* hip_model() { return "ROCm 5.7+ (transcribed)"; }

#else
#error "HIPRS_MODEL_HIP is 0, 1 or 2"
#endif

// ---- the layer, as the AMD compile sees it ---------------------------------
#include "hiprs_cuda_warp.h"

// ---- the reference: CUDA's semantics for one 32-lane warp -------------------
namespace ref {
constexpr int kWarp = 32;

// The lane a shuffle reads, or -1 where CUDA returns the caller's own value
// instead. `l` is the lane in its warp; `width` a power of two up to 32.
int shfl_src(int l, int src_lane, int width) {
  return (l & ~(width - 1)) + (src_lane & (width - 1));  // srcLane modulo width
}
int shfl_up_src(int l, unsigned delta, int width) {
  const long long s = (long long)l - delta;
  const bool wrap = model::mutation == model::kReference;  // wrongly wraps
  if (s < (l & ~(width - 1))) return wrap && s >= 0 ? (int)s : -1;  // below the segment
  return (int)s;
}
int shfl_down_src(int l, unsigned delta, int width) {
  const long long s = (long long)l + delta;
  return s > (l | (width - 1)) ? -1 : (int)s;  // past the segment
}
int shfl_xor_src(int l, int lane_mask, int width) {
  // laneMask 32 and 64 (the only ones past 31 tested): the caller's own value.
  if (lane_mask >= 32) return -1;
  const int s = l ^ lane_mask;
  return s > (l | (width - 1)) ? -1 : s;  // a later segment
}
}  // namespace ref

// ---- the checks -------------------------------------------------------------
namespace check {
using model::kWave;

uint64_t rng_state = 0x9e3779b97f4a7c15ull;
uint64_t splitmix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Exec masks: which lanes of the wavefront run the call.
struct Exec {
  const char* name;
  uint64_t bits;
};
std::vector<Exec> execs() {
  std::vector<Exec> e = {
      {"full", ~0ull},
      // A block whose size is not a multiple of 32 (or a tail that exited):
      // on wave64 the second warp has 16 lanes, on wave32 the warp 20.
      {"prefix", kWave == 64 ? 0x0000ffffffffffffull : 0x000fffffull},
      {"sparse", 0x9a5f3c71e2d4b68full},
      {"odd-lanes-off", 0x5555555555555555ull},
  };
  for (auto& x : e) x.bits &= model::kWaveBits;
  return e;
}
std::vector<Exec> vote_execs() {
  std::vector<Exec> e = execs();
  e.push_back({"one-lane-per-warp", 0x0000100000000004ull});
  e.push_back({kWave == 64 ? "upper-warp-only" : "lower-half-only",
               kWave == 64 ? 0xffffffff00000000ull : 0x0000ffffull});
  e.push_back({"random-1", splitmix(1) & splitmix(2)});
  e.push_back({"random-2", splitmix(3) | splitmix(4)});
  for (auto& x : e) x.bits &= model::kWaveBits;
  return e;
}
unsigned warp_bits(uint64_t exec, int lane) { return (unsigned)(exec >> (lane & 32)); }

// Results and bookkeeping.
struct Tally {
  uint64_t checks = 0, mismatches = 0;
  uint64_t lanes = 0;
};
std::map<std::string, Tally> by_function;
std::map<std::string, uint64_t> by_combo;  // "fn type width"
uint64_t total = 0, mismatches = 0;
long printed = 0, print_limit = 100;

void record(const std::string& fn, const std::string& type, const std::string& width, int lane,
            bool ok, const char* exec, const std::string& arg, const std::string& got,
            const std::string& want) {
  ++total;
  Tally& t = by_function[fn];
  ++t.checks;
  t.lanes |= 1ull << lane;
  ++by_combo[fn + " " + type + " " + width];
  if (ok) return;
  ++mismatches;
  ++t.mismatches;
  if (printed++ < print_limit)
    printf("mismatch %s type=%s width=%s wave=%d exec=%s arg=%s lane=%d got=%s want=%s\n",
           fn.c_str(), type.c_str(), width.c_str(), kWave, exec, arg.c_str(), lane, got.c_str(),
           want.c_str());
}

template <typename T>
std::string hex(const T& v) {
  unsigned char b[sizeof(T)];
  memcpy(b, &v, sizeof(T));
  std::string s = "0x";
  char d[3];
  for (size_t i = sizeof(T); i-- > 0;) {
    snprintf(d, sizeof d, "%02x", b[i]);
    s += d;
  }
  return s;
}

// ---- shuffles: every type, every width, every lane --------------------------
struct h16 {  // a 2-byte type with no arithmetic, as __half and __nv_bfloat16
  unsigned short bits;
};
struct h16x2 {  // a 4-byte pair, as __half2
  h16 x, y;
};

template <typename T>
T value_of(int lane, uint64_t seed) {
  const uint64_t bits = splitmix(seed * 131 + (uint64_t)lane);
  T v;
  memcpy(&v, &bits, sizeof(T));
  return v;
}

enum class Shfl { kIdx, kXor, kUp, kDown };
const char* shfl_name(Shfl f) {
  switch (f) {
    case Shfl::kIdx: return "__shfl_sync";
    case Shfl::kXor: return "__shfl_xor_sync";
    case Shfl::kUp: return "__shfl_up_sync";
    case Shfl::kDown: return "__shfl_down_sync";
  }
  return "?";
}

// A shuffle's third argument: the same for every lane, or a function of
// the lane in its warp (srcLane only).
struct Arg {
  std::string name;
  std::function<long long(int)> of_lane;
};
std::vector<Arg> args_for(Shfl f) {
  std::vector<Arg> a;
  auto uniform = [&](long long k) { a.push_back({std::to_string(k), [k](int) { return k; }}); };
  switch (f) {
    case Shfl::kIdx:
      for (long long k : {-33ll, -1ll, 32ll, 33ll, 63ll, 64ll, 1000ll}) uniform(k);
      for (long long k = 0; k < 32; ++k) uniform(k);
      a.push_back({"lane+1", [](int l) { return (long long)l + 1; }});
      a.push_back({"lane-1", [](int l) { return (long long)l - 1; }});
      a.push_back({"31-lane", [](int l) { return 31ll - l; }});
      a.push_back({"lane*5+3", [](int l) { return (long long)l * 5 + 3; }});
      break;
    case Shfl::kXor:
      for (long long k = 0; k < 32; ++k) uniform(k);
      // Past the warp: the caller's own value (PTX's shfl.sync uses the low
      // 5 bits of laneMask; the Guide's "later group" reads the same).
      uniform(32);
      uniform(64);
      break;
    case Shfl::kUp:
    case Shfl::kDown:
      for (long long k = 0; k <= 32; ++k) uniform(k);
      break;
  }
  return a;
}

template <typename T>
T call_shfl(Shfl f, unsigned mask, T v, long long arg, int width) {
  // width 0: the call without a width (CUDA's default, warpSize = 32).
  switch (f) {
    case Shfl::kIdx:
      return width ? __shfl_sync(mask, v, (int)arg, width) : __shfl_sync(mask, v, (int)arg);
    case Shfl::kXor:
      return width ? __shfl_xor_sync(mask, v, (int)arg, width) : __shfl_xor_sync(mask, v, (int)arg);
    case Shfl::kUp:
      return width ? __shfl_up_sync(mask, v, (unsigned)arg, width)
                   : __shfl_up_sync(mask, v, (unsigned)arg);
    case Shfl::kDown:
      return width ? __shfl_down_sync(mask, v, (unsigned)arg, width)
                   : __shfl_down_sync(mask, v, (unsigned)arg);
  }
  return v;
}

int ref_src(Shfl f, int l, long long arg, int width) {
  switch (f) {
    case Shfl::kIdx: return ref::shfl_src(l, (int)arg, width);
    case Shfl::kXor: return ref::shfl_xor_src(l, (int)arg, width);
    case Shfl::kUp: return ref::shfl_up_src(l, (unsigned)arg, width);
    case Shfl::kDown: return ref::shfl_down_src(l, (unsigned)arg, width);
  }
  return -1;
}

template <typename T>
void shuffles(const char* type) {
  const int widths[] = {1, 2, 4, 8, 16, 32, 0};
  uint64_t seed = 0;
  for (Shfl f : {Shfl::kIdx, Shfl::kXor, Shfl::kUp, Shfl::kDown}) {
    const auto args = args_for(f);
    for (int width : widths) {
      const int w = width ? width : ref::kWarp;
      const std::string wname = width ? std::to_string(width) : "default";
      for (const Arg& arg : args) {
        for (const Exec& e : execs()) {
          ++seed;
          T in[kWave], out[kWave];
          for (int l = 0; l < kWave; ++l) in[l] = value_of<T>(l, seed);
          memset(out, 0xcd, sizeof out);
          model::run(e.bits, [&] {
            const int lane = model::wave.lane;
            out[lane] = call_shfl(f, warp_bits(e.bits, lane), in[lane], arg.of_lane(lane & 31), width);
          });
          for (int lane = 0; lane < kWave; ++lane) {
            if (!(e.bits >> lane & 1)) continue;
            const int base = lane & 32, l = lane & 31;
            const int s = ref_src(f, l, arg.of_lane(l), w);
            const int src = s < 0 ? lane : base + s;
            if (!(e.bits >> src & 1)) continue;  // reads an inactive lane: undefined
            const bool ok = memcmp(&out[lane], &in[src], sizeof(T)) == 0;
            record(shfl_name(f), type, wname, lane, ok, e.name, arg.name, hex(out[lane]),
                   hex(in[src]));
          }
        }
      }
    }
  }
}

// ---- masks as CUDA code passes them ---------------------------------------
// The lanes lane `lane` names, for an exec mask (all within its warp).
struct MaskMode {
  const char* name;
  std::function<unsigned(uint64_t exec, int lane)> mask;
};
std::vector<MaskMode> mask_modes() {
  return {
      {"active", [](uint64_t e, int lane) { return warp_bits(e, lane); }},
      // Lanes named that have exited are allowed.
      {"all-32", [](uint64_t, int) { return 0xffffffffu; }},
      // Two groups calling at once, each naming its own lanes: 4-lane
      // blocks, alternately.
      {"groups-of-4-lanes",
       [](uint64_t e, int lane) {
         const unsigned group = (lane >> 2 & 1) ? 0xf0f0f0f0u : 0x0f0f0f0fu;
         return warp_bits(e, lane) & group;
       }},
      // 16-lane tiles, each naming all its lanes (as a tiled partition).
      {"tiles-of-16", [](uint64_t, int lane) { return 0xffffu << (lane & 16); }},
  };
}

// ---- votes: __ballot_sync, __any_sync, __all_sync, __activemask -------------
struct Predicates {
  const char* name;
  std::function<int(int lane)> p;
};
std::vector<Predicates> predicates() {
  return {
      {"none", [](int) { return 0; }},
      {"all-1", [](int) { return 1; }},
      {"all-other-nonzero",
       [](int lane) {
         const int v[] = {2, -1, 0x100, (int)0x80000000u};
         return v[lane & 3];
       }},
      {"random-1", [](int lane) { return (int)(splitmix(100 + lane) & 1); }},
      {"random-2", [](int lane) { return (int)(splitmix(200 + lane) % 3 == 0) * 0x10000; }},
      {"only-lanes-5-and-37", [](int lane) { return (int)(lane == 5 || lane == 37); }},
      {"all-but-lane-9", [](int lane) { return (lane & 31) != 9; }},
  };
}

void votes() {
  for (const Exec& e : vote_execs()) {
    for (const MaskMode& mm : mask_modes()) {
      for (const Predicates& pr : predicates()) {
        unsigned ballot[kWave];
        int any[kWave], all[kWave];
        model::run(e.bits, [&] {
          const int lane = model::wave.lane;
          const unsigned m = mm.mask(e.bits, lane);
          const int p = pr.p(lane);
          ballot[lane] = __ballot_sync(m, p);
          any[lane] = __any_sync(m, p);
          all[lane] = __all_sync(m, p);
        });
        const std::string arg = std::string(mm.name) + "/" + pr.name;
        for (int lane = 0; lane < kWave; ++lane) {
          if (!(e.bits >> lane & 1)) continue;
          // CUDA: the lanes named in mask that have not exited vote; a lane
          // not named contributes 0.
          const unsigned voters = warp_bits(e.bits, lane) & mm.mask(e.bits, lane);
          unsigned want = 0;
          for (int j = 0; j < 32; ++j)
            if ((voters >> j & 1) && pr.p((lane & 32) + j) != 0) want |= 1u << j;
          char g[16], w[16];
          snprintf(g, sizeof g, "0x%08x", ballot[lane]);
          snprintf(w, sizeof w, "0x%08x", want);
          record("__ballot_sync", "int", "-", lane, ballot[lane] == want, e.name, arg, g, w);
          const bool want_any = want != 0, want_all = want == voters;
          record("__any_sync", "int", "-", lane, (any[lane] != 0) == want_any, e.name, arg,
                 std::to_string(any[lane]), want_any ? "nonzero" : "0");
          record("__all_sync", "int", "-", lane, (all[lane] != 0) == want_all, e.name, arg,
                 std::to_string(all[lane]), want_all ? "nonzero" : "0");
        }
      }
    }
  }
  for (const Exec& e : vote_execs()) {
    unsigned got[kWave];
    model::run(e.bits, [&] { got[model::wave.lane] = __activemask(); });
    for (int lane = 0; lane < kWave; ++lane) {
      if (!(e.bits >> lane & 1)) continue;
      const unsigned want = warp_bits(e.bits, lane);
      char g[16], w[16];
      snprintf(g, sizeof g, "0x%08x", got[lane]);
      snprintf(w, sizeof w, "0x%08x", want);
      record("__activemask", "-", "-", lane, got[lane] == want, e.name, "-", g, w);
    }
  }
}

// ---- __syncwarp: what a lane wrote before it, every lane named reads after --
void syncwarp() {
  struct Partner {
    const char* name;
    int (*of)(unsigned active, int l);  // a lane of `active`, for lane l
  };
  const Partner partners[] = {
      {"next-active",
       [](unsigned a, int l) {
         for (int k = 1; k <= 32; ++k)
           if (a >> ((l + k) & 31) & 1) return (l + k) & 31;
         return l;
       }},
      {"previous-active",
       [](unsigned a, int l) {
         for (int k = 1; k <= 32; ++k)
           if (a >> ((l - k) & 31) & 1) return (l - k) & 31;
         return l;
       }},
      {"highest-active", [](unsigned a, int) { return 31 - __builtin_clz(a); }},
  };
  for (const Exec& e : vote_execs()) {
    for (int with_mask = 0; with_mask < 2; ++with_mask) {
      for (const Partner& pa : partners) {
        unsigned shared[kWave], got[kWave];
        for (int l = 0; l < kWave; ++l) shared[l] = 0xdeadbeefu;
        model::run(e.bits, [&] {
          const int lane = model::wave.lane;
          shared[lane] = (unsigned)splitmix(lane + 1000);
          if (with_mask)
            __syncwarp(warp_bits(e.bits, lane));
          else
            __syncwarp();
          got[lane] = shared[(lane & 32) + pa.of(warp_bits(e.bits, lane), lane & 31)];
        });
        for (int lane = 0; lane < kWave; ++lane) {
          if (!(e.bits >> lane & 1)) continue;
          const int src = (lane & 32) + pa.of(warp_bits(e.bits, lane), lane & 31);
          const unsigned want = (unsigned)splitmix(src + 1000);
          char g[16], w[16];
          snprintf(g, sizeof g, "0x%08x", got[lane]);
          snprintf(w, sizeof w, "0x%08x", want);
          record("__syncwarp", "-", with_mask ? "mask" : "no-mask", lane, got[lane] == want, e.name,
                 pa.name, g, w);
        }
      }
    }
  }
}

// ---- __reduce_*_sync -----------------------------------------------------------
template <typename T>
void reduction(const char* fn, const char* type, T (*layer)(unsigned, T), T (*op)(T, T)) {
  const int value_sets = 5;
  for (const Exec& e : vote_execs()) {
    for (const MaskMode& mm : mask_modes()) {
      for (int vs = 0; vs < value_sets; ++vs) {
        T in[kWave], out[kWave];
        for (int l = 0; l < kWave; ++l) {
          if (vs < value_sets - 1) {
            in[l] = (T)splitmix(vs * 1000 + l);
          } else {  // extremes
            const uint32_t x[] = {0u, 1u, 0x7fffffffu, 0x80000000u, 0xffffffffu, 0xfffffffeu};
            in[l] = (T)x[splitmix(l + 77) % 6];
          }
        }
        model::run(e.bits, [&] {
          const int lane = model::wave.lane;
          out[lane] = layer(mm.mask(e.bits, lane), in[lane]);
        });
        const std::string arg = std::string(mm.name) + "/values-" + std::to_string(vs);
        for (int lane = 0; lane < kWave; ++lane) {
          if (!(e.bits >> lane & 1)) continue;
          // CUDA: over the values of the lanes named in mask that have not exited.
          const unsigned named = warp_bits(e.bits, lane) & mm.mask(e.bits, lane);
          bool first = true;
          T want = 0;
          for (int j = 0; j < 32; ++j) {
            if (!(named >> j & 1)) continue;
            const T v = in[(lane & 32) + j];
            want = first ? v : op(want, v);
            first = false;
          }
          record(fn, type, "-", lane, out[lane] == want, e.name, arg, hex(out[lane]), hex(want));
        }
      }
    }
  }
}
unsigned add_u(unsigned a, unsigned b) { return a + b; }
int add_i(int a, int b) { return (int)((unsigned)a + (unsigned)b); }
template <typename T>
T min_t(T a, T b) {
  return b < a ? b : a;
}
template <typename T>
T max_t(T a, T b) {
  return b > a ? b : a;
}
unsigned and_u(unsigned a, unsigned b) { return a & b; }
unsigned or_u(unsigned a, unsigned b) { return a | b; }
unsigned xor_u(unsigned a, unsigned b) { return a ^ b; }

void reductions() {
  reduction<unsigned>("__reduce_add_sync", "unsigned", __reduce_add_sync, add_u);
  reduction<int>("__reduce_add_sync", "int", __reduce_add_sync, add_i);
  reduction<unsigned>("__reduce_min_sync", "unsigned", __reduce_min_sync, min_t<unsigned>);
  reduction<int>("__reduce_min_sync", "int", __reduce_min_sync, min_t<int>);
  reduction<unsigned>("__reduce_max_sync", "unsigned", __reduce_max_sync, max_t<unsigned>);
  reduction<int>("__reduce_max_sync", "int", __reduce_max_sync, max_t<int>);
  reduction<unsigned>("__reduce_and_sync", "unsigned", __reduce_and_sync, and_u);
  reduction<unsigned>("__reduce_or_sync", "unsigned", __reduce_or_sync, or_u);
  reduction<unsigned>("__reduce_xor_sync", "unsigned", __reduce_xor_sync, xor_u);
}
}  // namespace check

int main(int argc, char** argv) {
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick") {
      quick = true;
      continue;
    }
    if (a == "--mutate=bpermute") {
      model::mutation = model::kBpermute;
    } else if (a == "--mutate=mbcnt") {
      model::mutation = model::kMbcnt;
    } else if (a == "--mutate=ballot") {
      model::mutation = model::kBallot;
    } else if (a == "--mutate=barrier") {
      model::mutation = model::kBarrier;
    } else if (a == "--mutate=reference") {
      model::mutation = model::kReference;
    } else if (a.rfind("--print=", 0) == 0) {
      check::print_limit = atol(a.c_str() + 8);
    } else {
      fprintf(stderr,
              "usage: %s [--mutate=bpermute|mbcnt|ballot|barrier|reference] [--quick] "
              "[--print=N]\n",
              argv[0]);
      return 2;
    }
  }
  printf("warp model: wave %d, HIP: %s\n", model::kWave, hip_model());
  check::shuffles<int>("int");
  check::shuffles<long long>("long_long");
  if (!quick) {
    check::shuffles<unsigned>("unsigned");
    check::shuffles<unsigned long long>("unsigned_long_long");
    check::shuffles<float>("float");
    check::shuffles<double>("double");
    check::shuffles<short>("short");
    check::shuffles<check::h16>("h16");
    check::shuffles<check::h16x2>("h16x2");
  }
  check::votes();
  check::syncwarp();
  check::reductions();

  if (check::printed > check::print_limit)
    printf("(%ld more mismatches not printed)\n", check::printed - check::print_limit);
  for (size_t i = 0; i < model::wave.errors.size() && i < 20; ++i)
    printf("model error: %s\n", model::wave.errors[i].c_str());
  for (const auto& [fn, t] : check::by_function)
    printf("function %s checks %" PRIu64 " mismatches %" PRIu64 " lanes %016" PRIx64 "\n",
           fn.c_str(), t.checks, t.mismatches, t.lanes);
  for (const auto& [combo, n] : check::by_combo) printf("combo %s checks %" PRIu64 "\n", combo.c_str(), n);
  const uint64_t errors = model::wave.errors.size();
  printf("total checks %" PRIu64 " mismatches %" PRIu64 " model-errors %" PRIu64 "\n", check::total,
         check::mismatches, errors);
  return check::mismatches == 0 && errors == 0 ? 0 : 1;
}

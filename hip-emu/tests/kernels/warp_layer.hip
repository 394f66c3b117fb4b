// The CUDA warp functions of hip-cuda-layer (hiprs_cuda_warp.h), as CUDA
// source: tests/warp.rs compiles it with the layer force-included, as the
// cudaforge drop-in does (-include hiprs_cuda.h -I hip-cuda-layer/include),
// runs it on the interpreter and checks every lane against CUDA's
// semantics for 32-lane warps.
//
// Each thread is a CUDA lane (threadIdx.x & 31); on a wave64 target one
// wavefront holds two CUDA warps. Threads whose bit in `active` is clear
// return at once: the rest of the warp runs as CUDA runs a warp that
// diverged or whose other lanes exited. The active threads run every case
// of the table, in order, the same case at once, and write case c's result
// to out[c * blockDim.x + threadIdx.x] (as 64 bits).

// One call to make. `fn`: which function (the list below); `width`: a
// shuffle's width, 0 for the call without one (CUDA's default, warpSize);
// `arg`: srcLane, laneMask or delta; `mode`: for a shuffle, how the
// argument depends on the lane; for a vote or a reduction, which mask the
// lane passes.
struct WarpCase {
  int fn;
  int width;
  int arg;
  int mode;
};

// The functions, numbered as tests/warp.rs numbers them.
enum : int {
  kShfl = 0,  // 0-3 int, 4-7 double: __shfl_sync, _xor, _up, _down
  kBallot = 8,
  kAny = 9,
  kAll = 10,
  kActivemask = 11,
  kReduceAddInt = 12,
  kReduceAddUnsigned = 13,
  kReduceMinInt = 14,
  kReduceMinUnsigned = 15,
  kReduceMaxInt = 16,
  kReduceMaxUnsigned = 17,
  kReduceAnd = 18,
  kReduceOr = 19,
  kReduceXor = 20,
};

template <typename T>
__device__ T shuffle(int which, unsigned mask, T v, int arg, int width) {
  switch (which) {
    case 0:
      return width ? __shfl_sync(mask, v, arg, width) : __shfl_sync(mask, v, arg);
    case 1:
      return width ? __shfl_xor_sync(mask, v, arg, width) : __shfl_xor_sync(mask, v, arg);
    case 2:
      return width ? __shfl_up_sync(mask, v, (unsigned)arg, width)
                   : __shfl_up_sync(mask, v, (unsigned)arg);
    default:
      return width ? __shfl_down_sync(mask, v, (unsigned)arg, width)
                   : __shfl_down_sync(mask, v, (unsigned)arg);
  }
}

// A shuffle's argument for this lane.
__device__ int shuffle_arg(const WarpCase& c, int lane) {
  switch (c.mode) {
    case 1: return lane + c.arg;
    case 2: return c.arg - lane;
    case 3: return lane * 5 + c.arg;
    default: return c.arg;
  }
}

// The mask a lane passes to a vote or a reduction: the active lanes of its
// warp, all 32 lanes, its group of alternate 4-lane blocks (two groups
// calling at once), or its 16-lane tile.
__device__ unsigned vote_mask(int mode, int lane) {
  switch (mode) {
    case 1: return 0xffffffffu;
    case 2: return __activemask() & ((lane >> 2 & 1) ? 0xf0f0f0f0u : 0x0f0f0f0fu);
    case 3: return 0xffffu << (lane & 16);
    default: return __activemask();
  }
}

__device__ unsigned long long run_case(const WarpCase& c, unsigned long long bits, int lane) {
  if (c.fn < kBallot) {
    const unsigned mask = __activemask();
    const int arg = shuffle_arg(c, lane);
    if (c.fn < 4) {
      const int r = shuffle(c.fn, mask, (int)bits, arg, c.width);
      return (unsigned)r;
    }
    double v;
    __builtin_memcpy(&v, &bits, 8);
    const double r = shuffle(c.fn - 4, mask, v, arg, c.width);
    unsigned long long out;
    __builtin_memcpy(&out, &r, 8);
    return out;
  }
  const unsigned m = vote_mask(c.mode, lane);
  const int p = (int)bits;
  const unsigned u = (unsigned)bits;
  switch (c.fn) {
    case kBallot: return __ballot_sync(m, p);
    case kAny: return (unsigned)__any_sync(m, p);
    case kAll: return (unsigned)__all_sync(m, p);
    case kActivemask: return __activemask();
    case kReduceAddInt: return (unsigned)__reduce_add_sync(m, (int)u);
    case kReduceAddUnsigned: return __reduce_add_sync(m, u);
    case kReduceMinInt: return (unsigned)__reduce_min_sync(m, (int)u);
    case kReduceMinUnsigned: return __reduce_min_sync(m, u);
    case kReduceMaxInt: return (unsigned)__reduce_max_sync(m, (int)u);
    case kReduceMaxUnsigned: return __reduce_max_sync(m, u);
    case kReduceAnd: return __reduce_and_sync(m, u);
    case kReduceOr: return __reduce_or_sync(m, u);
    case kReduceXor: return __reduce_xor_sync(m, u);
    default: return 0xbad0bad0bad0bad0ull;
  }
}

// `values[c * blockDim.x + t]`: thread t's value (or predicate) in case c.
extern "C" __global__ void warp_cases(const WarpCase* cases, int count, unsigned long long active,
                                      const unsigned long long* values, unsigned long long* out) {
  const int t = threadIdx.x;
  if (!(active >> t & 1ull)) return;
  const int lane = t & 31;
  const int threads = blockDim.x;
  for (int c = 0; c < count; ++c) {
    const WarpCase k = cases[c];
    out[c * threads + t] = run_case(k, values[c * threads + t], lane);
  }
}

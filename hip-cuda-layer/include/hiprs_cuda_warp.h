// CUDA's warp-level functions over HIP's, for 32-lane CUDA warps on every
// AMD target: __shfl_sync, __shfl_xor_sync, __shfl_up_sync and
// __shfl_down_sync (any type of at most 8 bytes, with `width`), __syncwarp,
// __ballot_sync, __activemask, __any_sync, __all_sync and
// __reduce_{add,min,max,and,or,xor}_sync. On wave64 targets (CDNA: gfx9xx)
// each 32-lane half of the wavefront is a warp; on wave32 targets (RDNA:
// gfx10xx-gfx12xx) the wavefront is the warp.
//
// hiprs_cuda.h includes it after HIP's runtime header. It needs only these
// of HIP's device functions, declared before it: __shfl, __shfl_xor,
// __shfl_up, __shfl_down (int and long long), __ballot, __lane_id,
// warpSize, __builtin_amdgcn_wave_barrier, and the __device__ and
// __forceinline__ macros. tests/warp/model.cpp compiles it on the host over
// a lane-by-lane model of those and checks every function against CUDA's
// semantics, at wave sizes 32 and 64 (tests/warp_model.rs runs it).
//
// Where it is not CUDA:
// - The shuffles and __syncwarp ignore the mask. On CUDA it changes the
//   result only where CUDA leaves it undefined (reading a lane that does not
//   take part).
// - __syncwarp is a wavefront barrier, which orders the lanes of a
//   wavefront (they run in lockstep). Groups of a warp that call it from
//   different branches to meet each other, as CUDA allows since Volta, run
//   one branch after the other here instead.
// - __shfl_up_sync and __shfl_down_sync with delta past 32 leave each lane
//   its own value, as the CUDA guide has it for delta >= width; NVIDIA's
//   hardware takes delta's low 5 bits.
#pragma once

// ---- warp-level functions: 32-lane warps on every target -----------------
#define HIPRS_WARP 32

template <typename T>
__device__ __forceinline__ T hiprs_shfl_bits(T v, int src, int width, int mode) {
  static_assert(sizeof(T) <= 8, "shuffles move at most 8 bytes");
  if constexpr (sizeof(T) <= 4) {
    int i = 0;
    __builtin_memcpy(&i, &v, sizeof(T));
    i = mode == 0 ? __shfl(i, src, width)
        : mode == 1 ? __shfl_xor(i, src, width)
        : mode == 2 ? __shfl_down(i, (unsigned)src, width)
                    : __shfl_up(i, (unsigned)src, width);
    T r;
    __builtin_memcpy(&r, &i, sizeof(T));
    return r;
  } else {
    long long i = 0;
    __builtin_memcpy(&i, &v, sizeof(T));
    i = mode == 0 ? __shfl(i, src, width)
        : mode == 1 ? __shfl_xor(i, src, width)
        : mode == 2 ? __shfl_down(i, (unsigned)src, width)
                    : __shfl_up(i, (unsigned)src, width);
    T r;
    __builtin_memcpy(&r, &i, sizeof(T));
    return r;
  }
}
// srcLane modulo width, as CUDA defines it: before ROCm 5.7, HIP's __shfl
// reads lane srcLane of the segment without reducing it (srcLane 9 at width
// 8 read the next segment's lane 1; srcLane 32 on wave64, the other warp).
template <typename T>
__device__ __forceinline__ T __shfl_sync(unsigned, T v, int src, int width = HIPRS_WARP) {
  return hiprs_shfl_bits(v, src & (width - 1), width, 0);
}
// laneMask's low 5 bits, as NVIDIA's shfl.sync takes them: HIP's __shfl_xor
// on the second warp of a wave64 would read the first for laneMask 32-63.
template <typename T>
__device__ __forceinline__ T __shfl_xor_sync(unsigned, T v, int mask, int width = HIPRS_WARP) {
  return hiprs_shfl_bits(v, mask & (HIPRS_WARP - 1), width, 1);
}
template <typename T>
__device__ __forceinline__ T __shfl_down_sync(unsigned, T v, unsigned d, int width = HIPRS_WARP) {
  return hiprs_shfl_bits(v, (int)d, width, 2);
}
template <typename T>
__device__ __forceinline__ T __shfl_up_sync(unsigned, T v, unsigned d, int width = HIPRS_WARP) {
  return hiprs_shfl_bits(v, (int)d, width, 3);
}
__device__ __forceinline__ void __syncwarp(unsigned = 0xffffffffu) {
  __builtin_amdgcn_wave_barrier();
}
// The 32 lanes of this lane's warp, as CUDA's 32-bit masks.
__device__ __forceinline__ unsigned hiprs_warp_bits(unsigned long long wave) {
  return (unsigned)(wave >> (__lane_id() & 32u & (unsigned)(warpSize - 1)));
}
// A lane the mask does not name votes 0 (PTX's vote.sync), so that groups
// with masks of their own (16-lane tiles, say) each see their own lanes.
__device__ __forceinline__ unsigned __ballot_sync(unsigned m, int p) {
  return hiprs_warp_bits(__ballot(p)) & m;
}
__device__ __forceinline__ unsigned __activemask() {
  return hiprs_warp_bits(__ballot(1));
}
__device__ __forceinline__ int __any_sync(unsigned m, int p) { return __ballot_sync(m, p) != 0; }
__device__ __forceinline__ int __all_sync(unsigned m, int p) {
  return __ballot_sync(m, p) == __ballot_sync(m, 1);
}
// A reduction is over the lanes the mask names that have not exited. When
// every active lane names all 32 lanes of its warp and all are active (the
// usual full-warp call), a butterfly of five shuffles. Otherwise each lane
// reads the 32 lanes of its warp and combines those it names: a butterfly
// through an inactive lane loses what it should pass on (an inactive lane
// reads as 0). The branch is the same on every active lane (a ballot), so
// each shuffle runs on all of them.
#define HIPRS_REDUCE_SYNC(NAME, T, OP)                                        \
  __device__ __forceinline__ T NAME(unsigned m, T v) {                        \
    const unsigned named = hiprs_warp_bits(__ballot(1)) & m;                  \
    if (__ballot(named != 0xffffffffu) == 0) {                                \
      for (int o = HIPRS_WARP / 2; o > 0; o /= 2) {                           \
        T w = hiprs_shfl_bits(v, o, HIPRS_WARP, 1);                           \
        v = OP;                                                               \
      }                                                                       \
      return v;                                                               \
    }                                                                         \
    const T own = v;                                                          \
    const unsigned others = named & ~(1u << (__lane_id() & 31u));             \
    for (int j = 0; j < HIPRS_WARP; ++j) {                                    \
      T w = hiprs_shfl_bits(own, j, HIPRS_WARP, 0);                           \
      if ((others >> j) & 1u) v = OP;                                         \
    }                                                                         \
    return v;                                                                 \
  }
HIPRS_REDUCE_SYNC(__reduce_add_sync, unsigned, v + w)
HIPRS_REDUCE_SYNC(__reduce_add_sync, int, (int)((unsigned)v + (unsigned)w))
HIPRS_REDUCE_SYNC(__reduce_max_sync, unsigned, (w > v ? w : v))
HIPRS_REDUCE_SYNC(__reduce_max_sync, int, (w > v ? w : v))
HIPRS_REDUCE_SYNC(__reduce_min_sync, unsigned, (w < v ? w : v))
HIPRS_REDUCE_SYNC(__reduce_min_sync, int, (w < v ? w : v))
HIPRS_REDUCE_SYNC(__reduce_and_sync, unsigned, v & w)
HIPRS_REDUCE_SYNC(__reduce_or_sync, unsigned, v | w)
HIPRS_REDUCE_SYNC(__reduce_xor_sync, unsigned, v ^ w)
#undef HIPRS_REDUCE_SYNC

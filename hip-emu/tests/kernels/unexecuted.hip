// Instructions the interpreter decodes but does not execute, each of which
// must stop a launch with LaunchError::Unimplemented (tests/isa.rs). Kept
// apart from the kernels `hip-emu scan` must find clean (tests/scan_cli.rs).
#include <hip/hip_runtime.h>

// A saturating dot product (the clamp bit on an integer result), which
// the interpreter does not execute: the launch must stop, not wrap.
extern "C" __global__ void dot_clamped(const int* a, const int* b, int* out) {
    unsigned i = threadIdx.x;
#if defined(__gfx942__)
    out[i] = __builtin_amdgcn_sdot4(a[i], b[i], out[i], true);
#else
    out[i] = __builtin_amdgcn_sudot4(true, a[i], true, b[i], out[i], true);
#endif
}

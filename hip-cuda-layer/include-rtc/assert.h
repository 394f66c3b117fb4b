// hip-rs CUDA layer, run-time compiles only (hiprtc): assert.h
// hiprtc has no C library headers, and the host's would clash with its
// built-in types; this stands in with what device code uses from it.
#pragma once
// Device code's assert: a failed check stops the kernel (CUDA also prints
// the expression; hiprtc's device library has no printer for it).
#undef assert
#ifdef NDEBUG
#define assert(e) ((void)0)
#else
#define assert(e) ((e) ? (void)0 : __builtin_trap())
#endif

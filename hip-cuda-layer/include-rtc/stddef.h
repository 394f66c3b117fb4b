// hip-rs CUDA layer, run-time compiles only (hiprtc): stddef.h
// hiprtc has no C library headers, and the host's would clash with its
// built-in types; this stands in with what device code uses from it.
#pragma once
typedef __SIZE_TYPE__ size_t;
typedef __PTRDIFF_TYPE__ ptrdiff_t;
#ifndef NULL
#define NULL nullptr
#endif
#ifndef offsetof
#define offsetof(t, m) __builtin_offsetof(t, m)
#endif

// hip-rs CUDA layer, run-time compiles only (hiprtc): float.h
// hiprtc has no C library headers, and the host's would clash with its
// built-in types; this stands in with what device code uses from it.
#pragma once
#ifndef FLT_MAX
#define FLT_MAX __FLT_MAX__
#define FLT_MIN __FLT_MIN__
#define FLT_EPSILON __FLT_EPSILON__
#define FLT_MANT_DIG __FLT_MANT_DIG__
#define DBL_MAX __DBL_MAX__
#define DBL_MIN __DBL_MIN__
#define DBL_EPSILON __DBL_EPSILON__
#define DBL_MANT_DIG __DBL_MANT_DIG__
#endif

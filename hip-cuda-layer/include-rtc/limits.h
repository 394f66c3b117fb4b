// hip-rs CUDA layer, run-time compiles only (hiprtc): limits.h
// hiprtc has no C library headers, and the host's would clash with its
// built-in types; this stands in with what device code uses from it.
#pragma once
#ifndef CHAR_BIT
#define CHAR_BIT __CHAR_BIT__
#define SCHAR_MIN (-__SCHAR_MAX__ - 1)
#define SCHAR_MAX __SCHAR_MAX__
#define UCHAR_MAX (__SCHAR_MAX__ * 2 + 1)
#define CHAR_MIN SCHAR_MIN
#define CHAR_MAX SCHAR_MAX
#define SHRT_MIN (-__SHRT_MAX__ - 1)
#define SHRT_MAX __SHRT_MAX__
#define USHRT_MAX (__SHRT_MAX__ * 2 + 1)
#define INT_MIN (-__INT_MAX__ - 1)
#define INT_MAX __INT_MAX__
#define UINT_MAX (__INT_MAX__ * 2u + 1u)
#define LONG_MIN (-__LONG_MAX__ - 1l)
#define LONG_MAX __LONG_MAX__
#define ULONG_MAX (__LONG_MAX__ * 2ul + 1ul)
#define LLONG_MIN (-__LONG_LONG_MAX__ - 1ll)
#define LLONG_MAX __LONG_LONG_MAX__
#define ULLONG_MAX (__LONG_LONG_MAX__ * 2ull + 1ull)
#endif

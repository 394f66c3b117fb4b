// hip-rs CUDA layer, run-time compiles only (hiprtc): stdint.h
// hiprtc has no C library headers, and the host's would clash with its
// built-in types; this stands in with what device code uses from it.
#pragma once
// hiprtc declares int32_t, uint32_t, int64_t, uint64_t and size_t itself.
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
typedef __INTPTR_TYPE__ intptr_t;
typedef __UINTPTR_TYPE__ uintptr_t;
typedef __INTMAX_TYPE__ intmax_t;
typedef __UINTMAX_TYPE__ uintmax_t;
#ifndef INT8_MAX
#define INT8_MIN (-128)
#define INT8_MAX 127
#define UINT8_MAX 255
#define INT16_MIN (-32767 - 1)
#define INT16_MAX 32767
#define UINT16_MAX 65535
#define INT32_MIN (-2147483647 - 1)
#define INT32_MAX 2147483647
#define UINT32_MAX 4294967295u
#define INT64_MIN (-9223372036854775807ll - 1)
#define INT64_MAX 9223372036854775807ll
#define UINT64_MAX 18446744073709551615ull
#endif
#ifndef SIZE_MAX
#define SIZE_MAX __SIZE_MAX__
#endif

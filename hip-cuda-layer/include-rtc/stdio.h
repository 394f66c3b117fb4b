// hip-rs CUDA layer, run-time compiles only (hiprtc): stdio.h
// hiprtc has no C library headers, and the host's would clash with its
// built-in types; this stands in with what device code uses from it.
#pragma once
// Device printf and the like are hiprtc's built-ins; nothing more is needed.

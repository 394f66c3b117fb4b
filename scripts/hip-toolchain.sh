#!/usr/bin/env bash
# The HIP kernel compiler for this machine, for the cudaforge drop-in's AMD
# path (and hip-build): clang 21 from Debian unstable's hipcc 7.0.2, with
# ROCm 7.0.2's device libraries and the HIP 6.4.3 headers, with rocThrust,
# hipCUB and rocPRIM 6.4 (CUDA code's thrust and CUB). Debian 12's own
# hipcc (ROCm 5.2, clang 15) is too old for today's CUDA sources.
#
# The packages and their whole closure (glibc 2.42 included) are unpacked
# by scripts/rocm-runtimes.sh (version hipcc-7.0, cached in
# ~/.cache/hip-rs/rocm-runtimes). Their programs need that newer glibc, so
# the few this path runs (clang, lld, clang-offload-bundler, llvm-readobj,
# llvm-objdump) are pointed at the sysroot's own dynamic loader and library
# folder with patchelf: they then run directly, and so do the tools clang
# starts. Host code they compile still uses this machine's headers and C++
# library (clang finds Debian 12's GCC), so objects link here.
#
# Prints a folder with ROCm's layout, for ROCM_PATH:
#   llvm/bin/clang++   the compiler
#   include/hip        the HIP headers, and beside them thrust, hipcub and
#                      rocprim (nothing else: not the sysroot's libc)
#   amdgcn/bitcode     the device libraries
#   share/hip/version  HIP's version, which clang reads
#
# Usage: export ROCM_PATH=$(bash scripts/hip-toolchain.sh)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
line=$(bash "$here/rocm-runtimes.sh" hipcc-7.0)
sysroot=${line#* }
root=$sysroot/rocm
if [ ! -f "$root/.ready" ]; then
  command -v patchelf >/dev/null || {
    echo "hip-toolchain: patchelf is needed (apt-get install patchelf; scripts/install-deps.sh installs it)" >&2
    exit 1
  }
  lib=$sysroot/usr/lib/x86_64-linux-gnu
  llvm=$sysroot/usr/lib/llvm-21
  for tool in clang lld clang-offload-bundler llvm-readobj llvm-objdump; do
    patchelf --set-interpreter "$lib/ld-linux-x86-64.so.2" --force-rpath \
      --set-rpath "$lib:$llvm/lib" "$llvm/bin/$tool"
  done
  # These carry their own RUNPATH ($ORIGIN/../lib), which hides the
  # programs' RPATH from their dependencies: add their own folder to it.
  for f in "$lib"/libLLVM.so.21.* "$lib"/libclang-cpp.so.21.*; do
    [ -L "$f" ] || patchelf --set-rpath '$ORIGIN/../lib:$ORIGIN' "$f"
  done
  bitcode=$(dirname "$(find "$llvm/lib/clang" -name ockl.bc | head -n1)")
  [ -f "$bitcode/ockl.bc" ] || { echo "hip-toolchain: no device libraries (ockl.bc) in $llvm" >&2; exit 1; }
  mkdir -p "$root/include" "$root/llvm/bin" "$root/amdgcn"
  ln -sfn "$sysroot/usr/include/hip" "$root/include/hip"
  # The header-only libraries of the CUDA toolkit's counterparts: rocThrust
  # (`thrust/`, as CUDA's), hipCUB (the layer's `cub/` headers include it)
  # and rocPRIM, which both are built on.
  for lib in thrust hipcub rocprim; do
    [ -d "$sysroot/usr/include/$lib" ] || { echo "hip-toolchain: no $lib headers in $sysroot" >&2; exit 1; }
    ln -sfn "$sysroot/usr/include/$lib" "$root/include/$lib"
  done
  ln -sfn "$bitcode" "$root/amdgcn/bitcode"
  # HIP's version file: clang reads the HIP version from it; without one it
  # leaves out its wrapper headers, as for a HIP older than 3.6
  # (cuda_wrappers: device-side placement new, <cmath>, <complex>,
  # <algorithm>), which rocPRIM and rocThrust need.
  mkdir -p "$root/share"
  [ -f "$sysroot/usr/share/hip/version" ] || { echo "hip-toolchain: no HIP version file (share/hip/version) in $sysroot" >&2; exit 1; }
  ln -sfn "$sysroot/usr/share/hip" "$root/share/hip"
  ln -sfn "$llvm/bin/clang++" "$root/llvm/bin/clang++"
  ln -sfn "$llvm/bin/clang" "$root/llvm/bin/clang"
  version=$("$root/llvm/bin/clang++" --version | head -n1) || {
    echo "hip-toolchain: the patched clang does not run" >&2
    exit 1
  }
  echo "hip-toolchain: $version, HIP headers $(sed -n 's/^#define HIP_VERSION_MAJOR //p; s/^#define HIP_VERSION_MINOR //p' "$root/include/hip/hip_version.h" | paste -sd.), in $root" >&2
  touch "$root/.ready"
fi
echo "$root"

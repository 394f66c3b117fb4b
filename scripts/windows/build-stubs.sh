#!/usr/bin/env bash
# Builds stub HIP SDKs for Windows with mingw-w64, laid out as AMD's HIP SDK
# installer lays them out (C:\Program Files\AMD\ROCm\<release>\bin\...), for
# the Wine tier (scripts/wine-tier.sh). The stubs answer what our loaders and
# hip-diagnostics ask (version, no device, hiprtc's version, hipBLAS's
# create); sources and what each exports: scripts/windows/stubs/*.c.
#
# Usage: scripts/windows/build-stubs.sh OUT
# Makes:
#   OUT/ROCm/<release>/bin/   for 5.7, 6.1, 6.2, 6.4 and 7.1: the runtime
#       (linked against its COMGR DLL, so removing that DLL breaks the load
#       for real), COMGR, hiprtc, hipBLAS (linked against rocBLAS), rocBLAS
#       with an empty rocblas\library\ kernel folder, and .hipVersion
#   OUT/planted/amdhip64_6.dll  a runtime of a version no SDK has
#       (6.99.90001), with its COMGR, for the planted-DLL test
#
# File names per release, as found in public projects that load or ship
# these SDKs (no SDK's file list is published as such):
#   runtime  amdhip64.dll (5.x), amdhip64_6.dll (6.x), amdhip64_7.dll (7.x):
#            AMD's Windows install guide (ROCm/rocm-install-on-windows) says
#            amdhip64_6.dll replaced amdhip64.dll in 6.0, and amd_comgr_2.dll
#            replaced amd_comgr.dll; SDK 7.1 bundles ship amdhip64_7.dll.
#   COMGR    the runtime imports amd_comgr.dll (5.x), amd_comgr_2.dll (6.x:
#            packaging notes of a project shipping SDK 6.2 read it from
#            amdhip64_6.dll's import table), amd_comgr0701.dll (7.1: the
#            only COMGR bundles of SDK 7.1 copy beside amdhip64_7.dll).
#            SDK 6.2 and 6.4 also hold a versioned copy for hiprtc,
#            amd_comgr0602.dll / amd_comgr0604.dll (MIGraphX's install rules
#            and deploy scripts of SDK 6.4 list them).
#   hiprtc   hiprtcMMmm.dll in every release (hiprtc0507.dll is what ZLUDA's
#            launcher takes from %HIP_PATH%\bin; HIPRT and Blender try
#            hiprtc0601 ... hiprtc0605, 0701), with hiprtc-builtinsMMmm.dll
#            beside it where seen: 6.2, 6.4, 7.1.
#   BLAS     hipblas.dll and rocblas.dll, rocblas\library\ beside them.
# HIP_VERSION numbers: what `hipcc --version` prints with each Windows SDK
# in public bug reports (6.1.40252, 6.2.41512, 6.4.50101, 7.1.51803); for
# 5.7 none was found and 5.7.31921, the build number of ROCm 5.7's HIP on
# Linux, stands in.
set -euo pipefail
out=${1:?usage: build-stubs.sh OUT}
src=$(cd "$(dirname "$0")/stubs" && pwd)
cc=${MINGW_CC:-x86_64-w64-mingw32-gcc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

dll() { # OUT_FILE SOURCE [cc args...]: one DLL, its import library in $tmp
  local file=$1 source=$2
  shift 2
  "$cc" -shared -O1 -s -o "$file" "$src/$source" "$@" \
    -Wl,--out-implib,"$tmp/lib$(basename "$file" .dll).a"
}

# sdk RELEASE HIP_VERSION RUNTIME COMGR ROCBLAS_VERSION V2 EXTRA_FILES...
sdk() {
  local release=$1 hip=$2 runtime=$3 comgr=$4 rocblas=$5 v2=$6
  shift 6
  local major=$((hip / 10000000)) minor=$((hip / 100000 % 100)) patch=$((hip % 100000))
  local mm
  mm=$(printf '%02d%02d' "$major" "$minor")
  local bin=$out/ROCm/$release/bin
  mkdir -p "$bin/rocblas/library"
  # COMGR's own major version: 1 in ROCm 5, 2 in 6, 3 in 7.
  dll "$bin/$comgr" amd_comgr.c -DSTUB_COMGR_MAJOR=$((major - 4)) -DSTUB_COMGR_MINOR=0
  dll "$bin/$runtime" amdhip64.c -DSTUB_HIP_VERSION="$hip" "$tmp/lib${comgr%.dll}.a"
  dll "$bin/hiprtc$mm.dll" hiprtc.c -DSTUB_MAJOR="$major" -DSTUB_MINOR="$minor"
  dll "$bin/rocblas.dll" rocblas.c -DSTUB_ROCBLAS_VERSION="\"$rocblas\""
  local v2flag=()
  [ "$v2" = v2 ] && v2flag=(-DSTUB_HIPBLAS_V2)
  dll "$bin/hipblas.dll" hipblas.c "${v2flag[@]}" "$tmp/librocblas.a"
  for extra in "$@"; do
    case $extra in
      amd_comgr*) dll "$bin/$extra" amd_comgr.c -DSTUB_COMGR_MAJOR=2 -DSTUB_COMGR_MINOR=0 ;;
      hiprtc-builtins) dll "$bin/hiprtc-builtins$mm.dll" hiprtc_builtins.c ;;
    esac
  done
  printf 'HIP_VERSION_MAJOR=%s\nHIP_VERSION_MINOR=%s\nHIP_VERSION_PATCH=%s\n' \
    "$major" "$minor" "$patch" >"$bin/.hipVersion"
}

rm -rf "$out/ROCm" "$out/planted"
# rocBLAS numbers its releases 3.x with ROCm 5.x, 4.x with 6.x, 5.x with 7.x.
# v2: hipBLAS 2.x (ROCm 6) exports hipblasGemmEx_v2 beside hipblasGemmEx;
# v1: 1.x (5.x) has only the plain name, and 3.x (7.x) only the plain name
# with the v2 signature.
sdk 5.7 50731921 amdhip64.dll amd_comgr.dll 3.1.0 v1
sdk 6.1 60140252 amdhip64_6.dll amd_comgr_2.dll 4.1.0 v2
sdk 6.2 60241512 amdhip64_6.dll amd_comgr_2.dll 4.2.0 v2 amd_comgr0602.dll hiprtc-builtins
sdk 6.4 60450101 amdhip64_6.dll amd_comgr_2.dll 4.4.0 v2 amd_comgr0604.dll hiprtc-builtins
sdk 7.1 70151803 amdhip64_7.dll amd_comgr0701.dll 5.1.0 v1 hiprtc-builtins

mkdir -p "$out/planted"
dll "$out/planted/amd_comgr_2.dll" amd_comgr.c -DSTUB_COMGR_MAJOR=2 -DSTUB_COMGR_MINOR=0
dll "$out/planted/amdhip64_6.dll" amdhip64.c -DSTUB_HIP_VERSION=69990001 "$tmp/libamd_comgr_2.a"
echo "build-stubs: stub HIP SDKs 5.7, 6.1, 6.2, 6.4, 7.1 and a planted runtime in $out"

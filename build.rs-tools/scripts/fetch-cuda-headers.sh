#!/usr/bin/env bash
# Fetches the CUDA 12.9 headers (runtime, driver, nvrtc, cuBLAS, cuRAND, cuFFT, cuSOLVER, cuSPARSE) and NCCL's
# nccl.h (NCCL 2.27.3, for rccl-sys's enum checks) from NVIDIA's
# Python wheels and unpacks only their headers into the git-ignored
# build.rs-tools/cuda-headers/, in two layouts:
#   nvidia/<component>/include/*.h   as in the wheels (the NVIDIA backends'
#                                    tables are made from these)
#   include/*.h                      all CUDA components merged (cuda-compat's
#                                    generator reads these; NCCL is left out)
# Nothing is installed. Wheels are taken from $CUDA_WHEELS_DIR when it holds
# them, else downloaded with pip from its configured index (no host name is
# written here) into $CUDA_WHEELS_DIR, which keeps them for the next run, or,
# when it is unset, into a temporary folder deleted on exit (the wheels are
# 1.9 GB for a few MB of headers, and CI machines have little disk). Their
# headers are read out by `cargo xtask wheel-headers` (hip-generator runs
# this script, so cargo is at hand).
#
# Consumers:
#   cargo run -p hip-generator -- cuda-compat
#   cargo run -p hip-generator -- nvidia-tables
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
dest=${CUDA_HEADERS_DIR:-$root/build.rs-tools/cuda-headers}
if [ -n "${CUDA_WHEELS_DIR:-}" ]; then
  wheels=$CUDA_WHEELS_DIR
else
  wheels=$(mktemp -d)
  trap 'rm -rf "$wheels"' EXIT
fi

# Exact versions the committed output was generated from.
packages=(
  nvidia-cuda-runtime-cu12==12.9.79
  nvidia-cuda-nvrtc-cu12==12.9.86
  nvidia-cublas-cu12==12.9.3.13
  nvidia-nccl-cu12==2.27.3
  nvidia-curand-cu12==10.3.10.19
  nvidia-cufft-cu12==11.4.1.4
  nvidia-cusolver-cu12==11.7.5.82
  nvidia-cusparse-cu12==12.5.10.65
)

rm -rf "$dest"
mkdir -p "$dest/include"
# extract WHEEL: its headers into $dest, its name appended to PACKAGES
# (xtask/src/wheel_headers.rs reads the wheel, a zip archive). Through the
# manifest, not a cd: $dest and WHEEL may be relative to the caller's folder.
extract() {
  cargo run -q --manifest-path "$root/Cargo.toml" -p xtask -- wheel-headers "$dest" "$1"
}
# One wheel at a time, each deleted once read unless $CUDA_WHEELS_DIR keeps
# it: the largest is a third of the 1.9 GB.
shopt -s nullglob
for spec in "${packages[@]}"; do
  name=${spec%%==*}
  version=${spec#*==}
  pattern="${name//-/_}-$version-*.whl"
  found=("$wheels"/$pattern)
  if [ ${#found[@]} -eq 0 ]; then
    mkdir -p "$wheels"
    python3 -m pip download -q --no-deps --only-binary=:all: --dest "$wheels" "$spec"
    found=("$wheels"/$pattern)
    [ ${#found[@]} -gt 0 ] || { echo "fetch-cuda-headers: pip gave no $pattern" >&2; exit 1; }
  fi
  extract "${found[0]}"
  [ -n "${CUDA_WHEELS_DIR:-}" ] || rm -f "${found[0]}"
done
for h in nvidia/cuda_runtime/include/cuda.h nvidia/cuda_runtime/include/driver_types.h \
         nvidia/cuda_nvrtc/include/nvrtc.h include/cublas_api.h include/cuda_runtime_api.h \
         nvidia/nccl/include/nccl.h nvidia/curand/include/curand.h nvidia/cufft/include/cufft.h \
         nvidia/cusolver/include/cusolverDn.h nvidia/cusparse/include/cusparse.h; do
  test -f "$dest/$h" || { echo "fetch-cuda-headers: missing $dest/$h" >&2; exit 1; }
done
echo "fetch-cuda-headers: headers in $dest"

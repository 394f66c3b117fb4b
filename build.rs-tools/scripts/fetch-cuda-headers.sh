#!/usr/bin/env bash
# Unpacks the CUDA 12.x headers (runtime, driver, nvrtc, cuBLAS) from NVIDIA's
# Python wheels into build.rs-tools/cuda-headers/include (git-ignored).
# Only the headers are extracted; nothing is installed.
#
# Wheels are taken from $CUDA_WHEELS_DIR (default /tmp/cudawheels) when they
# are there, else downloaded with pip from its configured index (no host name
# is written here). Used by `cargo run -p hip-generator -- cuda-compat` for the
# complete CUDA enumerator lists.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
dest=${CUDA_HEADERS_DIR:-$here/cuda-headers}
wheels=${CUDA_WHEELS_DIR:-/tmp/cudawheels}

# Exact versions the committed cuda-compat output was generated from.
packages=(
  nvidia-cuda-runtime-cu12==12.9.79
  nvidia-cuda-nvrtc-cu12==12.9.86
  nvidia-cublas-cu12==12.9.3.13
)

shopt -s nullglob
found=("$wheels"/nvidia_cuda_runtime_cu12-*.whl)
if [ ${#found[@]} -eq 0 ]; then
  mkdir -p "$wheels"
  python3 -m pip download --no-deps --only-binary=:all: --dest "$wheels" "${packages[@]}"
fi

mkdir -p "$dest/include"
: > "$dest/PACKAGES"
for w in "$wheels"/nvidia_cuda_runtime_cu12-*.whl "$wheels"/nvidia_cuda_nvrtc_cu12-*.whl \
         "$wheels"/nvidia_cublas_cu12-*.whl; do
  tmp=$(mktemp -d)
  unzip -q -o "$w" 'nvidia/*/include/*' -d "$tmp"
  cp -r "$tmp"/nvidia/*/include/. "$dest/include/"
  rm -rf "$tmp"
  basename "$w" >> "$dest/PACKAGES"
done
echo "fetch-cuda-headers: headers in $dest/include"

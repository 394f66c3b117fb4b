#!/usr/bin/env bash
# Fetches the CUDA 12.9 headers the NVIDIA backend's tables are generated
# from (cuda.h, driver_types.h, nvrtc.h), as the Python wheels
# nvidia-cuda-runtime-cu12 and nvidia-cuda-nvrtc-cu12 with pip's configured
# index, and unpacks them into the git-ignored build.rs-tools/cuda-headers/.
# Wheels already downloaded can be given instead: CUDA_WHEELS_DIR=/path.
#
# Then regenerate:
#   python3 hip-sys/src/nvidia/generate_status.py
#   python3 hip-sys/src/nvidia/generate_passthrough.py
#   HIP_SYS_BLESS=1 cargo test -p hip-sys --lib coverage
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dest="$root/build.rs-tools/cuda-headers"
wheels=${CUDA_WHEELS_DIR:-}
if [ -z "$wheels" ]; then
    wheels=$(mktemp -d)
    trap 'rm -rf "$wheels"' EXIT
    python3 -m pip download --no-deps --only-binary=:all: --dest "$wheels" \
        "nvidia-cuda-runtime-cu12==12.9.79" "nvidia-cuda-nvrtc-cu12==12.9.86"
fi
mkdir -p "$dest"
for w in "$wheels"/nvidia_cuda_runtime_cu12-*.whl "$wheels"/nvidia_cuda_nvrtc_cu12-*.whl; do
    python3 -m zipfile -e "$w" "$dest"
done
for h in nvidia/cuda_runtime/include/cuda.h nvidia/cuda_runtime/include/driver_types.h nvidia/cuda_nvrtc/include/nvrtc.h; do
    test -f "$dest/$h" || { echo "missing $dest/$h" >&2; exit 1; }
done
echo "CUDA headers in $dest"

#!/usr/bin/env bash
# Regenerates every committed binding and fails when the result differs from
# what is committed.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash build.rs-tools/scripts/fetch-cuda-headers.sh
cargo run -q -p hip-generator
# The NVIDIA backends' tables, from CUDA's and HIP's headers.
python3 build.rs-tools/nvidia-tables/hip_sys_status.py
python3 build.rs-tools/nvidia-tables/hip_sys_passthrough.py
python3 build.rs-tools/nvidia-tables/hipblas_sys_adapters.py
paths=(hip-sys/src/generated hip-sys/BINDINGS.md hip-sys/src/nvidia hipblas-sys/src/nvidia)
for p in hipblas-sys/src/generated hipblas-sys/BINDINGS.md cuda-compat/src/generated cuda-compat/COVERAGE.md; do
  [ -e "$p" ] && paths+=("$p")
done
if ! git diff --exit-code --stat -- "${paths[@]}"; then
  echo "The committed bindings are stale. Regenerate them with:" >&2
  echo "    cargo run -p hip-generator" >&2
  echo "    python3 build.rs-tools/nvidia-tables/hip_sys_status.py" >&2
  echo "    python3 build.rs-tools/nvidia-tables/hip_sys_passthrough.py" >&2
  echo "    python3 build.rs-tools/nvidia-tables/hipblas_sys_adapters.py" >&2
  echo "and commit the result." >&2
  exit 1
fi
untracked=$(git ls-files --others --exclude-standard -- "${paths[@]}")
if [ -n "$untracked" ]; then
  echo "The generator wrote files that are not committed: $untracked" >&2
  echo "Run cargo run -p hip-generator and commit the result." >&2
  exit 1
fi
echo "check-generated: committed bindings are up to date"

#!/usr/bin/env bash
# Regenerates every committed generated file and fails when the result differs
# from what is committed. Every tracked file that says it is generated
# ("@generated" or "Do not edit" in its first lines) must be in the list
# below, so a new generated file cannot be left out of the check.
set -euo pipefail
cd "$(dirname "$0")/../.."

regenerate=(
  "cargo run -p hip-generator"
  "HIP_SYS_BLESS=1 cargo test -p hip-sys --lib coverage"
  "HIPBLAS_SYS_BLESS=1 cargo test -p hipblas-sys --lib coverage"
)

# What the commands above write (folders: every file in them).
generated=(
  # cargo run -p hip-generator: bindings, reports, cuda-compat, the enum
  # tests' header data (header-values) and what the GPU tests call
  # (gpu-tested).
  hip-sys/src/generated
  hip-sys/BINDINGS.md
  hipblas-sys/src/generated
  hipblas-sys/BINDINGS.md
  cuda-compat/src/generated
  cuda-compat/COVERAGE.md
  hip-sys/src/nvidia/header_enumerators.txt
  cuda-compat/tests/data
  cuda-compat/tests/enumerator_paths.rs
  hip-sys/src/nvidia/gpu_tested.txt
  hipblas-sys/src/nvidia/gpu_tested.txt
  # the NVIDIA backends' tables (also run alone by
  # cargo run -p hip-generator -- nvidia-tables)
  hip-sys/src/nvidia/status.rs
  hip-sys/src/nvidia/attributes.rs
  hip-sys/src/nvidia/messages.rs
  hip-sys/src/nvidia/passthrough.rs
  hipblas-sys/src/nvidia/adapters.rs
  # the coverage tests (HIP_SYS_BLESS=1 / HIPBLAS_SYS_BLESS=1)
  hip-sys/NVIDIA_COVERAGE.md
  hipblas-sys/NVIDIA_COVERAGE.md
)

fail_with_commands() {
  echo "$1 Regenerate with:" >&2
  for c in "${regenerate[@]}"; do echo "    $c" >&2; done
  echo "and commit the result." >&2
  exit 1
}

# The list is complete: every tracked file marked as generated is in it.
covered() {
  local f=$1 p
  for p in "${generated[@]}"; do
    [ "$f" = "$p" ] && return 0
    case "$f" in "$p"/*) return 0 ;; esac
  done
  return 1
}
unlisted=()
while IFS= read -r f; do
  [ -f "$f" ] || continue
  if head -n 3 -- "$f" | grep -qiE '@generated|do not edit' && ! covered "$f"; then
    unlisted+=("$f")
  fi
done < <(git ls-files -- . ':!Cargo.lock' ':!build.rs-tools')
if [ ${#unlisted[@]} -gt 0 ]; then
  echo "check-generated: marked as generated but not checked here: ${unlisted[*]}" >&2
  echo "Add them to the list in build.rs-tools/scripts/check-generated.sh." >&2
  exit 1
fi
for p in "${generated[@]}"; do
  if [ ! -e "$p" ]; then
    fail_with_commands "check-generated: $p is missing."
  fi
done

bash build.rs-tools/scripts/fetch-cuda-headers.sh
# The generator first (its NVIDIA tables read the bindings it writes); the
# coverage tests read its output (the adapter tables, gpu_tested.txt).
cargo run -q -p hip-generator
HIP_SYS_BLESS=1 cargo test -q -p hip-sys --lib coverage
HIPBLAS_SYS_BLESS=1 cargo test -q -p hipblas-sys --lib coverage

if ! git diff --exit-code --stat -- "${generated[@]}"; then
  fail_with_commands "The committed generated files are stale."
fi
untracked=$(git ls-files --others --exclude-standard -- "${generated[@]}")
if [ -n "$untracked" ]; then
  fail_with_commands "The generators wrote files that are not committed: $untracked."
fi
echo "check-generated: all ${#generated[@]} generated paths are up to date"

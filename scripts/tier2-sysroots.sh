#!/usr/bin/env bash
# Tier 2 on the newer ROCm runtimes: runs every tier-2 test binary
# (`*/tests/tier2_*.rs`) once per sysroot made by scripts/rocm-runtimes.sh
# (ROCm 5.7 from Debian trixie, 6.4 from Debian unstable). scripts/test.sh
# calls it and counts its tests as tests of their own (`PKG@rocm-6.4`).
#
# The binaries are built here, against this machine's glibc, and run
# through the sysroot's own dynamic loader with the sysroot's library
# folder as its library path: the process then uses the sysroot's (newer,
# compatible) glibc and libstdc++, which the ROCm libraries need. Our loader
# is pointed at the same folder with HIP_SYS_LIBRARY_PATH, and the tests are
# told the release with HIP_TEST_EXPECT_ROCM (test-kit's `Rocm`).
#
# Usage: scripts/tier2-sysroots.sh [5.7|6.4]...   (default: both)
# Output: for each binary, `     Running@rocm-V PKG-DIR/tests/FILE (EXE)` then libtest's
# own output; for a release whose sysroot could not be made, a line
# `tier2-sysroots: rocm-V DID NOT RUN: REASON`. Exits non-zero when a
# sysroot could not be made or a test failed.
#
# HIP_TEST_SKIP_SYSROOTS=1 skips this tier (for a machine without network;
# scripts/test.sh then says so on its tier line). CI must not set it.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

if [ "${HIP_TEST_SKIP_SYSROOTS:-}" = 1 ]; then
  echo "tier2-sysroots: skipped (HIP_TEST_SKIP_SYSROOTS=1)"
  exit 0
fi

versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(5.7 6.4)

# Test executables: target name and path, from cargo's JSON (no rebuild
# when scripts/test.sh's first pass built them). Not piped: `cargo xtask`
# would wait for the build lock that the writing cargo holds.
json=$(cargo test --workspace --test 'tier2_*' --no-run --message-format=json 2>/dev/null)
exes=$(cargo xtask executables <<<"$json")
if [ -z "$exes" ]; then
  echo "tier2-sysroots: DID NOT RUN: the tier-2 test binaries could not be built" >&2
  exit 1
fi

# The run-time compile corpus of cuda-compat/tests/tier2_nvrtc_corpus.rs
# (cudarc's and candle-kernels' sources, HIP's headers), which its ROCm 6.4
# run compiles.
if ! corpus=$(bash scripts/nvrtc-corpus.sh); then
  echo "tier2-sysroots: DID NOT RUN: the nvrtc corpus could not be made (scripts/nvrtc-corpus.sh failed, see above)"
  exit 1
fi

status=0
for v in "${versions[@]}"; do
  if ! line=$(bash scripts/rocm-runtimes.sh "$v"); then
    echo "tier2-sysroots: rocm-$v DID NOT RUN: its sysroot could not be made (scripts/rocm-runtimes.sh $v failed, see above)"
    status=1
    continue
  fi
  root=${line#* }
  lib=$root/usr/lib/x86_64-linux-gnu
  ld=$lib/ld-linux-x86-64.so.2
  if [ ! -x "$ld" ]; then
    echo "tier2-sysroots: rocm-$v DID NOT RUN: no dynamic loader at $ld"
    status=1
    continue
  fi
  while read -r target exe; do
    echo "     Running@rocm-$v $target ($exe)"
    (
      # The package's folder, the working folder cargo test gives its tests.
      cd "${target%%/*}" || exit 2
      env -u ROCM_PATH -u HIP_PATH -u HIP_PLATFORM \
        HIP_SYS_LIBRARY_PATH="$lib" HIP_TEST_EXPECT_ROCM="$v" HIP_TEST_EXPECT_RUNTIME=amd \
        HIPRS_NVRTC_CORPUS="$corpus" \
        "$ld" --library-path "$lib" "$exe" --test-threads=4 2>&1
    ) || status=1
  done <<<"$exes"
done
exit $status

#!/usr/bin/env bash
# The corpus of cuda-compat/tests/tier2_nvrtc_corpus.rs that is not ours:
# cudarc 0.19.10 (its examples' kernels) and candle-kernels 0.11.1 (its PTX
# modules), fetched by cargo at their pinned versions and checked against
# pinned sha256 sums, unpacked into one folder with `hip-include` beside
# them: HIP's headers from scripts/hip-toolchain.sh (the ROCm 6.4 sysroot
# holds only the runtime, and run-time bf16 needs HIP's bf16 header).
#
# Usage: scripts/nvrtc-corpus.sh     prints the folder, for HIPRS_NVRTC_CORPUS
#                                    (scripts/tier2-sysroots.sh sets it)
# The folder is ~/.cache/hip-rs/nvrtc-corpus (NVRTC_CORPUS_DIR overrides);
# what is there and verified is reused.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${NVRTC_CORPUS_DIR:-$HOME/.cache/hip-rs/nvrtc-corpus}

CUDARC_VERSION=$(sed -n 's/^CUDARC_VERSION=//p' "$root/scripts/cudarc-examples.sh")
CUDARC_SHA256=$(sed -n 's/^CUDARC_SHA256=//p' "$root/scripts/cudarc-examples.sh")
CANDLE_KERNELS_VERSION=0.11.1
# The "cksum" of the crate's crates.io index entry.
CANDLE_KERNELS_SHA256=8dc057aec95c3b1a0e595227cd039c1436da596f79ccc9e025ba17d070315851

die() {
    echo "nvrtc-corpus: $*" >&2
    exit 1
}

bash "$root/scripts/fetch-crates.sh" "$out" \
    cudarc "$CUDARC_VERSION" "$CUDARC_SHA256" \
    candle-kernels "$CANDLE_KERNELS_VERSION" "$CANDLE_KERNELS_SHA256"
tc=$(bash "$root/scripts/hip-toolchain.sh")
[[ -f "$tc/include/hip/hip_bf16.h" ]] || die "$tc/include has no hip/hip_bf16.h"
ln -sfn "$tc/include" "$out/hip-include"
echo "$out"

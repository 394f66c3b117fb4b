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
home=${CARGO_HOME:-$HOME/.cargo}

CUDARC_VERSION=$(sed -n 's/^CUDARC_VERSION=//p' "$root/scripts/cudarc-examples.sh")
CUDARC_SHA256=$(sed -n 's/^CUDARC_SHA256=//p' "$root/scripts/cudarc-examples.sh")
CANDLE_KERNELS_VERSION=0.11.1
# The "cksum" of the crate's crates.io index entry.
CANDLE_KERNELS_SHA256=8dc057aec95c3b1a0e595227cd039c1436da596f79ccc9e025ba17d070315851

die() {
    echo "nvrtc-corpus: $*" >&2
    exit 1
}

# unpack DIR CRATE VERSION SHA256: the verified crate's files in $out/DIR.
unpack() {
    local dir=$1 name=$2 version=$3 sum=$4 crate
    [[ -f "$out/$dir/.verified" && "$(cat "$out/$dir/.verified")" == "$sum" ]] && return 0
    crate=$(ls "$home"/registry/cache/*/"$name-$version.crate" 2>/dev/null | head -n1)
    [[ -n "$crate" ]] || die "cargo fetch left no $name-$version.crate"
    [[ "$(sha256sum "$crate" | cut -d' ' -f1)" == "$sum" ]] ||
        die "$crate: sha256 is not the pinned $sum; refusing it"
    rm -rf "${out:?}/$dir"
    mkdir -p "$out/$dir"
    tar -xzf "$crate" -C "$out/$dir" --strip-components=1
    echo "$sum" >"$out/$dir/.verified"
    echo "nvrtc-corpus: $name $version unpacked (sha256 verified)" >&2
}

mkdir -p "$out/fetch/src"
if [[ ! -f "$out/cudarc/.verified" || ! -f "$out/candle-kernels/.verified" ]]; then
    : >"$out/fetch/src/lib.rs"
    printf '[package]\nname = "nvrtc-corpus-fetch"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n\n[dependencies]\ncudarc = { version = "=%s", default-features = false }\ncandle-kernels = "=%s"\n\n[workspace]\n' \
        "$CUDARC_VERSION" "$CANDLE_KERNELS_VERSION" >"$out/fetch/Cargo.toml"
    cargo fetch -q --manifest-path "$out/fetch/Cargo.toml" >&2
fi
unpack cudarc cudarc "$CUDARC_VERSION" "$CUDARC_SHA256"
unpack candle-kernels candle-kernels "$CANDLE_KERNELS_VERSION" "$CANDLE_KERNELS_SHA256"
tc=$(bash "$root/scripts/hip-toolchain.sh")
[[ -f "$tc/include/hip/hip_bf16.h" ]] || die "$tc/include has no hip/hip_bf16.h"
ln -sfn "$tc/include" "$out/hip-include"
echo "$out"

#!/usr/bin/env bash
# cudarc's public API against cuda-compat's: rustdoc's JSON of both crates
# with the same features, every public path and its kind compared, and
# what cuda-compat lacks checked against the reviewed residue
# (cuda-compat/cudarc-api-residue.tsv). The comparison is xtask's
# (xtask/src/cudarc_api.rs); it fails on a missing path the residue does
# not list, and on a residue line for a path cuda-compat has or cudarc
# lacks, so the residue can only shrink to what is true. For the items
# both crates have, the signatures are compared too (parameter and return
# types, generics and bounds, fields, variants, trait items and impls;
# xtask/src/cudarc_api/signatures.rs says what and modulo what): a
# difference must be listed, with the components that differ and a reason,
# in cuda-compat/cudarc-api-signatures.tsv, under the same ratchet. Every
# difference, both sides written out: $WORK/signature-differences.txt.
#
#   bash scripts/cudarc-api.sh [check]        build both JSONs, check (test.sh)
#   bash scripts/cudarc-api.sh write REASON   rewrite the residue and the
#                                             signature list to what is true now
#                                             (new lines get REASON, old lines
#                                             keep theirs)
#
# cudarc is fetched by cargo at its pinned version (scripts/cudarc-examples.sh's
# CUDARC_VERSION), and its checksum in the lock file must be the pinned
# CUDARC_SHA256. rustdoc's JSON needs a nightly: the one scripts/miri.sh
# pins (scripts/nightly-toolchain), installed here when missing.
# Lines: `cudarc api: NAME ... ok|FAILED` (counted by test.sh's tally).
# The folder is $CARGO_TARGET_DIR/cudarc-api (target/cudarc-api unset).
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)
# Under CARGO_TARGET_DIR when set, so that a second checkout or a
# parallel build does not share the folder.
WORK="${CARGO_TARGET_DIR:-$REPO/target}/cudarc-api"
RESIDUE="$REPO/cuda-compat/cudarc-api-residue.tsv"
SIGNATURES="$REPO/cuda-compat/cudarc-api-signatures.tsv"
TOOLCHAIN=$(cat scripts/nightly-toolchain)
CUDARC_VERSION=$(sed -n 's/^CUDARC_VERSION=//p' scripts/cudarc-examples.sh)
CUDARC_SHA256=$(sed -n 's/^CUDARC_SHA256=//p' scripts/cudarc-examples.sh)
# The features compared: every library both have, the newest CUDA.
FEATURES="std cuda-13000 f16 driver runtime nvrtc cublas cublaslt curand nccl cufft cusparse cusolver nvtx"

die() { echo "cudarc-api.sh: $*" >&2; exit 1; }
[[ -n $CUDARC_VERSION && -n $CUDARC_SHA256 ]] || die "no CUDARC_VERSION or CUDARC_SHA256 in scripts/cudarc-examples.sh"

if ! rustup run "$TOOLCHAIN" rustdoc --version >/dev/null 2>&1; then
    rustup toolchain install "$TOOLCHAIN" --profile minimal
fi

# cudarc's JSON, from a scratch package that depends on the pinned release.
json_cudarc() {
    local pkg="$WORK/cudarc-doc" list
    mkdir -p "$pkg/src"
    list=$(printf '"%s", ' $FEATURES dynamic-loading)
    cat >"$pkg/Cargo.toml" <<EOF
[package]
name = "cudarc-doc"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
cudarc = { version = "=$CUDARC_VERSION", default-features = false, features = [${list%, }] }

[workspace]
EOF
    : >"$pkg/src/lib.rs"
    (cd "$pkg" && cargo generate-lockfile -q)
    local sum
    sum=$(awk '/^name = "cudarc"$/ { f = 1 } f && /^checksum/ { gsub(/"/, "", $3); print $3; exit }' "$pkg/Cargo.lock")
    [[ $sum == "$CUDARC_SHA256" ]] || die "cudarc $CUDARC_VERSION's checksum is $sum, pinned $CUDARC_SHA256"
    (cd "$pkg" && CARGO_TARGET_DIR="$WORK/target" cargo "+$TOOLCHAIN" rustdoc -q -p cudarc \
        -- -Z unstable-options --output-format json)
    echo "$WORK/target/doc/cudarc.json"
}

# cuda-compat's JSON, with the same features.
json_ours() {
    CARGO_TARGET_DIR="$WORK/target-ours" cargo "+$TOOLCHAIN" rustdoc -q -p cuda-compat \
        --features "$FEATURES" -- -Z unstable-options --output-format json
    echo "$WORK/target-ours/doc/cuda_compat.json"
}

# The crates whose modules cuda-compat re-exports whole (`nccl::sys` is
# `pub use rccl::sys::*`, rccl-sys's root): rustdoc's JSON does not inline
# another crate's glob, so the check reads theirs too (xtask refuses a glob
# into a crate not given).
FOREIGN=(rccl-sys)
json_foreign() {
    local c
    for c in "${FOREIGN[@]}"; do
        CARGO_TARGET_DIR="$WORK/target-ours" cargo "+$TOOLCHAIN" rustdoc -q -p "$c" \
            -- -Z unstable-options --output-format json
        echo "--foreign ${c//-/_}=$WORK/target-ours/doc/${c//-/_}.json"
    done
}

mode=${1:-check}
case "$mode" in
    check | write) ;;
    *) die "usage: cudarc-api.sh [check] | write REASON" ;;
esac
theirs=$(json_cudarc) || die "rustdoc JSON of cudarc $CUDARC_VERSION failed"
ours=$(json_ours) || die "rustdoc JSON of cuda-compat failed"
foreign=$(json_foreign) || die "rustdoc JSON of ${FOREIGN[*]} failed"
# shellcheck disable=SC2206 # `--foreign CRATE=PATH` pairs, no spaces
args=("$theirs" "$ours" "$RESIDUE" "$SIGNATURES" --details "$WORK/signature-differences.txt" $foreign)
if [[ $mode == write ]]; then
    [[ $# -eq 2 ]] || die "usage: cudarc-api.sh write REASON"
    cargo run -q -p xtask -- cudarc-api "${args[@]}" --write "$2"
else
    cargo run -q -p xtask -- cudarc-api "${args[@]}"
fi

#!/usr/bin/env bash
# The cudaforge drop-in's kernel jobs, for builds on a machine without
# nvcc (this one) of crates whose build scripts compile CUDA kernels
# (candle's, mistral.rs's). A check-only build (CUDAFORGE_CHECK_ONLY=1,
# CUDAFORGE_JOBS=DIR) writes one job per kernel build: a folder with the
# sources and a build.sh that runs the nvcc commands the build would have
# run. This script runs them where nvcc is, and brings the kernels back as
# the drop-in reads them (CUDAFORGE_PREBUILT=DIR/kernels).
#
#   run JOBS OUT NAME    where nvcc is (the GPU machine, or here with
#                        NVCC=$(bash scripts/nvcc-wheels.sh)/bin/nvcc):
#                        every JOBS/*/build.sh with nvcc, the
#                        kernels packed with the CUDA link libraries (the
#                        driver stubs, libcudart) and nvcc's --version into
#                        OUT/NAME.tar.xz.NN, parts of at most 15 MiB (the
#                        device machine returns files of at most 16 MiB)
#   unpack FROM NAME DEST   here: FROM/NAME.tar.xz.* into DEST (emptied
#                        first): DEST/kernels/<key>/ and DEST/cuda/
#
# Environment: NVCC (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc).
set -euo pipefail

die() {
    echo "nvcc-jobs: $*" >&2
    exit 1
}

cmd_run() {
    local jobs=${1:?run JOBS OUT NAME} out=${2:?run JOBS OUT NAME} name=${3:?run JOBS OUT NAME}
    local w d nvcc n=0 start=$SECONDS
    [[ -d $jobs ]] || die "no jobs folder $jobs"
    nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
    [[ -x $nvcc ]] || die "no nvcc at $nvcc"
    w=$(mktemp -d)
    mkdir -p "$w/kernels" "$w/cuda/lib64/stubs" "$out"
    for d in "$jobs"/*/; do
        NVCC=$nvcc bash "$d/build.sh" "$w/kernels/$(basename "$d")"
        n=$((n + 1))
    done
    [[ $n -gt 0 ]] || die "no jobs in $jobs"
    cp -L "$(dirname "$nvcc")"/../lib64/stubs/*.so "$w/cuda/lib64/stubs/"
    cp -L "$(dirname "$nvcc")"/../lib64/libcudart.so "$w/cuda/lib64/"
    "$nvcc" --version >"$w/cuda/version.txt"
    tar -C "$w" -cf - kernels cuda | xz -T0 -6 | split -b 15M -d - "$out/$name.tar.xz."
    rm -rf "$w"
    echo "nvcc-jobs: $n jobs built in $((SECONDS - start)) s"
    ls -la "$out/$name".tar.xz.*
}

cmd_unpack() {
    local from=${1:?unpack FROM NAME DEST} name=${2:?unpack FROM NAME DEST} dest=${3:?unpack FROM NAME DEST}
    compgen -G "$from/$name.tar.xz.*" >/dev/null || die "no $from/$name.tar.xz.*"
    rm -rf "$dest"
    mkdir -p "$dest"
    cat "$from/$name".tar.xz.* | xz -d | tar -C "$dest" -xf -
    echo "nvcc-jobs: kernels in $dest: $(ls "$dest/kernels" | tr '\n' ' ')"
}

case "${1:-}" in
    run) shift; cmd_run "$@" ;;
    unpack) shift; cmd_unpack "$@" ;;
    *) sed -n '2,/^set -euo/p' "$0" | sed '$d' >&2; exit 2 ;;
esac

#!/usr/bin/env bash
# NVIDIA's CUDA 13.0 compiler from NVIDIA's own PyPI wheels, on a machine
# without a CUDA toolkit (this one): the kernel jobs candle.sh and
# mistral.sh write then run here, with no device time, instead of on the
# GPU machine. Prints the toolkit's root:
#
#   root=$(bash scripts/nvcc-wheels.sh)
#   NVCC=$root/bin/nvcc bash scripts/nvcc-jobs.sh run target/candle/jobs OUT candle-kernels
#   bash scripts/candle.sh unpack-kernels OUT
#
# (on two cores, candle-kernels' two jobs took 509 s; on the H200's 16
# cores, 62 s). 13.0 and not newer: the GPU machine's driver is CUDA
# 13.0's, and a driver refuses PTX of a later ISA version.
#
# The root (~/.cache/hip-rs/nvcc-13.0, or $NVCC_WHEELS_ROOT) holds bin/
# (nvcc, ptxas, ...), nvvm/, include/, lib64/libcudart.so and
# lib64/stubs/: link stubs of libcuda, libcublas, libcublasLt, libcurand
# and libnvrtc, which real cudarc's builds link against (nvcc-jobs.sh packs
# them as it packs the GPU machine's toolkit's stubs). A stub has the real
# library's soname and defines, as empty functions, every function the
# real one exports: its wheel's library read with nm, then deleted
# (cuBLAS's wheel is 420 MB for a 110 kB stub). No wheel holds libcuda,
# the driver: its stub defines every cu* name of cuda.h and of the
# driver's interop headers, and every function its PFN_ typedefs name. Stubs are for
# linking only; at run time the GPU machine's libraries load by soname.
#
# The wheels come from pip's configured index (no host name is written
# here), pinned by version and sha256, and are deleted once read.
set -euo pipefail

root=${NVCC_WHEELS_ROOT:-$HOME/.cache/hip-rs/nvcc-13.0}
if [ -f "$root/.complete" ]; then
    echo "$root"
    exit 0
fi
die() {
    echo "nvcc-wheels: $*" >&2
    exit 1
}
command -v gcc >/dev/null || die "no gcc (the stubs are built with it)"
command -v nm >/dev/null || die "no nm (binutils)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
part="$root.partial"
rm -rf "$part"
mkdir -p "$part" "$work/wheels"

# The toolkit: unpacked into the root. NAME==VERSION SHA256 per line.
toolkit=(
    "nvidia-cuda-nvcc==13.0.88 56fe502eb77625a12f25172caa3cdddb4e4c8ba2c8c17dba44b164761b380f03"
    "nvidia-nvvm==13.0.88 c5f41ffeb6466944a026dfa5317d7d85355c119bbec279205d22f1869d1054e0"
    "nvidia-cuda-crt==13.0.88 2c8043c7c9e02492716426e9919fc78d2c5b3b2a7a768a88e952676b08aa55a4"
    "nvidia-cuda-runtime==13.0.96 7f82250d7782aa23b6cfe765ecc7db554bd3c2870c43f3d1821f1d18aebf0548"
    "nvidia-cuda-cccl==13.0.85 e0da7ad981f3a8aff08241b5bfc1af868742a63e2762f53a5171c492ef242649"
)
# The libraries real cudarc links: read for their exports, then deleted.
# Each: NAME==VERSION SHA256 LIBRARY (its file in the wheel, the soname).
libraries=(
    "nvidia-cublas==13.0.2.14 0cf238ffdbe46c00cb9aa98e7bca745c223a5ca5a53e686ac8b3e5a08fe80d6c libcublas.so.13"
    "nvidia-cublas==13.0.2.14 0cf238ffdbe46c00cb9aa98e7bca745c223a5ca5a53e686ac8b3e5a08fe80d6c libcublasLt.so.13"
    "nvidia-curand==10.4.5.25 22bb226a857e5888fe6b54ae465fc4371296bcff13a35f79e19691bcf454f529 libcurand.so.10"
    "nvidia-cuda-nvrtc==13.0.88 ad9b6d2ead2435f11cbb6868809d2adeeee302e9bb94bcf0539c7a40d80e8575 libnvrtc.so.13"
)

# fetch SPEC SHA256: the wheel's path, downloaded once (pip checks the hash).
fetch() {
    local spec=$1 sha=$2 name version found
    name=${spec%%==*}
    version=${spec#*==}
    shopt -s nullglob
    found=("$work/wheels/${name//-/_}-$version-"*.whl)
    shopt -u nullglob
    if [ ${#found[@]} -eq 0 ]; then
        echo "$spec --hash=sha256:$sha" >"$work/req.txt"
        python3 -m pip download -q --no-deps --only-binary=:all: --require-hashes \
            -r "$work/req.txt" --dest "$work/wheels" >&2 || die "pip could not fetch $spec"
        found=("$work/wheels/${name//-/_}-$version-"*.whl)
    fi
    [ -f "${found[0]}" ] || die "pip gave no wheel for $spec"
    echo "${found[0]}"
}

# stub NAME SONAME SYMBOLS: lib64/stubs/NAME.so defining each symbol.
stub() {
    sed 's/.*/void &(void) {}/' "$3" >"$work/$1.c"
    gcc -shared -fPIC -Wl,-soname,"$2" -o "$part/lib64/stubs/$1.so" "$work/$1.c"
}

for line in "${toolkit[@]}"; do
    read -r spec sha <<<"$line"
    wheel=$(fetch "$spec" "$sha")
    python3 -m zipfile -e "$wheel" "$work/x"
    rm -f "$wheel"
done
# The wheels' layout: nvidia/cu13/{bin,include,lib,nvvm}.
cp -a "$work/x/nvidia/cu13/." "$part/"
rm -rf "$work/x"
chmod +x "$part"/bin/* "$part"/nvvm/bin/*
ln -s lib "$part/lib64"
ln -s libcudart.so.13 "$part/lib/libcudart.so"
mkdir -p "$part/lib/stubs"

for line in "${libraries[@]}"; do
    read -r spec sha lib <<<"$line"
    wheel=$(fetch "$spec" "$sha")
    [ -d "$work/x" ] || python3 -m zipfile -e "$wheel" "$work/x"
    nm -D --defined-only "$work/x/nvidia/cu13/lib/$lib" | awk '$2 == "T" {print $3}' |
        sed 's/@.*//' | sort -u >"$work/symbols"
    [ -s "$work/symbols" ] || die "$lib exports no function"
    stub "${lib%%.so*}" "$lib" "$work/symbols"
    # cuBLAS's wheel holds two of the libraries: unpacked once.
    [ "$lib" = libcublas.so.13 ] || rm -rf "$work/x"
done
rm -f "$work"/wheels/*.whl
{
    grep -ohE '\bcu[A-Z][A-Za-z0-9_]*' "$part"/include/{cuda.h,cudaGL.h,cudaEGL.h,cudaVDPAU.h}
    # Functions CUDA 13 dropped from cuda.h keep their PFN_ typedefs
    # (cuProfilerInitialize); cudarc still binds them.
    grep -ohE 'PFN_cu[A-Z][A-Za-z0-9_]*' "$part"/include/cuda*Typedefs.h | sed 's/^PFN_//; s/_v[0-9]*$//'
} | sort -u >"$work/symbols"
[ -s "$work/symbols" ] || die "no cu* names in cuda.h"
stub libcuda libcuda.so.1 "$work/symbols"

"$part/bin/nvcc" --version | grep 'release 13\.0' >/dev/null || die "the wheels' nvcc is not CUDA 13.0"
date -u +%FT%TZ >"$part/.complete"
rm -rf "$root"
mv "$part" "$root"
echo "$root"

#!/usr/bin/env bash
# mistral.rs on this repository's stack, with no edit to mistral.rs:
# crates.io's `mistralrs` 0.8.1 (candle 0.10.2 inside) with its `cuda`
# feature, resolved with
#   [patch.crates-io] cudarc = dropins/cudarc       (cuda-compat under cudarc's name)
#                     cudaforge = dropins/cudaforge (the kernel builder)
# in benches/mistral, a cargo workspace of ours that is not a member of the
# repository's. Its Cargo.lock (committed) pins every crate and its sha256:
# it is mistral.rs 0.8.1's own lock (published in the crate), with what our
# path crates add. No mistral.rs code is committed: cargo downloads it.
# No crate in the tree asks for bindgen_cuda, so it is not patched (a patch
# that nothing uses only makes cargo warn).
#
# Subcommands:
#   check   CI, no GPU, no nvcc, no build: `cargo metadata --locked` and
#           `cargo tree --locked` of benches/mistral (about a second once
#           the crates are downloaded; about 100 MB of crates the first
#           time). One line per check: `mistral check: NAME ... ok|FAILED`,
#           then the count; the exit status is non-zero when one failed.
#   lock    rewrite benches/mistral/Cargo.lock: mistral.rs's own lock, plus
#           our path crates. Needed after a change to the dependencies of
#           the drop-ins (cuda-compat, hip, ...), which makes `check` fail.
#
# Environment:
#   MISTRAL_WORK   work folder (default <repo>/target/mistral, git-ignored):
#                  cargo's metadata, output and logs
set -euo pipefail

# Why `check` reads the build graph with cargo tree too: cargo's lock and
# `cargo metadata`'s resolve also hold optional dependencies that only a
# weak feature names (rust-lang/cargo#10801). candle-core 0.10.2's `cuda`
# feature has "candle-ug?/cuda"; candle-ug (candle's `ug` feature, off) has
# ug-cuda 0.5.0, which asks for cudarc ^0.17.3. So crates.io's cudarc
# 0.17.8 is in the lock and the metadata, as it is in mistral.rs's own
# lock, but nothing builds it: cargo tree, which resolves features as a
# build does, shows only the drop-in. Turning `ug` on would build it, and
# the check fails then.
#
# What mistral.rs 0.8.1's build scripts ask of a CUDA toolkit (the crates
# of the tree whose build.rs mentions CUDA: mistralrs-core, mistralrs-quant,
# mistralrs-paged-attn, candle-kernels 0.10.2):
# - All four build their .cu files with cudaforge (^0.1.2, build
#   dependency), through these items, each in the drop-in with the same
#   signature: KernelBuilder::new() and ::default(), .source_glob(&str),
#   .source_dir(P: AsRef<Path>), .source_files(Vec<&str>),
#   .exclude(&[&str]) (quant passes &Vec<&str>), .out_dir(PathBuf or
#   &PathBuf: Into<PathBuf>), .arg(&str), .get_compute_cap() ->
#   Option<usize>, .build_lib(PathBuf) -> Result<()> (then .expect: the
#   error is Debug), .build_ptx() -> Result<PtxOutput> and
#   PtxOutput::write(&PathBuf), cudaforge::detect_compute_cap() ->
#   Result<GpuArch> with GpuArch::base(), cudaforge::Result, and `{:?}` of
#   the builder (paged-attn prints it: KernelBuilder is Debug). No
#   with_cutlass, with_git_dependency, cuda_root, include_path: nothing is
#   fetched (no CUTLASS, no flash-attn: candle-flash-attn is behind
#   mistral.rs's `flash-attn` feature, off).
# - nvcc flags they pass: -std=c++17 -O3 -U__CUDA_NO_HALF_OPERATORS__
#   -U__CUDA_NO_HALF_CONVERSIONS__ -U__CUDA_NO_HALF2_OPERATORS__
#   -U__CUDA_NO_BFLOAT16_CONVERSIONS__ --expt-relaxed-constexpr
#   --expt-extended-lambda --use_fast_math --verbose --compiler-options
#   -fPIC (core, quant, paged-attn); paged-attn adds -DENABLE_FP8 when the
#   capability is >= 80, core -DNO_BF16_KERNEL below 80; CUDA_NVCC_FLAGS,
#   read when the build script itself is compiled (option_env!), goes
#   after --compiler-options. The drop-in's AMD path keeps -U/-D/-O/-std,
#   turns --use_fast_math into -ffast-math and --compiler-options X into
#   X, and drops --expt-*, --verbose.
# - The compute capability: quant and paged-attn call
#   builder.get_compute_cap().unwrap_or(80), core uses it when Some. Real
#   cudaforge 0.1.6 answers from .compute_cap(), else CUDA_COMPUTE_CAP,
#   else `nvidia-smi --query-gpu=compute_cap`; the drop-in answers only an
#   explicit .compute_cap() (None here: 80 for quant and paged-attn, no
#   -DNO_BF16_KERNEL for core, whatever CUDA_COMPUTE_CAP says). Same
#   outcome for CUDA_COMPUTE_CAP >= 80 (H100/H200: 90); below 80 it keeps
#   kernels nvcc cannot build there. candle-kernels calls
#   cudaforge::detect_compute_cap() (CUDA_COMPUTE_CAP, else nvidia-smi;
#   the same in both). quant: >= 80 builds marlin_*, *_fp8*, *_wmma and
#   sets cfg has_marlin_kernels, has_*fp8_kernels, has_mxfp4_wmma_kernels;
#   below 80 it builds the *dummy* sources instead.
# - mistralrs-quant runs `nvcc --version` itself (std::process::Command,
#   found on PATH only: not NVCC, CUDA_HOME, CUDA_PATH or CUDA_ROOT), after
#   its kernel library is built, and panics when it cannot run it
#   ("Failed to execute `nvcc`"), when it exits non-zero, or when the
#   version is not one it lists. It reads the 4th line of the output,
#   its second ", "-separated field, that field's second word: "Cuda
#   compilation tools, release 12.8, V12.8.93" gives 12.8. Accepted:
#   11.4-11.8, 12.0-12.6, 12.8, 12.9, 13.0, 13.1, 13.2 (not 12.7). It sets
#   cfg feature="cuda-MAJ0MIN0"; only "cuda-13000" is used (which of two
#   identical bindings of ops.cu's CUB count_nonzero/nonzero to compile).
# - Link lines: each library build prints rustc-link-lib=dylib=cudart
#   (and stdc++): the drop-in's AMD build writes a libcudart.so linker
#   script that links HIP's runtime.
# - Nothing reads CUDA_ROOT/CUDA_PATH/CUDA_HOME or include paths itself;
#   cudaforge does (to find nvcc). At run time mistralrs-core runs
#   nvidia-smi too: ModelDType::Auto with `cuda` (utils/normal.rs,
#   get_dtypes) panics when it cannot run it; diagnostics.rs asks it for
#   each device's capability (None without it).
# - The sources (kernels of item 4 of issue 36): inline PTX (asm) in
#   quant's marlin/*.cuh and paged-attn's flashinfer/*.cuh,
#   attention/dtype_float16.cuh, pagedattention.cuh; CUB in quant's
#   ops/ops.cu, bitsandbytes/dequant.cu (thrust too); WMMA (<mma.h>) in
#   quant's mxfp4/mxfp4_gemm_wmma.cu and core's moe_gemm_wmma.cu;
#   <cuda_fp8.h>/<cuda_fp4.h> in quant's *fp8* and paged-attn.
# - An `nvcc` on PATH that stands in for the toolkit (issue 36, item 2)
#   is also what the drop-in's CudaToolkit::detect finds (NVCC,
#   CUDA_HOME/CUDA_PATH/CUDA_ROOT, PATH, /usr/local/cuda): without
#   HIP_PLATFORM=amd the drop-in would then hand it nvcc's command lines
#   (and add <its dir>/../lib64 to the link search) instead of taking its
#   own AMD path.
# - mistral.rs's own lock has cudaforge 0.1.4, whose get_compute_cap is
#   0.1.6's (it detects); cudarc 0.19.4 there, 0.19.10 here.
#
# `cargo check --locked` of benches/mistral on a machine without nvcc or
# nvidia-smi (Debian 12, its hipcc 5.2.3 on PATH; tried once, not part of
# any subcommand):
# - As it is: the drop-in takes its AMD path with /usr/bin/hipcc for its
#   default targets. candle-kernels' build script fails (PTX build:
#   clang 14 "invalid target ID 'gfx942'"; this machine's toolchain, see
#   scripts/hip-toolchain.sh); mistralrs-core's and paged-attn's build
#   scripts pass (their libraries built, every launcher "unavailable" for
#   the same reason); mistralrs-quant's library is built, then its build
#   script panics at build.rs:7:10: "Failed to execute `nvcc`: ...
#   NotFound" (cuda_version_from_build_system).
# - CUDAFORGE_CHECK_ONLY=1 (no kernels): the same panic, alone;
#   candle-core and candle-nn 0.10.2 with `cuda` type-check against the
#   drop-in cudarc, and so do mistralrs-paged-attn, -audio, -vision and
#   -mcp. mistralrs-quant, mistralrs-core, mistralrs and our package wait
#   for quant's build script, so they are not reached.

VERSION=0.8.1
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
WS=$REPO/benches/mistral
WORK=${MISTRAL_WORK:-$REPO/target/mistral}
# The crates a patch line replaces, and those no version of the tree may
# ask for (nothing patches them).
PATCHED=(cudarc cudaforge)
ABSENT=(bindgen_cuda)

die() {
    echo "mistral: $*" >&2
    exit 1
}

in_ws() { (cd "$WS" && "$@"); }

check_line() {
    local name=$1
    shift
    checks=$((checks + 1))
    if "$@" >"$WORK/check.log" 2>&1; then
        echo "mistral check: $name ... ok"
    else
        cat "$WORK/check.log" >&2
        echo "mistral check: $name ... FAILED"
        failed=$((failed + 1))
    fi
}

# cargo metadata's resolve, as lines for grep and awk:
#   NAME VERSION SOURCE MANIFEST DEPENDENT,DEPENDENT...
# for every package of the resolve named in $@ (SOURCE `path` for a path
# crate; MANIFEST with symbolic links resolved).
read_resolve() {
    python3 - "$WORK/metadata.json" "$@" <<'PY'
import json, os, sys
meta = json.load(open(sys.argv[1]))
names = set(sys.argv[2:])
nodes = meta["resolve"]["nodes"]
live = {n["id"] for n in nodes}
pkgs = {p["id"]: p for p in meta["packages"]}
users = {}
for n in nodes:
    for d in n["deps"]:
        p = pkgs[n["id"]]
        users.setdefault(d["pkg"], []).append(f'{p["name"]}@{p["version"]}')
for pid in sorted(live):
    p = pkgs[pid]
    if p["name"] in names:
        print(p["name"], p["version"], p["source"] or "path",
              os.path.realpath(p["manifest_path"]),
              ",".join(sorted(users.get(pid, []))) or "-")
PY
}

# The lines of read_resolve for the package named $1.
resolved() { awk -v name="$1" '$1 == name' "$WORK/resolved.txt"; }

metadata() {
    in_ws cargo metadata --locked --format-version 1 >"$WORK/metadata.json" 2>"$WORK/metadata.err" || {
        cat "$WORK/metadata.err"
        echo "(the lock is not current: after a change to benches/mistral/Cargo.toml or to the drop-ins' dependencies, run bash scripts/mistral.sh lock)"
        return 1
    }
    # The build graph, features resolved as a build would, every platform.
    in_ws cargo tree --locked --target all -e normal,build,dev --prefix none -f '{p}' \
        >"$WORK/tree.txt" 2>"$WORK/tree.err" || {
        cat "$WORK/tree.err"
        return 1
    }
    read_resolve "${PATCHED[@]}" "${ABSENT[@]}" >"$WORK/resolved.txt"
}

# The resolve holds one path crate named $1: dropins/$1 (that no
# crates.io $1 is there or built is checked apart).
is_drop_in() {
    local name=$1 want="$REPO/dropins/$1/Cargo.toml" lines
    lines=$(resolved "$name" | awk '$3 == "path"')
    echo "$name in the resolve, from a path: ${lines:-none}"
    [[ $(wc -l <<<"$lines") -eq 1 && $(awk '{print $4}' <<<"$lines") == "$want" ]] || {
        echo "expected exactly $want"
        return 1
    }
}

# No crates.io $1 in the resolve.
no_registry() {
    local lines
    lines=$(resolved "$1" | awk '$3 != "path"')
    [[ -z "$lines" ]] || {
        echo "crates.io's $1 in the resolve (name version source manifest dependents):"
        echo "$lines"
        return 1
    }
}

# No crates.io $1 in the build graph (cargo tree): every `$1 vX` line is
# the drop-in, `$1 vX (REPO/dropins/$1)`.
none_built() {
    local name=$1 line path bad=0
    while read -r line; do
        path=$(sed -n 's/^[^ ]* v[^ ]* (\(\/[^)]*\)).*/\1/p' <<<"$line")
        if [[ -z "$path" || "$(cd "$path" 2>/dev/null && pwd -P)" != "$REPO/dropins/$name" ]]; then
            echo "built, not the drop-in: $line"
            bad=1
        fi
    done < <(grep "^$name v" "$WORK/tree.txt" | sort -u)
    grep -q "^$name v" "$WORK/tree.txt" || {
        echo "no $name in cargo tree's graph"
        bad=1
    }
    [[ $bad == 0 ]] || {
        echo "what depends on it: cd benches/mistral && cargo tree --locked --target all -i $name@VERSION"
        resolved "$name"
    }
    return $bad
}

# Every crates.io $1 in the resolve is there only for $2 (name, any
# version): the weak-feature case above.
only_for() {
    local lines
    lines=$(resolved "$1" | awk -v want="$2" '$3 != "path" {
        n = split($5, users, ",")
        for (i = 1; i <= n; i++) if (users[i] !~ "^" want "@") { print; next }
    }')
    [[ -z "$lines" ]] || {
        echo "crates.io's $1 in the resolve for more than $2 (name version source manifest dependents):"
        echo "$lines"
        return 1
    }
}

absent() {
    local lines
    lines=$(resolved "$1")
    [[ -z "$lines" ]] || {
        echo "$1 is in the resolve; patch it in benches/mistral/Cargo.toml if the drop-in's version satisfies its dependents:"
        echo "$lines"
        return 1
    }
}

patches_used() {
    local f
    for f in "$WORK/metadata.err" "$WORK/tree.err"; do
        if [[ -f $f ]] && grep -i "patch.*was not used" "$f"; then
            return 1
        fi
    done
    if grep -A3 '^\[\[patch.unused\]\]' "$WS/Cargo.lock"; then
        echo "Cargo.lock lists an unused patch"
        return 1
    fi
}

cmd_check() {
    mkdir -p "$WORK"
    rm -f "$WORK"/{metadata.json,metadata.err,tree.txt,tree.err,resolved.txt}
    checks=0 failed=0
    check_line "cargo metadata --locked and cargo tree --locked resolve benches/mistral" metadata
    if [[ $failed -eq 0 ]]; then
        local name
        for name in "${PATCHED[@]}"; do
            check_line "$name resolves to dropins/$name" is_drop_in "$name"
        done
        check_line "crates.io's cudarc in the resolve only for ug-cuda (through candle-ug, a weak dependency)" only_for cudarc ug-cuda
        check_line "no crates.io cudarc is built (cargo tree)" none_built cudarc
        check_line "no crates.io cudaforge in the resolve" no_registry cudaforge
        for name in "${ABSENT[@]}"; do
            check_line "no $name in the resolve (nothing to patch)" absent "$name"
        done
    fi
    # Also when cargo stopped: it warns before it refuses to update the lock.
    check_line "cargo printed no \"patch ... was not used\" warning" patches_used
    echo "mistral check: $((checks - failed)) of $checks ok, $failed failed"
    [[ $failed -eq 0 ]]
}

# mistral.rs 0.8.1's own Cargo.lock (its crate carries it), re-resolved
# with our patches: the versions mistral.rs was published with, our path
# crates added, what no longer resolves dropped.
cmd_lock() {
    local src
    mkdir -p "$WORK"
    # Downloads mistralrs if need be (a stale lock is rewritten below).
    in_ws cargo metadata --format-version 1 >/dev/null
    src=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/mistralrs-"$VERSION" 2>/dev/null | head -n1)
    [[ -f "$src/Cargo.lock" ]] || die "no mistralrs $VERSION with its Cargo.lock in cargo's registry"
    cp "$src/Cargo.lock" "$WS/Cargo.lock"
    in_ws cargo metadata --format-version 1 >/dev/null
    echo "mistral: benches/mistral/Cargo.lock rewritten; now: bash scripts/mistral.sh check"
}

case "${1:-}" in
    check) cmd_check ;;
    lock) cmd_lock ;;
    *) sed -n '2,/^set -euo/p' "$0" | sed '$d' >&2; exit 2 ;;
esac

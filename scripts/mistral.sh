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
# What runs on the GPU machine (issue 36, item 3; the subcommands jobs to
# bench below): benches/mistral/seeded-model (a workspace member
# without mistral.rs: `seeded-model DIR [--seed N]` writes a tiny
# MistralForCausalLM with seeded random bf16 weights, tokenizer.json and
# configs, nothing downloaded; `cargo test --locked -p seeded-model`), and
# the package's binary, mistral-on-hip (src/main.rs: `mistral-on-hip run
# DIR [--prompt-len N] [--max-tokens N] [--rounds R] [--warmup W]
# [--no-isq] [--no-paged-attn] [--cpu]` loads DIR offline through
# mistral.rs's API, Q4K in-situ quantization and paged attention on,
# greedy, EOS masked, and prints `tokens: ...`, `prefill_tok_s: X`,
# `decode_tok_s: Y`), built once through the drop-ins and once through real
# cudarc to compare the two.
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
#   amd     not CI (too slow: about 6 minutes cold on 2 cores, 10 s from
#           the cache): the CUDA kernels of mistralrs-quant, -paged-attn
#           and -core built for AMD GPUs by the drop-in, as candle.sh amd
#           builds candle-kernels: `cargo check --locked --keep-going` of
#           the three crates (their build scripts build the kernels) with
#           HIP_PLATFORM=amd, ROCM_PATH from scripts/hip-toolchain.sh,
#           HIP_BUILD_OFFLOAD_ARCH=gfx942,gfx1100, CUDA_COMPUTE_CAP=90, and
#           an `nvcc` stand-in on PATH that answers only mistralrs-quant's
#           `nvcc --version` (release 13.0; it says it is not NVIDIA's).
#           Then one line per check, `mistral amd: NAME ... ok|FAILED`:
#           the stand-in was asked nothing else; every crate took the
#           drop-in's AMD path; the kernel report (hip-info kernels) reads
#           every code object; each source built or not, with its kernels
#           and spills per target or the reason, as
#           benches/mistral/mistral-0.8.1.amd-kernels.txt lists it; every
#           spilling kernel named with its reason in
#           benches/mistral/mistral-0.8.1.amd-spills.txt (cargo xtask
#           amd-spills); the crates' Rust code type-checks against the
#           drop-ins; all of mistral.rs type-checks with hip-nvcc (the
#           repository's nvcc front) on PATH. The exit status is non-zero
#           when one failed.
#   amd-build  that build alone; prints `CRATE OUT_DIR` per crate
#
#   The NVIDIA builds, for the GPU machine (not CI), as candle.sh's:
#   jobs    here: a check-only build of benches/mistral for NVIDIA whose
#           kernel builds write the drop-in's nvcc jobs into $WORK/jobs
#           (5 jobs: candle-kernels 0.10.2, mistralrs-core, -quant,
#           -paged-attn; about 3 minutes on 2 cores)
#   gpu-kernels OUT   GPU machine: run the jobs with nvcc
#           (scripts/nvcc-jobs.sh; about 7 minutes on 16 cores), packed
#           into OUT/mistral-kernels.tar.xz.*
#   unpack-kernels DIR   here: what gpu-kernels brought back, into
#           $MISTRAL_KERNELS
#   build   here: release builds of both binaries (seeded-model,
#           mistral-on-hip) through the drop-ins (`ours`: benches/mistral)
#           and through crates.io's cudarc (`real`: the same workspace
#           without the cudarc patch line, its lock started from
#           mistral.rs's own), with the same kernels, hip-nvcc on PATH
#   bundle DIR   the binaries, stripped, into DIR/mistral.tar.xz
#   run DIR | bench DIR   GPU machine: scripts/mistral-gpu.sh (the tokens
#           of both builds equal; bench: prefill and decode tok/s ratios)
#
# Environment:
#   MISTRAL_WORK   work folder (default <repo>/target/mistral, git-ignored):
#                  cargo's metadata, output and logs
#   MISTRAL_TARGET_DIR   cargo's target folder for `amd` (default
#                  ~/.cache/hip-rs/mistral-target, about 1 GB: reused)
#   MISTRAL_AMD_TARGETS  the AMD targets of `amd` (default gfx942,gfx1100)
#   MISTRAL_NV_TARGET_DIR   cargo's target folder of jobs and build (default
#                  ~/.cache/hip-rs/mistral-nv-target)
#   MISTRAL_KERNELS   the nvcc-built kernels and CUDA link libraries
#                  (default ~/.cache/hip-rs/mistral-kernels)
#   CUDAFORGE_AMD_CACHE  the drop-in's AMD kernel cache (default
#                  ~/.cache/hip-rs/cudaforge-amd, shared with candle.sh)
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
#   builder.get_compute_cap().unwrap_or(80), core uses it when Some. The
#   drop-in answers as real cudaforge 0.1.6 does: .compute_cap(), else
#   CUDA_COMPUTE_CAP, else `nvidia-smi --query-gpu=compute_cap`, else
#   None. candle-kernels calls cudaforge::detect_compute_cap() (the same
#   order). quant: >= 80 builds marlin_*, *_fp8*, *_wmma and sets cfg
#   has_marlin_kernels, has_*fp8_kernels, has_mxfp4_wmma_kernels; below 80
#   it builds the *dummy* sources instead.
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
#   quant's marlin/*.cuh, paged-attn's flashinfer/*.cuh,
#   attention/dtype_float16.cuh, pagedattention.cuh and core's
#   moe_utils.h; CUB in quant's ops/ops.cu and bitsandbytes/dequant.cu,
#   Thrust in core's moe_utils.h and (CUDA 13 only) ops.cu: hipCUB and
#   rocThrust through the layer; WMMA (<mma.h>) in quant's
#   mxfp4/mxfp4_gemm_wmma.cu and core's moe_gemm_wmma.cu;
#   <cuda_fp8.h>/<cuda_fp4.h> in quant's *fp8* and paged-attn.
# - hip-nvcc (dropins/nvcc, `cargo install --path dropins/nvcc`) answers
#   that probe honestly (its 4th line: `hip-nvcc 0.1.0, release 13.0,
#   stands in for CUDA 13.0`); the drop-in's CudaToolkit::detect passes
#   over it, so the kernels still go through the drop-in's AMD path.
# - mistralrs-quant sets CUBLASLT_MATMUL_DESC_TRANSC and
#   CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, which HIP lacks: the cudarc
#   drop-in turns on cuda-compat's synthesized-enums, so they exist (HIP
#   refuses their values at run time).
# - mistral.rs's own lock has cudaforge 0.1.4, whose get_compute_cap is
#   0.1.6's (it detects); cudarc 0.19.4 there, 0.19.10 here.
#
# `cargo check --locked` of benches/mistral on a machine without NVIDIA's
# nvcc or nvidia-smi (Debian 12; `amd` runs it as its last check): with
# hip-nvcc on PATH, HIP_PLATFORM=amd and scripts/hip-toolchain.sh's clang,
# all of mistral.rs with `cuda` type-checks through the drop-ins, and its
# kernels are built for AMD (what builds and what does not:
# mistral-0.8.1.amd-kernels.txt). Without an nvcc on PATH,
# mistralrs-quant's build script panics at build.rs:7 ("Failed to execute
# `nvcc`"), and with Debian's hipcc 5.2 (no gfx942) candle-kernels' PTX
# build fails.

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

# cargo metadata's resolve, as lines for grep and awk (cargo xtask
# resolved):
#   NAME VERSION SOURCE MANIFEST DEPENDENT,DEPENDENT...
# for every package of the resolve named in $@ (SOURCE `path` for a path
# crate; MANIFEST with symbolic links resolved).
read_resolve() { xtask resolved "$WORK/metadata.json" "$@"; }

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
    lines=$(xtask only-for "$WORK/resolved.txt" "$1" "$2") || return 1
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

# ---- amd: the kernels of mistral.rs 0.8.1 built for AMD GPUs by the drop-in

# The AMD targets, as scripts/candle.sh builds candle-kernels for (one
# wave64 target, CDNA 3, one wave32, RDNA 3); MISTRAL_AMD_TARGETS overrides.
AMD_TARGETS=gfx942,gfx1100
# The crates whose build scripts compile .cu files (candle-kernels 0.10.2,
# the fourth, is built on the way: candle-core's `cuda` needs it).
AMD_CRATES=(mistralrs-quant mistralrs-paged-attn mistralrs-core)
AMD_LIST=$WS/mistral-$VERSION.amd-kernels.txt
AMD_SPILLS=$WS/mistral-$VERSION.amd-spills.txt
TARGET=${MISTRAL_TARGET_DIR:-$HOME/.cache/hip-rs/mistral-target}
NVCC_STAND_IN_LINE4="mistral.sh's nvcc stand-in, release 13.0, not NVIDIA's nvcc"

amd_targets() { echo "${MISTRAL_AMD_TARGETS:-$AMD_TARGETS}"; }

# The workspace's xtask (parsing cargo's JSON), whatever the working folder.
xtask() { (cd "$REPO" && cargo xtask "$@"); }

# $WORK/amd-bin/nvcc: what mistralrs-quant's build script runs (`nvcc
# --version`, from PATH; it panics without it), for this build only. It
# answers that query, with CUDA 13.0 as the version the build script reads
# (4th line, 2nd field, 2nd word), and refuses anything else with exit 1:
# no compile job may go through it (HIP_PLATFORM=amd sends the drop-in
# down its AMD path, which never looks for nvcc). Each call is logged in
# $WORK/amd-nvcc-calls.txt, so the build can show what asked it. Not the
# nvcc front of issue 36, item 2.
write_nvcc_stand_in() {
    local bin=$WORK/amd-bin
    mkdir -p "$bin"
    cat >"$bin/nvcc" <<EOF
#!/bin/sh
# Written by scripts/mistral.sh amd; see write_nvcc_stand_in there.
echo "\$*" >>"$WORK/amd-nvcc-calls.txt"
if [ "\$#" -eq 1 ] && [ "\$1" = "--version" ]; then
    echo "nvcc: no CUDA compiler; answers only --version, for mistralrs-quant's build script"
    echo "scripts/mistral.sh amd put it on PATH for one build"
    echo "the cudaforge drop-in compiles the kernels for AMD GPUs (HIP_PLATFORM=amd)"
    echo "$NVCC_STAND_IN_LINE4"
    exit 0
fi
echo "nvcc: scripts/mistral.sh's stand-in answers only --version; refused: \$*" >&2
exit 1
EOF
    chmod +x "$bin/nvcc"
    rm -f "$WORK/amd-nvcc-calls.txt"
}

# amd-build: cargo check of the three crates (their build scripts compile
# the kernels; nothing is linked); prints one `CRATE OUT_DIR` line each.
# --keep-going: a build script runs once those of its dependencies have,
# whether or not their Rust code compiles, so every kernel is built even
# when mistralrs-quant's Rust code does not type-check against the drop-in
# cudarc (then cargo's errors are in $WORK/amd-rust-errors.txt, the check
# `amd` makes of them fails, and amd-build still succeeds).
cmd_amd_build() {
    local root crate out rc=0
    mkdir -p "$WORK"
    root=$(bash "$REPO/scripts/hip-toolchain.sh")
    write_nvcc_stand_in
    local pkgs=()
    for crate in "${AMD_CRATES[@]}"; do pkgs+=(-p "$crate"); done
    local start=$SECONDS
    (cd "$WS" && env PATH="$WORK/amd-bin:$PATH" HIP_PLATFORM=amd ROCM_PATH="$root" \
        HIP_BUILD_OFFLOAD_ARCH="$(amd_targets)" \
        CUDAFORGE_AMD_CACHE="${CUDAFORGE_AMD_CACHE:-$HOME/.cache/hip-rs/cudaforge-amd}" \
        CUDA_COMPUTE_CAP=90 CARGO_INCREMENTAL=0 \
        CARGO_TARGET_DIR="$TARGET" cargo check --locked --keep-going "${pkgs[@]}" --message-format=json \
        >"$WORK/amd.json" 2>"$WORK/amd.log") || rc=$?
    echo "mistral: cargo check of ${AMD_CRATES[*]} for AMD: $((SECONDS - start)) s, exit status $rc" >&2
    rust_errors >"$WORK/amd-rust-errors.txt"
    for crate in "${AMD_CRATES[@]}"; do
        out=$(xtask out-dir "$crate" <"$WORK/amd.json" 2>/dev/null) || {
            tail -n 60 "$WORK/amd.log" >&2
            cat "$WORK/amd-rust-errors.txt" >&2
            die "$crate's build script did not run to the end: its kernels are not built for AMD (log: $WORK/amd.log)"
        }
        echo "$crate $out"
    done
}

# rustc's errors in cargo's JSON ($WORK/amd.json): `PACKAGE: MESSAGE` lines.
rust_errors() { xtask rust-errors <"$WORK/amd.json"; }

# The Rust code of the three crates type-checks against the drop-ins.
amd_rust_checks() {
    echo "cargo check --keep-going: $(grep -c . "$WORK/amd-rust-errors.txt" || true) errors"
    cat "$WORK/amd-rust-errors.txt"
    grep -o "error: could not compile \`[^\`]*\` ([^)]*)" "$WORK/amd.log" || true
    [[ ! -s $WORK/amd-rust-errors.txt ]]
}

# The current AMD builds of the crates: `CRATE DIR` per build folder
# (OUT_DIR/cudaforge-amd/<key>/, which keeps every key it was ever built
# with): of the builds of one set of sources for these targets, the newest.
current_amd_builds() { xtask mistral-amd builds "$WORK/amd-out-dirs.txt" "$(amd_targets)"; }

# The kernel report (hip-info kernels, the code-object reader of
# hip-diagnostics) of every build's objects, one JSON file per build:
# $WORK/amd-kernels/CRATE-KEY.json.
amd_kernel_reports() {
    local crate dir
    rm -rf "$WORK/amd-kernels"
    mkdir -p "$WORK/amd-kernels"
    # Through cargo run: the binary is where cargo builds it, under
    # CARGO_TARGET_DIR when that is set.
    (cd "$REPO" && cargo build -q -p hip-diagnostics --bin hip-info) || return 1
    while read -r crate dir; do
        (cd "$REPO" && cargo run -q -p hip-diagnostics --bin hip-info -- kernels --json "$dir/obj") \
            >"$WORK/amd-kernels/$crate-$(basename "$dir").json" || return 1
        echo "$crate: $(basename "$dir"): $(xtask mistral-amd kernels "$WORK/amd-kernels/$crate-$(basename "$dir").json")"
    done <"$WORK/amd-builds.txt"
}

# The list: one line per source of each crate, from the drop-in's reports
# and the kernel reports (the list's header says how to read it).
amd_kernel_list() {
    sed -n '/^#/p' "$AMD_LIST" 2>/dev/null || true
    xtask mistral-amd list "$(amd_targets)" "$WORK/amd-kernels" "$WORK/amd-builds.txt"
}

# One AMD check: its output is shown, then `mistral amd: NAME ... ok|FAILED`.
amd_line() {
    local name=$1
    shift
    checks=$((checks + 1))
    if "$@" >"$WORK/amd-check.log" 2>&1; then
        sed 's/^/    /' "$WORK/amd-check.log"
        echo "mistral amd: $name ... ok"
    else
        sed 's/^/    /' "$WORK/amd-check.log"
        echo "mistral amd: $name ... FAILED"
        failed=$((failed + 1))
    fi
}

# The stand-in answered mistralrs-quant's `nvcc --version` (when its build
# script ran, not when cargo found it fresh) and was asked nothing else.
amd_stand_in_version_only() {
    local calls=$WORK/amd-nvcc-calls.txt
    echo "calls of the stand-in: $(sed 's/^/nvcc /' "$calls" 2>/dev/null | paste -sd, - || true)"
    if [[ -s $calls ]] && grep -vqx -- '--version' "$calls"; then
        echo "the stand-in was asked more than --version"
        return 1
    fi
    ! grep -q "stand-in answers only --version; refused" "$WORK/amd.log"
}

# Every crate's build script compiled on the drop-in's AMD path.
amd_path_taken() {
    local crate out bad=0
    grep -o 'warning: [a-z-]*@[0-9.]*: cudaforge: compiling [^(]*' "$WORK/amd.log" | sort -u || true
    for crate in "${AMD_CRATES[@]}"; do
        grep -q "^$crate " "$WORK/amd-builds.txt" || { echo "$crate: no AMD build folder"; bad=1; }
    done
    # nvcc's command lines would have written OUT_DIR/cudaforge/.
    while read -r crate out; do
        [[ ! -d $out/cudaforge ]] || { echo "$crate: $out/cudaforge exists (an nvcc build)"; bad=1; }
    done <"$WORK/amd-out-dirs.txt"
    return $bad
}

amd_list_matches() {
    amd_kernel_list >"$WORK/amd-kernels.txt" || return 1
    xtask mistral-amd summary "$WORK/amd-kernels.txt" || return 1
    diff -u "$AMD_LIST" "$WORK/amd-kernels.txt" || {
        echo "the fresh list is $WORK/amd-kernels.txt: review it, then copy it to $AMD_LIST"
        return 1
    }
}

# cargo xtask amd-spills (candle.sh's) over the three crates' builds at
# once: an OUT_DIR of links to their current build folders.
amd_spills() {
    local crate dir all=$WORK/amd-out
    rm -rf "$all"
    mkdir -p "$all/cudaforge-amd"
    while read -r crate dir; do
        ln -s "$dir" "$all/cudaforge-amd/$crate-$(basename "$dir")"
    done <"$WORK/amd-builds.txt"
    xtask amd-spills "$all" "$AMD_SPILLS" "$(amd_targets)" "$@"
}

# All of mistral.rs (the package of benches/mistral: mistralrs with
# `cuda`) type-checks for AMD with hip-nvcc, the repository's nvcc front
# (dropins/nvcc, installed into $WORK/nvcc), on PATH in place of the
# stand-in: mistralrs-quant's build script reads its --version, the drop-in
# passes over it and builds the kernels on its AMD path (from the cache
# the builds above filled).
amd_whole_with_front() {
    local root
    root=$(bash "$REPO/scripts/hip-toolchain.sh")
    install_front || return 1
    "$WORK/nvcc/bin/nvcc" --version | sed -n 4p
    (cd "$WS" && env PATH="$WORK/nvcc/bin:$PATH" HIP_PLATFORM=amd ROCM_PATH="$root" \
        HIP_BUILD_OFFLOAD_ARCH="$(amd_targets)" \
        CUDAFORGE_AMD_CACHE="${CUDAFORGE_AMD_CACHE:-$HOME/.cache/hip-rs/cudaforge-amd}" \
        CUDA_COMPUTE_CAP=90 CARGO_INCREMENTAL=0 \
        CARGO_TARGET_DIR="$TARGET" cargo check --locked 2>&1 | tail -n 3)
    [[ ${PIPESTATUS[0]} -eq 0 ]]
}

# amd: mistral.rs's kernels built for AMD and checked without a GPU (see
# the header).
cmd_amd() {
    local start=$SECONDS
    mkdir -p "$WORK"
    cmd_amd_build >"$WORK/amd-out-dirs.txt" || exit 1
    current_amd_builds >"$WORK/amd-builds.txt" || exit 1
    echo "mistral amd: built for $(amd_targets) in $(awk '{print $1}' "$WORK/amd-builds.txt" | paste -sd' ' -) ($((SECONDS - start)) s)"
    checks=0 failed=0
    amd_line "the nvcc stand-in was asked only --version (mistralrs-quant's build script)" amd_stand_in_version_only
    amd_line "the drop-in built every crate on its AMD path (no nvcc command line)" amd_path_taken
    amd_line "the kernel report (hip-info kernels) reads every build's code objects" amd_kernel_reports
    if [[ $failed -eq 0 ]]; then
        amd_line "every source built or not as $(basename "$AMD_LIST") lists it (kernels and spills per target, reasons)" amd_list_matches
        amd_line "every spilling kernel named with its reason; bounds in the code objects (xtask amd-spills)" amd_spills
    fi
    amd_line "the crates' Rust code type-checks against the drop-ins (cargo check)" amd_rust_checks
    amd_line "all of mistral.rs type-checks with hip-nvcc on PATH (cargo check of benches/mistral)" amd_whole_with_front
    echo "mistral amd: $((checks - failed)) of $checks ok, $failed failed ($((SECONDS - start)) s)"
    [[ $failed -eq 0 ]]
}

# hip-nvcc, the repository's nvcc front (dropins/nvcc), into $WORK/nvcc/bin:
# what mistralrs-quant's build script runs (`nvcc --version`, from PATH).
install_front() {
    (cd "$REPO" && CARGO_INCREMENTAL=0 CARGO_TARGET_DIR="$TARGET" \
        cargo install -q --debug --locked --path dropins/nvcc --root "$WORK/nvcc")
}

# ---- nvidia: mistral.rs built here for the GPU machine, once through the
# drop-ins (`ours`: benches/mistral as committed) and once through
# crates.io's cudarc (`real`: the same workspace without the cudarc patch
# line), both with the same nvcc-built kernels: `jobs` writes the drop-in's
# nvcc jobs here, `gpu-kernels` runs them where nvcc is, `unpack-kernels`
# brings them back, and the builds take them (CUDAFORGE_PREBUILT).

NV_TARGET=${MISTRAL_NV_TARGET_DIR:-$HOME/.cache/hip-rs/mistral-nv-target}
NV_KERNELS=${MISTRAL_KERNELS:-$HOME/.cache/hip-rs/mistral-kernels}
# cudarc's version as CUDA 13.0, the GPU machine's toolkit (real cudarc
# reads it instead of asking nvcc).
REAL_CUDARC_CUDA_VERSION=13000

# The variables of every NVIDIA build here (NV_ENV, for env): the same for
# the jobs and both builds, so that the build scripts' outputs are shared.
set_nv_env() {
    NV_ENV=(HIP_PLATFORM=nvidia CUDA_COMPUTE_CAP=90 CARGO_INCREMENTAL=0
        "CARGO_TARGET_DIR=$NV_TARGET" "PATH=$WORK/nvcc/bin:$PATH"
        "CUDAFORGE_JOBS=$WORK/jobs" "CUDARC_CUDA_VERSION=$REAL_CUDARC_CUDA_VERSION"
        "CUDA_PATH=$NV_KERNELS/cuda")
}

# jobs: a check-only build (no nvcc: nothing is compiled) of benches/mistral
# for NVIDIA, whose kernel builds write their jobs into $WORK/jobs.
cmd_jobs() {
    mkdir -p "$WORK"
    install_front
    rm -rf "$WORK/jobs"
    local start=$SECONDS
    set_nv_env
    in_ws env "${NV_ENV[@]}" CUDAFORGE_CHECK_ONLY=1 cargo check --locked --bins \
        >"$WORK/jobs.log" 2>&1 || {
        tail -n 40 "$WORK/jobs.log" >&2
        die "the check-only build failed (log: $WORK/jobs.log)"
    }
    echo "mistral: $(ls "$WORK/jobs" | wc -l) kernel jobs in $WORK/jobs ($((SECONDS - start)) s): $(ls "$WORK/jobs" | tr '\n' ' ')"
}

cmd_gpu_kernels() {
    bash "$REPO/scripts/nvcc-jobs.sh" run "$WORK/jobs" "${1:?gpu-kernels OUT}" mistral-kernels
}

cmd_unpack_kernels() {
    bash "$REPO/scripts/nvcc-jobs.sh" unpack "${1:?unpack-kernels DIR}" mistral-kernels "$NV_KERNELS"
}

# $WORK/ws-real: benches/mistral without the cudarc patch line. Its lock
# starts from mistral.rs's own published one (which pins crates.io's
# cudarc 0.19.4 and its checksum), as `lock` does for ours.
write_real_workspace() {
    local ws=$WORK/ws-real src member
    rm -rf "$ws"
    mkdir -p "$ws"
    grep -v '^cudarc = ' "$WS/Cargo.toml" | sed "s|\.\./\.\./dropins/|$REPO/dropins/|" >"$ws/Cargo.toml"
    cp -r "$WS/src" "$ws/"
    for member in "$WS"/*/Cargo.toml; do
        cp -r "$(dirname "$member")" "$ws/"
    done
    src=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/mistralrs-"$VERSION" 2>/dev/null | head -n1)
    [[ -f "$src/Cargo.lock" ]] || die "no mistralrs $VERSION with its Cargo.lock in cargo's registry (run check first)"
    cp "$src/Cargo.lock" "$ws/Cargo.lock"
}

# build_mode ours|real: the release binaries of the workspace, copied to
# $WORK/exe-MODE/ (the builds share a target folder, where a binary's path
# is the same for both).
build_mode() {
    local mode=$1 dir=$WS locked=--locked start=$SECONDS
    if [[ $mode == real ]]; then
        write_real_workspace
        dir=$WORK/ws-real locked=
    fi
    set_nv_env
    (cd "$dir" && env "${NV_ENV[@]}" "CUDAFORGE_PREBUILT=$NV_KERNELS/kernels" \
        cargo build --release $locked --workspace --bins --message-format=json) \
        >"$WORK/nv-$mode.json" 2>"$WORK/nv-$mode.log" || {
        tail -n 40 "$WORK/nv-$mode.log" >&2
        die "the $mode build failed (log: $WORK/nv-$mode.log)"
    }
    rm -rf "$WORK/exe-$mode"
    mkdir -p "$WORK/exe-$mode"
    local kind pkg target path
    xtask executables --kinds <"$WORK/nv-$mode.json" |
        while IFS=$'\t' read -r kind pkg target path; do
            if [[ $kind == bin ]]; then cp "$path" "$WORK/exe-$mode/$target"; fi
        done
    local exe
    for exe in mistral-on-hip seeded-model; do
        [[ -x "$WORK/exe-$mode/$exe" ]] || die "no $exe in the $mode build"
    done
    if [[ $mode == real ]]; then
        # Real cudarc, not the drop-in: the build's own resolve says so.
        grep -q '"package_id":"registry+[^"]*#cudarc@0.19' "$WORK/nv-$mode.json" ||
            die "the real build did not build crates.io's cudarc"
    fi
    echo "mistral: $mode: $(ls "$WORK/exe-$mode" | tr '\n' ' ')($((SECONDS - start)) s)"
}

cmd_build() {
    [[ -d "$NV_KERNELS/kernels" ]] || die "no kernels in $NV_KERNELS/kernels: run 'jobs' here, 'gpu-kernels' on a machine with nvcc, then 'unpack-kernels'"
    install_front
    build_mode ours
    build_mode real
}

# bundle DIR: DIR/mistral.tar.xz, the builds' binaries (stripped) for
# scripts/mistral-gpu.sh.
cmd_bundle() {
    local dir=${1:?bundle DIR} mode
    rm -rf "$dir/mistral"
    for mode in ours real; do
        mkdir -p "$dir/mistral/$mode"
        cp "$WORK/exe-$mode"/* "$dir/mistral/$mode/"
        strip "$dir/mistral/$mode"/*
    done
    # The two builds share most bytes: one xz stream with a window larger
    # than a binary stores them about once.
    tar -C "$dir" -cf - mistral | xz -T1 --lzma2=preset=6,dict=512MiB >"$dir/mistral.tar.xz"
    rm -rf "$dir/mistral"
    echo "mistral: bundle $(du -m "$dir/mistral.tar.xz" | cut -f1) MiB in $dir/mistral.tar.xz"
}

case "${1:-}" in
    check) cmd_check ;;
    lock) cmd_lock ;;
    amd) cmd_amd ;;
    amd-build) cmd_amd_build ;;
    jobs) cmd_jobs ;;
    gpu-kernels) shift; cmd_gpu_kernels "$@" ;;
    unpack-kernels) shift; cmd_unpack_kernels "$@" ;;
    build) cmd_build ;;
    bundle) shift; cmd_bundle "$@" ;;
    run | bench) bash "$REPO/scripts/mistral-gpu.sh" "$@" ;;
    *) sed -n '2,/^set -euo/p' "$0" | sed '$d' >&2; exit 2 ;;
esac

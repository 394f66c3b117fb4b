#!/usr/bin/env bash
# Hugging Face's candle on this repository's stack, with no edit to candle:
# candle-core, candle-nn and candle-transformers 0.11.1 built with
#   [patch.crates-io] cudarc = dropins/cudarc       (cuda-compat under cudarc's name)
#                     cudaforge = dropins/cudaforge (the kernel builder)
# and, for comparison, against real cudarc (only cudaforge patched, so both
# builds run the same nvcc-built kernels).
#
# No candle code is committed: `fetch` takes the published crates (cargo
# downloads them; their sha256 is pinned below) and unpacks them under
# $CANDLE_WORK (git-ignored).
#
# Subcommands:
#   fetch          download and verify candle-core/candle-nn, unpack them
#   amd            CI, no GPU: candle-kernels built for AMD GPUs by the
#                  drop-in, and the static checks that stand in for a GPU
#                  (see cmd_amd). One line per check: `candle amd: NAME ... ok|FAILED`.
#                  CI builds one wave64 and one wave32 target ($AMD_TARGETS);
#                  CANDLE_AMD_TARGETS=all builds the four of $AMD_TARGETS_ALL.
#   amd-build      that build alone; prints candle-kernels' OUT_DIR
#   emu-build      candle-core's and candle-nn's suites and the seeded
#                  models built for AMD GPUs (no GPU: to run on hip-emu)
#   emu [DEVICES]  those run on hip-emu's emulated gfx942 and gfx1100,
#                  against the residue of expected failures and candle's
#                  CPU backend (see cmd_emu); prints its time
#   emu-proxy [DEVICES]  the quantized checks alone, with the emulator's
#                  counters per output as a table (the performance proxy)
#   emu-ci [DEVICES]  CI's subset: the build of candle-core's tensor_tests,
#                  candle-nn's ops and the seeded models alone, then `emu`
#   check          CI, no GPU, no nvcc: the patch takes effect (cargo
#                  metadata), and candle-core, candle-nn (with their tests)
#                  and benches/candle/llama_steps.rs type-check against the
#                  drop-in (CUDAFORGE_CHECK_ONLY=1: no kernels, cannot link).
#                  One line per check: `candle check: NAME ... ok|FAILED`.
#   jobs           write the kernel jobs (scripts for a machine with nvcc)
#                  into $CANDLE_WORK/jobs
#   build          release test binaries of candle-core and candle-nn and
#                  llama_steps, for `ours` and `real`; needs the kernels
#                  built from the jobs by nvcc ($CUDAFORGE_PREBUILT)
#   bundle DIR     pack those (stripped) into DIR/candle.tar.xz
#   gpu-kernels OUT   GPU machine: run the jobs with nvcc; pack the kernels
#                  and the CUDA link libraries into OUT/candle-kernels.tar.xz.*
#   unpack-kernels DIR   here: unpack what gpu-kernels brought back into the cache
#   run DIR        GPU machine: both suites, both builds; the model compared
#   bench DIR      GPU machine: llama_steps step time, ours/real, interleaved
#
# Environment:
#   CANDLE_WORK        work folder (default <repo>/target/candle)
#   CANDLE_TARGET_DIR  cargo's target folder for candle (default
#                      ~/.cache/hip-rs/candle-target: reused across runs)
#   CANDLE_KERNELS     kernels and CUDA link libraries from gpu-kernels
#                      (default ~/.cache/hip-rs/candle-kernels)
#   CUDA_COMPUTE_CAP   the GPU the kernels are for (default 90: H100/H200)
#   BENCH_ROUNDS       rounds of each build in `bench` (default 9)
set -euo pipefail

CANDLE_VERSION=0.11.1
# sha256 of the .crate files, the "cksum" of their crates.io index entries.
declare -A CRATE_SHA256=(
    [candle-core]=d11c8be87cfbaef9ebb62fb3f850d1fc8e00cc1d11d393fdbe55a4d5c2cdb325
    [candle-nn]=437fabe77547c2447c7bdf3cc946e19db29a2832440176b419f77c80b0a9a05e
)
# The AMD targets CI builds candle-kernels for (CANDLE_AMD_TARGETS
# overrides): one wave64 target, CDNA 3, and one wave32, RDNA 3. Each
# target costs about 4 minutes of a cold build on two cores.
AMD_TARGETS=gfx942,gfx1100
# All four, for developers (CANDLE_AMD_TARGETS=all): CDNA 2 and 3, RDNA 2
# and 3. The list of spilling kernels covers these.
AMD_TARGETS_ALL=gfx90a,gfx942,gfx1030,gfx1100
# cudarc's version as CUDA 13.0 (the GPU machine's toolkit) for real cudarc.
REAL_CUDARC_CUDA_VERSION=13000

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=${CANDLE_WORK:-$REPO/target/candle}
TARGET=${CANDLE_TARGET_DIR:-$HOME/.cache/hip-rs/candle-target}
KERNELS=${CANDLE_KERNELS:-$HOME/.cache/hip-rs/candle-kernels}
export CUDA_COMPUTE_CAP=${CUDA_COMPUTE_CAP:-90}

die() {
    echo "candle: $*" >&2
    exit 1
}

cmd_fetch() {
    local name args=()
    for name in "${!CRATE_SHA256[@]}"; do
        args+=("$name" "$CANDLE_VERSION" "${CRATE_SHA256[$name]}")
    done
    bash "$REPO/scripts/fetch-crates.sh" "$WORK/src" "${args[@]}"
}

# candle-kernels' sources, as cargo unpacked them for the build.
kernels_src() {
    local dir
    dir=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/candle-kernels-"$CANDLE_VERSION"/src 2>/dev/null | head -n1)
    [[ -n "$dir" ]] || die "no candle-kernels $CANDLE_VERSION sources in cargo's registry (the AMD build unpacks them)"
    echo "$dir"
}

# The workspace of one build: $1 = ours (cudarc patched to the drop-in),
# real (crates.io's cudarc) or emu (ours, its kernels built for AMD GPUs,
# run on hip-emu). candle-core and candle-nn are members (their
# tests are built), patched so that candle-transformers uses them too.
write_workspace() {
    local mode=$1 ws="$WORK/ws-$1" name
    mkdir -p "$ws/llama-steps"
    for name in candle-core candle-nn; do
        if [[ ! -f "$ws/$name/.verified" ]] || ! cmp -s "$ws/$name/.verified" "$WORK/src/$name/.verified"; then
            rm -rf "$ws/$name"
            cp -r "$WORK/src/$name" "$ws/$name"
        fi
    done
    {
        cat <<EOF
# Generated by scripts/candle.sh ($mode); do not edit.
[workspace]
resolver = "2"
members = ["candle-core", "candle-nn", "llama-steps"]

[patch.crates-io]
candle-core = { path = "candle-core" }
candle-nn = { path = "candle-nn" }
cudaforge = { path = "$REPO/dropins/cudaforge" }
EOF
        [[ $mode == real ]] || echo "cudarc = { path = \"$REPO/dropins/cudarc\" }"
        printf '\n[profile.release]\ndebug = false\n'
        # The emulator's build: candle's host code at lower optimisation.
        # On the emulated device the kernels' interpretation takes the
        # time, not the host code; the build was most of CI's step (cold,
        # 2 cores: candle-core 127 s and candle-transformers 86 s at
        # opt-level 3, one after the other).
        if [[ $mode == emu ]]; then
            printf '%s\n' '' '[profile.release.package.candle-core]' 'opt-level = 1' \
                '' '[profile.release.package.candle-nn]' 'opt-level = 1' \
                '' '[profile.release.package.candle-transformers]' 'opt-level = 0'
        fi
    } >"$ws/Cargo.toml"
    cat >"$ws/llama-steps/Cargo.toml" <<EOF
# Generated by scripts/candle.sh; do not edit.
[package]
name = "llama-steps"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
candle-core = { version = "=$CANDLE_VERSION", features = ["cuda"] }
candle-nn = { version = "=$CANDLE_VERSION", features = ["cuda"] }
candle-transformers = { version = "=$CANDLE_VERSION", features = ["cuda"] }
EOF
    if [[ $mode == emu ]]; then
        # The emulator's build has the seeded models alone, as a test
        # without libtest's harness (a program of its own, as a binary
        # is), so that one `cargo test` builds it with the suites. Built
        # by a `cargo build` of its own, it resolved features without the
        # suites' dev-dependencies (a proc-macro's syn gained one), and
        # every crate under candle-transformers was built again.
        printf '\n[[test]]\nname = "emu_models"\npath = "%s"\nharness = false\n' \
            "$REPO/benches/candle/emu_models.rs" >>"$ws/llama-steps/Cargo.toml"
    else
        for name in llama_steps candle_models emu_models; do
            printf '\n[[bin]]\nname = "%s"\npath = "%s"\n' "$name" "$REPO/benches/candle/$name.rs" \
                >>"$ws/llama-steps/Cargo.toml"
        done
    fi
    # candle's own lock file: the dependency versions candle was released with.
    [[ -f "$ws/Cargo.lock" ]] || cp "$WORK/src/candle-core/Cargo.lock" "$ws/Cargo.lock"
}

# The workspace's xtask (parsing cargo's JSON), whatever the working folder.
xtask() { (cd "$REPO" && cargo xtask "$@"); }

in_ws() {
    local mode=$1
    shift
    (cd "$WORK/ws-$mode" && CARGO_TARGET_DIR="$TARGET" "$@")
}


check_line() {
    local name=$1
    shift
    if "$@" >"$WORK/check.log" 2>&1; then
        echo "candle check: $name ... ok"
    else
        cat "$WORK/check.log" >&2
        echo "candle check: $name ... FAILED"
        failed=1
    fi
}

# The package cudarc resolves to, and that no crates.io cudarc remains.
patch_used() {
    in_ws ours cargo metadata --format-version 1 >"$WORK/metadata.json"
    xtask patch-used "$WORK/metadata.json" "$REPO"
}

cmd_check() {
    cmd_fetch
    write_workspace ours
    failed=0
    check_line "the patch takes effect (cudarc and cudaforge resolve to dropins/)" patch_used
    local pkg features
    for pkg in candle-core candle-nn llama-steps; do
        # llama-steps turns on candle's `cuda` itself.
        features=(--features cuda)
        [[ $pkg == llama-steps ]] && features=()
        check_line "$pkg type-checks against the drop-in (cuda, with tests)" \
            in_ws ours env CUDAFORGE_CHECK_ONLY=1 CUDAFORGE_JOBS="$WORK/jobs" \
            cargo check -p "$pkg" --tests "${features[@]}"
    done
    # A candle feature we do not provide stops the build and names itself.
    check_line "candle's cudnn feature fails at compile time, naming it" cudnn_refused
    return $failed
}

cudnn_refused() {
    if in_ws ours env CUDAFORGE_CHECK_ONLY=1 CUDAFORGE_JOBS="$WORK/jobs" \
        cargo check -p candle-core --features cudnn >"$WORK/cudnn.log" 2>&1; then
        echo "candle-core with cudnn type-checked against the drop-in" >&2
        return 1
    fi
    grep -q 'cudarc feature `cudnn`: cuDNN' "$WORK/cudnn.log" || {
        cat "$WORK/cudnn.log" >&2
        return 1
    }
}

cmd_jobs() {
    cmd_fetch
    write_workspace ours
    rm -rf "$WORK/jobs"
    in_ws ours env HIP_PLATFORM=nvidia CUDAFORGE_CHECK_ONLY=1 CUDAFORGE_JOBS="$WORK/jobs" cargo check -p candle-core --features cuda
    echo "candle: jobs in $WORK/jobs: $(ls "$WORK/jobs" | tr '\n' ' ')"
}

# Builds one mode; prints "KIND<TAB>NAME<TAB>PATH" per executable.
build_mode() {
    # The same variables for both builds (only real cudarc reads the last
    # two): candle-kernels is then one build in the shared target folder,
    # not rebuilt, with all that depends on it, each time the mode changes.
    local mode=$1 pkg env=(HIP_PLATFORM=nvidia CUDAFORGE_PREBUILT="$KERNELS/kernels" CUDAFORGE_JOBS="$WORK/jobs"
        CUDARC_CUDA_VERSION=$REAL_CUDARC_CUDA_VERSION CUDA_PATH="$KERNELS/cuda")
    write_workspace "$mode"
    {
        for pkg in candle-core candle-nn; do
            in_ws "$mode" env "${env[@]}" cargo test --release --no-run -p $pkg --features cuda --message-format=json
        done
        in_ws "$mode" env "${env[@]}" cargo build --release -p llama-steps --message-format=json
    } >"$WORK/$mode.json"
    # The suites and the model, not the examples that cargo test builds.
    # The builds share a target folder, where a binary's path
    # (release/llama_steps) is the same for both: each build's executables
    # are copied out before the other build overwrites them.
    local kind name path
    rm -rf "$WORK/exe-$mode"
    mkdir -p "$WORK/exe-$mode"
    xtask executables --kinds <"$WORK/$mode.json" |
        awk -F'\t' -v OFS='\t' '$1 == "test" || $1 == "bin" {print $1, $2 "--" $3, $4}' |
        while IFS=$'\t' read -r kind name path; do
            cp "$path" "$WORK/exe-$mode/$name"
            printf '%s\t%s\t%s\n' "$kind" "$name" "$WORK/exe-$mode/$name"
        done >"$WORK/$mode.tsv"
    echo "candle: $mode: $(wc -l <"$WORK/$mode.tsv") executables"
}

# The emulator build: candle-core's and candle-nn's test suites and the
# seeded models, cudarc patched to the drop-in and candle-kernels built for
# AMD GPUs ($(amd_targets)) by the cudaforge drop-in, in a target folder of
# its own ($CANDLE_EMU_TARGET_DIR): the kernels differ from the NVIDIA
# builds', and so would everything that depends on them. Writes
# "KIND<TAB>NAME<TAB>PATH" per executable to $WORK/emu.tsv.
cmd_emu_build() {
    local root target=${CANDLE_EMU_TARGET_DIR:-$HOME/.cache/hip-rs/candle-emu-target}
    cmd_fetch >&2
    root=$(bash "$REPO/scripts/hip-toolchain.sh")
    write_workspace emu
    local env=(HIP_PLATFORM=amd ROCM_PATH="$root" HIP_BUILD_OFFLOAD_ARCH="$(amd_targets)"
        CUDAFORGE_AMD_CACHE="${CUDAFORGE_AMD_CACHE:-$HOME/.cache/hip-rs/cudaforge-amd}")
    # One cargo run for the suites and the models, so that every crate is
    # built once, with one feature set. CANDLE_EMU_SUBSET=1 (CI): one
    # suite of each crate, the ops.
    local select=(-p candle-core -p candle-nn -p llama-steps)
    [[ ${CANDLE_EMU_SUBSET:-} == 1 ]] &&
        select=(-p candle-core --test tensor_tests -p candle-nn --test ops -p llama-steps --test emu_models)
    (cd "$WORK/ws-emu" && env "${env[@]}" CARGO_TARGET_DIR="$target" \
        cargo test --release --no-run "${select[@]}" --features candle-core/cuda,candle-nn/cuda \
        --message-format=json) >"$WORK/emu.json" || {
        grep -v '^{' "$WORK/emu.json" >&2 || true
        die "candle did not build for AMD"
    }
    xtask executables --kinds <"$WORK/emu.json" |
        awk -F'\t' -v OFS='\t' '$1 == "test" || $1 == "bin" {print $1, $2 "--" $3, $4}' >"$WORK/emu.tsv"
    echo "candle: emu: $(wc -l <"$WORK/emu.tsv") executables"
}

# emu: candle's suites and the seeded models on hip-emu's emulated AMD
# GPUs ($1: a comma list of gfx942 and gfx1100, default both), from the
# build of emu-build (made first when missing). Each test binary runs from
# its crate folder (candle's tests read data files there) with the emulator
# as the HIP runtime, through a ROCm sysroot's loader: on gfx1100 6.4's
# (hipBLAS and rocBLAS, as in scripts/emu-tier.sh; hipRAND and rocRAND
# from the rand-6.4 sysroot), on gfx942 7.2's (the first Debian rocBLAS
# and rocRAND with gfx942 kernels). Every failing test
# must be listed, with its cause, in $EMU_RESIDUE; a listed test that
# passes fails the run too (the list stays true). Then emu_models (the
# seeded Llama and BERT, f32 and bf16, and the quantized matmuls) against
# candle's CPU backend, with the emulator's counters: scratch bytes of each
# quantized kernel's launches. Logs in $WORK/emu-out; prints the time taken.
EMU_RESIDUE=$REPO/benches/candle/candle-$CANDLE_VERSION.emu-residue.txt
# The emulator as the HIP runtime, and the sysroots' libraries: sets
# EMU_SO, EMU_LIB (ROCm 6.4's), EMU_RAND (hipRAND's) and EMU_LIB72 (7.2's).
emu_setup() {
    local line alias
    [[ -f "$WORK/emu.tsv" ]] || cmd_emu_build
    (cd "$REPO" && cargo build -q -p hip-emu --lib) || die "hip-emu did not build"
    EMU_SO=${CARGO_TARGET_DIR:-$REPO/target}/debug/libhip_emu.so
    line=$(bash "$REPO/scripts/rocm-runtimes.sh" 6.4) || die "no ROCm 6.4 sysroot"
    EMU_LIB=${line#* }/usr/lib/x86_64-linux-gnu
    # hipRAND and rocRAND: candle makes a generator for every device.
    line=$(bash "$REPO/scripts/rocm-runtimes.sh" rand-6.4) || die "no hipRAND sysroot"
    EMU_RAND=${line#* }/usr/lib/x86_64-linux-gnu
    # The gfx942 runs in ROCm 7.2's sysroot: its rocBLAS and rocRAND have
    # gfx942 kernels (6.4's have none).
    line=$(bash "$REPO/scripts/rocm-runtimes.sh" 7.2) || die "no ROCm 7.2 sysroot"
    EMU_LIB72=${line#* }/usr/lib/x86_64-linux-gnu
    # The HIP runtime under the names the libraries were linked against:
    # rocBLAS and hipBLAS (ROCm 6.4), candle-kernels' launchers (the
    # toolchain's runtime at build time).
    alias=$WORK/emu-lib
    mkdir -p "$alias"
    ln -sfn "$EMU_SO" "$alias/libamdhip64.so.7"
    ln -sfn "$EMU_SO" "$alias/libamdhip64.so.6"
    ln -sfn "$EMU_SO" "$alias/libamdhip64.so.5"
}

# The loader and library path of device $1's sysroot: sets EMU_LD and
# EMU_PATH (after emu_setup).
emu_device() {
    if [[ $1 == gfx942 ]]; then
        EMU_LD=$EMU_LIB72/ld-linux-x86-64.so.2
        EMU_PATH="$WORK/emu-lib:$EMU_LIB72"
    else
        EMU_LD=$EMU_LIB/ld-linux-x86-64.so.2
        EMU_PATH="$WORK/emu-lib:$EMU_LIB:$EMU_RAND"
    fi
}

# A command on emulated device $1. A kernel's fault ends the process
# (HIP_EMU_ON_FAULT=abort, as ROCm does): candle's C++ launchers do not
# check their launches, so a fault would otherwise leave outputs unwritten
# and nothing failing.
on_emu() {
    env -u ROCM_PATH -u HIP_PATH HIP_PLATFORM=emulated HIP_SYS_LIBRARY_PATH="$EMU_SO" \
        HIP_EMU_DEVICES="$1" HIP_EMU_TIMEOUT=300 HIP_EMU_ON_FAULT=abort "${@:2}"
}

# emu_models PART on device DEV with the emulator's counters, into
# OUT/DEV-models-PART.{log,err}; its checks appended to OUT/DEV.results.
emu_models_part() {
    local dev=$1 part=$2 out=$3 path rc=0 t0=$SECONDS
    path=$(awk -F'\t' '$2 == "llama-steps--emu_models" {print $3}' "$WORK/emu.tsv")
    echo "candle emu: $dev: emu_models $part"
    on_emu "$dev" HIP_EMU_COUNTERS=1 timeout 1800 "$EMU_LD" --library-path "$EMU_PATH" "$path" "$part" \
        >"$out/$dev-models-$part.log" 2>"$out/$dev-models-$part.err" || rc=$?
    sed 's/^/    /' "$out/$dev-models-$part.log"
    xtask emu-models-results "$dev" "$part" "$rc" "$out/$dev-models-$part.log" "$out/$dev-models-$part.err" \
        "$out/$dev.results"
    echo "candle emu: $dev: emu_models $part took $((SECONDS - t0)) s"
}

cmd_emu() {
    local devices=${1:-gfx942,gfx1100} started=$SECONDS dev kind name path crate log rc t0
    local out=$WORK/emu-out status=0 part
    emu_setup
    rm -rf "$out"
    mkdir -p "$out"
    for dev in ${devices//,/ }; do
        emu_device "$dev"
        : >"$out/$dev.results"
        : >"$out/$dev.suites"
        while IFS=$'\t' read -r kind name path; do
            [[ $kind == test && $name == candle-* ]] || continue
            crate=${name%%--*}
            log=$out/$dev-$name.log
            echo "candle emu: $dev: $name"
            t0=$SECONDS
            rc=0
            suite() {
                (cd "$WORK/ws-emu/$crate" && on_emu "$dev" timeout "$1" "$EMU_LD" --library-path "$EMU_PATH" \
                    "$path" "${@:2}")
            }
            suite 1800 --test-threads=2 >"$log" 2>&1 || rc=$?
            if ! grep -q '^test result: ' "$log"; then
                # The process died (rocBLAS aborts where it has no kernels
                # for the device): each test that printed no outcome runs
                # alone, so that one crash fails one test, not the suite.
                echo "candle emu: $dev: $name stopped (exit $rc); its unfinished tests one by one"
                suite 60 --list --format terse 2>/dev/null | sed -n 's/: test$//p' | while read -r t; do
                    # libtest's line: `test NAME ... ok`, or
                    # `test NAME - should panic ... ok`.
                    grep -qE "^test $t( - should panic)? \.\.\. " "$log" && continue
                    local one=$out/one.log r=0
                    suite 600 --exact "$t" >"$one" 2>&1 || r=$?
                    cat "$one" >>"$log"
                    grep -qE "^test $t( - should panic)? \.\.\. " "$one" ||
                        echo "test $t ... FAILED (alone: exit $r, no outcome)" >>"$log"
                done
            fi
            xtask candle-results "$name" "$rc" "$log" "$out/$dev.results" "$out/$dev.suites"
            echo "candle emu: $dev: $name took $((SECONDS - t0)) s"
        done <"$WORK/emu.tsv"
        # Each part its own process: rocBLAS aborting (no kernels for the
        # device) ends one part, not the others.
        for part in llama bert quantized; do
            emu_models_part "$dev" "$part" "$out"
        done
    done
    echo "candle emu: the quantized kernels' counters per output (the performance proxy)"
    xtask emu-proxy "$out" "$devices" || status=1
    xtask candle-emu-report "$out" "$EMU_RESIDUE" "$devices" || status=1
    echo "candle emu: ran in $((SECONDS - started)) s"
    return $status
}

# The performance proxy alone: emu_models' quantized checks on each of
# DEVICES (default gfx942,gfx1100) with the emulator's counters, then the
# table of instructions per output and LDS/scratch bytes per launch
# (xtask emu-proxy). Logs in $WORK/emu-proxy.
cmd_emu_proxy() {
    local devices=${1:-gfx942,gfx1100} out=$WORK/emu-proxy dev
    emu_setup
    rm -rf "$out"
    mkdir -p "$out"
    for dev in ${devices//,/ }; do
        emu_device "$dev"
        : >"$out/$dev.results"
        emu_models_part "$dev" quantized "$out"
    done
    xtask emu-proxy "$out" "$devices"
}

cmd_build() {
    cmd_fetch
    [[ -d "$KERNELS/kernels" ]] || die "no kernels in $KERNELS/kernels: run 'jobs' here, 'gpu-kernels' on a machine with nvcc, then 'unpack-kernels'"
    build_mode ours
    build_mode real
}

cmd_bundle() {
    local dir=${1:?bundle DIR} mode kind name path
    rm -rf "$dir/candle"
    for mode in ours real; do
        mkdir -p "$dir/candle/$mode"
        while IFS=$'\t' read -r kind name path; do
            # Every suite, those without a CUDA test too (their CPU tests
            # count the same in both builds), and the model.
            cp "$path" "$dir/candle/$mode/$name"
            strip "$dir/candle/$mode/$name"
        done <"$WORK/$mode.tsv"
        # Test data files the suites read relative to their crate folder.
        for name in candle-core candle-nn; do
            mkdir -p "$dir/candle/$mode/$name"
            cp -r "$WORK/ws-$mode/$name/tests" "$dir/candle/$mode/$name/" 2>/dev/null || true
        done
    done
    # The builds share most bytes (the same kernels, the same candle): one
    # xz stream with a window larger than a binary stores them about once.
    # (preset 1: the fast match finder; ~10 MB/s here on 3 GB.)
    tar -C "$dir" -cf - candle | xz -T1 --lzma2=preset=1,dict=1536MiB >"$dir/candle.tar.xz"
    rm -rf "$dir/candle"
    echo "candle: bundle $(du -m "$dir/candle.tar.xz" | cut -f1) MiB in $dir/candle.tar.xz"
}

cmd_gpu_kernels() {
    bash "$REPO/scripts/nvcc-jobs.sh" run "$WORK/jobs" "${1:?gpu-kernels OUT}" candle-kernels
}

cmd_unpack_kernels() {
    bash "$REPO/scripts/nvcc-jobs.sh" unpack "${1:?unpack-kernels DIR}" candle-kernels "$KERNELS"
}

# The AMD build: candle-kernels (as candle-core 0.11.1's lock file pins it)
# compiled by the drop-in for AMD GPUs, in a workspace of its own whose one
# package links candle-kernels' launcher library into a program.
write_amd_workspace() {
    local ws="$WORK/ws-amd"
    mkdir -p "$ws/amd-kernels"
    cat >"$ws/Cargo.toml" <<EOF
# Generated by scripts/candle.sh (amd); do not edit.
[workspace]
resolver = "2"
members = ["amd-kernels"]

[patch.crates-io]
cudaforge = { path = "$REPO/dropins/cudaforge" }
EOF
    cat >"$ws/amd-kernels/Cargo.toml" <<EOF
# Generated by scripts/candle.sh; do not edit.
[package]
name = "amd-kernels"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
candle-kernels = "=$CANDLE_VERSION"

[[bin]]
name = "amd-kernels"
path = "$REPO/benches/candle/amd_kernels.rs"
EOF
    [[ -f "$ws/Cargo.lock" ]] || cp "$WORK/src/candle-core/Cargo.lock" "$ws/Cargo.lock"
}

# The targets of this run: CANDLE_AMD_TARGETS (`all`: $AMD_TARGETS_ALL),
# else $AMD_TARGETS.
amd_targets() {
    case "${CANDLE_AMD_TARGETS:-}" in
        "") echo "$AMD_TARGETS" ;;
        all) echo "$AMD_TARGETS_ALL" ;;
        *) echo "$CANDLE_AMD_TARGETS" ;;
    esac
}

# amd-build: prints the build script's OUT_DIR of candle-kernels.
cmd_amd_build() {
    local root
    cmd_fetch >&2
    root=$(bash "$REPO/scripts/hip-toolchain.sh")
    write_amd_workspace
    (cd "$WORK/ws-amd" && env HIP_PLATFORM=amd ROCM_PATH="$root" \
        HIP_BUILD_OFFLOAD_ARCH="$(amd_targets)" \
        CUDAFORGE_AMD_CACHE="${CUDAFORGE_AMD_CACHE:-$HOME/.cache/hip-rs/cudaforge-amd}" \
        CARGO_TARGET_DIR="$TARGET" cargo build --release -p amd-kernels --message-format=json \
        >"$WORK/amd.json") || {
        grep -v '^{' "$WORK/amd.json" >&2 || true
        die "candle-kernels did not build for AMD"
    }
    xtask out-dir candle-kernels <"$WORK/amd.json"
}

# One AMD check: its output is shown, then `candle amd: NAME ... ok|FAILED`.
amd_line() {
    local name=$1
    shift
    if "$@" >"$WORK/amd-check.log" 2>&1; then
        sed 's/^/    /' "$WORK/amd-check.log"
        echo "candle amd: $name ... ok"
    else
        sed 's/^/    /' "$WORK/amd-check.log"
        echo "candle amd: $name ... FAILED"
        failed=1
    fi
}

# The linked program: libmoe's launchers resolve to the HIP runtime (the
# `cudart` candle-kernels asks for is the drop-in's linker script), and the
# program starts on Debian 12's ROCm 5.2 runtime without a GPU.
amd_program_links() {
    local exe=$1
    ldd "$exe" | grep 'libamdhip64' >/dev/null || { ldd "$exe"; echo "no libamdhip64 among its libraries"; return 1; }
    ! ldd "$exe" | grep 'libcudart' >/dev/null || { echo "it still needs libcudart"; return 1; }
    [[ $("$exe" modules | wc -l) -eq 12 ]] || { "$exe" modules; echo "expected 11 modules and a launcher"; return 1; }
    "$exe" modules
}

# A launcher that did not compile for AMD stops the program, naming itself,
# its source and the reason.
amd_unavailable_launcher() {
    local exe=$1 reports=$2 rc=0 line
    line=$(grep -h '^unavailable moe_gemm_wmma ' $reports) || { echo "the build did not list moe_gemm_wmma as unavailable"; return 1; }
    echo "report: $line"
    "$exe" call-unavailable moe_gemm_wmma 2>"$WORK/amd-abort.txt" || rc=$?
    cat "$WORK/amd-abort.txt"
    [[ $rc -ne 0 ]] || { echo "the program went on"; return 1; }
    grep -q 'moe_gemm_wmma (from moe/moe_wmma.cu) is not available on AMD GPUs: uses WMMA' "$WORK/amd-abort.txt"
}

# The compatibility layer's software fp8 against an independent reference
# (hip-cuda-layer/tests/fp8.hip), compiled by the AMD toolchain.
amd_fp8() {
    local tc
    tc=$(bash "$REPO/scripts/hip-toolchain.sh")
    "$tc/llvm/bin/clang++" -x hip --cuda-host-only --rocm-path="$tc" -isystem "$tc/include" \
        --offload-arch=gfx90a -I"$REPO/hip-cuda-layer/include" -std=c++17 -O1 \
        "$REPO/hip-cuda-layer/tests/fp8.hip" -o "$WORK/fp8-check"
    "$WORK/fp8-check"
}

# The layer's integer-to-bf16 conversions against an independent reference
# (hip-cuda-layer/tests/bf16_int.hip), on the host, and what the layer adds
# for mistral.rs's kernels (tests/gaps.cu: __ldg of bf16, packed atomics,
# the conversions, CUB over hipCUB, Thrust over rocThrust) compiled for each
# target, host code and device code, without a warning.
amd_gaps() {
    local tc t rc=0
    tc=$(bash "$REPO/scripts/hip-toolchain.sh")
    "$tc/llvm/bin/clang++" -x hip --cuda-host-only --rocm-path="$tc" -isystem "$tc/include" \
        --offload-arch=gfx90a -I"$REPO/hip-cuda-layer/include" -std=c++17 -O1 \
        "$REPO/hip-cuda-layer/tests/bf16_int.hip" -o "$WORK/bf16-int-check" || return 1
    "$WORK/bf16-int-check" || rc=1
    for t in ${1//,/ }; do
        "$tc/llvm/bin/clang++" -x hip --rocm-path="$tc" -isystem "$tc/include" \
            --hip-device-lib-path="$tc/amdgcn/bitcode" -I"$REPO/hip-cuda-layer/include" \
            -include hiprs_cuda.h --offload-arch="$t" -O3 -Wall -Werror -c \
            "$REPO/hip-cuda-layer/tests/gaps.cu" -o "$WORK/gaps-$t.o" || rc=1
    done
    [[ $rc -eq 0 ]] && echo "gaps.cu: compiled for $1"
    return $rc
}

# The layer's __dp4a, signed and unsigned, compiles to one dot instruction
# on each target (hip-cuda-layer/tests/dot.cu), not to the byte loop it
# spells out: the quantized kernels' inner products depend on it.
amd_dot() {
    local tc t asm signed unsigned other rc=0
    tc=$(bash "$REPO/scripts/hip-toolchain.sh")
    for t in ${1//,/ }; do
        asm="$WORK/dot-$t.s"
        "$tc/llvm/bin/clang++" -x hip --rocm-path="$tc" -isystem "$tc/include" \
            --hip-device-lib-path="$tc/amdgcn/bitcode" -I"$REPO/hip-cuda-layer/include" \
            -include hiprs_cuda.h --offload-arch="$t" -O3 --cuda-device-only -S \
            "$REPO/hip-cuda-layer/tests/dot.cu" -o "$asm"
        signed=$(grep -cE '^\s*v_dot4c?_i32_i?u?8' "$asm" || true)
        unsigned=$(grep -cE '^\s*v_dot4_u32_u8' "$asm" || true)
        other=$(grep -cE '^\s*v_(mul_lo|mul_hi|mad_[iu]32|mul_[iu]32_[iu]24|mad_u64|bfe_)' "$asm" || true)
        echo "$t: signed $signed, unsigned $unsigned dot instructions; $other multiplies or byte extracts"
        [[ $signed -eq 1 && $unsigned -eq 1 && $other -eq 0 ]] || rc=1
    done
    return $rc
}

# The layer's bf16 and fp8 conversions (hip-cuda-layer/tests/cvt.cu) use the
# hardware's instructions where its format is CUDA's, and only there: each
# kernel's conversion instructions, for one target of each kind (whatever
# targets the build has: this compiles one small file), checked by
# `cargo xtask amd-cvt` (xtask/src/amd_cvt.rs: the kernels, what each target
# must use).
amd_cvt() {
    local tc t asm rc=0
    tc=$(bash "$REPO/scripts/hip-toolchain.sh")
    for t in gfx950 gfx1201 gfx942; do
        asm="$WORK/cvt-$t.s"
        "$tc/llvm/bin/clang++" -x hip --rocm-path="$tc" -isystem "$tc/include" \
            --hip-device-lib-path="$tc/amdgcn/bitcode" -I"$REPO/hip-cuda-layer/include" \
            -include hiprs_cuda.h --offload-arch="$t" -O3 -Wall -Werror --cuda-device-only -S \
            "$REPO/hip-cuda-layer/tests/cvt.cu" -o "$asm" || return 1
        xtask amd-cvt "$t" "$asm" || rc=1
    done
    return $rc
}

# comgr, the ROCm 6.4 runtime's code-object reader, in its sysroot.
amd_comgr() {
    local line sysroot lib tc
    tc=$(bash "$REPO/scripts/hip-toolchain.sh")
    gcc -O1 -Wall -Werror -I"$(dirname "$(readlink -f "$tc/include/hip")")/amd_comgr" \
        -o "$WORK/comgr-check" "$REPO/benches/candle/comgr_check.c" -ldl
    line=$(bash "$REPO/scripts/rocm-runtimes.sh" 6.4)
    sysroot=${line#* }
    lib=$sysroot/usr/lib/x86_64-linux-gnu
    "$lib/ld-linux-x86-64.so.2" --library-path "$lib" "$WORK/comgr-check" "$lib/libamd_comgr.so.3" "$WORK"/amd-co/*.co
}

# amd: CI's tier for candle on AMD GPUs, without one. Builds candle-kernels
# with the drop-in for $AMD_TARGETS, then checks (one line each):
#   static checks   cargo xtask candle-amd-check: every module an envelope of
#                   a valid bundle holding each target; every kernel nvcc
#                   builds (benches/candle/*.nvcc-kernels.txt) and every name
#                   candle-core and candle-nn load present in every target or
#                   listed unavailable
#   comgr           ROCm 6.4's comgr reads every code object, names its ISA,
#                   lists its kernels, and each has the family's wavefront size
#   spills          cargo xtask amd-spills: every kernel that spills on a
#                   target built is named with its reason in
#                   benches/candle/*.amd-spills.txt (and every named one
#                   still spills); every kernel of a bounded source has its
#                   source's bound in its code object
#   dot             the layer's __dp4a is one dot instruction on each target
#   fp8             the layer's software fp8 conversions against a reference
#   gaps            the layer's bf16 integer conversions against a reference;
#                   __ldg of bf16 and packed atomics compile for each target
#   program         libmoe links against the HIP runtime; the program runs
#   unavailable     a launcher that did not compile aborts, naming the reason
cmd_amd() {
    local out targets exe reports
    out=$(cmd_amd_build) || exit 1
    targets=$(amd_targets)
    reports="$out/cudaforge-amd/*/cudaforge-amd-report.txt"
    echo "candle amd: built for $targets in $out"
    sed 's/^/    /' $reports
    failed=0
    rm -rf "$WORK/amd-co"
    amd_line "static checks: envelopes, code objects, the kernels candle loads" \
        xtask candle-amd-check "$out" "$REPO/benches/candle/candle-kernels-$CANDLE_VERSION.nvcc-kernels.txt" "$WORK/src/candle-core/src" \
        "$WORK/src/candle-nn/src" "$targets" "$WORK/amd-co"
    amd_line "every spilling kernel named with its reason; bounds in the code objects" \
        xtask amd-spills "$out" "$REPO/benches/candle/candle-kernels-$CANDLE_VERSION.amd-spills.txt" "$targets"
    amd_line "candle's launches of the bounded sources' kernels, each within its bound" \
        xtask amd-launches "$out" "$REPO/benches/candle/candle-kernels-$CANDLE_VERSION.launches.txt" "$targets" \
        "$WORK/src/candle-core/src" "$(kernels_src)"
    amd_line "the layer's __dp4a is one dot instruction on each target" amd_dot "$targets"
    amd_line "bf16 and OCP fp8 conversions in hardware on gfx950 and gfx1201, not FNUZ gfx942's" amd_cvt
    amd_line "ROCm 6.4's comgr reads every code object; wavefront sizes" amd_comgr
    amd_line "the layer's software fp8 matches an independent reference" amd_fp8
    amd_line "the layer's bf16 integer conversions match a reference; its additions compile" amd_gaps "$targets"
    exe=$(xtask executables --kinds <"$WORK/amd.json" | awk -F'\t' '$1 == "bin" && $3 == "amd-kernels" {print $4}')
    amd_line "the launcher library links against the HIP runtime; the program runs" amd_program_links "$exe"
    amd_line "an unavailable launcher stops the program, naming the reason" amd_unavailable_launcher "$exe" "$reports"
    return $failed
}

case "${1:-}" in
    fetch) cmd_fetch ;;
    amd-build) cmd_amd_build ;;
    emu-build) cmd_emu_build ;;
    emu) shift; cmd_emu "$@" ;;
    emu-proxy) shift; cmd_emu_proxy "$@" ;;
    emu-ci)
        shift
        CANDLE_EMU_SUBSET=1 cmd_emu_build
        cmd_emu "$@"
        ;;
    amd) cmd_amd ;;
    check) cmd_check ;;
    jobs) cmd_jobs ;;
    build) cmd_build ;;
    bundle) shift; cmd_bundle "$@" ;;
    gpu-kernels) shift; cmd_gpu_kernels "$@" ;;
    unpack-kernels) shift; cmd_unpack_kernels "$@" ;;
    run) shift; bash "$REPO/scripts/candle-gpu.sh" run "$@" ;;
    bench) shift; bash "$REPO/scripts/candle-gpu.sh" bench "$@" ;;
    *) sed -n '2,/^set -euo/p' "$0" | sed '$d' >&2; exit 2 ;;
esac

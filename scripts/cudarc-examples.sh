#!/usr/bin/env bash
# cudarc's own example programs, built against cuda-compat with the one
# Cargo.toml line a cudarc user changes, and the launch-rate benchmark built
# against both real cudarc and cuda-compat.
#
# No cudarc code is committed here: `fetch` takes the examples from the
# published crate (cargo downloads it; the checksum below is pinned) and
# unpacks them under target/cudarc-examples/ (git-ignored).
#
# Subcommands:
#   fetch              get cudarc's .crate with cargo, verify it, unpack its examples
#   build [--release]  build the 12 examples that need no CUPTI/cuFile; "N of 14 compile"
#   bench-build        build benches/cudarc/launch.rs against real cudarc and cuda-compat (release)
#   bundle DIR         copy release binaries (stripped) and data files to DIR/cudarc-examples/
#   run DIR            GPU machine: run the bundled examples, check their output
#   run-built [EXAMPLE...]
#                      run the examples `build` left in the target folder (debug),
#                      checked as `run` checks them: all built ones, or those named
#   bench-run DIR      GPU machine: run the two launch benchmarks in ABBA order; two
#                      verdicts (throughput, CPU cost), target 0.95 of real cudarc
#   per-op-run DIR     GPU machine: per-op cost (allocate, launch, free) of hip's own API and
#                      cuda-compat against real cudarc, ABBA; one verdict a pair
#   copy-run DIR       GPU machine: memcpy_htod/memcpy_dtoh of a pageable Vec (64 and
#                      256 MiB), cuda-compat (staged) against real cudarc, ABBA;
#                      ours must reach 1.5 times real's speed
#                      (every verdict: bench-verdict's median of the paired per-round
#                      ratios with its 95% interval; `met`, `NOT met` or `undecided`)
#
# Environment:
#   CARGO_TARGET_DIR   build folder (default: <repo>/target, shared with the workspace)
#   CUDARC_FEATURES    features of the switched dependency (default: cudarc's
#                      default features plus the CUDA version every build names)
#   EXAMPLE_TIMEOUT    seconds per example in `run` (default 120)
#   EXAMPLE_LAUNCHER   words put before each example's path in `run` and `run-built`
#                      (a dynamic loader and its options); split at spaces
#   XTASK              the xtask binary (default: beside the bundle, or for `run-built`
#                      the target folder's debug/xtask)
#   CUDARC_LOG_DIR     where `run` keeps each example's output (default: the bundle's logs/)
#   BENCH_ROUNDS       rounds of each benchmark binary in `bench-run`, `per-op-run` and
#                      `copy-run` (default 9: fewer than 6 give no 95% interval)
set -euo pipefail

CUDARC_VERSION=0.19.10
# sha256 of cudarc-0.19.10.crate, the same as the "cksum" of its entry in
# the crates.io index.
CUDARC_SHA256=7359bf1de037ddada72729c3acec9b040f3468400c6e9e740b01ba0cd2e89562

# Every example in the published crate, in its Cargo.toml's order.
ALL_EXAMPLES=(
    01-allocate 02-copy 03-launch-kernel 04-streams 05-device-repr
    06-threading 08-cupti 09-constant-memory 10-function-attributes
    12-context-config 13-copy-multi-gpu cufile-copy matmul-kernel nvrtc-compile
)
# The benchmark programs (benches/cudarc/), each built as NAME-real and
# NAME-compat.
BENCH_BINS=(cudarc-launch cudarc-per-op cudarc-copy)
# Data files the examples read at build time (include_str!) or run time
# (relative paths such as ./examples/sin.ptx).
DATA_FILES=(sin.ptx sin.cu constant_memory.cu)

# cudarc's default features, plus the CUDA version feature that every real
# cudarc build must name (its build script refuses to build without one).
DEFAULT_FEATURES="std cublas cublaslt curand driver runtime nvrtc fallback-dynamic-loading cuda-13000"
# Real cudarc for the benchmark: loads libcuda/libnvrtc at run time, so it
# builds without CUDA installed.
REAL_FEATURES="std driver nvrtc dynamic-loading cuda-13000"

# Why an example is not built, or empty when it is.
needs_of() {
    case "$1" in
        08-cupti) echo "CUPTI" ;;
        cufile-copy) echo "cuFile" ;;
        *) echo "" ;;
    esac
}

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK="$REPO/target/cudarc-examples"
FETCH_DIR="$REPO/target/cudarc-fetch"
REAL_DIR="$REPO/target/cudarc-bench-real"
TARGET_DIR="${CARGO_TARGET_DIR:-$REPO/target}"

die() {
    echo "cudarc-examples: $*" >&2
    exit 1
}

# TOML array from a space-separated word list: "a b" -> "a", "b"
toml_list() {
    local out="" w
    for w in $1; do
        out+="${out:+, }\"$w\""
    done
    printf '%s' "$out"
}

sha256_of() {
    sha256sum "$1" | cut -d' ' -f1
}

# The verified .crate in cargo's download cache, or nothing.
cached_crate() {
    local home="${CARGO_HOME:-$HOME/.cargo}" f
    for f in "$home"/registry/cache/*/"cudarc-$CUDARC_VERSION.crate"; do
        if [[ -f "$f" && "$(sha256_of "$f")" == "$CUDARC_SHA256" ]]; then
            echo "$f"
            return 0
        fi
    done
    return 0
}

cmd_fetch() {
    local marker="$WORK/.fetched"
    if [[ -f "$marker" && "$(cat "$marker")" == "$CUDARC_SHA256" ]]; then
        local f missing=0
        for f in "${DATA_FILES[@]}"; do
            [[ -f "$WORK/examples/$f" ]] || missing=1
        done
        if [[ $missing == 0 ]]; then
            echo "cudarc $CUDARC_VERSION examples: cached in $WORK/examples"
            return 0
        fi
    fi
    local crate
    crate=$(cached_crate)
    if [[ -z "$crate" ]]; then
        # A fetch-only package: cargo resolves and downloads cudarc (and
        # its dependencies) into its cache, and builds nothing.
        mkdir -p "$FETCH_DIR/src"
        cat >"$FETCH_DIR/Cargo.toml" <<EOF
# Generated by scripts/cudarc-examples.sh fetch: downloads cudarc with cargo.
[package]
name = "cudarc-fetch"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
cudarc = { version = "=$CUDARC_VERSION", default-features = false, features = ["cuda-13000", "dynamic-loading"] }

[workspace]
EOF
        : >"$FETCH_DIR/src/lib.rs"
        echo "cudarc $CUDARC_VERSION: downloading with cargo fetch"
        cargo fetch --manifest-path "$FETCH_DIR/Cargo.toml" >&2
        crate=$(cached_crate)
        if [[ -z "$crate" ]]; then
            local home="${CARGO_HOME:-$HOME/.cargo}" f
            for f in "$home"/registry/cache/*/"cudarc-$CUDARC_VERSION.crate"; do
                [[ -f "$f" ]] && die "$f has sha256 $(sha256_of "$f"), expected $CUDARC_SHA256: refusing to use it"
            done
            die "cargo fetch did not leave cudarc-$CUDARC_VERSION.crate in $home/registry/cache/"
        fi
    fi
    echo "cudarc $CUDARC_VERSION: $crate (sha256 verified)"
    local tmp
    mkdir -p "$WORK"
    tmp=$(mktemp -d "$WORK/.unpack.XXXXXX")
    tar -xzf "$crate" -C "$tmp" "cudarc-$CUDARC_VERSION/examples"
    rm -rf "$WORK/examples"
    mv "$tmp/cudarc-$CUDARC_VERSION/examples" "$WORK/examples"
    rm -rf "$tmp"
    local ex
    for ex in "${ALL_EXAMPLES[@]}"; do
        [[ -f "$WORK/examples/$ex.rs" ]] || die "the crate has no examples/$ex.rs"
    done
    echo "$CUDARC_SHA256" >"$marker"
    echo "cudarc $CUDARC_VERSION examples: unpacked into $WORK/examples"
}

# The standalone package of the examples (not a member of our workspace),
# whose only dependency is the switched line.
write_examples_manifest() {
    local features="${CUDARC_FEATURES:-$DEFAULT_FEATURES}" ex tmp
    tmp=$(mktemp "$WORK/.Cargo.toml.XXXXXX")
    {
        cat <<EOF
# Generated by scripts/cudarc-examples.sh from cudarc $CUDARC_VERSION's
# examples; do not edit. The only change a cudarc user makes is the
# dependency line below.
[package]
name = "cudarc-examples"
version = "0.0.0"
edition = "2021"
publish = false
autobins = false
autoexamples = false

[dependencies]
cudarc = { package = "cuda-compat", path = "$REPO/cuda-compat", features = [$(toml_list "$features")] }

# The launch-rate and per-op benchmarks against cuda-compat (bench-build).
[[bin]]
name = "cudarc-launch-compat"
path = "$REPO/benches/cudarc/launch.rs"

[[bin]]
name = "cudarc-per-op-compat"
path = "$REPO/benches/cudarc/per_op.rs"

[[bin]]
name = "cudarc-copy-compat"
path = "$REPO/benches/cudarc/copy.rs"
EOF
        for ex in "${ALL_EXAMPLES[@]}"; do
            [[ -n "$(needs_of "$ex")" ]] && continue
            printf '\n[[example]]\nname = "%s"\npath = "examples/%s.rs"\n' "$ex" "$ex"
        done
        printf '\n[profile.release]\ndebug = false\n\n[workspace]\n'
    } >"$tmp"
    mv "$tmp" "$WORK/Cargo.toml"
    # Start from the workspace's lock file so the same dependency versions
    # are chosen and the shared target folder's builds are reused.
    if [[ ! -f "$WORK/Cargo.lock" ]]; then
        cp "$REPO/Cargo.lock" "$WORK/Cargo.lock"
    fi
}

cmd_build() {
    local profile=() profile_name=debug
    case "${1:-}" in
        "") ;;
        --release)
            profile=(--release)
            profile_name=release
            ;;
        *) die "build: unknown option '$1' (expected --release or nothing)" ;;
    esac
    cmd_fetch
    write_examples_manifest
    export CARGO_TARGET_DIR="$TARGET_DIR"
    local ex need compiled=0 failed=0 log="$WORK/build.log"
    : >"$log"
    echo "building cudarc's examples against cuda-compat ($profile_name, target folder $TARGET_DIR)"
    for ex in "${ALL_EXAMPLES[@]}"; do
        need=$(needs_of "$ex")
        if [[ -n "$need" ]]; then
            printf '%-24s not built: needs %s\n' "$ex" "$need"
            continue
        fi
        local out
        if out=$(cargo build "${profile[@]}" --manifest-path "$WORK/Cargo.toml" \
            --example "$ex" --message-format=short 2>&1); then
            printf '%-24s compiles\n' "$ex"
            compiled=$((compiled + 1))
        else
            printf '%-24s does NOT compile\n' "$ex"
            { echo "=== $ex"; echo "$out"; } >>"$log"
            # The first errors, then where the rest are.
            echo "$out" | grep -E -A2 '^(error|[^ ]+:[0-9]+:[0-9]+: error)' | grep -v '^--$' |
                head -n 6 | sed 's/^/    /'
            failed=$((failed + 1))
        fi
    done
    echo "full compiler output of failures: $log"
    echo "$compiled of ${#ALL_EXAMPLES[@]} compile"
    [[ $failed == 0 ]] || die "$failed of the buildable examples do not compile"
}

cmd_bench_build() {
    cmd_fetch
    write_examples_manifest
    export CARGO_TARGET_DIR="$TARGET_DIR"
    mkdir -p "$REAL_DIR"
    local tmp
    tmp=$(mktemp "$REAL_DIR/.Cargo.toml.XXXXXX")
    cat >"$tmp" <<EOF
# Generated by scripts/cudarc-examples.sh bench-build: the launch benchmark
# against the real cudarc $CUDARC_VERSION (it opens libcuda at run time).
[package]
name = "cudarc-bench-real"
version = "0.0.0"
edition = "2021"
publish = false
autobins = false

[dependencies]
cudarc = { version = "=$CUDARC_VERSION", default-features = false, features = [$(toml_list "$REAL_FEATURES")] }

[[bin]]
name = "cudarc-launch-real"
path = "$REPO/benches/cudarc/launch.rs"

[[bin]]
name = "cudarc-per-op-real"
path = "$REPO/benches/cudarc/per_op.rs"

[[bin]]
name = "cudarc-copy-real"
path = "$REPO/benches/cudarc/copy.rs"

[profile.release]
debug = false

[workspace]
EOF
    mv "$tmp" "$REAL_DIR/Cargo.toml"
    local real=() compat=() b
    for b in "${BENCH_BINS[@]}"; do
        real+=(--bin "$b-real")
        compat+=(--bin "$b-compat")
    done
    echo "building ${BENCH_BINS[*]/%/-real} (cudarc $CUDARC_VERSION)"
    cargo build --release --manifest-path "$REAL_DIR/Cargo.toml" "${real[@]}"
    echo "building ${BENCH_BINS[*]/%/-compat} (cuda-compat as cudarc)"
    cargo build --release --manifest-path "$WORK/Cargo.toml" "${compat[@]}"
    echo "built: $TARGET_DIR/release/cudarc-launch-real $TARGET_DIR/release/cudarc-launch-compat"
}

# Copies $1 to $2, stripped when strip is available.
copy_binary() {
    if command -v strip >/dev/null 2>&1; then
        strip -o "$2" "$1"
    else
        cp "$1" "$2"
    fi
    chmod +x "$2"
}

cmd_bundle() {
    local dir="${1:-}"
    [[ -n "$dir" ]] || die "bundle: give the bundle folder"
    local dest="$dir/cudarc-examples" ex f copied=0
    [[ -f "$WORK/examples/sin.ptx" ]] || die "bundle: run '$0 fetch' and '$0 build --release' first"
    rm -rf "$dest"
    mkdir -p "$dest/bin" "$dest/examples"
    for f in "${DATA_FILES[@]}"; do
        cp "$WORK/examples/$f" "$dest/examples/$f"
    done
    for ex in "${ALL_EXAMPLES[@]}"; do
        [[ -n "$(needs_of "$ex")" ]] && continue
        f="$TARGET_DIR/release/examples/$ex"
        if [[ -x "$f" ]]; then
            copy_binary "$f" "$dest/bin/$ex"
            copied=$((copied + 1))
        else
            echo "bundle: $ex has no release binary ($f); run will report it failed" >&2
        fi
    done
    for f in "${BENCH_BINS[@]/%/-real}" "${BENCH_BINS[@]/%/-compat}"; do
        if [[ -x "$TARGET_DIR/release/$f" ]]; then
            copy_binary "$TARGET_DIR/release/$f" "$dest/bin/$f"
        else
            echo "bundle: no $f (run '$0 bench-build')" >&2
        fi
    done
    cp "${BASH_SOURCE[0]}" "$dest/cudarc-examples.sh"
    echo "bundled $copied example binaries into $dest"
}

# The folder holding bin/ and examples/: DIR/cudarc-examples or DIR itself.
bundle_root() {
    local dir="${1:-}"
    [[ -n "$dir" ]] || die "give the bundle folder"
    if [[ -d "$dir/cudarc-examples/bin" ]]; then
        (cd "$dir/cudarc-examples" && pwd)
    elif [[ -d "$dir/bin" && -d "$dir/examples" ]]; then
        (cd "$dir" && pwd)
    else
        die "$dir has neither cudarc-examples/bin nor bin/ and examples/"
    fi
}

# Number of GPUs the examples can see, or nothing when unknown.
gpu_count() {
    local n
    if [[ "${HIP_PLATFORM:-}" == emulated ]]; then
        # hip-emu's devices: HIP_EMU_DEVICES's comma list, one by default.
        tr ',' '\n' <<<"${HIP_EMU_DEVICES:-gfx942}" | grep -c . || true
        return 0
    fi
    command -v nvidia-smi >/dev/null 2>&1 || return 0
    n=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
    if [[ -n "${CUDA_VISIBLE_DEVICES:-}" ]]; then
        local visible
        visible=$(tr ',' '\n' <<<"$CUDA_VISIBLE_DEVICES" | grep -c . || true)
        ((visible < n)) && n=$visible
    fi
    echo "$n"
}

# The xtask binary of the bundle (the GPU machine has no Rust): XTASK, or
# beside the bundle's cudarc-examples/ folder ($1 is that folder).
xtask_of() {
    local x
    for x in "${XTASK:-}" "$1/xtask" "$1/../xtask"; do
        if [[ -n "$x" && -x "$x" ]]; then
            echo "$x"
            return 0
        fi
    done
    die "no xtask binary beside $1 (scripts/gpu-bundle.sh puts it in the bundle) and XTASK unset"
}

cmd_run() {
    local root
    root=$(bundle_root "${1:-}")
    local xtask
    xtask=$(xtask_of "$root") || exit 1
    run_examples "$root" "$root/bin" "$xtask" "${ALL_EXAMPLES[@]}"
}

cmd_run_built() {
    [[ -f "$WORK/examples/sin.ptx" ]] || die "run-built: run '$0 fetch' and '$0 build' first"
    local xtask
    xtask=$(xtask_of "$TARGET_DIR/debug") || exit 1
    [[ $# -gt 0 ]] || set -- "${ALL_EXAMPLES[@]}"
    run_examples "$WORK" "$TARGET_DIR/debug/examples" "$xtask" "$@"
}

# run_examples ROOT BIN_DIR XTASK EXAMPLE...: runs each example's BIN_DIR/NAME
# in ROOT (its data files under ROOT/examples/), through EXAMPLE_LAUNCHER,
# and checks its output; one row each, then the counts.
run_examples() {
    local root=$1 bin_dir=$2 xtask=$3
    shift 3
    export HIP_PLATFORM="${HIP_PLATFORM:-nvidia}"
    local timeout_s="${EXAMPLE_TIMEOUT:-120}" gpus ex need status detail launcher=()
    local passed=0 failed=0 not_run=0 differs=0 rows=()
    read -ra launcher <<<"${EXAMPLE_LAUNCHER:-}"
    gpus=$(gpu_count)
    local logs="${CUDARC_LOG_DIR:-$root/logs}"
    mkdir -p "$logs"
    echo "running cudarc's examples from $root (HIP_PLATFORM=$HIP_PLATFORM, ${gpus:-unknown} GPUs, ${timeout_s}s each)"
    for ex in "$@"; do
        need=$(needs_of "$ex")
        if [[ -n "$need" ]]; then
            rows+=("$ex|not run|not built: needs $need")
            not_run=$((not_run + 1))
            continue
        fi
        if [[ "$ex" == 13-copy-multi-gpu ]] && [[ -z "$gpus" || "$gpus" -lt 2 ]]; then
            rows+=("$ex|not run|needs 2 GPUs, ${gpus:-an unknown number (no nvidia-smi)} visible")
            not_run=$((not_run + 1))
            continue
        fi
        local bin="$bin_dir/$ex" out="$logs/$ex.out"
        if [[ ! -x "$bin" ]]; then
            rows+=("$ex|FAILED|no binary $bin")
            failed=$((failed + 1))
            continue
        fi
        status=0
        (cd "$root" && timeout "$timeout_s" "${launcher[@]}" "$bin") >"$out" 2>&1 || status=$?
        if [[ $status == 124 ]]; then
            rows+=("$ex|FAILED|timed out after ${timeout_s}s")
            failed=$((failed + 1))
        elif [[ $status != 0 ]] && detail=$("$xtask" example-differs "$ex" "$out"); then
            rows+=("$ex|differs|$detail")
            differs=$((differs + 1))
        elif [[ $status != 0 ]]; then
            detail=$(grep -v '^\s*$' "$out" | tail -n 1 | cut -c1-100)
            rows+=("$ex|FAILED|exit status $status: $detail")
            failed=$((failed + 1))
        elif detail=$("$xtask" check-example "$ex" "$out"); then
            rows+=("$ex|passed|exit 0, output checked")
            passed=$((passed + 1))
        else
            rows+=("$ex|FAILED|wrong output: $detail")
            failed=$((failed + 1))
        fi
    done
    printf '%-24s %-8s %s\n' example result detail
    local r
    for r in "${rows[@]}"; do
        IFS='|' read -r ex status detail <<<"$r"
        printf '%-24s %-8s %s\n' "$ex" "$status" "$detail"
    done
    echo "outputs: $logs/"
    echo "$differs differ from CUDA as documented (neither passed nor failed)"
    echo "$not_run not run"
    echo "$passed passed, $failed failed"
    [[ $failed == 0 ]]
}

cmd_bench_run() {
    local root
    root=$(bundle_root "${1:-}")
    export HIP_PLATFORM="${HIP_PLATFORM:-nvidia}"
    local rounds="${BENCH_ROUNDS:-9}" i impl out order
    local real="$root/bin/cudarc-launch-real" compat="$root/bin/cudarc-launch-compat"
    [[ -x "$real" && -x "$compat" ]] || die "bench-run: $root/bin lacks cudarc-launch-real or cudarc-launch-compat"
    local xtask ledger
    xtask=$(xtask_of "$root") || exit 1
    ledger=$(mktemp)
    # shellcheck disable=SC2064 # the path now: $ledger is local
    trap "rm -f '$ledger'" EXIT
    echo "launch rate, real cudarc vs cuda-compat, $rounds rounds in ABBA order (HIP_PLATFORM=$HIP_PLATFORM)"
    for ((i = 1; i <= rounds; i++)); do
        # ABBA: the order flips every round, so neither always goes first.
        if ((i % 2)); then order="compat real"; else order="real compat"; fi
        echo "round $i of $rounds: ${order/ /, then }"
        for impl in $order; do
            local bin="$root/bin/cudarc-launch-$impl"
            out=$(cd "$root" && timeout 300 "$bin" 2>&1) || die "round $i, $impl failed: $out"
            # Its RESULT line's rate and CPU cost, recorded for the summary.
            "$xtask" launch-round "$ledger" "$i" "$impl" <<<"$out" || exit 1
        done
    done
    # Medians and the verdicts (compat over real for throughput, real over
    # compat for CPU cost, paired by round: above 1 means the facade is
    # faster; bench-verdict's median with its 95% interval against 0.95).
    # Fails unless both are met.
    "$xtask" launch-summary "$ledger"
}

# per-op-run DIR: the per-op path (allocate, launch, free; benches/cudarc/
# per_op.rs) of real cudarc against hip's own (DIR/bins/per_op, from
# benches/src/bin/per_op.rs) and against cuda-compat's, each pair
# in ABBA order BENCH_ROUNDS times (default 9); one verdict line per pair
# (target 0.97 of real cudarc's speed: the median of the paired per-round
# ratios with its 95% interval, bench-verdict's rule), ending `met`, `NOT
# met` or `undecided`. Fails when a run fails or a target is not met.
# Speed a program of ours must reach against real cudarc's unless a
# benchmark asks more (xtask's default target).
KEEP_UP=0.97

# sample FILE COMMAND...: runs COMMAND once, prints its output and appends
# its step time (`step_us N`) to FILE. Needs $xtask.
sample() {
    local file=$1 out
    shift
    out=$("$@" 2>&1) || die "$* failed: $out"
    echo "$out"
    "$xtask" candle-step-us <<<"$out" >>"$file"
}

# compare LABEL TARGET OURS-COMMAND... -- REAL-COMMAND...: runs the two
# commands $rounds times each in ABBA order (printed), and records xtask's
# verdict (ours must reach TARGET times real's speed, paired by round) in
# $work/results. Needs $rounds, $work and $xtask.
compare() {
    local label=$1 target=$2 ours=() real=() i
    shift 2
    while [[ $1 != -- ]]; do
        ours+=("$1")
        shift
    done
    shift
    real=("$@")
    : >"$work/ours"
    : >"$work/real"
    echo "$label: $rounds rounds in ABBA order (odd rounds ours first, even rounds real first)"
    for ((i = 1; i <= rounds; i++)); do
        if ((i % 2)); then
            echo "round $i of $rounds: ours, then real"
            sample "$work/ours" "${ours[@]}"
            sample "$work/real" "${real[@]}"
        else
            echo "round $i of $rounds: real, then ours"
            sample "$work/real" "${real[@]}"
            sample "$work/ours" "${ours[@]}"
        fi
    done
    "$xtask" candle-bench "$label" "$rounds" "$work/ours" "$work/real" "$work/results" "$target"
}

cmd_per_op_run() {
    local root
    root=$(bundle_root "${1:-}")
    export HIP_PLATFORM="${HIP_PLATFORM:-nvidia}"
    local rounds="${BENCH_ROUNDS:-9}" xtask work hip="$root/../bins/per_op"
    [[ -x "$hip" ]] || die "per-op-run: no $hip (the workspace's per_op benchmark, scripts/gpu-bundle.sh)"
    xtask=$(xtask_of "$root") || exit 1
    work=$(mktemp -d)
    # shellcheck disable=SC2064 # the path now: $work is local
    trap "rm -rf '$work'" EXIT
    local real="$root/bin/cudarc-per-op-real" compat="$root/bin/cudarc-per-op-compat"
    compare "per op, hip on a stream of its own vs real cudarc on the default stream" "$KEEP_UP" \
        "$hip" named -- "$real" default
    compare "per op, hip on the per-thread stream vs real cudarc on the per-thread stream" "$KEEP_UP" \
        "$hip" per-thread -- "$real" per-thread
    compare "per op, cuda-compat vs real cudarc, per-thread stream" "$KEEP_UP" \
        "$compat" per-thread -- "$real" per-thread
    "$xtask" candle-total "$work/results"
}

cmd_copy_run() {
    local root
    root=$(bundle_root "${1:-}")
    export HIP_PLATFORM="${HIP_PLATFORM:-nvidia}"
    local rounds="${BENCH_ROUNDS:-9}" xtask work dir mib
    xtask=$(xtask_of "$root") || exit 1
    work=$(mktemp -d)
    # shellcheck disable=SC2064 # the path now: $work is local
    trap "rm -rf '$work'" EXIT
    local real="$root/bin/cudarc-copy-real" compat="$root/bin/cudarc-copy-compat"
    for dir in htod dtoh; do
        for mib in 64 256; do
            compare "copy $dir $mib MiB of a pageable Vec, cuda-compat vs real cudarc" 1.5 \
                "$compat" "$dir" "$mib" -- "$real" "$dir" "$mib"
        done
    done
    "$xtask" candle-total "$work/results"
}

usage() {
    sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'
}

main() {
    local cmd="${1:-}"
    [[ $# -gt 0 ]] && shift
    case "$cmd" in
        fetch) cmd_fetch ;;
        build) cmd_build "$@" ;;
        bench-build) cmd_bench_build ;;
        bundle) cmd_bundle "$@" ;;
        run) cmd_run "$@" ;;
        run-built) cmd_run_built "$@" ;;
        bench-run) cmd_bench_run "$@" ;;
        per-op-run) cmd_per_op_run "$@" ;;
        copy-run) cmd_copy_run "$@" ;;
        -h | --help | help) usage ;;
        *)
            usage >&2
            exit 2
            ;;
    esac
}

main "$@"

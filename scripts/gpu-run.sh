#!/usr/bin/env bash
# The GPU runner, copied to gpu-bundle/run.sh by scripts/gpu-bundle.sh.
# On the GPU machine:  gpu-bundle/run.sh [memcheck]
#
# Runs, with HIP_PLATFORM=nvidia: the GPU tier of every test binary
# (`--ignored --test-threads=1`: the GPU tests are #[ignore = "needs a GPU"];
# tiers 1 and 2 run in CI, and tier 2 needs Debian's AMD runtime, which a GPU
# machine lacks), then every example and binary without arguments, and every
# criterion bench target in its quick test mode, then the `hip-info` binary
# once more with HIP_PLATFORM unset, which must choose nvidia (the machine's
# AMD runtime sees no device; one program). The benchmark programs
# (names matching GPU_RUN_BENCHMARKS, default those listed in the bundle's
# benchmarks.txt: `scripts/gpu-session.sh list-benchmarks`, what the session
# runs as benchmarks) are not run here: they need arguments, minutes or two GPUs, and
# `scripts/gpu-session.sh bench` (or `soak`) runs them. With
# `memcheck`, only the test binaries run, under
# `compute-sanitizer --tool memcheck`.
#
# Tests that need more GPUs than the machine has: libtest cannot show an
# ignore reason, so the runner goes by name. A test whose last path
# component starts with `two_gpus_` (and is #[ignore = "needs two GPUs"])
# runs only when `nvidia-smi -L` lists at least two GPUs (and
# CUDA_VISIBLE_DEVICES, when set, names at least two); otherwise it is
# skipped with `--skip NAME --exact` and listed as "not run: needs two GPUs
# (N found)". Not run is neither passed nor failed.
#
# What counts (the last line, `N passed, N failed` and `, N skipped` when
# something did not run):
#   passed/failed  each test function once (from libtest's per-test lines'
#                  summary: `test result: ... X passed; Y failed`), plus each
#                  example, binary and bench program once;
#   failed also    a test binary that timed out, died without a summary,
#                  exited non-zero with no failed test, or (memcheck) whose
#                  compute-sanitizer ERROR SUMMARY is missing or not 0
#                  errors: one failure each;
#   skipped        tests not run for want of GPUs.
# The lines above it break the count down (tests, programs, not run) and
# name every failure. The exit status is 0 only when nothing failed and
# something ran.
#
# Under memcheck, the tests named in GPU_RUN_MEMCHECK_SKIP (space-separated
# `binary:test`; default the one below) are not run and are listed as "not
# run under memcheck" with the reason: they pass without the sanitizer but
# hang under it, and a hang would hide every later result of their binary.
#   hip--gpu_tracking:a_write_on_another_threads_per_thread_stream_is_waited_for
#     (a buffer written on one thread's per-thread stream, read on
#     another's: compute-sanitizer never finishes it; not yet understood)
# A whole binary is skipped under memcheck by GPU_RUN_MEMCHECK_SKIP_BINARIES
# (space-separated names; default the one below), listed as not run:
#   hip-benches--gpu_capture_paths
#     (each test runs a path beside another thread's graph captures until
#     they have overlapped 40 captures, up to 60 s a test: timing the
#     sanitizer, which serializes the GPU work, turns into 19 minutes)
#
# The verdicts and counts are xtask's (`gpu-bundle/xtask gpu-run`,
# xtask/src/gpu_run.rs): this script runs the programs and hands it their
# exit statuses and logs; it appends each outcome to a ledger and prints
# the lines below from it.
#
# GPU_RUN_TIMEOUT (seconds, default 300) bounds each program.
# GPU_RUN_ONLY / GPU_RUN_EXCLUDE: grep -E patterns; only programs whose
# name matches the first and not the second run.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# scripts/gpu-bundle.sh packs the executables into payload.tar.xz.
if [ -f "$here/payload.tar.xz" ] && [ ! -d "$here/tests" ]; then
    tar -C "$here" -xJf "$here/payload.tar.xz" || {
        echo "run.sh: cannot unpack $here/payload.tar.xz" >&2
        exit 1
    }
fi
xtask=${XTASK:-$here/xtask}
if [ ! -x "$xtask" ]; then
    echo "run.sh: no $xtask (scripts/gpu-bundle.sh puts the xtask binary there)" >&2
    exit 1
fi
export HIP_PLATFORM=nvidia
limit=${GPU_RUN_TIMEOUT:-300}
only=${GPU_RUN_ONLY:-}
exclude=${GPU_RUN_EXCLUDE:-}
benchmarks=${GPU_RUN_BENCHMARKS:-}
if [ -z "$benchmarks" ]; then
    if [ ! -s "$here/benchmarks.txt" ]; then
        echo "run.sh: no benchmarks.txt beside run.sh (scripts/gpu-bundle.sh writes it), and GPU_RUN_BENCHMARKS is unset" >&2
        exit 2
    fi
    benchmarks=$(paste -sd'|' "$here/benchmarks.txt")
fi
selected() {
    { [ -z "$only" ] || echo "$1" | grep -E "$only" >/dev/null; } &&
        { [ -z "$exclude" ] || ! echo "$1" | grep -E "$exclude" >/dev/null; }
}
mode=${1:-tests}
case "$mode" in tests | memcheck) ;; *)
    echo "usage: run.sh [memcheck]" >&2
    exit 2
    ;;
esac
wrap=()
if [ "$mode" = memcheck ]; then
    sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    # API errors are not memory errors: the error-path tests provoke them.
    wrap=("$sanitizer" --tool memcheck --report-api-errors no --require-cuda-init no --error-exitcode 99 --print-limit 20)
fi
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
echo "GPUs: $gpus (nvidia-smi -L)"
# The tests see only CUDA_VISIBLE_DEVICES's devices when it is set.
if [ -n "${CUDA_VISIBLE_DEVICES:-}" ]; then
    visible=$(echo "$CUDA_VISIBLE_DEVICES" | tr ',' '\n' | grep -c .)
    if [ "$visible" -lt "$gpus" ]; then
        gpus=$visible
        echo "GPUs visible to the tests: $gpus (CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES)"
    fi
fi

log=$(mktemp)
ledger=$(mktemp)
trap 'rm -f "$log" "$ledger"' EXIT

for t in "$here"/tests/*; do
    [ -x "$t" ] || continue
    name=$(basename "$t")
    selected "$name" || continue
    if [ -n "${wrap[*]}" ] && [[ " ${GPU_RUN_MEMCHECK_SKIP_BINARIES-hip-benches--gpu_capture_paths} " == *" $name "* ]]; then
        "$xtask" gpu-run not-run "$ledger" "$name: not run under memcheck (its tests overlap timed loops with captures; see gpu-run.sh)"
        continue
    fi
    echo "=== test $name"
    skip=()
    if [ "$gpus" -lt 2 ]; then
        while read -r test; do
            [ -n "$test" ] || continue
            skip+=(--skip "$test")
            "$xtask" gpu-run not-run "$ledger" "$name $test: needs two GPUs ($gpus found)"
        done < <("$t" --list --ignored --format terse 2>/dev/null | "$xtask" two-gpu-tests)
    fi
    if [ -n "${wrap[*]}" ]; then
        for entry in ${GPU_RUN_MEMCHECK_SKIP-hip--gpu_tracking:a_write_on_another_threads_per_thread_stream_is_waited_for}; do
            [ "${entry%%:*}" = "$name" ] || continue
            skip+=(--skip "${entry#*:}")
            "$xtask" gpu-run not-run "$ledger" "$name ${entry#*:}: not run under memcheck (hangs under compute-sanitizer; passes without it)"
        done
    fi
    if [ ${#skip[@]} -gt 0 ]; then skip+=(--exact); fi
    timeout "$limit" "${wrap[@]}" "$t" --ignored --test-threads=1 "${skip[@]}" >"$log" 2>&1
    rc=$?
    cat "$log"
    # The last summary counts; a timeout, a crash, a failing exit without
    # a failed test or (memcheck) a missing or non-zero ERROR SUMMARY fails.
    "$xtask" gpu-run test "$ledger" "$mode" "$name" "$rc" "$limit" "$log"
done

run_program() {
    local kind=$1 p=$2
    shift 2
    local name rc
    name=$(basename "$p")
    selected "$name" || return 0
    if echo "$name" | grep -E "^($benchmarks)\$" >/dev/null; then
        echo "--- $kind $name: left to gpu-session.sh bench or soak"
        return 0
    fi
    echo "=== $kind $name"
    if [ "$name" = nvcc ]; then
        # hip-nvcc (dropins/nvcc) is a compiler, not a program to run bare
        # (bare, it runs NVIDIA's nvcc, which asks for input and exits 1):
        # its check is its NVIDIA path, one kernel compiled by the real nvcc.
        timeout "$limit" bash -c 'check_nvcc "$@"' check_nvcc "$p"
    else
        timeout "$limit" "$p" "$@"
    fi
    rc=$?
    "$xtask" gpu-run program "$ledger" "$kind" "$name" "$rc" "$limit"
}

# check_nvcc FRONT: hip-nvcc's NVIDIA path on this machine. Its --version
# says what it is and which NVIDIA nvcc it runs; `-c` of a small kernel
# through it makes an object file that names the kernel. Fails, saying
# why, otherwise. Exported for `timeout bash -c`.
check_nvcc() {
    local front=$1 dir version
    dir=$(mktemp -d)
    # shellcheck disable=SC2064 # the path now
    trap "rm -rf '$dir'" RETURN
    version=$(HIP_PLATFORM=nvidia "$front" --version) || {
        echo "check_nvcc: --version failed"
        return 1
    }
    echo "$version"
    if ! grep -q "not NVIDIA's nvcc" <<<"$version" || ! grep -q "compiles with NVIDIA's nvcc at" <<<"$version"; then
        echo "check_nvcc: --version does not say it is hip-nvcc running NVIDIA's nvcc"
        return 1
    fi
    printf '%s\n' 'extern "C" __global__ void hiprs_axpy(float a, const float* x, float* y, int n) {' \
        '    int i = blockIdx.x * blockDim.x + threadIdx.x;' \
        '    if (i < n) y[i] += a * x[i];' '}' >"$dir/axpy.cu"
    HIP_PLATFORM=nvidia "$front" -c "$dir/axpy.cu" -o "$dir/axpy.o" -O3 || {
        echo "check_nvcc: -c through hip-nvcc failed"
        return 1
    }
    if ! [ -s "$dir/axpy.o" ] || ! grep -q hiprs_axpy "$dir/axpy.o"; then
        echo "check_nvcc: no object naming the kernel at $dir/axpy.o"
        return 1
    fi
    echo "check_nvcc: NVIDIA path ok: $(wc -c <"$dir/axpy.o") bytes of object, naming hiprs_axpy"
}
export -f check_nvcc

if [ "$mode" = tests ]; then
    for e in "$here"/examples/* "$here"/bins/*; do
        [ -x "$e" ] || continue
        run_program program "$e"
    done
    for b in "$here"/benches/*; do
        [ -x "$b" ] || continue
        # shellcheck disable=SC2086
        run_program bench "$b" ${GPU_RUN_BENCH_ARGS:-}
    done
    # The platform chosen by devices (issue 13): the GPU machine has
    # Ubuntu's ROCm 5.7 runtime, which sees no device, beside its NVIDIA
    # GPUs; with HIP_PLATFORM unset the report must choose nvidia.
    if [ -x "$here/bins/hip-info" ] && selected info-platform-unset; then
        echo "=== program hip-info with HIP_PLATFORM unset"
        report=$(env -u HIP_PLATFORM timeout "$limit" "$here/bins/hip-info" 2>&1)
        rc=$?
        echo "$report"
        echo "$report" | "$xtask" gpu-run platform "$ledger" "$rc"
    fi
fi

# The counts, every failure and every test not run; the last line; the
# exit status (0 only when nothing failed and something ran).
"$xtask" gpu-run tally "$ledger" "$mode" "$here"

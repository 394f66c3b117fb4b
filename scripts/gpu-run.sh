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
# (names matching GPU_RUN_BENCHMARKS, default
# 'gemm_bench|rand_bench|fft_bench|launch_rate|call_overhead|alloc_loop|copy_bandwidth|allreduce_bench|data_parallel|pipeline')
# are not run here: they need arguments, minutes or two GPUs, and
# `scripts/gpu-session.sh bench` runs them. With
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
export HIP_PLATFORM=nvidia
limit=${GPU_RUN_TIMEOUT:-300}
only=${GPU_RUN_ONLY:-}
exclude=${GPU_RUN_EXCLUDE:-}
benchmarks=${GPU_RUN_BENCHMARKS:-gemm_bench|rand_bench|fft_bench|launch_rate|call_overhead|alloc_loop|copy_bandwidth|allreduce_bench|data_parallel|pipeline}
selected() {
    { [ -z "$only" ] || echo "$1" | grep -Eq "$only"; } &&
        { [ -z "$exclude" ] || ! echo "$1" | grep -Eq "$exclude"; }
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

tests_passed=0
tests_failed=0
binaries=0
programs_passed=0
programs_failed=0
not_run=()
failures=()
log=$(mktemp)
trap 'rm -f "$log"' EXIT

for t in "$here"/tests/*; do
    [ -x "$t" ] || continue
    name=$(basename "$t")
    selected "$name" || continue
    binaries=$((binaries + 1))
    echo "=== test $name"
    skip=()
    if [ "$gpus" -lt 2 ]; then
        while read -r test; do
            [ -n "$test" ] || continue
            skip+=(--skip "$test")
            not_run+=("$name $test: needs two GPUs ($gpus found)")
            echo "--- not run $name $test: needs two GPUs ($gpus found)"
        done < <("$t" --list --ignored --format terse 2>/dev/null |
            sed -n 's/: test$//p' | awk -F'::' '$NF ~ /^two_gpus_/')
    fi
    if [ -n "${wrap[*]}" ]; then
        for entry in ${GPU_RUN_MEMCHECK_SKIP-hip--gpu_tracking:a_write_on_another_threads_per_thread_stream_is_waited_for}; do
            [ "${entry%%:*}" = "$name" ] || continue
            skip+=(--skip "${entry#*:}")
            not_run+=("$name ${entry#*:}: not run under memcheck (hangs under compute-sanitizer; passes without it)")
            echo "--- not run $name ${entry#*:}: not run under memcheck (hangs under compute-sanitizer; passes without it)"
        done
    fi
    if [ ${#skip[@]} -gt 0 ]; then skip+=(--exact); fi
    timeout "$limit" "${wrap[@]}" "$t" --ignored --test-threads=1 "${skip[@]}" >"$log" 2>&1
    rc=$?
    cat "$log"
    summary=$(grep -E '^test result:' "$log" | tail -1)
    problems=()
    p=0
    f=0
    if [ -n "$summary" ]; then
        p=$(echo "$summary" | sed -E 's/.* ([0-9]+) passed.*/\1/')
        f=$(echo "$summary" | sed -E 's/.* ([0-9]+) failed.*/\1/')
        if [ "$f" -gt 0 ]; then
            problems+=("$f failed: $(grep -E '^test .* \.\.\. FAILED$' "$log" | sed -E 's/^test (.*) \.\.\. FAILED$/\1/' | paste -sd ' ')")
        fi
    fi
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        problems+=("timed out after ${limit}s")
    elif [ -z "$summary" ]; then
        problems+=("no test summary (exit $rc)")
    elif [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        problems+=("exit $rc with no failed test")
    fi
    if [ "$mode" = memcheck ]; then
        errors=$(grep -E 'ERROR SUMMARY: [0-9]+ error' "$log" | tail -1 | sed -E 's/.*ERROR SUMMARY: ([0-9]+) error.*/\1/')
        if [ -z "$errors" ]; then
            problems+=("no compute-sanitizer ERROR SUMMARY")
        elif [ "$errors" -ne 0 ]; then
            problems+=("memcheck: $errors errors")
        fi
        echo "[$name] ERROR SUMMARY: ${errors:-missing}"
    fi
    tests_passed=$((tests_passed + p))
    tests_failed=$((tests_failed + f))
    if [ ${#problems[@]} -eq 0 ]; then
        echo "--- test $name: ok ($p passed)"
    else
        # A failing binary counts at least one failure, even when no test
        # in it reported one (timeout, crash, memory errors).
        if [ "$f" -eq 0 ]; then tests_failed=$((tests_failed + 1)); fi
        text=$(printf '%s; ' "${problems[@]}")
        failures+=("test $name: ${text%; }")
        echo "--- test $name: FAILED ($p passed; ${text%; })"
    fi
done

run_program() {
    local kind=$1 p=$2
    shift 2
    local name rc
    name=$(basename "$p")
    selected "$name" || return 0
    if echo "$name" | grep -Eq "^($benchmarks)\$"; then
        echo "--- $kind $name: left to gpu-session.sh bench"
        return 0
    fi
    echo "=== $kind $name"
    timeout "$limit" "$p" "$@"
    rc=$?
    if [ "$rc" -eq 0 ]; then
        programs_passed=$((programs_passed + 1))
        echo "--- $kind $name: ok"
    else
        programs_failed=$((programs_failed + 1))
        if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
            failures+=("$kind $name: timed out after ${limit}s")
            echo "--- $kind $name: FAILED (timed out after ${limit}s)"
        else
            failures+=("$kind $name: exit $rc")
            echo "--- $kind $name: FAILED (exit $rc)"
        fi
    fi
}

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
        if [ "$rc" -eq 0 ] && echo "$report" | grep -q '^platform: nvidia'; then
            programs_passed=$((programs_passed + 1))
            echo "--- program info-platform-unset: ok ($(echo "$report" | grep -m1 '^platform:'))"
        else
            programs_failed=$((programs_failed + 1))
            failures+=("program info-platform-unset: exit $rc, $(echo "$report" | grep -m1 '^platform:' || echo 'no platform line')")
            echo "--- program info-platform-unset: FAILED (exit $rc)"
        fi
    fi
fi

passed=$((tests_passed + programs_passed))
failed=$((tests_failed + programs_failed))
if [ "$passed" -eq 0 ] && [ "$failed" -eq 0 ] && [ ${#not_run[@]} -eq 0 ]; then
    failures+=("nothing ran: no test binary or program selected in $here")
    failed=1
fi
echo
echo "== counts ($mode)"
echo "tests (each test function once): $tests_passed passed, $tests_failed failed, in $binaries test binaries"
if [ "$mode" = tests ]; then
    echo "programs (examples, binaries, benches; one each): $programs_passed passed, $programs_failed failed"
fi
echo "not run: ${#not_run[@]}"
for n in "${not_run[@]}"; do echo "  not run: $n"; done
for f in "${failures[@]}"; do echo "  FAILED: $f"; done
if [ ${#not_run[@]} -gt 0 ]; then
    echo "$passed passed, $failed failed, ${#not_run[@]} skipped"
else
    echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]

#!/usr/bin/env bash
# The GPU runner, copied to gpu-bundle/run.sh by scripts/gpu-bundle.sh.
# On the GPU machine:  gpu-bundle/run.sh [memcheck]
#
# Runs, with HIP_PLATFORM=nvidia: the GPU tier of every test binary
# (`--ignored --test-threads=1`: the GPU tests are #[ignore = "needs a GPU"];
# tiers 1 and 2 run in CI, and tier 2 needs Debian's AMD runtime, which a GPU
# machine lacks), every example and binary without arguments, and every bench
# in its quick test mode (criterion runs each benchmark once without --bench;
# set GPU_RUN_BENCH_ARGS=--bench for real measurements). With `memcheck`,
# only the test binaries run, under `compute-sanitizer --tool memcheck`.
#
# Prints each program's outcome, and last a line `N passed, N failed`:
# tests counted one by one from libtest's summary, each example, binary and
# bench as one; a test binary that dies without a summary counts one failure.
# GPU_RUN_TIMEOUT (seconds, default 300) bounds each program.
# GPU_RUN_ONLY / GPU_RUN_EXCLUDE: grep -E patterns; only programs whose
# name matches the first and not the second run.
set -u
here=$(cd "$(dirname "$0")" && pwd)
export HIP_PLATFORM=nvidia
limit=${GPU_RUN_TIMEOUT:-300}
only=${GPU_RUN_ONLY:-}
exclude=${GPU_RUN_EXCLUDE:-}
selected() {
    { [ -z "$only" ] || echo "$1" | grep -Eq "$only"; } &&
        { [ -z "$exclude" ] || ! echo "$1" | grep -Eq "$exclude"; }
}
wrap=()
if [ "${1:-}" = memcheck ]; then
    sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    # API errors are not memory errors: the error-path tests provoke them.
    wrap=("$sanitizer" --tool memcheck --report-api-errors no --require-cuda-init no --error-exitcode 99 --print-limit 20)
fi
passed=0
failed=0
log=$(mktemp)

for t in "$here"/tests/*; do
    [ -x "$t" ] || continue
    name=$(basename "$t")
    selected "$name" || continue
    echo "=== test $name"
    timeout "$limit" "${wrap[@]}" "$t" --ignored --test-threads=1 >"$log" 2>&1
    rc=$?
    cat "$log"
    summary=$(grep -E '^test result:' "$log" | tail -1)
    if [ -n "$summary" ]; then
        p=$(echo "$summary" | sed -E 's/.* ([0-9]+) passed.*/\1/')
        f=$(echo "$summary" | sed -E 's/.* ([0-9]+) failed.*/\1/')
        passed=$((passed + p))
        failed=$((failed + f))
        if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then failed=$((failed + 1)); fi
    else
        failed=$((failed + 1))
    fi
    if [ -n "${wrap[*]}" ]; then grep -E 'ERROR SUMMARY' "$log" | sed "s|^|[$name] |"; fi
    echo "--- $name: exit $rc ${summary:-no test summary}"
done

run_program() {
    local kind=$1 p=$2
    shift 2
    local name
    name=$(basename "$p")
    selected "$name" || return 0
    echo "=== $kind $name"
    timeout "$limit" "$p" "$@"
    local rc=$?
    if [ "$rc" -eq 0 ]; then
        passed=$((passed + 1))
        echo "--- $kind $name: ok"
    else
        failed=$((failed + 1))
        echo "--- $kind $name: FAILED (exit $rc)"
    fi
}

if [ -n "${wrap[*]}" ]; then
    rm -f "$log"
    echo "$passed passed, $failed failed"
    exit 0
fi
for e in "$here"/examples/* "$here"/bins/*; do
    [ -x "$e" ] || continue
    run_program program "$e"
done
for b in "$here"/benches/*; do
    [ -x "$b" ] || continue
    # shellcheck disable=SC2086
    run_program bench "$b" ${GPU_RUN_BENCH_ARGS:-}
done
rm -f "$log"
echo "$passed passed, $failed failed"

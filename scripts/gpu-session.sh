#!/usr/bin/env bash
# The whole GPU check of the workspace, batched for one device call:
#
#   scripts/gpu-bundle.sh                         # here: build and gather
#   bash scripts/gpu-session.sh tests             # there: GPU tests, examples, binaries
#   bash scripts/gpu-session.sh memcheck          # there: tests under compute-sanitizer
#   bash scripts/gpu-session.sh bench             # there: GEMM and FFT vs torch, launch cost, call cost
#   bash scripts/gpu-session.sh all               # there: the three above, in that order
#
# (run with the repository as the working folder and gpu-bundle/ carried).
# Logs go to $OUT (or /tmp/gpu-session). At the end, one table per mode
# (each program's or test binary's outcome, the tests that did not run and
# why, the count breakdown) and last `N passed, N failed`, followed by
# `, N skipped` when tests did not run for want of GPUs. What counts:
#   tests     each GPU test function once, each example/binary once
#             (gpu-bundle/run.sh's count);
#   memcheck  the same tests again under compute-sanitizer: alone, its own
#             count; in `all`, a re-run, so only its failures join the last
#             line (its passes are on the line "re-runs under memcheck");
#   bench     each of the torch baselines (GEMM, FFT), gemm_bench,
#             fft_bench, launch_rate, call_overhead, alloc_loop,
#             copy_bandwidth and the cudarc launch rate once: a benchmark that cannot measure, or whose
#             baseline is missing, fails.
# The exit status is non-zero when anything failed, timed out or printed no
# summary.
set -u
cd "$(dirname "$0")/.." || exit 2
bundle=gpu-bundle
out=${OUT:-/tmp/gpu-session}
mkdir -p "$out"
export HIP_PLATFORM=nvidia
mode=${1:-tests}
case "$mode" in tests | memcheck | bench | all) ;; *)
    echo "usage: gpu-session.sh tests|memcheck|bench|all" >&2
    exit 2
    ;;
esac

device=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -n1)
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
tables=()
total_passed=0
total_failed=0
total_skipped=0
rerun_line=""

row() { printf '| %-44s | %s |\n' "$1" "$2"; }

# Runs gpu-bundle/run.sh in mode $1 and sets m_passed, m_failed, m_skipped
# and m_table from its output.
run_tests() {
    local m=$1 log="$out/$1.log" rc summary line key
    "$bundle/run.sh" "$m" >"$log" 2>&1
    rc=$?
    cat "$log"
    summary=$(tail -n1 "$log")
    m_table=$(
        echo "== GPU session: $m"
        row device "${device:-unknown} ($gpus GPUs)"
        while read -r line; do
            line=${line#--- }
            key=${line%%: *}
            row "$key" "${line#*: }"
        done < <(grep -E '^--- ' "$log")
        # Under memcheck, each binary's compute-sanitizer verdict.
        grep -E '^\[.*\] ERROR SUMMARY' "$log" | while read -r line; do
            row "memcheck ${line%%]*}]" "${line#*] }"
        done
        sed -n '/^== counts/,$p' "$log" | sed '1d;$d'
    )
    if [[ "$summary" =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed(,\ ([0-9]+)\ skipped)?$ ]]; then
        m_passed=${BASH_REMATCH[1]}
        m_failed=${BASH_REMATCH[2]}
        m_skipped=${BASH_REMATCH[4]:-0}
        if [ "$rc" -ne 0 ] && [ "$m_failed" -eq 0 ]; then
            m_failed=1
            m_table+=$'\n'"FAILED: run.sh $m exited $rc with no failure counted"
        fi
    else
        m_passed=0
        m_failed=1
        m_skipped=0
        m_table+=$'\n'"FAILED: run.sh $m printed no summary (exit $rc); see $log"
    fi
    m_table+=$'\n'"$m: $m_passed passed, $m_failed failed, $m_skipped skipped"
    if [ "$m" = tests ]; then run_cudarc_examples; fi
}

# cudarc's example programs built against cuda-compat: each one that runs
# and prints what it should counts as passed; 13-copy-multi-gpu is not run
# with fewer than two GPUs.
run_cudarc_examples() {
    local log="$out/cudarc-examples.log" rc summary
    bash "$bundle/cudarc-examples/cudarc-examples.sh" run "$bundle" >"$log" 2>&1
    rc=$?
    cat "$log"
    summary=$(tail -n1 "$log")
    m_table+=$'\n'"$(row "cudarc examples (cuda-compat as cudarc)" "exit $rc: $(tail -n2 "$log" | paste -sd' ')")"
    if [[ "$summary" =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
        m_passed=$((m_passed + BASH_REMATCH[1]))
        m_failed=$((m_failed + BASH_REMATCH[2]))
        if [ "$rc" -ne 0 ] && [ "${BASH_REMATCH[2]}" -eq 0 ]; then m_failed=$((m_failed + 1)); fi
    else
        m_failed=$((m_failed + 1))
    fi
    local not_run
    not_run=$(grep -Eo '^[0-9]+ not run' "$log" | grep -Eo '^[0-9]+' | tail -n1)
    local differ
    differ=$(grep -Eo '^[0-9]+ differ' "$log" | grep -Eo '^[0-9]+' | tail -n1)
    m_skipped=$((m_skipped + ${not_run:-0} + ${differ:-0}))
}

# One benchmark program: its exit status (timeouts and failures) decides.
bench_step() {
    local label=$1 rc=$2 note=$3
    if [ "$rc" -eq 0 ]; then
        m_passed=$((m_passed + 1))
        m_table+=$'\n'"$(row "$label" "ok${note:+ ($note)}")"
    else
        m_failed=$((m_failed + 1))
        local why="exit $rc"
        if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then why="timed out"; fi
        m_table+=$'\n'"$(row "$label" "FAILED ($why)${note:+: $note}")"
    fi
}

# bench_program LABEL SECONDS PATTERN COMMAND...: runs one benchmark with a
# time limit, shows its output, and adds its outcome to the table with the
# output's lines matching PATTERN (grep -E) as the note.
bench_program() {
    local label=$1 limit=$2 pattern=$3 log rc
    shift 3
    log="$out/$(echo "$label" | tr -c 'A-Za-z0-9_\n' '_').txt"
    timeout "$limit" "$@" >"$log" 2>&1
    rc=$?
    cat "$log"
    bench_step "$label" "$rc" "$(grep -E "$pattern" "$log" | paste -sd' ')"
}

run_bench() {
    local rc
    m_passed=0
    m_failed=0
    m_skipped=0
    m_table="== GPU session: bench"$'\n'"$(row device "${device:-unknown} ($gpus GPUs)")"
    timeout 600 python3 "$bundle/torch_gemm.py" >"$out/torch.txt" 2>"$out/torch.err"
    rc=$?
    cat "$out/torch.err"
    bench_step "torch baseline (torch_gemm.py)" "$rc" "$(grep -v '^#' "$out/torch.err" | tail -n1)"
    bench_program gemm_bench 400 '^gemm_bench:|worst ratio' "$bundle/bins/gemm_bench" "$out/torch.txt"
    timeout 300 python3 "$bundle/torch_fft.py" >"$out/torch_fft.txt" 2>"$out/torch_fft.err"
    rc=$?
    cat "$out/torch_fft.err"
    bench_step "torch baseline (torch_fft.py)" "$rc" "$(grep -v '^#' "$out/torch_fft.err" | tail -n1)"
    bench_program fft_bench 300 '^fft_bench:' "$bundle/bins/fft_bench" "$out/torch_fft.txt"
    bench_program launch_rate 300 '^launch_rate:' "$bundle/bins/launch_rate"
    bench_program call_overhead 300 '^call_overhead:' "$bundle/bins/call_overhead" --bench
    bench_program alloc_loop 300 ': ratio .*target' "$bundle/bins/alloc_loop"
    bench_program copy_bandwidth 400 '^lowest' "$bundle/bins/copy_bandwidth"
    bench_program "cudarc launch rate (facade vs real cudarc)" 500 '^throughput ratio|^launch rate ratio' \
        bash "$bundle/cudarc-examples/cudarc-examples.sh" bench-run "$bundle"
    m_table+=$'\n'"bench: $m_passed passed, $m_failed failed"
}

for m in tests memcheck bench; do
    [ "$mode" = "$m" ] || [ "$mode" = all ] || continue
    echo "=== gpu-session: $m ($(date -u +%H:%M:%S))"
    if [ "$m" = bench ]; then run_bench; else run_tests "$m"; fi
    tables+=("$m_table")
    if [ "$m" = memcheck ] && [ "$mode" = all ]; then
        rerun_line="re-runs under memcheck (the same tests again): $m_passed passed, $m_failed failed"
        total_failed=$((total_failed + m_failed))
    else
        total_passed=$((total_passed + m_passed))
        total_failed=$((total_failed + m_failed))
        total_skipped=$((total_skipped + m_skipped))
    fi
done

for t in "${tables[@]}"; do
    echo
    echo "$t"
done
echo
if [ -n "$rerun_line" ]; then echo "$rerun_line"; fi
if [ "$total_skipped" -gt 0 ]; then
    echo "$total_passed passed, $total_failed failed, $total_skipped skipped"
else
    echo "$total_passed passed, $total_failed failed"
fi
[ "$total_failed" -eq 0 ]

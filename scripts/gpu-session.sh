#!/usr/bin/env bash
# The whole GPU check of the workspace, batched for one device call each:
#
#   scripts/gpu-bundle.sh                         # here: build and gather
#   bash scripts/gpu-session.sh tests             # there: GPU tests, examples, binaries
#   bash scripts/gpu-session.sh memcheck          # there: tests under compute-sanitizer
#   bash scripts/gpu-session.sh bench             # there: GEMM vs torch, launch rate, call cost
#
# (run with the repository as the working folder and gpu-bundle/ carried).
# Logs go to $OUT (or /tmp/gpu-session); the last lines are a short table
# and `N passed, N failed` for what ran.
set -u
cd "$(dirname "$0")/.."
bundle=gpu-bundle
out=${OUT:-/tmp/gpu-session}
mkdir -p "$out"
export HIP_PLATFORM=nvidia
mode=${1:-tests}

device=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -n1)
rows=()
row() { rows+=("$(printf '| %-34s | %s |' "$1" "$2")"); }
row device "${device:-unknown}"

case "$mode" in
tests)
    GPU_RUN_EXCLUDE='gemm_bench|launch_rate|call_overhead' "$bundle/run.sh" >"$out/tests.log" 2>&1
    cat "$out/tests.log"
    while read -r line; do
        name=${line#--- }
        row "${name%%:*}" "${name#*: }"
    done < <(grep -E '^--- ' "$out/tests.log")
    summary=$(tail -n1 "$out/tests.log")
    ;;
memcheck)
    "$bundle/run.sh" memcheck >"$out/memcheck.log" 2>&1
    cat "$out/memcheck.log"
    while read -r line; do
        row "memcheck ${line%%]*}]" "${line#*] }"
    done < <(grep -E '^\[.*ERROR SUMMARY' "$out/memcheck.log")
    summary=$(tail -n1 "$out/memcheck.log")
    ;;
bench)
    passed=0
    failed=0
    check() { if [ "$1" -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi; }
    python3 "$bundle/torch_gemm.py" >"$out/torch.txt" 2>"$out/torch.err"
    rc=$?
    check $rc
    row "torch baseline" "exit $rc ($(head -n1 "$out/torch.err"))"
    timeout 400 "$bundle/bins/gemm_bench" "$out/torch.txt" >"$out/gemm_bench.txt" 2>&1
    rc=$?
    check $rc
    cat "$out/gemm_bench.txt"
    row "gemm_bench" "exit $rc"
    timeout 120 "$bundle/bins/launch_rate" >"$out/launch_rate.txt" 2>&1
    rc=$?
    check $rc
    cat "$out/launch_rate.txt"
    row "launch_rate" "exit $rc"
    timeout 150 "$bundle/bins/call_overhead" --bench >"$out/call_overhead.txt" 2>&1
    rc=$?
    check $rc
    cat "$out/call_overhead.txt"
    row "call_overhead" "exit $rc"
    summary="$passed passed, $failed failed"
    ;;
*)
    echo "usage: gpu-session.sh tests|memcheck|bench" >&2
    exit 2
    ;;
esac

echo
echo "== GPU session: $mode"
printf '%s\n' "${rows[@]}"
echo "$summary"

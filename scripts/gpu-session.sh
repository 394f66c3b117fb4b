#!/usr/bin/env bash
# The whole GPU check of the workspace, batched for one device call:
#
#   scripts/gpu-bundle.sh                         # here: build and gather
#   bash scripts/gpu-session.sh tests             # there: GPU tests, examples, binaries
#   bash scripts/gpu-session.sh memcheck          # there: tests under compute-sanitizer
#   bash scripts/gpu-session.sh bench             # there: GEMM, randn and FFT vs torch, launch cost, call cost
#   bash scripts/gpu-session.sh all               # there: the three above, in that order
#   bash scripts/gpu-session.sh soak              # there: the soak alone (about 7 minutes)
#
#   scripts/tsan-bundle.sh                        # here: hip's threaded tests under TSan
#   bash scripts/gpu-session.sh tsan              # there: run them (tsan-bundle/ carried)
#
# (run with the repository as the working folder and gpu-bundle/ carried;
# `tsan` needs only tsan-bundle/, and is not part of `all`: it is
# tsan-bundle/run.sh's own count, last line
# `tsan: N binaries, N tests passed, N failed, N reports`).
# Logs go to $OUT (or /tmp/gpu-session). At the end, one table per mode
# (each program's or test binary's outcome, the tests that did not run and
# why, the count breakdown) and last `N passed, N failed`, followed by
# `, N skipped` when tests did not run for want of GPUs. What counts:
#   tests     each GPU test function once, each example/binary once
#             (gpu-bundle/run.sh's count); the capture tests' negative
#             control (their gate-protected tests with
#             HIP_TEST_CAPTURE_GATE=off must fail; one step, failed if they
#             pass); cudarc's unit tests passing on
#             real cudarc, each once through the drop-in
#             (scripts/cudarc-tests.sh run);
#   memcheck  the same tests again under compute-sanitizer: alone, its own
#             count; in `all`, a re-run, so only its failures join the last
#             line (its passes are on the line "re-runs under memcheck");
#   bench     each benchmark step once (torch GEMM baseline, gemm_bench, torch randn
#             baseline, rand_bench, torch FFT baseline, fft_bench, torch
#             F.linear + gelu baseline, lt_bench, torch linalg baseline,
#             solver_bench, torch sparse baseline, sparse_bench,
#             launch_rate, call_overhead, alloc_loop, copy_bandwidth, the
#             cudarc launch rate, the per-op cost of hip and cuda-compat
#             against real cudarc, cudarc's pageable copies through
#             cuda-compat against real cudarc; torch all-reduce baseline, allreduce_bench
#             and data_parallel each in one process and in one process per
#             GPU, pipeline): a benchmark that cannot measure, or whose baseline
#             is missing, fails; each benchmark step must print the number
#             of verdict lines written beside it (lines ending `: met`,
#             `: NOT met` or `: undecided`, bench-verdict's words), and a
#             missing one, a `NOT met` or an `undecided` fails the step;
#             the multi-GPU steps are not run with fewer than two GPUs.
#             GPU_SESSION_BENCH_PART=1 runs only the libraries against
#             torch and the raw-call benchmarks (gemm_bench to
#             copy_bandwidth), =2 only the rest (cudarc, per op,
#             multi-GPU, candle, mistral.rs), for device calls shorter than the whole
#             mode; the other part is not run.
#   soak      one step: gpu-bundle/bins/soak (benches/src/bin/soak.rs),
#             GPU_SESSION_SOAK_SECONDS of mixed work (default 330) then its
#             injected faults, within a 510 s limit; passes when it exits 0.
#             Not part of `all` (too long for one device call beside it).
# Steps not run for a missing input (candle-run, candle-bench, mistral.rs's
# mistral-run and mistral-bench without their packs; multi-gpu with fewer
# than two GPUs; bench-part-1 or bench-part-2 under GPU_SESSION_BENCH_PART)
# count as skipped, are listed by name before the last line, and fail the
# session unless GPU_SESSION_ALLOW_SKIP (space-separated names) names them:
#   GPU_SESSION_ALLOW_SKIP="candle-bench mistral-bench" bash scripts/gpu-session.sh bench
# The exit status is non-zero when anything failed, timed out, printed no
# summary or was not run without being allowed. The tables and counts are xtask's (`gpu-bundle/xtask session`,
# xtask/src/session.rs): each step's outcome goes into a ledger
# ($OUT/session.ledger), from which the last lines are printed.
set -u
cd "$(dirname "$0")/.." || exit 2
# `list-benchmarks`: the bundle's programs that are benchmarks, one name per
# line (gpu-bundle/run.sh leaves them out of `tests`; scripts/gpu-bundle.sh
# writes this list into the bundle). Read from what this script and
# scripts/cudarc-examples.sh run, so a new benchmark step needs no list.
if [ "${1:-}" = list-benchmarks ]; then
    {
        grep -o '\$bundle/\(bins\|examples\)/[A-Za-z0-9_]*' scripts/gpu-session.sh
        grep -o '\.\./bins/[A-Za-z0-9_]*' scripts/cudarc-examples.sh
    } | sed 's|.*/||' | sort -u
    exit 0
fi
if [ "${1:-}" = tsan ]; then
    if [ ! -f tsan-bundle/run.sh ]; then
        echo "gpu-session: no tsan-bundle/run.sh (scripts/tsan-bundle.sh builds it)" >&2
        exit 2
    fi
    echo "=== gpu-session: tsan ($(date -u +%H:%M:%S))"
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -n1
    TSAN_LOG_DIR=${OUT:-/tmp/gpu-session}/tsan exec bash tsan-bundle/run.sh gpu
fi
bundle=gpu-bundle
# scripts/gpu-bundle.sh packs the executables into payload.tar.xz.
if [ -f "$bundle/payload.tar.xz" ] && [ ! -d "$bundle/tests" ]; then
    tar -C "$bundle" -xJf "$bundle/payload.tar.xz" || {
        echo "gpu-session: cannot unpack $bundle/payload.tar.xz" >&2
        exit 2
    }
fi
out=${OUT:-/tmp/gpu-session}
mkdir -p "$out"
xtask=${XTASK:-$bundle/xtask}
if [ ! -x "$xtask" ]; then
    echo "gpu-session: no $xtask (scripts/gpu-bundle.sh puts the xtask binary there)" >&2
    exit 2
fi
export XTASK=$xtask
ledger=$out/session.ledger
rm -f "$ledger"
export HIP_PLATFORM=nvidia
mode=${1:-tests}
case "$mode" in tests | memcheck | bench | all | soak) ;; *)
    echo "usage: gpu-session.sh tests|memcheck|bench|all|soak|tsan" >&2
    exit 2
    ;;
esac

device=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -n1)
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
# session KIND ARGS...: adds a step's outcome to mode $m's table and counts.
session() { "$xtask" session "$1" "$ledger" "$m" "${@:2}"; }

# Runs gpu-bundle/run.sh in mode $m: its `--- ` lines, memcheck verdicts
# and counts become the mode's table; a missing last line, or a failing
# exit with no failure counted, is a failure.
run_tests() {
    local log="$out/$m.log" rc
    "$bundle/run.sh" "$m" >"$log" 2>&1
    rc=$?
    cat "$log"
    session begin "${device:-unknown} ($gpus GPUs)"
    session runner "$log" "$rc"
    if [ "$m" = tests ]; then
        run_capture_control
        run_cudarc_examples
        run_cudarc_tests
        run_candle run
        run_mistral run
    fi
}

# A program built twice, against cuda-compat (ours) and real cudarc, by
# its scripts/PACK.sh (`build`, then `bundle gpu-bundle`, which writes
# gpu-bundle/PACK.tar.xz), run by scripts/SCRIPT (`run` for tests, `bench`
# for the benchmark); without that pack, listed as not run (step name
# PACK-WHAT, e.g. candle-bench), which fails the session unless
# GPU_SESSION_ALLOW_SKIP names it. Its last line, `N passed, N failed`,
# joins the counts; in `bench`, VERDICTS verdict lines must be printed, each
# `met`.
#   run_builds NAME PACK SCRIPT WHAT LIMIT VERDICTS
run_builds() {
    local name=$1 pack=$2 script=$3 what=$4 limit=$5 verdicts=$6 log="$out/$2-$4.log" rc
    if [ ! -f "$bundle/$pack.tar.xz" ] && [ ! -d "$bundle/$pack" ]; then
        session skip "$pack-$what" "$name $what (cuda-compat vs real cudarc)" "not run: no gpu-bundle/$pack.tar.xz (scripts/$pack.sh build, then bundle gpu-bundle)"
        return
    fi
    OUT=$out timeout "$limit" bash "scripts/$script" "$what" "$bundle" >"$log" 2>&1
    rc=$?
    cat "$log"
    if [ "$what" = bench ]; then
        session summary "$name $what (cuda-compat vs real cudarc)" "$log" "$rc" candle "$verdicts"
    else
        session summary "$name $what (cuda-compat vs real cudarc)" "$log" "$rc" candle
    fi
}

# candle's suites and models (run), its workloads (bench: 6 verdicts).
run_candle() { run_builds candle candle candle-gpu.sh "$1" 1500 6; }
# mistral.rs serving the seeded model: the tokens (run), and the prefill
# and decode verdicts (bench: 2).
run_mistral() { run_builds mistral.rs mistral mistral-gpu.sh "$1" 900 2; }

# The capture tests' negative control: hip-benches--gpu_capture_paths's
# tests of the paths the capture gate keeps safe, run with the gate off
# (HIP_TEST_CAPTURE_GATE=off). They must fail (measured: a device
# synchronize and an untracked allocation's free invalidate the other
# thread's captures); if they pass, the tests do not test the gate, and
# the session fails. A missing binary fails too.
CAPTURE_CONTROL_TESTS="device_synchronize untracked_stream_allocation"
run_capture_control() {
    local bin="$bundle/tests/hip-benches--gpu_capture_paths" label="capture tests with the gate off (negative control)"
    local log="$out/capture-gate-off.log" rc t
    if [ ! -x "$bin" ]; then
        session step "$label" 1 "no $bin in the bundle"
        return
    fi
    : >"$log"
    rc=0
    for t in $CAPTURE_CONTROL_TESTS; do
        HIP_TEST_CAPTURE_GATE=off timeout "${GPU_SESSION_CONTROL_TIMEOUT:-300}" "$bin" --ignored --exact "$t" --test-threads 1 >>"$log" 2>&1 || rc=$?
        [ "$rc" -eq 124 ] && break
    done
    cat "$log"
    # shellcheck disable=SC2086 # the test names, one word each
    session control "$label" "$rc" "$log" $CAPTURE_CONTROL_TESTS
}

# run_cudarc LABEL LOG SCRIPT ARGS...: one of the bundle's cudarc scripts,
# its log shown; its last line (`N passed, N failed`) joins the counts,
# its "N not run" and "N differ" lines are skipped.
run_cudarc() {
    local label=$1 log="$out/$2" rc
    shift 2
    bash "$@" >"$log" 2>&1
    rc=$?
    cat "$log"
    session summary "$label" "$log" "$rc" cudarc
}

# cudarc's example programs built against cuda-compat: each one that runs
# and prints what it should counts as passed; 13-copy-multi-gpu is not run
# with fewer than two GPUs.
run_cudarc_examples() {
    run_cudarc "cudarc examples (cuda-compat as cudarc)" cudarc-examples.log \
        "$bundle/cudarc-examples/cudarc-examples.sh" run "$bundle"
}

# cudarc's own unit tests through real cudarc and through the drop-in
# (scripts/cudarc-tests.sh run): a test passing on real cudarc must pass
# through the drop-in; tests failing on both count as not run.
run_cudarc_tests() {
    run_cudarc "cudarc's unit tests (real cudarc, then the drop-in)" cudarc-tests.log \
        "$bundle/cudarc-tests/cudarc-tests.sh" run "$bundle/cudarc-tests"
}

# One benchmark program: its exit status (timeouts and failures) decides.
bench_step() { session step "$1" "$2" "$3"; }

# bench_program LABEL SECONDS VERDICTS PATTERN COMMAND...: runs one
# benchmark with a time limit, shows its output, and adds its outcome to
# the table with the output's lines matching PATTERN (grep -E) as the note.
# VERDICTS is how many verdict lines (ending `: met`, `: NOT met` or `:
# undecided`) it must print: xtask fails the step when any is missing or
# is not `met`, whatever the exit status.
bench_program() {
    local label=$1 limit=$2 verdicts=$3 pattern=$4 log rc
    shift 4
    log="$out/$(echo "$label" | tr -c 'A-Za-z0-9_\n' '_').txt"
    timeout "$limit" "$@" >"$log" 2>&1
    rc=$?
    cat "$log"
    session bench "$label" "$rc" "$verdicts" "$log" "$(grep -E "$pattern" "$log" | paste -sd' ')"
}

# run_ranks N PROGRAM [ARGS...]: N processes of PROGRAM, one per GPU, started
# by torchrun itself when it is there (GPU_SESSION_TORCHRUN, default the
# GPU machine's /opt/torch/.venv/bin/torchrun; `--standalone --no-python`),
# else with the variables torchrun sets (RANK, WORLD_SIZE, LOCAL_RANK,
# MASTER_ADDR, MASTER_PORT on a free local port, TORCHELASTIC_RUN_ID); fails
# when any fails. Exported for `timeout bash -c`; a TERM (the timeout) ends
# them all.
run_ranks() {
    local n=$1 prog=$2 port r rc=0 pids=()
    shift 2
    local torchrun=${GPU_SESSION_TORCHRUN:-/opt/torch/.venv/bin/torchrun}
    if [ -x "$torchrun" ]; then
        echo "run_ranks: $torchrun --standalone --no-python --nproc-per-node=$n $prog $*"
        "$torchrun" --standalone --no-python --nproc-per-node="$n" "$prog" "$@"
        return
    fi
    echo "run_ranks: no torchrun at $torchrun: $n processes with torchrun's variables"
    port=$("$XTASK" free-port) || return 1
    trap 'kill "${pids[@]}" 2>/dev/null; exit 143' TERM
    for ((r = 0; r < n; r++)); do
        RANK=$r WORLD_SIZE=$n LOCAL_RANK=$r MASTER_ADDR=127.0.0.1 MASTER_PORT=$port \
            TORCHELASTIC_RUN_ID="gpu-session-$$" "$prog" "$@" &
        pids+=($!)
    done
    for r in "${pids[@]}"; do wait "$r" || rc=$?; done
    return "$rc"
}
export -f run_ranks

# The multi-GPU benchmarks: the torch all-reduce baseline, allreduce_bench
# and data_parallel (each in one process, then one process per GPU) and
# pipeline; with
# fewer than two GPUs each is listed as not run and counted as skipped.
run_multi_gpu_bench() {
    local rc label
    if [ "$gpus" -lt 2 ]; then
        for label in "torch all-reduce baseline (torch_allreduce.py)" allreduce_bench \
            "allreduce_bench (one process per GPU)" data_parallel "data_parallel (one process per GPU)" pipeline; do
            session skip multi-gpu "$label" "not run: needs two GPUs ($gpus found)"
        done
        return
    fi
    timeout 600 python3 "$bundle/torch_allreduce.py" >"$out/torch_allreduce.txt" 2>"$out/torch_allreduce.err"
    rc=$?
    cat "$out/torch_allreduce.txt" "$out/torch_allreduce.err"
    bench_step "torch all-reduce baseline (torch_allreduce.py)" "$rc" \
        "$("$xtask" session allreduce "$out/torch_allreduce.txt")"
    bench_program allreduce_bench 300 1 '^allreduce_bench:' "$bundle/examples/allreduce_bench" "$out/torch_allreduce.txt"
    bench_program "allreduce_bench (one process per GPU)" 300 1 '^allreduce_bench:' \
        bash -c 'run_ranks "$@"' run_ranks "$gpus" "$bundle/examples/allreduce_bench" "$out/torch_allreduce.txt"
    bench_program data_parallel 300 1 '^data_parallel:|^loss curves:' "$bundle/examples/data_parallel"
    bench_program "data_parallel (one process per GPU)" 300 1 '^data_parallel:|^loss curves:' \
        bash -c 'run_ranks "$@"' run_ranks "$gpus" "$bundle/examples/data_parallel"
    bench_program pipeline 300 1 '^pipeline:|two GPUs vs one' "$bundle/examples/pipeline"
}

run_bench() {
    local part=${GPU_SESSION_BENCH_PART:-all}
    session begin "${device:-unknown} ($gpus GPUs)"
    case "$part" in
        all | 1) run_bench_libraries ;;
        2) session skip bench-part-1 "benchmark part 1 (libraries vs torch, raw calls)" "not run: GPU_SESSION_BENCH_PART=2" ;;
        *) session step "GPU_SESSION_BENCH_PART=$part" 1 "not a part: 1, 2 or unset"; return ;;
    esac
    case "$part" in
        all | 2) run_bench_cudarc ;;
        1) session skip bench-part-2 "benchmark part 2 (cudarc, per op, multi-GPU, candle, mistral.rs)" "not run: GPU_SESSION_BENCH_PART=1" ;;
    esac
}

# Part 1 of `bench`: the libraries against torch, then the raw-call
# benchmarks.
run_bench_libraries() {
    local rc
    timeout 600 python3 "$bundle/torch_gemm.py" >"$out/torch.txt" 2>"$out/torch.err"
    rc=$?
    cat "$out/torch.err"
    bench_step "torch baseline (torch_gemm.py)" "$rc" "$(grep -v '^#' "$out/torch.err" | tail -n1)"
    bench_program gemm_bench 400 1 '^gemm_bench:' "$bundle/bins/gemm_bench" "$out/torch.txt"
    timeout 300 python3 "$bundle/torch_randn.py" >"$out/torch_randn.txt" 2>"$out/torch_randn.err"
    rc=$?
    cat "$out/torch_randn.err"
    bench_step "torch baseline (torch_randn.py)" "$rc" "$(grep -v '^#' "$out/torch_randn.err" | tail -n1)"
    bench_program rand_bench 300 1 '^rand_bench:' "$bundle/bins/rand_bench" "$out/torch_randn.txt"
    timeout 300 python3 "$bundle/torch_fft.py" >"$out/torch_fft.txt" 2>"$out/torch_fft.err"
    rc=$?
    cat "$out/torch_fft.err"
    bench_step "torch baseline (torch_fft.py)" "$rc" "$(grep -v '^#' "$out/torch_fft.err" | tail -n1)"
    bench_program fft_bench 300 1 '^fft_bench:' "$bundle/bins/fft_bench" "$out/torch_fft.txt"
    timeout 300 python3 "$bundle/torch_lt.py" >"$out/torch_lt.txt" 2>"$out/torch_lt.err"
    rc=$?
    cat "$out/torch_lt.err"
    bench_step "torch baseline (torch_lt.py)" "$rc" "$(grep -v '^#' "$out/torch_lt.err" | tail -n1)"
    bench_program lt_bench 300 2 '^lt_bench:' "$bundle/bins/lt_bench" "$out/torch_lt.txt"
    timeout 300 python3 "$bundle/torch_linalg.py" >"$out/torch_linalg.txt" 2>"$out/torch_linalg.err"
    rc=$?
    cat "$out/torch_linalg.err"
    bench_step "torch baseline (torch_linalg.py)" "$rc" "$(grep -v '^#' "$out/torch_linalg.err" | tail -n1)"
    bench_program solver_bench 300 1 '^solver_bench:' "$bundle/bins/solver_bench" "$out/torch_linalg.txt"
    timeout 300 python3 "$bundle/torch_sparse.py" >"$out/torch_sparse.txt" 2>"$out/torch_sparse.err"
    rc=$?
    cat "$out/torch_sparse.err"
    bench_step "torch baseline (torch_sparse.py)" "$rc" "$(grep -v '^#' "$out/torch_sparse.err" | tail -n1)"
    bench_program sparse_bench 300 1 '^sparse_bench:' "$bundle/bins/sparse_bench" "$out/torch_sparse.txt"
    # launch_rate: the safe launch against raw hip-sys and cuLaunchKernel,
    # per call and in throughput (4 verdicts on NVIDIA).
    bench_program launch_rate 300 4 '^launch_rate:' "$bundle/bins/launch_rate"
    bench_program call_overhead 300 2 '^call_overhead:' "$bundle/bins/call_overhead" --bench
    bench_program alloc_loop 300 2 'target >=' "$bundle/bins/alloc_loop"
    bench_program copy_bandwidth 400 1 '^lowest' "$bundle/bins/copy_bandwidth"
}

# Part 2 of `bench`: against real cudarc (launch rate, per op), the
# multi-GPU benchmarks and candle's workloads.
run_bench_cudarc() {
    bench_program "cudarc launch rate (facade vs real cudarc)" 600 2 '^throughput ratio|^launch rate ratio' \
        bash "$bundle/cudarc-examples/cudarc-examples.sh" bench-run "$bundle"
    bench_program "per op: hip and cuda-compat vs real cudarc" 400 3 'target >= 0.97' \
        bash "$bundle/cudarc-examples/cudarc-examples.sh" per-op-run "$bundle"
    bench_program "pageable copies: cuda-compat (staged) vs real cudarc" 400 4 'target >= 1.5' \
        bash "$bundle/cudarc-examples/cudarc-examples.sh" copy-run "$bundle"
    run_multi_gpu_bench
    run_candle bench
    run_mistral bench
}

# The soak: one long program, its table and last line in its log.
run_soak() {
    session begin "${device:-unknown} ($gpus GPUs)"
    # NVLink multicast stays off (the GPU machine's rule; the soak's child
    # rank inherits it).
    export NCCL_NVLS_ENABLE=0
    bench_program soak 510 0 '^soak: [0-9]+ checks' \
        "$bundle/bins/soak" --seconds "${GPU_SESSION_SOAK_SECONDS:-330}"
}

if [ "$mode" = soak ]; then
    m=soak
    echo "=== gpu-session: soak ($(date -u +%H:%M:%S))"
    run_soak
fi

for m in tests memcheck bench; do
    [ "$mode" = "$m" ] || [ "$mode" = all ] || continue
    echo "=== gpu-session: $m ($(date -u +%H:%M:%S))"
    if [ "$m" = bench ]; then run_bench; else run_tests; fi
done

# One table per mode, then the last line (in `all`, memcheck's passes are
# re-runs); fails when anything failed.
"$xtask" session report "$ledger" "$mode" "${GPU_SESSION_ALLOW_SKIP:-}"

#!/usr/bin/env bash
# Tests the GPU runners (scripts/gpu-run.sh, scripts/gpu-session.sh) without
# a GPU, in seconds: a fake bundle whose "test binaries" are shell scripts
# that speak libtest's protocol (`--list --ignored --format terse`,
# `--skip NAME --exact`, the `test result:` summary), with fake `nvidia-smi`
# (N GPUs), `compute-sanitizer` (an ERROR SUMMARY of N errors, or none) and
# benchmarks. Each case checks the last line and the exit status. The
# session cases' counts are measured from clean reference sessions of the
# same fake bundle (`counts`), and every program and baseline the session
# names gets a passing fake, so adding a benchmark step to gpu-session.sh
# changes nothing here. Run from .ci/run; exits non-zero, naming the case,
# on any mismatch.
#
# What the runners read back (verdicts, counts, tables) is xtask's and has
# unit tests there (xtask/src/gpu_run.rs, session.rs); this checks the shell
# around it: the arguments each binary gets (`--skip NAME --exact`, the
# memcheck wrapper), timeouts, the packed bundle, the exit statuses. The
# fake bundle gets this checkout's xtask binary, as gpu-bundle.sh's does.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cases=0
bad=0
(cd "$root" && cargo build -q -p xtask) || exit 1
xtask_bin=${CARGO_TARGET_DIR:-$root/target}/debug/xtask

# fake_test FILE "TESTS" "FAILING" [crash|slow]: a libtest-like binary.
fake_test() {
    local file=$1 tests=$2 failing=$3 how=${4:-}
    cat >"$file" <<EOF
#!/usr/bin/env bash
tests="$tests"
failing="$failing"
how="$how"
EOF
    cat >>"$file" <<'EOF'
if [[ " $* " == *" --list "* ]]; then
    for t in $tests; do echo "$t: test"; done
    exit 0
fi
[[ " $* " == *" --ignored "* ]] || { echo "fake: --ignored missing"; exit 2; }
skip=()
exact=0
while [ $# -gt 0 ]; do
    case "$1" in --skip) skip+=("$2"); shift ;; --exact) exact=1 ;; esac
    shift
done
if [ ${#skip[@]} -gt 0 ] && [ $exact -eq 0 ]; then echo "fake: --skip without --exact"; exit 2; fi
case "$how" in
crash) echo "running..."; exit 134 ;;
slow) exec sleep 30 ;;
esac
p=0 f=0 out=0
for t in $tests; do
    if printf '%s\n' "${skip[@]}" | grep -xF -- "$t" >/dev/null; then out=$((out + 1)); continue; fi
    if [[ " $failing " == *" $t "* ]]; then echo "test $t ... FAILED"; f=$((f + 1))
    else echo "test $t ... ok"; p=$((p + 1)); fi
done
echo
result=ok; [ $f -eq 0 ] || result=FAILED
echo "test result: $result. $p passed; $f failed; 0 ignored; 0 measured; $out filtered out; finished in 0.00s"
[ $f -eq 0 ] || exit 101
EOF
    chmod +x "$file"
}

fake_program() { printf '#!/usr/bin/env bash\necho "%s"\nexit %s\n' "$2" "$3" >"$1"; chmod +x "$1"; }

# fake_rank0 FILE LINE RC: a multi-GPU program that prints LINE only as
# rank 0 (RANK unset or 0), then exits RC.
fake_rank0() {
    printf '#!/usr/bin/env bash\n[ "${RANK:-0}" = 0 ] && echo "%s"\nexit %s\n' "$2" "$3" >"$1"
    chmod +x "$1"
}

# fake_verdicts FILE NAME COUNT RC [WORD]: a benchmark printing COUNT
# verdict lines `NAME: fake ratio 1.000 (verdict I); target >= 0.95: WORD`
# (WORD default met), then exiting RC.
fake_verdicts() {
    local i
    {
        echo '#!/usr/bin/env bash'
        for ((i = 1; i <= $3; i++)); do echo "echo '$2: fake ratio 1.000 (verdict $i); target >= 0.95: ${5:-met}'"; done
        echo "exit $4"
    } >"$1"
    chmod +x "$1"
}

# fake_capture FILE: the capture tests (libtest-like, with a name filter):
# with HIP_TEST_CAPTURE_GATE=off the two gate-protected tests fail, unless
# FAKE_CAPTURE_GATE_MATTERS=0 (tests that do not test the gate).
fake_capture() {
    cat >"$1" <<'EOF'
#!/usr/bin/env bash
tests="device_synchronize untracked_stream_allocation hipfft_plan"
if [[ " $* " == *" --list "* ]]; then
    for t in $tests; do echo "$t: test"; done
    exit 0
fi
[[ " $* " == *" --ignored "* ]] || { echo "fake: --ignored missing"; exit 2; }
filter="" skip=()
while [ $# -gt 0 ]; do
    case "$1" in
    --skip) skip+=("$2"); shift ;;
    --test-threads) shift ;;
    -*) ;;
    *) filter=$1 ;;
    esac
    shift
done
p=0 f=0
for t in $tests; do
    if [ -n "$filter" ] && [ "$t" != "$filter" ]; then continue; fi
    if printf '%s\n' "${skip[@]}" | grep -xF -- "$t" >/dev/null; then continue; fi
    if [ "${HIP_TEST_CAPTURE_GATE:-}" = off ] && [ "${FAKE_CAPTURE_GATE_MATTERS:-1}" != 0 ] && [ "$t" != hipfft_plan ]; then
        echo "test $t ... FAILED"; f=$((f + 1))
    else
        echo "test $t ... ok"; p=$((p + 1))
    fi
done
result=ok; [ $f -eq 0 ] || result=FAILED
echo "test result: $result. $p passed; $f failed; 0 ignored; 0 measured; 0 filtered out"
[ $f -eq 0 ] || exit 101
EOF
    chmod +x "$1"
}

# A fresh repository copy holding scripts/ and a gpu-bundle/ with $1 (a
# list of test kinds) and programs; fake tools in $work/bin.
setup() {
    rm -rf "${work:?}/repo" "${work:?}/bin"
    mkdir -p "$work/repo/scripts" "$work/repo/gpu-bundle"/{tests,examples,bins,benches} "$work/bin"
    cp "$root/scripts/gpu-session.sh" "$work/repo/scripts/"
    cp "$root/scripts/gpu-run.sh" "$work/repo/gpu-bundle/run.sh"
    mkdir -p "$work/repo/scripts"
    cp "$root/scripts/cudarc-examples.sh" "$work/repo/scripts/"
    (cd "$work/repo" && bash scripts/gpu-session.sh list-benchmarks) >"$work/repo/gpu-bundle/benchmarks.txt"
    cp "$xtask_bin" "$work/repo/gpu-bundle/xtask"
    local b="$work/repo/gpu-bundle"
    for kind in $1; do
        case "$kind" in
        ok) fake_test "$b/tests/hip--gpu" "gpu::copies gpu::two_gpus_peer_access" "" ;;
        fails) fake_test "$b/tests/hipblas--gpu" "sgemm dgemm" "dgemm" ;;
        crash) fake_test "$b/tests/cuda-compat--gpu" "a b" "" crash ;;
        slow) fake_test "$b/tests/hip-sys--gpu_nvidia" "a" "" slow ;;
        badexample) fake_program "$b/examples/broken" "broken example" 3 ;;
        capture) fake_capture "$b/tests/hip-benches--gpu_capture_paths" ;;
        esac
    done
    fake_program "$b/examples/saxpy" "saxpy ok" 0
    # Benchmarks are left to `gpu-session.sh bench`: run.sh must not run
    # this one (it would fail).
    # The benchmarks print as many verdict lines as gpu-session.sh expects
    # of each (FAKE_LT_VERDICTS: fewer, to show a missing one failing).
    fake_verdicts "$b/bins/launch_rate" launch_rate 4 "${FAKE_LAUNCH_RATE_RC:-1}"
    fake_program "$b/bins/gemm_bench" "gemm_bench: like-for-like rows: 0 of 20 below 0.97; worst ratio 0.990; target >= 0.97: met" 0
    fake_program "$b/bins/rand_bench" "rand_bench: fastest generator type by median fake; ratio ours/torch (median values/s): 0.99; target >= 0.95: met" 0
    fake_program "$b/bins/fft_bench" "fft_bench: lowest ratio 1.00; target >= 0.95: met" 0
    fake_verdicts "$b/bins/lt_bench" lt_bench "${FAKE_LT_VERDICTS:-2}" 0
    fake_program "$b/bins/solver_bench" "solver_bench: lowest ratio ${FAKE_SOLVER_RATIO:-1.00}; target >= 0.95: ${FAKE_SOLVER_VERDICT:-met}" 0
    fake_program "$b/bins/sparse_bench" "sparse_bench: lowest ratio 1.00; target >= 0.95: met" 0
    fake_verdicts "$b/bins/call_overhead" call_overhead 2 0
    fake_verdicts "$b/bins/alloc_loop" "safe tracked allocation" 2 0
    fake_program "$b/bins/copy_bandwidth" "lowest staged/pinned: ${FAKE_COPY_RATIO:-0.85}; target >= 0.8: ${FAKE_COPY_VERDICT:-met}" 0
    # The soak is left to `gpu-session.sh soak` (a failing one here would
    # change the tests' counts).
    fake_program "$b/bins/soak" "soak: 42 checks passed, 0 failed; device +1 MiB, host +2 MiB; faults: 3 injected, 3 handled" "${FAKE_SOAK_RC:-1}"
    # The multi-GPU examples are benchmarks too (counts below would change
    # if run.sh ran them); `gpu-session.sh bench` runs them with two GPUs.
    # As the real ones, only rank 0 (or the one process) prints the verdict.
    fake_rank0 "$b/examples/allreduce_bench" "allreduce_bench: ratio at 256 MiB 0.98, at 1 GiB 0.99; target >= 0.95: met" 0
    fake_rank0 "$b/examples/data_parallel" "data_parallel: speed-up of a step, 1 GPU / 2 GPUs median 1.800 [95% interval 1.790, 1.810] of 9 paired rounds; target >= 1.667: met" "${FAKE_DATA_PARALLEL_RC:-0}"
    fake_program "$b/examples/pipeline" "pipeline: speedup 1.80; target >= 1.5: met" 0
    printf 'print("world_size 2")\nprint("allreduce 268435456 900.0 298.3 298.3")\n' >"$b/torch_allreduce.py"
    # cudarc's examples: `run` reports 2 passed and 1 not run (the two-GPU
    # example); `bench-run` a ratio.
    mkdir -p "$b/cudarc-examples"
    printf '#!/usr/bin/env bash\ncase "$1" in\nrun) echo "13-copy-multi-gpu not run: needs two GPUs"; echo "1 not run"; echo "2 passed, 0 failed" ;;\nbench-run) echo "throughput ratio compat/real: per round median 0.990; target >= 0.95: met"; echo "launch rate ratio from CPU cost, compat/real: median 1.000; target >= 0.95: met" ;;\nper-op-run) for i in 1 2 3; do echo "per op $i, fake: ours/real speed median 1.000; target >= 0.97: met"; done; echo "3 passed, 0 failed" ;;\ncopy-run) for i in 1 2 3 4; do echo "copy $i, fake: ours/real speed median 6.000; target >= 1.5: met"; done; echo "4 passed, 0 failed" ;;\n*) exit 2 ;;\nesac\n' >"$b/cudarc-examples/cudarc-examples.sh"
    # cudarc's unit tests through real cudarc and the drop-in: 2 passed, 1
    # failing on both (not run).
    mkdir -p "$b/cudarc-tests"
    printf '#!/usr/bin/env bash\ncase "$1" in\nrun) echo "1 not run (failing or ignored on real cudarc too)"; echo "0 differ: pass on real cudarc, not built through the drop-in"; echo "2 passed, 0 failed" ;;\n*) exit 2 ;;\nesac\n' >"$b/cudarc-tests/cudarc-tests.sh"
    printf 'print("float32 1 1 1 1.0")\n' >"$b/torch_gemm.py"
    printf 'print("randn_f32 100000000 1e11 1e11")\n' >"$b/torch_randn.py"
    printf 'print("c2c_f32_2d_4096x4096 1.0")\n' >"$b/torch_fft.py"
    printf 'print("linear_gelu_f16_8192x4096x4096 1.0")\n' >"$b/torch_lt.py"
    printf 'print("cholesky_f32_4096 1.0")\n' >"$b/torch_linalg.py"
    printf 'print("spmv_csr_f32_4194304_nnz16 1.0")\n' >"$b/torch_sparse.py"
    # shellcheck disable=SC2016 # expanded by the fake, not here
    printf '#!/usr/bin/env bash\nfor i in $(seq 1 "$FAKE_GPUS"); do echo "GPU $((i - 1)): Fake GPU (UUID: GPU-$i)"; done\n' >"$work/bin/nvidia-smi"
    cat >"$work/bin/compute-sanitizer" <<'EOF'
#!/usr/bin/env bash
while [ "${1#--}" != "$1" ]; do
    case "$1" in --print-limit | --tool | --report-api-errors | --require-cuda-init | --error-exitcode) shift ;; esac
    shift
done
"$@"
rc=$?
if [ "$FAKE_ERRORS" != missing ]; then echo "========= ERROR SUMMARY: $FAKE_ERRORS errors"; fi
if [ "$FAKE_ERRORS" != missing ] && [ "$FAKE_ERRORS" != 0 ]; then exit 99; fi
exit $rc
EOF
    chmod +x "$work/bin/nvidia-smi" "$work/bin/compute-sanitizer"
    # Every other benchmark program and torch baseline the session names
    # gets a passing fake, so a new library's benchmark step needs nothing
    # here (the counts below are measured, not written).
    local ref name
    for ref in $(grep -o '\$bundle/bins/[a-z_0-9]*\|\$bundle/torch_[a-z_0-9]*\.py' "$root/scripts/gpu-session.sh" | sort -u); do
        name=${ref#\$bundle/}
        [ -e "$b/$name" ] && continue
        case "$name" in
        *.py) printf 'print("fake 1.0")\n' >"$b/$name" ;;
        *) fake_program "$b/$name" "${name#bins/}: fake ratio 1.00; target >= 0.95: met" 0 ;;
        esac
    done
}

# check NAME EXPECTED-LAST-LINE EXPECTED-STATUS(0|nonzero) [grep pattern that must appear] -- command...
check() {
    local name=$1 want=$2 want_rc=$3 must=$4
    shift 5
    local log="$work/$cases.log" rc last
    cases=$((cases + 1))
    (cd "$work/repo" && PATH="$work/bin:$PATH" OUT="$work/out" "$@") >"$log" 2>&1
    rc=$?
    last=$(tail -n1 "$log")
    local ok=1
    [ "$last" = "$want" ] || ok=0
    if [ "$want_rc" = 0 ]; then [ "$rc" -eq 0 ] || ok=0; else [ "$rc" -ne 0 ] || ok=0; fi
    if [ -n "$must" ] && ! grep -Eq -- "$must" "$log"; then ok=0; fi
    if [ $ok -eq 1 ]; then
        echo "ok   $name: '$last', exit $rc"
    else
        bad=$((bad + 1))
        echo "FAIL $name: got '$last' exit $rc; want '$want' exit $want_rc${must:+ and /$must/}"
        sed 's/^/    | /' "$log" | tail -n 40
    fi
}

# counts VAR -- command...: runs a session that should pass in the fake
# repository set up last and stores its "P F S" (passed, failed, skipped)
# in VAR; a reference for the cases below, which say how they differ from
# it (one failing step: one passed fewer, one failed more) instead of
# writing totals that every new benchmark step would change. Counts as a
# case: it must exit 0 with no failure and at least one step run.
counts() {
    local var=$1 log="$work/counts-$1.log" rc last p f s
    shift 2
    cases=$((cases + 1))
    (cd "$work/repo" && PATH="$work/bin:$PATH" OUT="$work/out" "$@") >"$log" 2>&1
    rc=$?
    last=$(tail -n1 "$log")
    read -r p f s < <(sed -nE 's/^([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?$/\1 \2 \4/p' <<<"$last")
    if [ "$rc" -eq 0 ] && [ "${f:-1}" = 0 ] && [ "${p:-0}" -gt 0 ]; then
        printf -v "$var" '%s %s' "$p" "${s:-0}"
        echo "ok   reference $var: '$last', exit $rc"
    else
        bad=$((bad + 1))
        printf -v "$var" '0 0'
        echo "FAIL reference $var: got '$last' exit $rc; want a clean run"
        sed 's/^/    | /' "$log" | tail -n 40
    fi
}

# line P F S: the summary line a session prints.
line() {
    if [ "$3" -gt 0 ]; then echo "$1 passed, $2 failed, $3 skipped"; else echo "$1 passed, $2 failed"; fi
}

# The runners read these; the cases set what they need.
unset CUDA_VISIBLE_DEVICES GPU_RUN_ONLY GPU_RUN_EXCLUDE GPU_RUN_BENCHMARKS GPU_RUN_BENCH_ARGS
export FAKE_GPUS=1 FAKE_ERRORS=0 GPU_RUN_TIMEOUT=1
# The fake bundle has no candle or mistral.rs pack and one GPU unless a
# case says otherwise: those steps are not run, which fails a session
# unless allowed. The references allow them; the cases below that show a
# step not run failing clear this.
export GPU_SESSION_ALLOW_SKIP="candle-run candle-bench mistral-run mistral-bench multi-gpu bench-part-1 bench-part-2"

setup "ok"
check "one GPU: the two-GPU test is not run and says why" "2 passed, 0 failed, 1 skipped" 0 \
    "not run: hip--gpu gpu::two_gpus_peer_access: needs two GPUs \(1 found\)" -- gpu-bundle/run.sh
FAKE_GPUS=2 check "two GPUs: it runs and counts" "3 passed, 0 failed" 0 \
    "test gpu::two_gpus_peer_access \.\.\. ok" -- gpu-bundle/run.sh
FAKE_GPUS=2 CUDA_VISIBLE_DEVICES=1 check "two GPUs, one visible: not run" "2 passed, 0 failed, 1 skipped" 0 \
    "needs two GPUs \(1 found\)" -- gpu-bundle/run.sh
FAKE_GPUS=0 check "no nvidia-smi GPUs: still skipped, 0 found" "2 passed, 0 failed, 1 skipped" 0 \
    "needs two GPUs \(0 found\)" -- gpu-bundle/run.sh

setup "ok fails crash slow badexample"
check "failures, a crash, a timeout and a failing example" "3 passed, 4 failed, 1 skipped" nonzero \
    "FAILED: test hip-sys--gpu_nvidia: timed out after 1s" -- gpu-bundle/run.sh
check "the crash is named" "3 passed, 4 failed, 1 skipped" nonzero \
    "FAILED: test cuda-compat--gpu: no test summary \(exit 134\)" -- gpu-bundle/run.sh
check "the failed test is named" "3 passed, 4 failed, 1 skipped" nonzero \
    "FAILED: test hipblas--gpu: 1 failed: dgemm" -- gpu-bundle/run.sh

setup "ok"
check "memcheck clean" "1 passed, 0 failed, 1 skipped" 0 "ERROR SUMMARY: 0" -- gpu-bundle/run.sh memcheck
FAKE_ERRORS=3 check "memcheck errors fail" "1 passed, 1 failed, 1 skipped" nonzero \
    "memcheck: 3 errors" -- gpu-bundle/run.sh memcheck
FAKE_ERRORS=missing check "memcheck without an ERROR SUMMARY fails" "1 passed, 1 failed, 1 skipped" nonzero \
    "no compute-sanitizer ERROR SUMMARY" -- gpu-bundle/run.sh memcheck

FAKE_GPUS=2 GPU_RUN_MEMCHECK_SKIP="hip--gpu:gpu::copies" check "memcheck skip list: not run, with the reason" \
    "1 passed, 0 failed, 1 skipped" 0 "not run hip--gpu gpu::copies: not run under memcheck" -- gpu-bundle/run.sh memcheck
GPU_RUN_MEMCHECK_SKIP_BINARIES="hip--gpu" check "memcheck binary skip list: the whole binary not run, with the reason" \
    "0 passed, 0 failed, 1 skipped" 0 "not run hip--gpu: not run under memcheck" -- gpu-bundle/run.sh memcheck

rm -rf "$work/repo/gpu-bundle/tests" "$work/repo/gpu-bundle/examples"
check "nothing to run fails" "0 passed, 1 failed" nonzero "nothing ran" -- gpu-bundle/run.sh
setup "ok"
rm "$work/repo/gpu-bundle/benchmarks.txt"
check "no benchmarks.txt: run.sh refuses, naming it" \
    "run.sh: no benchmarks.txt beside run.sh (scripts/gpu-bundle.sh writes it), and GPU_RUN_BENCHMARKS is unset" nonzero "" -- gpu-bundle/run.sh

# The references: clean sessions of this fake bundle (every benchmark
# passing), one GPU unless said.
FAKE_LAUNCH_RATE_RC=0 setup "ok capture"
counts BENCH -- bash scripts/gpu-session.sh bench
GPU_SESSION_BENCH_PART=1 counts PART1 -- bash scripts/gpu-session.sh bench
GPU_SESSION_BENCH_PART=2 counts PART2 -- bash scripts/gpu-session.sh bench
FAKE_GPUS=2 counts BENCH2 -- bash scripts/gpu-session.sh bench
counts ALL -- bash scripts/gpu-session.sh all
read -r bench_p bench_s <<<"$BENCH"
read -r part1_p part1_s <<<"$PART1"
read -r bench2_p bench2_s <<<"$BENCH2"
read -r all_p all_s <<<"$ALL"
read -r part2_p part2_s <<<"$PART2"

setup "ok capture"
counts TESTS -- bash scripts/gpu-session.sh tests
read -r tests_p tests_s <<<"$TESTS"
check "session tests: table and count, cudarc examples included" "$(line "$tests_p" 0 "$tests_s")" 0 \
    "\| not run hip--gpu gpu::two_gpus_peer_access +\| needs two GPUs \(1 found\)" -- bash scripts/gpu-session.sh tests
check "session tests: the capture tests fail with the gate off, as they must" "$(line "$tests_p" 0 "$tests_s")" 0 \
    "\\| capture tests with the gate off \\(negative control\\) +\\| ok \\(failed as it must with the capture gate off" -- bash scripts/gpu-session.sh tests
FAKE_CAPTURE_GATE_MATTERS=0 check "session tests: capture tests that pass with the gate off fail the session" "$(line $((tests_p - 1)) 1 "$tests_s")" nonzero \
    "FAILED: passed with the capture gate off, so they do not test the gate: device_synchronize, untracked_stream_allocation" -- bash scripts/gpu-session.sh tests
GPU_SESSION_ALLOW_SKIP="" check "session tests: candle and mistral.rs not run fail unless allowed" "$(line "$tests_p" 0 "$tests_s")" nonzero \
    "FAILED: steps not run and not allowed: candle-run mistral-run;" -- bash scripts/gpu-session.sh tests
check "session bench: a failing benchmark fails the session; one GPU skips the multi-GPU steps" "$(line $((bench_p - 1)) 1 "$bench_s")" nonzero \
    "\| launch_rate +\| FAILED \(exit 1\): launch_rate: fake" -- bash scripts/gpu-session.sh bench
check "session tests: candle not bundled is not run, and says so" "$(line "$tests_p" 0 "$tests_s")" 0 \
    "\\| candle run \\(cuda-compat vs real cudarc\\) +\\| not run: no gpu-bundle/candle.tar.xz" -- bash scripts/gpu-session.sh tests
FAKE_COPY_RATIO=0.773 FAKE_COPY_VERDICT="NOT met" setup "ok capture"
check "session bench: a missed target fails though the program exits 0" "$(line $((bench_p - 2)) 2 "$bench_s")" nonzero \
    "\\| copy_bandwidth +\\| FAILED \\(exit 1\\): 1 target\\(s\\) NOT met: lowest staged/pinned: 0.773; target >= 0.8: NOT met" -- bash scripts/gpu-session.sh bench
FAKE_SOLVER_RATIO=0.94 FAKE_SOLVER_VERDICT="NOT met" setup "ok capture"
check "session bench: a library benchmark under its target fails (solver 0.94)" "$(line $((bench_p - 2)) 2 "$bench_s")" nonzero \
    "\\| solver_bench +\\| FAILED \\(exit 1\\): 1 target\\(s\\) NOT met: solver_bench: lowest ratio 0.94; target >= 0.95: NOT met" -- bash scripts/gpu-session.sh bench
FAKE_LAUNCH_RATE_RC=0 FAKE_SOLVER_VERDICT=undecided setup "ok capture"
check "session bench: an undecided verdict fails as NOT met does" "$(line $((bench_p - 1)) 1 "$bench_s")" nonzero \
    "\\| solver_bench +\\| FAILED \\(exit 1\\): 1 target\\(s\\) undecided" -- bash scripts/gpu-session.sh bench
FAKE_LAUNCH_RATE_RC=0 FAKE_LT_VERDICTS=1 setup "ok capture"
check "session bench: a missing verdict line fails the step though it exits 0" "$(line $((bench_p - 1)) 1 "$bench_s")" nonzero \
    "\\| lt_bench +\\| FAILED \\(exit 1\\): 1 verdict line\\(s\\) where 2 were expected" -- bash scripts/gpu-session.sh bench
FAKE_LAUNCH_RATE_RC=0 setup "ok capture"
GPU_SESSION_ALLOW_SKIP="" check "session bench: steps not run (multi-GPU, candle, mistral.rs) fail unless allowed" "$(line "$bench_p" 0 "$bench_s")" nonzero \
    "FAILED: steps not run and not allowed: multi-gpu candle-bench mistral-bench;" -- bash scripts/gpu-session.sh bench
GPU_SESSION_ALLOW_SKIP="multi-gpu candle-bench" check "session bench: a step not run and not named is still refused" "$(line "$bench_p" 0 "$bench_s")" nonzero \
    "FAILED: steps not run and not allowed: mistral-bench;" -- bash scripts/gpu-session.sh bench
GPU_SESSION_BENCH_PART=1 GPU_SESSION_ALLOW_SKIP="" check "session bench part 1: part 2 not run fails unless allowed" "$(line "$part1_p" 0 "$part1_s")" nonzero \
    "  bench-part-2: benchmark part 2 .*\\(NOT allowed\\)" -- bash scripts/gpu-session.sh bench
setup "ok capture"
check "session bench: the FFT benchmark's summary in the table" "$(line $((bench_p - 1)) 1 "$bench_s")" nonzero \
    "\\| fft_bench +\\| ok \\(fft_bench: lowest ratio 1.00" -- bash scripts/gpu-session.sh bench
GPU_SESSION_BENCH_PART=1 check "session bench part 1: the libraries and raw calls, part 2 not run" "$(line $((part1_p - 1)) 1 "$part1_s")" nonzero \
    "\\| benchmark part 2 \\(cudarc, per op, multi-GPU, candle, mistral.rs\\) +\\| not run: GPU_SESSION_BENCH_PART=1" -- bash scripts/gpu-session.sh bench
GPU_SESSION_BENCH_PART=2 check "session bench part 2: cudarc, per op, multi-GPU, candle; part 1 not run" "$(line "$part2_p" 0 "$part2_s")" 0 \
    "\\| benchmark part 1 \\(libraries vs torch, raw calls\\) +\\| not run: GPU_SESSION_BENCH_PART=2" -- bash scripts/gpu-session.sh bench
GPU_SESSION_BENCH_PART=3 check "session bench: an unknown part fails" "0 passed, 1 failed" nonzero \
    "not a part: 1, 2 or unset" -- bash scripts/gpu-session.sh bench
check "session bench: the solver benchmark's summary in the table" "$(line $((bench_p - 1)) 1 "$bench_s")" nonzero \
    "\\| solver_bench +\\| ok \\(solver_bench: lowest ratio 1.00" -- bash scripts/gpu-session.sh bench
# (the capture tests are not run under memcheck: one more skipped)
check "session memcheck: each binary's verdict in the table" "1 passed, 0 failed, 2 skipped" 0 \
    "\| memcheck \[hip--gpu\] +\| ERROR SUMMARY: 0" -- bash scripts/gpu-session.sh memcheck
FAKE_SOAK_RC=0 setup "ok capture"
check "session soak: one step, its last line in the table" "1 passed, 0 failed" 0 \
    "\\| soak +\\| ok \\(soak: 42 checks passed, 0 failed; device \\+1 MiB" -- bash scripts/gpu-session.sh soak
FAKE_SOAK_RC=1 setup "ok capture"
check "session soak: a failing soak fails the session" "0 passed, 1 failed" nonzero \
    "\\| soak +\\| FAILED \\(exit 1\\)" -- bash scripts/gpu-session.sh soak
FAKE_LAUNCH_RATE_RC=0 setup "ok capture"
FAKE_ERRORS=2 check "session all: memcheck failures count, its passes are re-runs" "$(line "$all_p" 1 "$all_s")" nonzero \
    "re-runs under memcheck \(the same tests again\): 1 passed, 1 failed" -- bash scripts/gpu-session.sh all
check "session all: clean" "$(line "$all_p" 0 "$all_s")" 0 "== GPU session: bench" -- bash scripts/gpu-session.sh all
FAKE_GPUS=2 check "session bench, two GPUs: the multi-GPU steps run, one process per GPU included" "$(line "$bench2_p" 0 "$bench2_s")" 0 \
    "\\| data_parallel \\(one process per GPU\\) +\\| ok \\(data_parallel: speed-up of a step" -- bash scripts/gpu-session.sh bench
FAKE_LAUNCH_RATE_RC=0 FAKE_DATA_PARALLEL_RC=1 setup "ok capture"
FAKE_GPUS=2 check "session bench, two GPUs: a failing data_parallel fails both its steps" "$(line $((bench2_p - 2)) 2 "$bench2_s")" nonzero \
    "\\| data_parallel \\(one process per GPU\\) +\\| FAILED \\(exit 1\\)" -- bash scripts/gpu-session.sh bench
setup "ok capture"
b="$work/repo/gpu-bundle"
tar -C "$b" -cf - tests examples bins benches cudarc-examples cudarc-tests | xz -1 >"$b/payload.tar.xz"
rm -rf "${b:?}"/{tests,examples,bins,benches,cudarc-examples,cudarc-tests}
check "session tests from a packed bundle (payload.tar.xz): unpacked, same count" "$(line "$tests_p" 0 "$tests_s")" 0 \
    "\| not run hip--gpu gpu::two_gpus_peer_access +\| needs two GPUs \(1 found\)" -- bash scripts/gpu-session.sh tests
setup "ok fails capture"
# "fails" adds a binary of two tests, one failing.
check "session tests: a failing test fails the session" "$(line $((tests_p + 1)) 1 "$tests_s")" nonzero "" -- bash scripts/gpu-session.sh tests
rm "$work/repo/gpu-bundle/run.sh"
# Without run.sh the fake bundle's own tests (one passing, one needing two
# GPUs), the capture tests (3 passing) and its saxpy example are one failed
# step instead.
check "session without a runner fails" "$(line $((tests_p - 5)) 1 $((tests_s - 1)))" nonzero "printed no summary" -- bash scripts/gpu-session.sh tests

# The TSan runner (scripts/tsan-run.sh as tsan-bundle/run.sh): fake test
# binaries that say they run under ThreadSanitizer (on `--list` with
# verbosity=1, as TSan does) unless FAKE_NO_TSAN is set, and print $4
# reports (exiting 66, as with exitcode=66).
fake_tsan() {
    local file=$1 tests=$2 failing=$3 reports=${4:-0}
    cat >"$file" <<EOF
#!/usr/bin/env bash
tests="$tests"
failing="$failing"
reports=$reports
EOF
    cat >>"$file" <<'EOF'
if [[ " $* " == *" --list "* ]]; then
    if [[ "$TSAN_OPTIONS" == *verbosity=1* ]] && [ -z "${FAKE_NO_TSAN:-}" ]; then
        echo "***** Running under ThreadSanitizer v3 (pid $$) *****" >&2
    fi
    for t in $tests; do echo "$t: test"; done
    exit 0
fi
[[ "$TSAN_OPTIONS" == *"suppressions="*"/tsan.supp"* ]] || { echo "fake: no suppressions"; exit 2; }
skip=()
while [ $# -gt 0 ]; do
    case "$1" in --skip) skip+=("$2"); shift ;; esac
    shift
done
p=0 f=0
for t in $tests; do
    if printf '%s\n' "${skip[@]}" | grep -xF -- "$t" >/dev/null; then continue; fi
    if [[ " $failing " == *" $t "* ]]; then echo "test $t ... FAILED"; f=$((f + 1))
    else echo "test $t ... ok"; p=$((p + 1)); fi
done
for ((i = 0; i < reports; i++)); do
    printf '==================\nWARNING: ThreadSanitizer: data race (pid 1)\n==================\n' >&2
done
echo "test result: ok. $p passed; $f failed; 0 ignored; 0 measured; 0 filtered out"
[ $f -eq 0 ] || exit 101
[ "$reports" -eq 0 ] || exit 66
EOF
    chmod +x "$file"
}
# tsan_setup [REPORTS-IN-LIB] [FAILING-GPU-TRACKING-TESTS]
tsan_setup() {
    rm -rf "${work:?}/repo/tsan-bundle"
    mkdir -p "$work/repo/tsan-bundle/bin"
    cp "$root/scripts/tsan-run.sh" "$work/repo/tsan-bundle/run.sh"
    cp "$root/scripts/tsan.supp" "$work/repo/tsan-bundle/tsan.supp"
    local b="$work/repo/tsan-bundle/bin"
    fake_tsan "$b/hip--lib" "staging::pool::tests::a tracking::tests::b" "" "${1:-0}"
    fake_tsan "$b/hip--gpu_staging" "concurrent" "" 0
    fake_tsan "$b/hip--gpu_tracking" "per_thread two_gpus_x" "${2:-}" 0
    fake_tsan "$b/hip--gpu" "sharing_across_threads" "" 0
}
tsan_setup
check "tsan: clean, the two-GPU test skipped on one GPU" "tsan: 4 binaries, 5 tests passed, 0 failed, 0 reports" 0 \
    "hip--gpu: runs under ThreadSanitizer" -- bash scripts/gpu-session.sh tsan
tsan_setup 2 "per_thread"
check "tsan: reports and a failed test fail" "tsan: 4 binaries, 4 tests passed, 1 failed, 2 reports" nonzero \
    "hip--lib: 2 TSan reports" -- bash scripts/gpu-session.sh tsan
tsan_setup
FAKE_NO_TSAN=1 check "tsan: a binary not under TSan fails" "tsan: 4 binaries, 5 tests passed, 0 failed, 0 reports" nonzero \
    "hip--lib: does not start under ThreadSanitizer" -- bash scripts/gpu-session.sh tsan
tsan_setup
(cd "$work/repo/tsan-bundle" && tar -cf - bin | xz -1 >bin.tar.xz && rm -rf bin)
check "tsan: from the packed bundle" "tsan: 4 binaries, 5 tests passed, 0 failed, 0 reports" 0 "" -- bash scripts/gpu-session.sh tsan

# cudarc's unit tests, run mode (scripts/cudarc-tests.sh run), on fake test
# binaries: a crash, a timeout and a test with no outcome through the
# drop-in that the residue does not list each fail the run.
# fake_cudarc_bin FILE EXIT SLEEP "name outcome"...
fake_cudarc_bin() {
    local file=$1 rc=$2 nap=$3
    shift 3
    {
        echo '#!/usr/bin/env bash'
        for t in "$@"; do echo "echo 'test ${t% *} ... ${t#* }'"; done
        [ "$nap" = 0 ] || echo "sleep $nap"
        if [ "$rc" -lt 128 ]; then echo "echo 'test result: done'"; echo "exit $rc"; else echo 'kill -SEGV $$'; fi
    } >"$file"
    chmod +x "$file"
}
# cudarc_setup [OURS-EXIT] [OURS-SLEEP] [RESIDUE-LISTS-c]
cudarc_setup() {
    local d="$work/repo/cudarc-run"
    rm -rf "$d"
    mkdir -p "$d/real" "$d/ours"
    cp "$root/scripts/cudarc-tests.sh" "$d/"
    cp "$xtask_bin" "$d/xtask"
    printf '# reviewed\n' >"$d/cudarc-tests-explained.tsv"
    printf '# reviewed\n' >"$d/cudarc-tests-residue.tsv"
    [ "${3:-0}" = 0 ] || printf 'two::c\tneeds a private item\n' >>"$d/cudarc-tests-residue.tsv"
    fake_cudarc_bin "$d/real/one-0123456789abcdef" 0 0 "a ok" "b ok"
    fake_cudarc_bin "$d/real/two-0123456789abcdef" 0 0 "c ok" "d ok"
    fake_cudarc_bin "$d/ours/one-0123456789abcdef" 0 0 "a ok" "b ok"
    # The drop-in's second binary: `c` is not in it (not built there).
    fake_cudarc_bin "$d/ours/two-0123456789abcdef" "${1:-0}" "${2:-0}" "d ok"
}
cudarc_setup 0 0 1
check "cudarc tests run: clean, the missing test listed in the residue" "3 passed, 0 failed" 0 \
    "1 differ" -- bash cudarc-run/cudarc-tests.sh run cudarc-run
cudarc_setup 0 0 0
check "cudarc tests run: a test with no outcome, not in the residue, fails" "3 passed, 1 failed" nonzero \
    "^  two::c$" -- bash cudarc-run/cudarc-tests.sh run cudarc-run
cudarc_setup 139 0 1
check "cudarc tests run: a crashing binary fails the run, named" "3 passed, 1 failed" nonzero \
    "ours two: exit 139" -- bash cudarc-run/cudarc-tests.sh run cudarc-run
cudarc_setup 0 5 1
CUDARC_TESTS_TIMEOUT=1 check "cudarc tests run: a binary that times out fails the run" "3 passed, 1 failed" nonzero \
    "ours two: timed out" -- bash cudarc-run/cudarc-tests.sh run cudarc-run

echo "selftest-runner: $((cases - bad)) of $cases cases as expected"
[ $bad -eq 0 ]

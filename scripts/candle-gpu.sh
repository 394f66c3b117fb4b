#!/usr/bin/env bash
# GPU machine side of scripts/candle.sh (no Rust there): runs what
# `candle.sh bundle DIR` gathered, built once against this repository's
# cudarc drop-in (`ours`) and once against real cudarc (`real`).
#
#   candle-gpu.sh run DIR     candle-core's and candle-nn's test suites, both
#                             builds, test by test; the reduced Llama's
#                             logits (f32, bf16) and each candle_models
#                             workload's output compared between the builds
#   candle-gpu.sh bench DIR   launch-bound workloads (benches/candle/
#                             candle_models.rs: tiny ops, BERT, Qwen3 decode,
#                             ResNet-18) and the Llama's generation step, the
#                             builds in ABBA order BENCH_ROUNDS times
#                             (default 9, the order printed); each verdict is
#                             the median of the paired per-round ratios with
#                             its 95% interval (bench-verdict's rule), ending
#                             `met`, `NOT met` or `undecided`
#
# Logs go to $OUT/candle (or /tmp/candle). The last lines are a table and
# `N passed, N failed`: in `run`, every test of ours that passed or failed
# (a test that fails in both builds is listed as such), plus the model
# comparisons; in `bench`, one line per workload, failed unless ours is
# met at 0.97 of real's speed. The bundle's xtask (xtask/src/candle.rs) reads the
# test logs and step times, compares the builds and counts.
set -uo pipefail
mode=${1:?run|bench}
dir=$(cd "${2:?bundle folder}" && pwd)/candle
out=${OUT:-/tmp}/candle
mkdir -p "$out"
if [ ! -d "$dir/ours" ] && [ -f "$dir.tar.xz" ]; then
    tar -C "$(dirname "$dir")" -xJf "$dir.tar.xz" || exit 2
fi
xtask=${XTASK:-$(dirname "$dir")/xtask}
if [ ! -x "$xtask" ]; then
    echo "candle-gpu: no $xtask (scripts/gpu-bundle.sh puts the xtask binary there)" >&2
    exit 2
fi
export HIP_PLATFORM=nvidia
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# Runs every test binary of one build; writes "SUITE::TEST OUTCOME" lines
# to $out/BUILD.results and a line per suite to $out/BUILD.suites.
run_suites() {
    local build=$1 bin name crate log rc
    : >"$out/$build.results"
    : >"$out/$build.suites"
    for bin in "$dir/$build"/candle-*--*; do
        name=$(basename "$bin")
        crate=${name%%--*}
        log="$out/$build-$name.log"
        # candle's tests read their data files relative to the crate folder.
        (cd "$dir/$build/$crate" && timeout 900 "$bin") >"$log" 2>&1
        rc=$?
        "$xtask" candle-results "$name" "$rc" "$log" "$out/$build.results" "$out/$build.suites"
    done
}

cmd_run() {
    local b
    for b in ours real; do run_suites "$b"; done
    # The suites side by side; the tests whose outcome differs (also in
    # $out/differ.txt) and those failing in both.
    "$xtask" candle-suites "$out"
    : >"$out/llama.results"

    echo "== reduced Llama and candle workloads (seeded weights): the same outputs from both builds"
    local dtype w
    for dtype in f32 bf16; do
        compare_outputs "llama $dtype" llama_steps --dtype "$dtype"
    done
    for w in ops bert qwen3 resnet; do
        compare_outputs "model $w" candle_models "$w"
    done
}

# compare_outputs LABEL BIN ARGS...: ours writes its output (`--out`), real
# compares its own with it (`--compare`); `LABEL ok|FAILED` joins the
# results.
compare_outputs() {
    local label=$1 bin=$2 file
    shift 2
    file=$out/$(echo "$label" | tr ' ' '-')
    if "$dir/ours/llama-steps--$bin" "$@" --out "$file.ours" >"$file-ours.log" 2>&1 &&
        "$dir/real/llama-steps--$bin" "$@" --compare "$file.ours" >"$file-real.log" 2>&1; then
        echo "$label: ok: $(grep 'compare:' "$file-real.log" | sed 's/.*compare: //')"
        echo "$label ok" >>"$out/llama.results"
    else
        echo "$label: FAILED"
        tail -n 5 "$file-ours.log" "$file-real.log"
        echo "$label FAILED" >>"$out/llama.results"
    fi
}

# One verdict: LABEL and a command line (the build's binary as `BIN`)
# run ROUNDS times for each build in ABBA order (printed); each run's
# `step_us` is one sample; ours must reach 0.97 of real's speed (xtask
# candle-bench: the median of the rounds' paired ratios, with its 95%
# interval).
bench_workload() {
    local label=$1 rounds=$2 bin=$3 i b file order
    shift 3
    file=$out/bench-$(echo "$label" | tr -c 'A-Za-z0-9\n' '-')
    : >"$file.ours"
    : >"$file.real"
    for i in $(seq "$rounds"); do
        # ABBA: the order flips every round, so neither build always goes first.
        order=$( ((i % 2)) && echo ours real || echo real ours)
        echo "$label: round $i of $rounds: ${order/ /, then }"
        for b in $order; do
            "$dir/$b/llama-steps--$bin" "$@" 2>&1 | "$xtask" candle-step-us >>"$file.$b"
        done
    done
    "$xtask" candle-bench "$label" "$rounds" "$file.ours" "$file.real" "$out/bench.results"
}

cmd_bench() {
    local rounds=${BENCH_ROUNDS:-9} dtype w
    echo "== candle: ours/real, each workload $rounds processes per build, in ABBA order"
    : >"$out/bench.results"
    # Launch-bound work at batch 1 or near it: the host cost of each op.
    bench_workload "tiny ops, per op" "$rounds" candle_models ops --rounds 20
    bench_workload "bert encoder f32 forward" "$rounds" candle_models bert --rounds 40
    bench_workload "qwen3 decoder bf16 decode step" "$rounds" candle_models qwen3 --rounds 120
    bench_workload "resnet18 bf16 forward" "$rounds" candle_models resnet --rounds 40
    for dtype in f32 bf16; do
        bench_workload "llama step $dtype" "$rounds" llama_steps --dtype "$dtype" --steps 32 --rounds 2
    done
}

case "$mode" in
    run) cmd_run ;;
    bench) cmd_bench ;;
    *) echo "usage: candle-gpu.sh run|bench DIR" >&2; exit 2 ;;
esac
# Every test of ours that passed or failed, and the Llama comparisons
# (run), or the step-time verdicts (bench).
case "$mode" in
    run) "$xtask" candle-total "$out/ours.results" "$out/llama.results" ;;
    bench) "$xtask" candle-total "$out/bench.results" ;;
esac

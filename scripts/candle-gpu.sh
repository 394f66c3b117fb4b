#!/usr/bin/env bash
# GPU machine side of scripts/candle.sh (no Rust there): runs what
# `candle.sh bundle DIR` gathered, built once against this repository's
# cudarc drop-in (`ours`) and once against real cudarc (`real`).
#
#   candle-gpu.sh run DIR     candle-core's and candle-nn's test suites, both
#                             builds, test by test; the reduced Llama's
#                             logits compared between the builds (f32, bf16)
#   candle-gpu.sh bench DIR   the Llama's generation step time, the builds
#                             alternating BENCH_ROUNDS times (default 7)
#
# Logs go to $OUT/candle (or /tmp/candle). The last lines are a table and
# `N passed, N failed`: in `run`, every test of ours that passed or failed
# (a test that fails in both builds is listed as such), plus the model
# comparisons; in `bench`, one line per dtype, failed when ours is slower
# than 0.97 of real. The bundle's xtask (xtask/src/candle.rs) reads the
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

    echo "== reduced Llama (seeded weights): ours and real cudarc on the same GPU"
    local dtype
    for dtype in f32 bf16; do
        if "$dir/ours/llama-steps--llama_steps" --dtype "$dtype" --out "$out/llama-$dtype.ours" >"$out/llama-$dtype-ours.log" 2>&1 &&
            "$dir/real/llama-steps--llama_steps" --dtype "$dtype" --compare "$out/llama-$dtype.ours" >"$out/llama-$dtype-real.log" 2>&1; then
            echo "llama $dtype: ok: $(grep 'compare:' "$out/llama-$dtype-real.log" | sed 's/.*compare: //')"
            echo "llama $dtype ok" >>"$out/llama.results"
        else
            echo "llama $dtype: FAILED"
            tail -n 5 "$out/llama-$dtype-ours.log" "$out/llama-$dtype-real.log"
            echo "llama $dtype FAILED" >>"$out/llama.results"
        fi
    done
}

cmd_bench() {
    local rounds=${BENCH_ROUNDS:-7} dtype i b
    echo "== candle: reduced Llama generation step, ours/real, $rounds rounds interleaved"
    : >"$out/bench.results"
    for dtype in f32 bf16; do
        : >"$out/bench-$dtype.ours"
        : >"$out/bench-$dtype.real"
        for i in $(seq "$rounds"); do
            for b in ours real; do
                "$dir/$b/llama-steps--llama_steps" --dtype "$dtype" --steps 32 --rounds 3 2>&1 |
                    "$xtask" candle-step-us >>"$out/bench-$dtype.$b"
            done
        done
        # Medians of each build's times; ours must reach 0.97 of real.
        "$xtask" candle-bench "$dtype" "$rounds" "$out/bench-$dtype.ours" "$out/bench-$dtype.real" "$out/bench.results"
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

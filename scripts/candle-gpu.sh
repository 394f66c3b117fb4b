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
# than 0.97 of real.
set -uo pipefail
mode=${1:?run|bench}
dir=$(cd "${2:?bundle folder}" && pwd)/candle
out=${OUT:-/tmp}/candle
mkdir -p "$out"
if [ ! -d "$dir/ours" ] && [ -f "$dir.tar.xz" ]; then
    tar -C "$(dirname "$dir")" -xJf "$dir.tar.xz" || exit 2
fi
export HIP_PLATFORM=nvidia
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
passed=0
failed=0

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
        sed -nE 's/^test (.+) \.\.\. (ok|FAILED|ignored).*$/\1 \2/p' "$log" |
            sed "s|^|$name::|" >>"$out/$build.results"
        if ! grep -qE '^test result: ' "$log"; then
            echo "$name::(the whole binary: exit $rc, no summary) FAILED" >>"$out/$build.results"
        fi
        echo "$name $(grep -cE ' ok$' <(grep "^$name::" "$out/$build.results")) $(grep -cE ' FAILED$' <(grep "^$name::" "$out/$build.results")) $(grep -cE ' ignored$' <(grep "^$name::" "$out/$build.results"))" >>"$out/$build.suites"
    done
}

count() { grep -cE " $2\$" "$out/$1.results"; }

cmd_run() {
    local b
    for b in ours real; do run_suites "$b"; done
    echo "== candle suites, ours (cuda-compat) vs real cudarc"
    printf '| %-40s | %-22s | %-22s |\n' suite "ours ok/failed/ignored" "real ok/failed/ignored"
    join <(sort "$out/ours.suites") <(sort "$out/real.suites") |
        while read -r s o1 o2 o3 r1 r2 r3; do printf '| %-40s | %-22s | %-22s |\n' "$s" "$o1/$o2/$o3" "$r1/$r2/$r3"; done
    printf '| %-40s | %-22s | %-22s |\n' total "$(count ours ok)/$(count ours FAILED)/$(count ours ignored)" \
        "$(count real ok)/$(count real FAILED)/$(count real ignored)"
    echo "tests whose outcome differs (ours, real):"
    join -a1 -a2 -e missing -o 0,1.2,2.2 <(sort "$out/ours.results") <(sort "$out/real.results") |
        awk '$2 != $3' | tee "$out/differ.txt"
    [ -s "$out/differ.txt" ] || echo "  none"
    echo "tests that fail in both builds:"
    join <(sort "$out/ours.results") <(sort "$out/real.results") | awk '$2 == "FAILED" && $3 == "FAILED"' || true
    passed=$((passed + $(count ours ok)))
    failed=$((failed + $(count ours FAILED)))

    echo "== reduced Llama (seeded weights): ours and real cudarc on the same GPU"
    local dtype
    for dtype in f32 bf16; do
        if "$dir/ours/llama-steps--llama_steps" --dtype "$dtype" --out "$out/llama-$dtype.ours" >"$out/llama-$dtype-ours.log" 2>&1 &&
            "$dir/real/llama-steps--llama_steps" --dtype "$dtype" --compare "$out/llama-$dtype.ours" >"$out/llama-$dtype-real.log" 2>&1; then
            echo "llama $dtype: ok: $(grep 'compare:' "$out/llama-$dtype-real.log" | sed 's/.*compare: //')"
            passed=$((passed + 1))
        else
            echo "llama $dtype: FAILED"
            tail -n 5 "$out/llama-$dtype-ours.log" "$out/llama-$dtype-real.log"
            failed=$((failed + 1))
        fi
    done
}

median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

cmd_bench() {
    local rounds=${BENCH_ROUNDS:-7} dtype i b
    echo "== candle: reduced Llama generation step, ours/real, $rounds rounds interleaved"
    for dtype in f32 bf16; do
        : >"$out/bench-$dtype.ours"
        : >"$out/bench-$dtype.real"
        for i in $(seq "$rounds"); do
            for b in ours real; do
                "$dir/$b/llama-steps--llama_steps" --dtype "$dtype" --steps 32 --rounds 3 2>&1 |
                    sed -nE 's/.* step_us ([0-9.]+).*/\1/p' >>"$out/bench-$dtype.$b"
            done
        done
        local o r
        o=$(median <"$out/bench-$dtype.ours")
        r=$(median <"$out/bench-$dtype.real")
        if [ "$(wc -l <"$out/bench-$dtype.ours")" -ne "$rounds" ] || [ "$(wc -l <"$out/bench-$dtype.real")" -ne "$rounds" ]; then
            echo "llama step $dtype: FAILED: a run printed no timing"
            failed=$((failed + 1))
            continue
        fi
        local ratio verdict
        ratio=$(echo "$r $o" | awk '{printf "%.3f", $1 / $2}')
        verdict=$(echo "$ratio" | awk '{print ($1 >= 0.97) ? "met" : "NOT met"}')
        echo "llama step $dtype: ours ${o} us, real ${r} us (medians of $rounds processes x 3 rounds x 32 steps); ours/real speed $ratio, target >= 0.97: $verdict"
        echo "  ours: $(tr '\n' ' ' <"$out/bench-$dtype.ours")"
        echo "  real: $(tr '\n' ' ' <"$out/bench-$dtype.real")"
        if [ "$verdict" = met ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
    done
}

case "$mode" in
    run) cmd_run ;;
    bench) cmd_bench ;;
    *) echo "usage: candle-gpu.sh run|bench DIR" >&2; exit 2 ;;
esac
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

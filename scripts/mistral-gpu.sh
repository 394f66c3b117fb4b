#!/usr/bin/env bash
# GPU machine side of scripts/mistral.sh (no Rust there): the seeded model
# (benches/mistral/seeded-model) served by mistral.rs 0.8.1 through its
# Rust API (benches/mistral/src/main.rs, `mistral-on-hip run`), built once
# through this repository's drop-ins (`ours`) and once through real cudarc
# (`real`), with the same nvcc-built kernels, Q4K in-situ quantization and
# paged attention on, greedy.
#
#   mistral-gpu.sh bench DIR   DIR/mistral.tar.xz (scripts/mistral.sh
#                              bundle DIR) and DIR/xtask: the builds
#                              alternate, BENCH_ROUNDS processes each
#                              (default 7, in ABBA order, printed; 7 rounds'
#                              95% interval is their smallest..largest),
#                              each with its warm-up and measured rounds
#                              (it prints their median); then
#                              - the tokens: every process of both builds
#                                generated the same ones;
#                              - prefill and decode: the time per token,
#                                ours/real speed, the median of the paired
#                                per-round ratios with its 95% interval
#                                met at 0.97 (xtask candle-bench, as
#                                candle's workloads).
#   mistral-gpu.sh run DIR     one process per build: the tokens only.
#
# Environment: BENCH_ROUNDS; MISTRAL_ARGS (default `--prompt-len 512
# --max-tokens 256 --warmup 2 --rounds 5`); OUT (logs in $OUT/mistral,
# default /tmp/mistral). The last lines are a table and `N passed, N failed`.
set -uo pipefail
mode=${1:?run|bench}
dir=$(cd "${2:?bundle folder}" && pwd)/mistral
out=${OUT:-/tmp}/mistral
mkdir -p "$out"
if [ ! -d "$dir/ours" ]; then
    [ -f "$dir.tar.xz" ] || { echo "mistral-gpu: no $dir.tar.xz (scripts/mistral.sh bundle)" >&2; exit 2; }
    tar -C "$(dirname "$dir")" -xJf "$dir.tar.xz" || exit 2
fi
export HIP_PLATFORM=nvidia HF_HUB_OFFLINE=1 HF_HOME=$out/hf
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
read -r -a args <<<"${MISTRAL_ARGS:---prompt-len 512 --max-tokens 256 --warmup 2 --rounds 5}"

model=$out/model
rm -rf "$model"
"$dir/ours/seeded-model" "$model" --seed 1 >"$out/seeded-model.log" 2>&1 || {
    cat "$out/seeded-model.log"
    echo "mistral-gpu: seeded-model failed"
    exit 1
}

xtask=${XTASK:-$(dirname "$dir")/xtask}
if [ ! -x "$xtask" ]; then
    echo "mistral-gpu: no $xtask (scripts/gpu-bundle.sh puts the xtask binary there)" >&2
    exit 2
fi

rounds=1
[ "$mode" = bench ] && rounds=${BENCH_ROUNDS:-7}
results=$out/results
: >"$results"
for b in ours real; do : >"$out/prefill.$b"; : >"$out/decode.$b"; : >"$out/tokens.$b"; done
for i in $(seq "$rounds"); do
    # ABBA: the order flips every round, so neither build always goes first.
    order="ours real"
    [ $((i % 2)) -eq 0 ] && order="real ours"
    echo "round $i of $rounds: ${order/ /, then }"
    for b in $order; do
        log=$out/$b-$i.log
        timeout 600 "$dir/$b/mistral-on-hip" run "$model" "${args[@]}" >"$log" 2>&1
        rc=$?
        pre=$(sed -n 's/^prefill_tok_s: //p' "$log")
        dec=$(sed -n 's/^decode_tok_s: //p' "$log")
        if [ $rc -ne 0 ] || [ -z "$pre" ] || [ -z "$dec" ]; then
            echo "== $b process $i: exit status $rc ($log)"
            grep -v '^prompt: ' "$log" | tail -n 20
            echo "mistral-$b-process-$i FAILED" >>"$results"
            continue
        fi
        # Time per token (microseconds), which the verdict compares.
        awk -v r="$pre" 'BEGIN { printf "%.4f\n", 1e6 / r }' >>"$out/prefill.$b"
        awk -v r="$dec" 'BEGIN { printf "%.4f\n", 1e6 / r }' >>"$out/decode.$b"
        sed -n 's/^tokens: //p' "$log" >>"$out/tokens.$b"
    done
done

echo "== mistral.rs through the drop-ins (ours) and real cudarc (real): $rounds processes per build, interleaved"
distinct=$(cat "$out/tokens.ours" "$out/tokens.real" | sort -u | grep -c .)
counted=$(cat "$out/tokens.ours" "$out/tokens.real" | grep -c .)
n=$(head -n 1 "$out/tokens.ours" | wc -w)
if [ "$distinct" -eq 1 ] && [ "$counted" -eq $((2 * rounds)) ] && [ "$n" -gt 0 ]; then
    verdict=ok
else
    verdict=FAILED
fi
echo "the same $n tokens from all $counted processes of both builds ($distinct distinct): $verdict"
echo "mistral-tokens-equal $verdict" >>"$results"
if [ "$mode" = bench ]; then
    "$xtask" candle-bench "mistral prefill, per prompt token" "$rounds" "$out/prefill.ours" "$out/prefill.real" "$results"
    "$xtask" candle-bench "mistral decode, per generated token" "$rounds" "$out/decode.ours" "$out/decode.real" "$results"
fi
"$xtask" candle-total "$results"

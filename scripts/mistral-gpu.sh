#!/usr/bin/env bash
# GPU machine side of scripts/mistral.sh (no Rust there): the seeded model
# (benches/mistral/seeded-model) served by mistral.rs 0.8.1 through its
# Rust API (benches/mistral/src/main.rs, `mistral-on-hip run`), built once
# through this repository's drop-ins (`ours`) and once through real cudarc
# (`real`), with the same nvcc-built kernels, Q4K in-situ quantization and
# paged attention on, greedy.
#
#   mistral-gpu.sh bench DIR   DIR/mistral.tar.xz (scripts/mistral.sh
#                              bundle DIR): the builds alternate,
#                              BENCH_ROUNDS processes each (default 7, the
#                              order flipped every round), each with its
#                              warm-up and measured rounds; then
#                              - the tokens: every process of both builds
#                                generated the same ones;
#                              - prefill and decode tokens/s: ours/real of
#                                the builds' fastest processes (medians
#                                beside them), each at least 0.97.
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

rounds=1
[ "$mode" = bench ] && rounds=${BENCH_ROUNDS:-7}
: >"$out/processes.tsv"
for i in $(seq "$rounds"); do
    order="ours real"
    [ $((i % 2)) -eq 0 ] && order="real ours"
    for b in $order; do
        log=$out/$b-$i.log
        timeout 600 "$dir/$b/mistral-on-hip" run "$model" "${args[@]}" >"$log" 2>&1
        printf '%s\t%s\t%s\n' "$b" "$?" "$log" >>"$out/processes.tsv"
    done
done

python3 - "$out/processes.tsv" "$mode" <<'PY'
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
mode = sys.argv[2]
def field(text, key):
    for line in text.splitlines():
        if line.startswith(key + ": "):
            return line[len(key) + 2:].strip()
    return None
got = {"ours": [], "real": []}
failed = passed = 0
table = []
def verdict(name, ok, detail):
    global failed, passed
    table.append(f"{name:<58} {'ok' if ok else 'FAILED':<6} {detail}")
    if ok:
        passed += 1
    else:
        failed += 1
for build, rc, log in rows:
    text = open(log, errors="replace").read()
    tokens, pre, dec = field(text, "tokens"), field(text, "prefill_tok_s"), field(text, "decode_tok_s")
    if rc != "0" or tokens is None or pre is None or dec is None:
        print(f"== {build}: {log} (exit status {rc})")
        print("\n".join(text.splitlines()[-30:]))
        verdict(f"{build} process {log.rsplit('-', 1)[-1][:-4]} ran", False, f"exit status {rc}")
        continue
    got[build].append((tokens, float(pre), float(dec)))
for b in ("ours", "real"):
    verdict(f"{b}: every process generated", len(got[b]) == sum(r[0] == b for r in rows), f"{len(got[b])} of {sum(r[0] == b for r in rows)}")
all_tokens = {t for b in got for t, _, _ in got[b]}
n = len(next(iter(all_tokens)).split()) if all_tokens else 0
verdict("the same tokens from every process of both builds", len(all_tokens) == 1 and n > 0,
        f"{n} tokens, {len(all_tokens)} distinct sequences")
if mode == "bench" and got["ours"] and got["real"]:
    for k, name in ((1, "prefill"), (2, "decode")):
        o = [r[k] for r in got["ours"]]
        r = [r[k] for r in got["real"]]
        ratio = max(o) / max(r)
        verdict(f"{name} tok/s, ours/real (fastest process of each) >= 0.97", ratio >= 0.97,
                f"{ratio:.3f} (ours {max(o):.0f}, real {max(r):.0f}; medians {statistics.median(o):.0f} / {statistics.median(r):.0f})")
print("== mistral.rs through the drop-ins (ours) and real cudarc (real)")
print("\n".join(table))
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY

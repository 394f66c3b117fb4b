#!/usr/bin/env bash
# Builds every release test binary, example, binary and bench of the
# workspace, strips them and gathers them, with a runner, in the git-ignored
# folder gpu-bundle/ (at most 64 MiB), to be copied to a GPU machine (which
# needs no Rust): there, `gpu-bundle/run.sh` runs everything with
# HIP_PLATFORM=nvidia (see scripts/gpu-run.sh), reading results with
# `gpu-bundle/xtask` (the release build of the workspace's xtask).
#
# Skipped: targets that need a Rust toolchain or build tools at run time,
# which the GPU machine lacks: trybuild/compile-fail suites (target names
# containing compile_fail, trybuild or ui_tests), hip-build's
# downstream_crate (runs cargo) and compile_kernels (runs hipcc), and the
# packages in GPU_BUNDLE_SKIP_PACKAGES (default: hip-generator, which needs
# libclang and the ROCm headers). More target names to skip:
# GPU_BUNDLE_SKIP, a grep -E pattern (e.g. 'tier2' for the
# tests of Debian's AMD runtime).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out="$root/gpu-bundle"
skip_packages=${GPU_BUNDLE_SKIP_PACKAGES:-hip-generator}
skip_targets='compile_fail|trybuild|ui_tests|downstream_crate|compile_kernels'
if [ -n "${GPU_BUNDLE_SKIP:-}" ]; then skip_targets="$skip_targets|$GPU_BUNDLE_SKIP"; fi

rm -rf "$out/tests" "$out/examples" "$out/bins" "$out/benches" "$out/payload.tar.xz" "$out/ab" "$out/cudarc-tests"
mkdir -p "$out/tests" "$out/examples" "$out/bins" "$out/benches"

# xtask is the runners' tool (below), not a program to run.
exclude=(--exclude xtask)
for p in $skip_packages; do exclude+=(--exclude "$p"); done

# cargo's JSON, then one line per executable:
# kind<TAB>package<TAB>target<TAB>path (`cargo xtask executables --kinds`).
{
    cargo test --workspace "${exclude[@]}" --release --no-run --message-format=json
    cargo build --workspace "${exclude[@]}" --release --examples --bins --message-format=json
    cargo build --workspace "${exclude[@]}" --release --benches --message-format=json
} 2>"$out/build.log" >"$out/build.json" || {
    cat "$out/build.log" >&2
    exit 1
}
cargo xtask executables --kinds <"$out/build.json" | sort -u >"$out/manifest.tsv"
rm -f "$out/build.json"

count=0
while IFS=$'\t' read -r kind pkg target path; do
    if echo "$target" | grep -E "$skip_targets" >/dev/null; then
        echo "skip $pkg/$target (needs a Rust toolchain)"
        continue
    fi
    if [ "$kind" = test ]; then
        # The GPU machine runs only the GPU tier (#[ignore = "needs a GPU"]):
        # a test binary without such tests would only take space.
        gpu_tests=$("$path" --list --ignored --format terse 2>/dev/null | grep -c ': test$' || true)
        if [ "$gpu_tests" -eq 0 ]; then
            echo "skip $pkg/$target (no GPU tests)"
            continue
        fi
    fi
    case "$kind" in
        test) dir=tests; name="$pkg--$target" ;;
        example) dir=examples; name="$target" ;;
        bench) dir=benches; name="$pkg--$target" ;;
        bin) dir=bins; name="$target" ;;
        *) continue ;;
    esac
    cp "$path" "$out/$dir/$name"
    strip "$out/$dir/$name"
    count=$((count + 1))
done <"$out/manifest.tsv"

# cudarc's examples and the launch benchmark, built against cuda-compat
# (and the benchmark against real cudarc too), with the runner script.
bash "$root/scripts/cudarc-examples.sh" fetch >/dev/null
bash "$root/scripts/cudarc-examples.sh" build --release
bash "$root/scripts/cudarc-examples.sh" bench-build
rm -rf "$out/cudarc-examples"
bash "$root/scripts/cudarc-examples.sh" bundle "$out"
# cudarc's own unit tests, built against real cudarc and against the
# drop-in (scripts/cudarc-tests.sh; run there by gpu-session.sh tests).
bash "$root/scripts/cudarc-tests.sh" bundle "$out/cudarc-tests" >"$out/cudarc-tests.log" 2>&1 || {
    cat "$out/cudarc-tests.log" >&2
    exit 1
}

# The runners' parsing, counting and output checks (the GPU machine has no
# Rust): xtask's release binary, stripped, beside run.sh.
cargo build -q --release -p xtask
cp "${CARGO_TARGET_DIR:-$root/target}/release/xtask" "$out/xtask"
strip "$out/xtask"
cp "$root/scripts/gpu-run.sh" "$out/run.sh"
# Every torch baseline, and the names of the benchmark programs (run.sh
# leaves them to gpu-session.sh).
cp "$root"/benches/torch_*.py "$out/"
bash "$root/scripts/gpu-session.sh" list-benchmarks >"$out/benchmarks.txt"
chmod +x "$out/run.sh"
# Stripped binaries compress about tenfold: the machine takes at most
# 64 MiB, so the executables travel as one xz archive, unpacked there by
# gpu-session.sh (and run.sh) before the first run. GPU_BUNDLE_PACK=0
# leaves the folders unpacked (for looking at them here).
unpacked=$(du -sm "$out/tests" "$out/examples" "$out/bins" "$out/benches" "$out/cudarc-examples" "$out/cudarc-tests" | awk '{s += $1} END {print s}')
if [ "${GPU_BUNDLE_PACK:-1}" != 0 ]; then
    rm -f "$out/payload.tar.xz"
    tar -C "$out" -cf - tests examples bins benches cudarc-examples cudarc-tests | xz -T0 -6 >"$out/payload.tar.xz"
    rm -rf "$out/tests" "$out/examples" "$out/bins" "$out/benches" "$out/cudarc-examples" "$out/cudarc-tests"
fi
size=$(du -sm "$out" | cut -f1)
echo "gpu-bundle: $count executables, ${unpacked} MiB unpacked, ${size} MiB to carry in $out"
if [ "$size" -gt 64 ]; then
    echo "the bundle is over 64 MiB: the GPU machine takes at most 64 MiB" >&2
    exit 1
fi

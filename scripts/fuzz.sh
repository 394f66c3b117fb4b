#!/usr/bin/env bash
# Builds every cargo-fuzz target in fuzz/ and runs each for a fixed time.
#
#   scripts/fuzz.sh [seconds-per-target] [target...]
#
# Default 20 s per target, every target. A crash, an overflow panic, a
# failed assertion or an input slower than the per-input timeout fails the
# script and prints the reproducer's path (under fuzz/artifacts/<target>/);
# replay it with `fuzz/target/x86_64-unknown-linux-gnu/release/<target> <path>`.
#
# The targets are built with `cargo build` (pinned nightly) and the flags
# `cargo fuzz build` sets (cargo-fuzz 0.12, release with debug info,
# AddressSanitizer), plus debug assertions and overflow checks, so no
# cargo-fuzz install is needed; `cargo fuzz run <target>` works as well.
# New inputs found go to fuzz/target/corpus/<target> (not committed); the
# committed seeds stay in fuzz/corpus/<target>.
set -euo pipefail
cd "$(dirname "$0")/.."

secs="${1:-20}"
shift || true
per_input_timeout="${FUZZ_INPUT_TIMEOUT:-10}"
triple=x86_64-unknown-linux-gnu
# Pinned: -Zsanitizer and the sancov passes are nightly-only.
toolchain="${FUZZ_TOOLCHAIN:-nightly-2026-05-20}"
if ! rustc "+$toolchain" -V >/dev/null 2>&1; then
    rustup toolchain install "$toolchain" --profile minimal
fi

export RUSTFLAGS="-Cpasses=sancov-module \
-Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters \
-Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares \
-Cllvm-args=-sanitizer-coverage-stack-depth \
--cfg fuzzing -Clink-dead-code -Zsanitizer=address \
-Cdebug-assertions -Coverflow-checks -Ccodegen-units=1"

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <(ls fuzz/fuzz_targets | sed -n 's/\.rs$//p')
fi

echo "fuzz: building ${#targets[@]} targets"
start=$SECONDS
cargo "+$toolchain" build --locked --release --manifest-path fuzz/Cargo.toml \
    --target "$triple" --target-dir fuzz/target "${targets[@]/#/--bin=}"
echo "fuzz: built in $((SECONDS - start)) s"

failed=()
for t in "${targets[@]}"; do
    bin="fuzz/target/$triple/release/$t"
    seeds="fuzz/corpus/$t"
    found="fuzz/target/corpus/$t"
    artifacts="fuzz/artifacts/$t"
    mkdir -p "$found" "$artifacts" "$seeds"
    before=$(ls "$artifacts" | sort)
    echo "fuzz: $t for $secs s"
    if ! "$bin" -max_total_time="$secs" -timeout="$per_input_timeout" \
        -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$artifacts/" "$found" "$seeds" \
        >"fuzz/target/$t.log" 2>&1; then
        tail -n 40 "fuzz/target/$t.log"
        new=$(comm -13 <(echo "$before") <(ls "$artifacts" | sort))
        echo "fuzz: $t FAILED; reproducer(s):"
        for f in $new; do echo "  $artifacts/$f"; done
        failed+=("$t")
    else
        grep -E '^stat::number_of_executed_units|^Done' "fuzz/target/$t.log" | tr '\n' ' '
        echo
    fi
done

if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: failed: ${failed[*]}"
    exit 1
fi
echo "fuzz: every target ran $secs s without a finding"

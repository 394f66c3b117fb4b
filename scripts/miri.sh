#!/usr/bin/env bash
# Runs the unit tests of the pure-Rust code that holds `unsafe` under Miri,
# which stops at undefined behaviour, leaks, data races and provenance
# misuse: the binding macros' tables (hip-sys `binding`, `loader::common`),
# the PE reader (`loader::search::pe`), and in hip the access tracking
# (`tracking`, on the fake runtime of `fake_runtime.rs`), the staging chunk
# arithmetic, stores and host copy queue (`staging`), the drop-error
# registries (`drop_errors`) and the module's kernel cache
# (`module::tests`, on the fake runtime). A test these filters select that Miri cannot
# run says why in its `#[cfg_attr(miri, ignore = "...")]`.
set -euo pipefail
cd "$(dirname "$0")/.."

# A nightly whose Miri and rust-src are known to work with this workspace
# (scripts/nightly-toolchain, also cudarc-api.sh's rustdoc JSON). Move it
# forward deliberately: a newer Miri may find more (or break), and
# rustdoc's JSON format changes between nightlies.
TOOLCHAIN=$(cat scripts/nightly-toolchain)

installed=$(rustup component list --toolchain "$TOOLCHAIN" --installed 2>/dev/null || true)
if ! grep -q '^miri' <<<"$installed" || ! grep -q '^rust-src' <<<"$installed"; then
    rustup toolchain install "$TOOLCHAIN" --profile minimal -c miri,rust-src
fi
cargo "+$TOOLCHAIN" miri setup

# -Zmiri-strict-provenance: no integer-to-pointer casts; the handles that
# are numbers (hipStreamPerThread, the fake's events) carry no provenance.
# Isolation stays on (the default): tests that need files, the environment
# or a foreign library are marked to be ignored under Miri, with the reason,
# and never pass silently.
# -Zmiri-many-seeds is left out: each seed is a full rerun, and one run
# keeps this step within its time budget.
export MIRIFLAGS="-Zmiri-strict-provenance ${MIRIFLAGS:-}"

# Each run must pass at least as many tests as were chosen, so that a
# renamed module (a filter matching nothing) fails instead of passing.
run() {
    local package=$1 least=$2 log
    shift 2
    log=$(mktemp)
    cargo "+$TOOLCHAIN" miri test -p "$package" --lib -- "$@" 2>&1 | tee "$log"
    local passed
    passed=$(sed -n 's/^test result: ok\. \([0-9]*\) passed.*/\1/p' "$log" | tail -n 1)
    rm -f "$log"
    if [ "${passed:-0}" -lt "$least" ]; then
        echo "miri.sh: $package passed ${passed:-0} tests under Miri, expected at least $least" >&2
        exit 1
    fi
}

run hip-sys 10 binding:: loader::common:: loader::search::pe::
run hip 31 tracking:: staging:: drop_errors:: module::tests::

#!/usr/bin/env bash
# The cudarc drop-in's features, each alone: every library feature that
# cuda-compat provides (a feature of cuda-compat/Cargo.toml that pulls in
# a binding crate, `dep:...`) type-checks through dropins/cudarc with
# `default-features = false` and `std`; every feature the drop-in refuses
# (its `not_provided!` list) stops the build with its message. Both lists
# are read from the files, so they cannot disagree with what is built.
# One line per feature: `feature check: NAME ... ok|FAILED`.
set -uo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)
WORK="$REPO/target/feature-check"
mkdir -p "$WORK/src"
: >"$WORK/src/lib.rs"
export CARGO_TARGET_DIR="$WORK/target"

# cuda-compat's library features: `name = [... "dep:..." ...]`.
provided=$(awk '/^\[features\]/ { f = 1; next } /^\[/ { f = 0 } f && /"dep:/ { print $1 }' cuda-compat/Cargo.toml)
# The drop-in's refusals: `"name": "why";` inside not_provided!.
refused=$(sed -n 's/^    "\([a-z0-9-]*\)": ".*";$/\1/p' dropins/cudarc/src/lib.rs)
[[ -n $provided && -n $refused ]] || { echo "feature check: cannot read the feature lists ... FAILED"; exit 1; }

# check FEATURE: writes a package depending on the drop-in with FEATURE
# and std only, and type-checks it; its output in $WORK/FEATURE.log.
check() {
    cat >"$WORK/Cargo.toml" <<EOF
[package]
name = "feature-check"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
cudarc = { path = "$REPO/dropins/cudarc", default-features = false, features = ["std", "$1"] }

[workspace]
EOF
    (cd "$WORK" && cargo check -q) >"$WORK/$1.log" 2>&1
}

failed=0
for f in $provided; do
    if check "$f"; then
        echo "feature check: $f alone type-checks through the drop-in ... ok"
    else
        echo "feature check: $f alone type-checks through the drop-in ... FAILED"
        tail -n 15 "$WORK/$f.log"
        failed=1
    fi
    if grep -qx "$f" <<<"$refused"; then
        echo "feature check: $f is provided by cuda-compat but refused by the drop-in ... FAILED"
        failed=1
    fi
done
for f in $refused; do
    if check "$f"; then
        echo "feature check: $f is refused with its reason ... FAILED (it built)"
        failed=1
    elif grep -q "cudarc feature \`$f\`" "$WORK/$f.log"; then
        echo "feature check: $f is refused with its reason ... ok"
    else
        echo "feature check: $f is refused with its reason ... FAILED (another error)"
        tail -n 15 "$WORK/$f.log"
        failed=1
    fi
done
exit $failed

#!/usr/bin/env bash
# Builds hip's threaded tests under ThreadSanitizer and gathers them, with
# their runner, in the git-ignored folder tsan-bundle/ (at most 40 MiB), to be
# carried to a GPU machine (which needs no Rust):
#
#   bash scripts/tsan-bundle.sh              # here: build and gather
#   bash scripts/gpu-session.sh tsan         # there, tsan-bundle/ carried
#   bash scripts/tsan-bundle.sh --cpu        # here: build, then run the CPU part
#
# What is built (release, `-Zsanitizer=thread`, std rebuilt with it by
# `-Zbuild-std`: an uninstrumented std would hide its own synchronisation
# from TSan and give false reports):
#   hip--lib          hip's unit tests; run.sh runs those of staging::pool,
#                     staging::ring and tracking (no GPU needed);
#   hip--gpu_staging  every GPU test (staged copies, several threads);
#   hip--gpu_tracking every GPU test (event tracking, per-thread streams);
#   hip--gpu          the GPU tests that use threads (run.sh names them).
# Symbols and line tables stay (`debug = "line-tables-only"`, no strip):
# TSan's reports and the suppressions need them. The binaries travel as one
# xz archive, which run.sh unpacks.
#
# The toolchain: TSAN_TOOLCHAIN (default `nightly`; the other scripts pin no
# nightly either); its `rust-src` component is added when missing (needs
# the network once). The build goes to target/tsan/, apart from the normal
# builds.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out="$root/tsan-bundle"
toolchain=${TSAN_TOOLCHAIN:-nightly}
target=x86_64-unknown-linux-gnu
cpu=0
case "${1:-}" in
    "") ;;
    --cpu) cpu=1 ;;
    *)
        echo "usage: tsan-bundle.sh [--cpu]" >&2
        exit 2
        ;;
esac

if ! rustup component list --toolchain "$toolchain" --installed | grep '^rust-src' >/dev/null; then
    rustup component add --toolchain "$toolchain" rust-src
fi
echo "tsan-bundle: $(rustc "+$toolchain" -V)"

rm -rf "$out"
mkdir -p "$out/bin"
export CARGO_TARGET_DIR="$root/target/tsan"
export RUSTFLAGS="-Zsanitizer=thread"
export CARGO_PROFILE_RELEASE_DEBUG=line-tables-only
export CARGO_PROFILE_RELEASE_STRIP=none
cargo "+$toolchain" test -Zbuild-std --target "$target" --release -p hip \
    --lib --test gpu_staging --test gpu_tracking --test gpu \
    --no-run --message-format=json 2>"$out/build.log" >"$out/build.json" || {
    cat "$out/build.log" >&2
    exit 1
}
# One line per test binary: kind<TAB>package<TAB>target<TAB>path.
unset RUSTFLAGS CARGO_TARGET_DIR
cargo xtask executables --kinds <"$out/build.json" | sort -u >"$out/manifest.tsv"
rm -f "$out/build.json"
count=0
while IFS=$'\t' read -r kind pkg name path; do
    [ "$kind" = test ] || continue
    if [ "$name" = "$pkg" ]; then name=lib; fi
    cp "$path" "$out/bin/$pkg--$name"
    count=$((count + 1))
done <"$out/manifest.tsv"
if [ "$count" -ne 4 ]; then
    echo "tsan-bundle: expected 4 test binaries, found $count (see $out/manifest.tsv)" >&2
    exit 1
fi
cp "$root/scripts/tsan-run.sh" "$out/run.sh"
cp "$root/scripts/tsan.supp" "$root/scripts/tsan-cuda.supp" "$out/"
chmod +x "$out/run.sh"

unpacked=$(du -sm "$out/bin" | cut -f1)
tar -C "$out" -cf - bin | xz -T0 -6 >"$out/bin.tar.xz"
rm -rf "$out/bin"
size=$(du -sm "$out" | cut -f1)
echo "tsan-bundle: $count test binaries, ${unpacked} MiB unpacked, ${size} MiB to carry in $out"
if [ "$size" -gt 40 ]; then
    echo "tsan-bundle: over 40 MiB" >&2
    exit 1
fi
if [ "$cpu" = 1 ]; then
    # Here, without a GPU: the unit tests, and each GPU binary's start.
    # run.sh unpacks bin/: removed again, so that only the archive travels.
    status=0
    bash "$out/run.sh" cpu || status=$?
    rm -rf "$out/bin"
    exit "$status"
fi

#!/usr/bin/env bash
# cudarc's own unit tests as the drop-in's conformance suite (issue 33).
#
# cudarc's published crate (fetched by cargo at the pinned version and
# checksum of scripts/cudarc-examples.sh) keeps its tests in `mod tests`
# blocks that may use private items. `cargo xtask cudarc-tests extract`
# turns them into integration tests of a scratch package under
# target/cudarc-tests/ (nothing of cudarc is committed); the package is
# built against real cudarc, and every item that does not build there
# (it needs cudarc's private API) is pruned, round by round. What is left
# is built again with `[patch.crates-io]` pointing cudarc at
# dropins/cudarc: a test that does not build there is an API difference,
# and must be listed, with its reason, in the reviewed
# cuda-compat/cudarc-tests-residue.tsv (a listed test that builds fails
# the check too, so the list only shrinks).
#
#   bash scripts/cudarc-tests.sh [check]        build both, check (test.sh)
#   bash scripts/cudarc-tests.sh write REASON   rewrite the residue (new lines
#                                               get REASON, old keep theirs)
#   bash scripts/cudarc-tests.sh bundle DIR     also build both test binaries in
#                                               release and copy them to DIR
#                                               (real/, ours/) with this script
#   bash DIR/cudarc-tests.sh run DIR            there (the GPU machine, no cargo):
#                                               every test binary of both, one
#                                               test thread; each test's outcome
#                                               through the drop-in against real
#                                               cudarc's. Last line `N passed,
#                                               N failed` (a test that passes on
#                                               real cudarc and not through the
#                                               drop-in fails), `N not run` for
#                                               tests that fail on both, and
#                                               `N explained` for those that fail
#                                               through the drop-in by design,
#                                               listed with the reason in the
#                                               reviewed
#                                               cuda-compat/cudarc-tests-explained.tsv
#                                               (a listed test that passes through
#                                               the drop-in, or fails on real
#                                               cudarc, fails the run: the list
#                                               only shrinks). A test that
#                                               passes on real cudarc and has no
#                                               outcome through the drop-in fails
#                                               unless the bundled residue lists
#                                               it; a test binary that crashes,
#                                               times out (CUDARC_TESTS_TIMEOUT,
#                                               600 s) or prints no summary
#                                               fails the run, named (the
#                                               verdict is the bundle's xtask,
#                                               XTASK or DIR/../xtask)
#
# Lines: `cudarc api: NAME ... ok|FAILED` (counted by test.sh's tally, with
# scripts/cudarc-api.sh's).
set -euo pipefail
mode=${1:-check}

# run DIR: on the GPU machine, before anything that needs cargo.
if [[ $mode == run ]]; then
    dir=${2:?run needs the bundle folder}
    # The bundle's xtask binary (no Rust there): XTASK, or beside this
    # folder, where scripts/gpu-bundle.sh puts it.
    xtask=
    for x in "${XTASK:-}" "$dir/xtask" "$dir/../xtask"; do
        if [[ -z $xtask && -n $x && -x $x ]]; then xtask=$x; fi
    done
    [[ -n $xtask ]] || { echo "run: no xtask binary beside $dir, and XTASK unset"; exit 2; }
    crashed=()
    for side in real ours; do
        : >"$dir/$side.outcomes"
        for exe in "$dir/$side"/*; do
            [[ -x $exe ]] || continue
            name=$(basename "$exe" | sed 's/-[0-9a-f]\{16\}$//')
            log=$dir/$side-$name.log
            # A failing test is an outcome, read below, not a stop (the
            # harness exits 101); a crash, a timeout (124) or a binary that
            # never printed its summary is a failure of the run, named.
            rc=0
            timeout "${CUDARC_TESTS_TIMEOUT:-600}" "$exe" --test-threads 1 >"$log" 2>&1 || rc=$?
            if { [[ $rc -ne 0 && $rc -ne 101 ]] || ! grep -q '^test result: ' "$log"; }; then
                why="exit $rc"
                [[ $rc -ne 124 ]] || why="timed out"
                crashed+=("$side $name: $why; last line: $(tail -n 1 "$log" | cut -c1-120)")
            fi
            sed -n 's/^test \(.*\) \.\.\. \(ok\|FAILED\|ignored\)$/\1 \2/p' "$log" |
                awk -v f="$name" '{ print f "::" $1 "\t" $2 }' >>"$dir/$side.outcomes"
        done
    done
    [[ -f $dir/cudarc-tests-residue.tsv ]] || { echo "run: no $dir/cudarc-tests-residue.tsv (bundle mode copies it)"; exit 2; }
    # Each test's outcome through the drop-in against real cudarc's, with
    # the bundled lists and the binaries that crashed: the report, the
    # table (both.tsv) and the verdict (xtask/src/cudarc_outcomes.rs).
    exec "$xtask" cudarc-tests outcomes "$dir" "${crashed[@]}"
fi
cd "$(dirname "$0")/.."
REPO=$(pwd)
TARGET="${CARGO_TARGET_DIR:-$REPO/target}"
WORK="$TARGET/cudarc-tests"
RESIDUE="$REPO/cuda-compat/cudarc-tests-residue.tsv"
CUDARC_VERSION=$(sed -n 's/^CUDARC_VERSION=//p' scripts/cudarc-examples.sh)
CUDARC_SHA256=$(sed -n 's/^CUDARC_SHA256=//p' scripts/cudarc-examples.sh)
FEATURES="std cuda-13000 f16 driver runtime nvrtc cublas cublaslt curand nccl cufft cusparse cusolver nvtx dynamic-loading"

die() { echo "cudarc-tests.sh: $*" >&2; exit 1; }
[[ -n $CUDARC_VERSION && -n $CUDARC_SHA256 ]] || die "no CUDARC_VERSION or CUDARC_SHA256 in scripts/cudarc-examples.sh"
# The workspace's xtask (cudarc_tests.rs, cargo_json.rs), whatever the
# working folder.
xtask() { (cd "$REPO" && cargo run -q -p xtask -- "$@"); }

# package DIR PATCH: the scratch package (tests/ is the suite's).
package() {
    local dir=$1 patch=$2 list
    mkdir -p "$dir"
    list=$(printf '"%s", ' $FEATURES)
    {
        cat <<EOF
[package]
name = "cudarc-tests-$(basename "$dir")"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
cudarc = { version = "=$CUDARC_VERSION", default-features = false, features = [${list%, }] }
half = "2"

[workspace]
EOF
        # cudarc's features, so that the tests' #[cfg(feature = ...)] mean
        # what they mean in cudarc: those compared are on.
        [[ -f $src/Cargo.toml ]] && xtask cudarc-tests features "$src/Cargo.toml" $FEATURES
        if [[ $patch == 1 ]]; then
            printf '\n[patch.crates-io]\ncudarc = { path = "%s/dropins/cudarc" }\n' "$REPO"
        fi
    } >"$dir/Cargo.toml"
    mkdir -p "$dir/src"
    : >"$dir/src/lib.rs"
}

# prune_until_built DIR SUITE LABEL: builds DIR's tests, prunes what fails
# from SUITE, until everything builds (at most 12 rounds).
prune_until_built() {
    local dir=$1 suite=$2 label=$3 round n
    for round in $(seq 1 12); do
        # The workspace's target folder: hip and the -sys crates built
        # once for both (only what differs in features is built again).
        if (cd "$dir" && CARGO_TARGET_DIR="$TARGET" cargo build -q --tests --keep-going \
            --message-format=json >"$WORK/$label.json" 2>"$WORK/$label.log"); then
            return 0
        fi
        n=$(xtask cudarc-tests prune "$suite" "$WORK/$label.json" "$WORK/pruned.tsv" "$label") ||
            { cat "$WORK/$label.log" >&2; die "$label: the build failed outside the suite"; }
        echo "cudarc-tests: $label, round $round: $n items pruned" >&2
        [[ $n -gt 0 ]] || { tail -30 "$WORK/$label.log" >&2; die "$label: the build fails and nothing is left to prune"; }
    done
    die "$label: still failing after 12 rounds"
}

rm -rf "$WORK/real" "$WORK/ours" "$WORK/suite" "$WORK/suite-ours" "$WORK/pruned.tsv"
mkdir -p "$WORK"
src=/nonexistent # cudarc's source, known once it is fetched
package "$WORK/real" 0
(cd "$WORK/real" && cargo generate-lockfile -q)
sum=$(awk '/^name = "cudarc"$/ { f = 1 } f && /^checksum/ { gsub(/"/, "", $3); print $3; exit }' "$WORK/real/Cargo.lock")
[[ $sum == "$CUDARC_SHA256" ]] || die "cudarc $CUDARC_VERSION's checksum is $sum, pinned $CUDARC_SHA256"
(cd "$WORK/real" && cargo fetch -q)
cargo_metadata=$(cd "$WORK/real" && cargo metadata --format-version 1)
src=$(xtask manifest-dir cudarc <<<"$cargo_metadata")
# Again, now with cudarc's features known.
package "$WORK/real" 0

xtask cudarc-tests extract "$src" "$WORK/suite" >&2
total=$(xtask cudarc-tests list "$WORK/suite" | wc -l)
ln -sfn "$WORK/suite/tests" "$WORK/real/tests"
prune_until_built "$WORK/real" "$WORK/suite" real
xtask cudarc-tests list "$WORK/suite" >"$WORK/suite-tests.txt"
public=$(wc -l <"$WORK/suite-tests.txt")

cp -r "$WORK/suite" "$WORK/suite-ours"
package "$WORK/ours" 1
cp "$WORK/real/Cargo.lock" "$WORK/ours/Cargo.lock"
ln -sfn "$WORK/suite-ours/tests" "$WORK/ours/tests"
prune_until_built "$WORK/ours" "$WORK/suite-ours" drop-in
xtask cudarc-tests list "$WORK/suite-ours" >"$WORK/ours-tests.txt"
ours=$(wc -l <"$WORK/ours-tests.txt")

# The drop-in's differences: tests of the suite that do not build there.
comm -23 <(sort "$WORK/suite-tests.txt") <(sort "$WORK/ours-tests.txt") >"$WORK/differ.txt"
reason_of() { awk -F'\t' -v t="$1" '$1 == "drop-in" && $2 == t { print $4; exit }' "$WORK/pruned.tsv"; }
if [[ $mode == write ]]; then
    [[ -n ${2:-} ]] || die "write needs a REASON"
    {
        echo "# cudarc 0.19.10's unit tests that build against real cudarc's public API but not"
        echo "# against the drop-in (scripts/cudarc-tests.sh), each with the reason. Reviewed."
        echo "# test<TAB>reason<TAB>the compiler's first error there"
        while read -r t; do
            old=$(awk -F'\t' -v t="$t" '$1 == t { print $2; exit }' "$RESIDUE" 2>/dev/null || true)
            printf '%s\t%s\t%s\n' "$t" "${old:-$2}" "$(reason_of "$t")"
        done <"$WORK/differ.txt"
    } >"$RESIDUE.new"
    mv "$RESIDUE.new" "$RESIDUE"
    echo "cudarc-tests: wrote $(wc -l <"$WORK/differ.txt") entries to $RESIDUE"
fi
listed=$(grep -v '^#' "$RESIDUE" 2>/dev/null | cut -f1 | sort || true)
unlisted=$(comm -23 "$WORK/differ.txt" <(echo "$listed" | sed '/^$/d') | sort)
stale=$(comm -13 <(sort "$WORK/differ.txt") <(echo "$listed" | sed '/^$/d'))
verdict() { [[ -z $1 ]] && echo ok || echo FAILED; }
echo "cudarc api: cudarc's unit tests extracted: $total, of which $public use only its public API ... ok"
echo "cudarc api: cudarc's public-API tests build against the drop-in ($ours of $public; $(wc -l <"$WORK/differ.txt") listed with reasons) ... $(verdict "$unlisted")"
[[ -z $unlisted ]] || { echo "not building against the drop-in, and not in $RESIDUE:"; while read -r t; do echo "  $t: $(reason_of "$t")"; done <<<"$unlisted"; }
echo "cudarc api: the tests residue lists only tests that fail to build ... $(verdict "$stale")"
[[ -z $stale ]] || { echo "listed in $RESIDUE but building now:"; echo "$stale" | sed 's/^/  /'; }

if [[ $mode == bundle ]]; then
    out=${2:?bundle needs a folder}
    rm -rf "$out"
    mkdir -p "$out"
    cp "$REPO/scripts/cudarc-tests.sh" "$REPO/cuda-compat/cudarc-tests-explained.tsv" \
        "$RESIDUE" "$out/"
    for side in real ours; do
        (cd "$WORK/$side" && CARGO_TARGET_DIR="$TARGET" cargo test -q --release --no-run \
            --message-format=json 2>/dev/null) >"$WORK/$side-release.json"
        # The test targets' executables (not the empty library's unit tests).
        exe=$(xtask executables --test-targets <"$WORK/$side-release.json")
        mkdir -p "$out/$side"
        for e in $exe; do cp "$e" "$out/$side/" && strip "$out/$side/$(basename "$e")"; done
    done
    cp "$WORK/suite-tests.txt" "$WORK/ours-tests.txt" "$out/"
fi
[[ -z $unlisted && -z $stale ]]

#!/usr/bin/env bash
# Release checks, run from .ci/run:
#
#   scripts/release-check.sh package   every publishable crate packages, and
#                                      each package has its README and licences
#   scripts/release-check.sh msrv      the packaged crates build with the
#                                      declared rust-version, with the
#                                      lockfile a user on that toolchain gets
#
# `msrv` installs the toolchain with rustup if it is missing (a minimal
# profile, ~15 s) and needs the network for the crates.io index. Its build
# goes to HIP_MSRV_TARGET (default ~/.cache/hip-rs/msrv-target), so later
# runs rebuild only our crates.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

# The crates we publish: every workspace member without `publish = false`,
# read from the workspace (a new crate is checked from its first commit;
# no list here to keep in step).
crates=()
for dir in $(sed -n '/^members = \[/,/^\]/s/^ *"\(.*\)",\?$/\1/p' Cargo.toml); do
    grep -q '^publish = false' "$dir/Cargo.toml" && continue
    crates+=("$(sed -n 's/^name = "\(.*\)"$/\1/p' "$dir/Cargo.toml" | head -n1)")
done
if [ "${#crates[@]}" -lt 10 ]; then
    echo "release-check: only ${#crates[@]} publishable crates found in Cargo.toml's members: ${crates[*]}" >&2
    exit 1
fi
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n1)
msrv=$(sed -n 's/^rust-version = "\(.*\)"$/\1/p' Cargo.toml | head -n1)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/hip-rs

# Packages the crates together into target/package/NAME-VERSION.crate.
# --no-verify: verifying builds each package with its path dependencies
# replaced by registry ones, and crates.io's `hip-sys` 0.1.x (another
# project's crate of that name) then wins over ours. `msrv` builds the
# packaged files instead, with ours patched in.
package_all() {
    local args=()
    for c in "${crates[@]}"; do args+=(-p "$c"); done
    cargo package "${args[@]}" --no-verify --allow-dirty -q
}

check_package() {
    package_all
    local bad=0 c f
    for c in "${crates[@]}"; do
        local files
        files=$(tar -tzf "target/package/$c-$version.crate")
        for f in README.md LICENSE-APACHE LICENSE-MIT; do
            if ! grep -qx "$c-$version/$f" <<<"$files"; then
                echo "release-check: the $c package has no $f" >&2
                bad=1
            fi
        done
    done
    [[ $bad == 0 ]] || exit 1
    echo "release-check: ${#crates[@]} crates packaged, each with README.md, LICENSE-APACHE, LICENSE-MIT"
}

check_msrv() {
    rustup toolchain list | grep "^$msrv-" >/dev/null ||
        rustup toolchain install "$msrv" --profile minimal
    package_all

    # A workspace of the packaged crates, as a user downloads them, our
    # versions patched in for crates.io's. Extracted with fresh mtimes:
    # cargo packs every file with the same old one, and freshness goes by
    # mtime.
    local user=$cache/msrv-user
    rm -rf "$user"
    mkdir -p "$user"
    {
        echo '[workspace]'
        echo 'resolver = "2"'
        echo 'members = ['
        for c in "${crates[@]}"; do echo "    \"$c-$version\","; done
        echo ']'
        echo '[patch.crates-io]'
        for c in "${crates[@]}"; do echo "$c = { path = \"$c-$version\" }"; done
    } >"$user/Cargo.toml"
    for c in "${crates[@]}"; do
        tar -xzf "target/package/$c-$version.crate" -C "$user" --touch
    done

    # The MSRV's cargo resolves as a user on it does: the newest versions
    # the requirements allow, whatever their rust-version (cargo before
    # 1.84 has no MSRV-aware resolver). Lints are capped as for a
    # dependency: the generated code allows lints newer than the MSRV.
    cd "$user"
    export CARGO_TARGET_DIR=${HIP_MSRV_TARGET:-$cache/msrv-target}
    export RUSTFLAGS="--cap-lints allow"
    cargo "+$msrv" generate-lockfile -q
    cargo "+$msrv" check -q --workspace --all-features
    echo "release-check: ${#crates[@]} crates build with rust $msrv (the declared rust-version)"
}

case ${1:-} in
package) check_package ;;
msrv) check_msrv ;;
*)
    echo "usage: $0 package|msrv" >&2
    exit 2
    ;;
esac

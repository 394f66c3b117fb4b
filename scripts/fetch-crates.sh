#!/usr/bin/env bash
# Other people's crates, as published: fetched by cargo at a pinned version,
# checked against a pinned sha256 (the "cksum" of the crate's crates.io
# index entry) and unpacked into DEST/NAME. A crate already unpacked there
# with the same sum is left as it is; a crate whose sum differs is refused.
# Nothing of it is committed.
#
# Usage: scripts/fetch-crates.sh DEST NAME VERSION SHA256 [NAME VERSION SHA256]...
# Prints one line per crate unpacked, on standard error.
set -euo pipefail
[[ $# -ge 4 && $((($# - 1) % 3)) -eq 0 ]] || {
    sed -n '2,/^set -euo/p' "$0" | sed '$d' >&2
    exit 2
}
dest=$1
shift
home=${CARGO_HOME:-$HOME/.cargo}
die() {
    echo "fetch-crates: $*" >&2
    exit 1
}

names=() versions=() sums=() missing=()
while [[ $# -gt 0 ]]; do
    names+=("$1") versions+=("$2") sums+=("$3")
    [[ -f "$dest/$1/.verified" && "$(cat "$dest/$1/.verified")" == "$3" ]] || missing+=("${#names[@]}")
    shift 3
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

fetch=$dest/.fetch
mkdir -p "$fetch/src"
: >"$fetch/src/lib.rs"
{
    printf '[package]\nname = "hip-rs-fetch"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n\n[dependencies]\n'
    for i in "${missing[@]}"; do
        printf '%s = { version = "=%s", default-features = false }\n' "${names[i - 1]}" "${versions[i - 1]}"
    done
    printf '\n[workspace]\n'
} >"$fetch/Cargo.toml"
cargo fetch -q --manifest-path "$fetch/Cargo.toml" >&2

for i in "${missing[@]}"; do
    name=${names[i - 1]} version=${versions[i - 1]} sum=${sums[i - 1]}
    crate=$(ls "$home"/registry/cache/*/"$name-$version.crate" 2>/dev/null | head -n1)
    [[ -n "$crate" ]] || die "cargo fetch left no $name-$version.crate"
    [[ "$(sha256sum "$crate" | cut -d' ' -f1)" == "$sum" ]] ||
        die "$crate: sha256 is not the pinned $sum; refusing it"
    rm -rf "${dest:?}/$name"
    mkdir -p "$dest/$name"
    tar -xzf "$crate" -C "$dest/$name" --strip-components=1
    echo "$sum" >"$dest/$name/.verified"
    echo "fetch-crates: $name $version unpacked (sha256 verified)" >&2
done

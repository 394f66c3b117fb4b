#!/usr/bin/env bash
# Fetches the ROCm 6.4 header packages (HIP, hipBLAS, rocBLAS, hipRAND with rocRAND, hipFFT, hipify; and RCCL 5.4.3's, the newest Debian has) from Debian's unstable suite and unpacks
# them under build.rs-tools/rocm-headers/ (git-ignored). Nothing is installed
# system-wide: apt runs with a private sources list, state and cache dir.
#
# The mirror is read from this machine's own apt configuration, so no host
# name is written in the repository.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
dest=${ROCM_HEADERS_DIR:-$here/rocm-headers}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Exact versions the committed bindings were generated from.
packages=(
  libamdhip64-dev=6.4.3*
  libhipblas-dev=6.4.4*
  libhipblas-common-dev
  librocblas-dev
  hipify-perl
  librccl-dev=5.4.3*
  libhiprand-dev=6.4.3*
  librocrand-dev
  libhipfft-dev=6.4.3*
)

mirror=""
for f in /etc/apt/sources.list.d/*.sources; do
  [ -f "$f" ] || continue
  m=$(awk '/^URIs:/ {print $2; exit}' "$f")
  case "$m" in *debian-security*|"") ;; *) mirror=$m; break ;; esac
done
if [ -z "$mirror" ]; then
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    m=$(awk '$1=="deb" && $0 !~ /security/ {for(i=2;i<=NF;i++) if ($i ~ /^[a-z]+:\/\//) {print $i; exit}}' "$f")
    [ -n "$m" ] && { mirror=$m; break; }
  done
fi
[ -n "$mirror" ] || { echo "fetch-rocm-headers: no Debian mirror found in /etc/apt" >&2; exit 1; }

mkdir -p "$work/state/lists/partial" "$work/cache/archives/partial" "$work/etc/preferences.d"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
echo "deb [signed-by=$keyring] $mirror unstable main" > "$work/etc/sources.list"
opts=(
  -o "Dir::Etc::SourceList=$work/etc/sources.list"
  -o "Dir::Etc::SourceParts=-"
  -o "Dir::Etc::Preferences=$work/etc/preferences"
  -o "Dir::Etc::PreferencesParts=$work/etc/preferences.d"
  -o "Dir::State=$work/state"
  -o "Dir::State::Status=$work/state/status"
  -o "Dir::Cache=$work/cache"
  -o "APT::Architecture=amd64"
)
touch "$work/state/status"
echo "fetch-rocm-headers: updating the unstable package list (private state in $work)" >&2
apt-get -q "${opts[@]}" update >&2
mkdir -p "$work/debs"
(cd "$work/debs" && apt-get -q "${opts[@]}" download "${packages[@]}" >&2)

rm -rf "$dest"
mkdir -p "$dest"
for deb in "$work"/debs/*.deb; do
  echo "fetch-rocm-headers: unpacking $(basename "$deb")" >&2
  dpkg -x "$deb" "$dest"
done
ls "$work"/debs > "$dest/PACKAGES"
echo "$dest"

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
  libhipblaslt-dev=7.1.1*  # hipBLASLt 7.1.1 (Debian builds it for HIP 6.4)
  libhipsolver-dev=6.4.1*
  libhipsparse-dev=6.4.3*
  libroctx-dev=6.4.1*
)

# shellcheck source=scripts/private-apt.sh
. "$here/../scripts/private-apt.sh"
private_apt "$work" unstable
opts=("${apt_opts[@]}")
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

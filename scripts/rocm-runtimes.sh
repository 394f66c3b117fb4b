#!/usr/bin/env bash
# Makes a sysroot per newer ROCm runtime, for tier 2 (scripts/tier2-sysroots.sh
# runs the tier-2 test binaries in them). Their libraries need a newer glibc
# than Debian 12's, so each sysroot holds the runtime packages and their whole
# dependency closure, glibc and its dynamic loader included:
#
#   5.7  Debian trixie:   HIP 5.7.1 (libamdhip64-5, hiprtc builtins, comgr 2)
#   6.4  Debian unstable: HIP 6.4.3 (libamdhip64-6, libhiprtc6), hipBLAS 6.4.4,
#                         rocBLAS 6.4.4 with its Tensile kernel files
#   rand-6.4  Debian unstable: hipRAND 6.4.3, rocRAND 6.4.3 (their own sysroot)
#   7.2  Debian experimental (dependencies from unstable): hipBLAS, rocBLAS,
#        hipRAND and rocRAND 7.2.4, with gfx942 kernels (6.4's have none)
#   hipcc-7.0  Debian unstable: the kernel compiler of scripts/hip-toolchain.sh
#                         (clang 21, HIP 6.4.3 headers, rocThrust, hipCUB, rocPRIM)
#
# Usage: scripts/rocm-runtimes.sh [5.7|6.4|rand-6.4|7.2|hipcc-7.0]...   (default: 5.7 6.4)
# Prints one line per version: `VERSION SYSROOT`.
#
# The closure is computed by apt with a private state dir and an empty
# "installed" list (so glibc, libstdc++ and everything else is in it), then
# fetched with `apt-get download` and unpacked with `dpkg -x`; nothing is
# installed system-wide. Docs, man pages and locales are deleted after
# unpacking; with --no-install-recommends a runtime's closure holds no -dev package
# except libclang-common-21-dev, which comgr 3 depends on (clang's builtin
# headers, used when hiprtc compiles).
#
# GPU code is kept for the targets the tests use only ($HIP_RUNTIMES_TARGETS,
# default gfx942 and gfx1100, hip-emu's): scripts/rocm-prune.py leaves the
# other targets' kernel files out while unpacking and releases the disk
# blocks of their entries in the libraries' offload bundles (rewriting the
# compressed ones). The 6.4 sysroot is 4.2 GB whole and 0.7 GB so, 7.2's
# 2.3 GB and 0.7 GB; CI machines may have a few GB free. Packages are
# fetched one at a time, each pruned as it is unpacked, then deleted.
#
# Cache: ${HIP_RUNTIMES_CACHE:-$HOME/.cache/hip-rs/rocm-runtimes}/rocm-VERSION-KEY,
# KEY being a hash of the suite, the requested packages, the targets and
# rocm-prune.py, so a second run downloads nothing (not even package
# lists). The resolved list, with versions, is in SYSROOT/PACKAGES. The mirror is read from this
# machine's apt configuration, so no host name is written in the repository.
set -euo pipefail
# shellcheck source=scripts/private-apt.sh
. "$(dirname "$0")/private-apt.sh"

cache=${HIP_RUNTIMES_CACHE:-$HOME/.cache/hip-rs/rocm-runtimes}
targets=${HIP_RUNTIMES_TARGETS:-gfx942,gfx1100}
prune=$(dirname "$0")/rocm-prune.py

suite_of() {
  case "$1" in
    5.7) echo trixie ;;
    6.4|rand-6.4|hipcc-7.0) echo unstable ;;
    7.2) echo "unstable experimental" ;;
    *) echo "rocm-runtimes: unknown version $1 (known: 5.7, 6.4, rand-6.4, 7.2, hipcc-7.0)" >&2; return 1 ;;
  esac
}

# The requested packages; apt adds their dependencies.
packages_of() {
  case "$1" in
    5.7) echo "libamdhip64-5=5.7.1* libhiprtc-builtins5=5.7.1*" ;;
    6.4) echo "libamdhip64-6=6.4.3* libhiprtc6=6.4.3* libhipblas2=6.4.4* librocblas4=6.4.4*" ;;
    # hipRAND and rocRAND beside 6.4 (scripts/candle.sh emu: candle makes
    # a generator for every device), a sysroot of their own so that adding
    # them does not fetch rocBLAS again.
    rand-6.4) echo "libhiprand1=6.4.3* librocrand1=6.4.3*" ;;
    # ROCm 7.2's hipBLAS, rocBLAS, hipRAND and rocRAND from experimental,
    # the first Debian builds with gfx942 kernels (scripts/candle.sh emu
    # runs candle's GEMMs and random numbers on the emulated gfx942 there).
    7.2) echo "libhipblas3=7.2.4* librocblas5=7.2.4* libhiprand1=7.2.4* librocrand1=7.2.4*" ;;
    # The kernel compiler (scripts/hip-toolchain.sh): hipcc 7.0.2, clang 21
    # and its AMD device libraries, over the HIP 6.4.3 headers, with the
    # header-only libraries CUDA code gets from its toolkit: rocThrust 6.4.4
    # (`thrust/`), hipCUB 6.4.3 (`hipcub/`, which the layer's `cub/`
    # headers map to) and rocPRIM 6.4.3 under them.
    hipcc-7.0) echo "hipcc=7.0.2* rocm-device-libs-21=7.0.2* libamdhip64-dev=6.4.3* librocthrust-dev=6.4.4* libhipcub-dev=6.4.3* librocprim-dev=6.4.3*" ;;
  esac
}

# make_sysroot VERSION: prints the sysroot, making it when not cached.
make_sysroot() {
  local version=$1 suite packages key dest work
  suite=$(suite_of "$version")
  packages=$(packages_of "$version")
  key=$({ printf '%s\n' "$suite" $packages "targets=$targets"; cat "$prune"; } | sha256sum | cut -c1-12)
  dest=$cache/rocm-$version-$key
  if [ -f "$dest/.complete" ]; then
    echo "rocm-runtimes: $version: cached in $dest" >&2
    echo "$dest"
    return 0
  fi
  mkdir -p "$cache"
  work=$(mktemp -d "$cache/.work-$version.XXXXXX")
  # shellcheck disable=SC2064
  trap "rm -rf '$work'" RETURN
  private_apt "$work" "$suite" || return 1
  # With experimental among the suites, its packages win where newer (apt
  # gives it priority 1 otherwise): the pinned packages' own dependencies
  # (HIP 7.2, rocSOLVER, roctx) are there too.
  case " $suite " in
    *" experimental "*) printf 'Package: *\nPin: release a=experimental\nPin-Priority: 500\n' >"$work/etc/preferences" ;;
  esac
  mkdir -p "$work/debs"
  local opts=("${apt_opts[@]}")
  echo "rocm-runtimes: $version: updating the $suite package list (private state in $work)" >&2
  apt-get -q "${opts[@]}" update >&2
  # Everything that installing the packages on an empty system would install.
  # shellcheck disable=SC2086
  apt-get -q "${opts[@]}" -s install --no-install-recommends $packages >"$work/plan" 2>&1 || {
    cat "$work/plan" >&2
    echo "rocm-runtimes: $version: apt could not resolve: $packages" >&2
    return 1
  }
  awk '$1=="Inst" {gsub(/\(/, "", $3); print $2 "=" $3}' "$work/plan" | sort >"$work/PACKAGES"
  echo "rocm-runtimes: $version: downloading and unpacking $(wc -l <"$work/PACKAGES") packages" >&2
  rm -rf "$dest"
  rm -rf "$dest.tmp"
  mkdir -p "$dest.tmp"
  # One package at a time, each deleted once unpacked and pruned: 7.2's are
  # 1 GB, and unpruned its libraries are 1.4 GB more.
  local pkg deb
  while read -r pkg; do
    (cd "$work/debs" && apt-get -q "${opts[@]}" download "$pkg" >&2) || return 1
    for deb in "$work"/debs/*.deb; do
      python3 "$prune" extract "$deb" "$dest.tmp" "$targets" >&2 || return 1
      rm -f "$deb"
    done
  done <"$work/PACKAGES"
  rm -rf "$dest.tmp/usr/share/doc" "$dest.tmp/usr/share/man" "$dest.tmp/usr/share/locale" "$dest.tmp/usr/share/lintian"
  cp "$work/PACKAGES" "$dest.tmp/PACKAGES"
  touch "$dest.tmp/.complete"
  mv "$dest.tmp" "$dest"
  echo "rocm-runtimes: $version: unpacked $(du -sh "$dest" | cut -f1) in $dest" >&2
  echo "$dest"
}

versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(5.7 6.4)
for v in "${versions[@]}"; do
  root=$(make_sysroot "$v")
  echo "$v $root"
done

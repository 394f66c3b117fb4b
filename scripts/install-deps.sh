#!/usr/bin/env bash
# Installs the Debian packages the tests need, when missing:
#   libamdhip64-5, libamdhip64-dev, rocm-device-libs, hipcc  (tier 2: the real
#     ROCm 5.2.3 runtime, hiprtc, and hipcc for ahead-of-time kernel builds)
#   libclang-dev, clang  (the binding generator's staleness check)
#   python3  (pip: build.rs-tools/scripts/fetch-cuda-headers.sh downloads NVIDIA's wheels)
#   gcc-mingw-w64-x86-64, wine64  (the Wine tier, scripts/wine-tier.sh: stub
#     DLLs built with mingw, the tests run under Wine 8.0)
#   zstd  (scripts/rocm-prune.py rewrites ROCm 7's compressed code-object
#     bundles with only the emulated targets' code)
# and, with rustup, the Rust target x86_64-pc-windows-gnu (the Wine tier's
# test binaries).
# Prints what it did; exits non-zero only when an install was needed and failed.
set -euo pipefail

windows_target=x86_64-pc-windows-gnu
if command -v rustup >/dev/null 2>&1 && ! rustup target list --installed | grep -x "$windows_target" >/dev/null; then
  echo "install-deps: adding the Rust target $windows_target"
  rustup target add "$windows_target"
fi

packages=(libamdhip64-5 libamdhip64-dev rocm-device-libs hipcc libclang-dev clang python3 gcc-mingw-w64-x86-64 wine64 patchelf zstd)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep "install ok installed" >/dev/null || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all present (${packages[*]})"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
    echo "install-deps: not root and no sudo: cannot install ${missing[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"

#!/usr/bin/env bash
# The Wine tier: the workspace's tests cross-compiled for Windows
# (x86_64-pc-windows-gnu, with mingw-w64) and run under Wine against stub
# HIP SDKs (scripts/windows/build-stubs.sh). scripts/test.sh calls it and
# counts its tests as tests of their own (`CRATE@wine`).
#
# What runs: every unit and integration test binary (`--lib --tests`) of
# hip-sys, hip, hip-diagnostics, hipblas-sys, hipblas, cuda-compat,
# rccl-sys, rccl, hiprand-sys, hiprand, hipfft-sys, hipfft and test-kit: tier 1, and the
# Windows loader tests (`tier1_windows_*.rs`, `#[cfg(windows)]`), which
# read the stub SDKs' folder from HIP_TEST_WINDOWS_STUBS. GPU tests stay
# ignored. Left out: the tier2_* binaries (they assert what Debian's AMD
# runtime for Linux does, and scripts/tier2-sysroots.sh runs them on the
# newer releases), hip's tier1_compile_fail (trybuild runs cargo, which the
# Wine prefix has not got; the Linux pass runs it), the generator and hip-build (they run libclang, hipcc
# and clang, Linux programs), examples and benches (GPU programs), and
# doc-tests (cargo does not cross-run them on stable Rust).
#
# Needs: x86_64-w64-mingw32-gcc (Debian: gcc-mingw-w64-x86-64), wine64
# (Debian: wine64; the binary is /usr/lib/wine/wine64) and the Rust target
# (rustup target add x86_64-pc-windows-gnu); scripts/install-deps.sh
# installs them. The Wine prefix is ${HIP_WINE_PREFIX:-~/.cache/hip-rs/wine-prefix},
# made on first use (a few seconds) and made again when broken.
#
# Output: for each binary, `     Running@wine PKG-DIR/FILE (EXE)` then
# libtest's output; then one line per binary and the total,
# `wine: N passed, N failed, N skipped`. A line `wine-tier: DID NOT RUN:
# REASON` when the tier could not run. Exits non-zero on any failure, on a
# binary without libtest's summary, or when it did not run.
#
# HIP_TEST_SKIP_WINE=1 skips the tier (for a machine without Wine;
# scripts/test.sh then says so on its tier line). CI must not set it.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

if [ "${HIP_TEST_SKIP_WINE:-}" = 1 ]; then
  echo "wine-tier: skipped (HIP_TEST_SKIP_WINE=1)"
  exit 0
fi

did_not_run() {
  echo "wine-tier: DID NOT RUN: $*"
  exit 1
}

target=x86_64-pc-windows-gnu
cc=${MINGW_CC:-x86_64-w64-mingw32-gcc}
command -v "$cc" >/dev/null || did_not_run "no $cc (Debian: gcc-mingw-w64-x86-64)"
wine=${WINE:-}
if [ -z "$wine" ]; then
  for w in /usr/lib/wine/wine64 "$(command -v wine64 2>/dev/null)"; do
    if [ -n "$w" ] && [ -x "$w" ]; then wine=$w; break; fi
  done
fi
[ -n "$wine" ] || did_not_run "no wine64 (Debian: wine64)"
wineserver=$(dirname "$wine")/wineserver
[ -x "$wineserver" ] || wineserver=$(command -v wineserver) || did_not_run "no wineserver beside $wine"
if command -v rustup >/dev/null && ! rustup target list --installed | grep -x "$target" >/dev/null; then
  did_not_run "the Rust target $target is not installed (rustup target add $target)"
fi

export WINEPREFIX=${HIP_WINE_PREFIX:-$HOME/.cache/hip-rs/wine-prefix}
export WINEDEBUG=-all
export WINEDLLOVERRIDES="mscoree,mshtml=" # no Mono/Gecko install prompts
system32=$WINEPREFIX/drive_c/windows/system32
# A prefix whose creation was cut short lacks its registry or system32.
if [ ! -f "$WINEPREFIX/system.reg" ] || [ ! -f "$system32/kernel32.dll" ]; then
  rm -rf "$WINEPREFIX"
  mkdir -p "$WINEPREFIX"
  echo "wine-tier: making the Wine prefix $WINEPREFIX"
  "$wine" wineboot -i >/dev/null 2>&1
  "$wineserver" -w 2>/dev/null || true
  [ -f "$system32/kernel32.dll" ] || did_not_run "wineboot could not make the prefix $WINEPREFIX"
fi
# Rust's standard library for this target imports ProcessPrng from
# bcryptprimitives.dll, which Wine 8.0 lacks: scripts/windows/bcryptprimitives.c
# says why, and goes into the prefix's system32 (never beside the tests).
shim_src=scripts/windows/bcryptprimitives.c
if [ ! -f "$system32/bcryptprimitives.dll" ] || [ "$shim_src" -nt "$system32/bcryptprimitives.dll" ]; then
  "$cc" -shared -O2 -s -o "$system32/bcryptprimitives.dll" "$shim_src" \
    scripts/windows/bcryptprimitives.def -ladvapi32 ||
    did_not_run "the bcryptprimitives.dll shim did not build"
fi

target_dir=${CARGO_TARGET_DIR:-target}
stubs=$target_dir/wine-stubs
bash scripts/windows/build-stubs.sh "$stubs" || did_not_run "the stub SDKs did not build"
# Wine shows the Linux root as drive Z:.
stubs_windows="Z:$(cd "$stubs" && pwd | tr / '\\')"

# Line tables only: backtraces keep their file and line, and the Windows
# test binaries take a fraction of the disk full debug information does.
# Target rustflags reach only the Windows artifacts, so the Linux build
# scripts and proc macros already built are reused as they are.
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUSTFLAGS=${CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUSTFLAGS:--C debuginfo=line-tables-only}
packages=(hip-sys hip hip-diagnostics hipblas-sys hipblas cuda-compat rccl-sys rccl hiprand-sys hiprand hipfft-sys hipfft roctx-sys hip-test-kit)
pkg_args=()
for p in "${packages[@]}"; do pkg_args+=(-p "$p"); done
start=$(date +%s)
json=$(mktemp)
trap 'rm -f "$json"' EXIT
if ! cargo test --target "$target" "${pkg_args[@]}" --lib --tests --no-run --message-format=json >"$json"; then
  # Show the compiler's messages, then give up.
  cargo test --target "$target" "${pkg_args[@]}" --lib --tests --no-run 2>&1 | tail -40
  did_not_run "the test binaries did not build for $target"
fi
built=$(date +%s)
exes=$(cargo xtask executables <"$json")
[ -n "$exes" ] || did_not_run "cargo listed no test binaries"

# One Wine session for all binaries: its server kept alive between them,
# and its helper processes (services, winedevice) started here with no
# output of ours to hold. Started inside a piped run instead, they would
# keep that pipe open until they exit, seconds later, for every binary.
"$wineserver" -p30
"$wine" cmd /c exit >/dev/null 2>&1 </dev/null
trap 'rm -f "$json"; "$wineserver" -k 2>/dev/null' EXIT

status=0
log=$(mktemp)
while read -r src exe; do
  case $src in
    */tests/tier2_*) continue ;;            # the real AMD runtime of Linux: see above
    */tests/tier1_compile_fail.rs) continue ;; # trybuild runs cargo: see above
  esac
  echo "     Running@wine $src ($exe)" | tee -a "$log"
  t0=$(date +%s)
  (
    # The package's folder: the working folder cargo test gives its tests.
    cd "${src%%/*}" || exit 2
    env -u HIP_PATH -u ROCM_PATH -u HIP_SYS_LIBRARY_PATH -u HIP_PLATFORM \
      -u HIP_TEST_EXPECT_RUNTIME -u HIP_TEST_EXPECT_ROCM \
      HIP_TEST_WINDOWS_STUBS="$stubs_windows" \
      timeout 600 "$wine" "$exe" --test-threads=2 2>&1
  ) | sed 's/\r$//' | tee -a "$log" || status=1
  echo "wine-tier: took $(($(date +%s) - t0)) s" | tee -a "$log"
done <<<"$exes"
"$wineserver" -k 2>/dev/null || true
ran=$(date +%s)

# One line per binary and the total (xtask/src/tally.rs); a binary
# without libtest's summary is a failure.
cargo xtask wine-summary "$log" "$((built - start))" "$((ran - built))" || status=1
rm -f "$log"
exit $status

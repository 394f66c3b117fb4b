#!/usr/bin/env bash
# The one test command: the test tiers of CONTRIBUTING.md that need no GPU.
#
#   tier 1  pure Rust (tables, layouts, validation)          always
#   tier 2  the real AMD runtime without a GPU (Debian 12's ROCm 5.2.3:
#           loader, versions, error paths, hiprtc compiles)   packages installed when missing
#   tier 2  again on ROCm 5.7 and 6.4: every tier2_* test binary run in the
#           sysroots of scripts/rocm-runtimes.sh, by
#           scripts/tier2-sysroots.sh                        downloaded once, then cached
#   Wine    tier 1 and the Windows loader tests, cross-compiled for
#           x86_64-pc-windows-gnu and run under Wine against stub HIP SDKs,
#           by scripts/wine-tier.sh                          the prefix made once, then cached
#   emu     the software AMD GPU: hip-emu's own tests (AMD code objects on
#           the ISA interpreter) run in the passes below; hip's, hipblas's
#           and cuda-compat's GPU tests on its emulated gfx942 and gfx1100,
#           by scripts/emu-tier.sh; candle's ops suites and seeded models
#           on them, by scripts/candle.sh emu-ci
#   tier 3  GPU tests (#[ignore = "needs a GPU"])             reported as not run here;
#           run them with scripts/gpu-bundle.sh on a GPU machine
#
# Passes: `cargo test --workspace --all-targets`, `cargo test --workspace
# --doc`, then cuda-compat again with its `synthesized-enums` feature.
# When the AMD runtime packages are installed, HIP_TEST_EXPECT_RUNTIME=amd
# is exported: tier-2 tests that accept other environments when it is
# unset (hipblas-sys/tests/tier2_loader.rs) then fail unless the AMD runtime
# loads.
#
# What the last line counts (`N passed, N failed, N skipped`):
#   passed   distinct tests that passed, each once: unit, integration and
#            doc-tests of every crate, plus the tests that exist only with
#            synthesized-enums; not the second runs of cuda-compat's other
#            tests (those are "re-runs", on their own line). Plus programs:
#            targets without libtest's harness that cargo test runs, one each;
#            and each of cudarc's examples that compiles against cuda-compat,
#            each check of scripts/candle.sh check, candle.sh amd and
#            scripts/mistral.sh check, each candle test and model check of
#            candle.sh emu-ci (those its residue explains count neither
#            way: its line says how many), and
#            each of scripts/host-cost.sh, scripts/cudarc-api.sh,
#            scripts/feature-check.sh and scripts/cudarc-tests.sh.
#   failed   every test that failed in any pass (re-runs included), plus one
#            for a pass that failed without a failed test (a build error, a
#            crash before the summary).
#   skipped  distinct ignored tests: the GPU tier, not run here.
# The lines above it break these down. Tests are told apart by package,
# target and name; executables are mapped to packages with cargo's
# `--no-run --message-format=json` (no rebuild). `cargo xtask tally` reads
# the logs and prints these lines (xtask/src/tally.rs).
#
# The sysroot tier's tests count as tests of their own, keyed
# `CRATE@rocm-5.7` / `CRATE@rocm-6.4`; a release whose sysroot could not be
# made (no network), or a binary that ended without libtest's summary,
# counts as one failure. HIP_TEST_SKIP_SYSROOTS=1 skips that tier (the tier
# line says so); CI must not set it. The Wine tier's tests likewise count
# as tests of their own, keyed `CRATE@wine`; a tier that could not run (no
# Wine, no mingw, no Rust target) or a binary without libtest's summary is
# a failure. HIP_TEST_SKIP_WINE=1 skips it; CI must not set it. The emulator
# tier's tests are keyed `CRATE@emu-gfx942` / `CRATE@emu-gfx1100`;
# HIP_TEST_SKIP_EMU=1 skips it; CI must not set it; HIP_TEST_SKIP_CANDLE_EMU=1
# skips candle's (neither for CI). Tier 2 on Debian's
# ROCm 5.2.3 that could not run (its packages not installed) is a failure
# unless HIP_TEST_SKIP_TIER2=1; CI must not set it.
#
# HIP_RECLAIM=1 (CI sets it: its machines have had under 8 GB free) deletes
# each pass's own folders once no later pass reads them, printing
# `reclaim: PATH (SIZE)`: the tests' scratch builds (target/tmp) after the
# passes; the cargo folders of cudarc-api.sh (and the pinned nightly),
# feature-check.sh, and candle.sh's check and AMD kernel builds; the ROCm
# 5.7 sysroot after the sysroot tier; the Windows builds and Wine prefix
# after the Wine tier; and, before candle's emulator tier, the workspace's
# build (target/debug). What is deleted is fetched or built again when a
# later run needs it; unset, everything stays for the next run.
#
# Extra arguments go to `cargo test`.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

# Tier 2 needs the AMD runtime packages: when they cannot be installed
# the tier did not run, which fails the run (at the end, so the other
# passes still run) unless HIP_TEST_SKIP_TIER2=1 says to skip it.
tier2="ran"
tier2_failed=0
if bash scripts/install-deps.sh; then
  export HIP_TEST_EXPECT_RUNTIME=amd
elif [ "${HIP_TEST_SKIP_TIER2:-}" = 1 ]; then
  tier2="SKIPPED: DID NOT RUN (the AMD runtime packages could not be installed) and HIP_TEST_SKIP_TIER2=1 (not for CI)"
else
  tier2="FAILED: DID NOT RUN: the AMD runtime packages could not be installed (see above); HIP_TEST_SKIP_TIER2=1 skips it"
  tier2_failed=1
fi

# reclaim PATH... (scripts/reclaim.sh), only with HIP_RECLAIM=1.
. scripts/reclaim.sh
if [ "${HIP_RECLAIM:-}" != 1 ]; then
  reclaim() { :; }
fi
target_dir=${CARGO_TARGET_DIR:-target}
hip_cache=$HOME/.cache/hip-rs

status=0
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
cargo test --workspace --all-targets "$@" 2>&1 | tee "$logs/1-all-targets.log" || status=$?
if [ $status -eq 0 ]; then
  cargo test --workspace --doc "$@" 2>&1 | tee "$logs/2-doc.log" || status=$?
fi
feature_pass=0
if [ $status -eq 0 ] && [ -f cuda-compat/Cargo.toml ] && grep -q '^synthesized-enums *=' cuda-compat/Cargo.toml; then
  feature_pass=1
  cargo test -p cuda-compat --features synthesized-enums,cufft,cusolver,cusparse "$@" 2>&1 | tee "$logs/3-rerun.log" || status=$?
fi
# Executable -> package, for telling tests of equal names apart (now, while
# the passes' build is whole: HIP_RECLAIM=1 deletes it before the last tier).
cargo test --workspace --all-targets --no-run --message-format=json "$@" >"$logs/1.json" 2>/dev/null
if [ $feature_pass -eq 1 ]; then
  cargo test -p cuda-compat --features synthesized-enums,cufft,cusolver,cusparse --no-run --message-format=json "$@" >"$logs/3.json" 2>/dev/null
fi
# The scratch builds of the passes' tests (cudaforge's and bindgen_cuda's
# downstream crates) are not read again.
reclaim "$target_dir/tmp" && mkdir -p "$target_dir/tmp"
# cudarc's own example programs, built unmodified against cuda-compat
# renamed to cudarc (the one-line switch); scripts/cudarc-examples.sh
# fetches the pinned crate and prints one line per example.
if [ $status -eq 0 ]; then
  bash scripts/cudarc-examples.sh fetch >/dev/null && bash scripts/cudarc-examples.sh build 2>&1 | tee "$logs/4-cudarc.log" || status=$?
fi
# The host cost per op (allocate, launch, free) on a stand-in CUDA driver
# that counts calls: cuda-compat makes no more driver calls per op than
# real cudarc (scripts/host-cost.sh; one line per check).
if [ $status -eq 0 ]; then
  bash scripts/host-cost.sh check 2>&1 | tee "$logs/8-host-cost.log" || status=$?
fi
# cudarc's public API against cuda-compat's (rustdoc JSON of both, the
# pinned nightly): every path present or in the reviewed residue, and the
# signatures of the items both have equal or in the reviewed list
# (scripts/cudarc-api.sh; one line per check).
# Then the drop-in's features, each alone: provided ones type-check,
# refused ones stop with their reason (scripts/feature-check.sh).
if [ $status -eq 0 ]; then
  bash scripts/cudarc-api.sh check 2>&1 | tee "$logs/9-cudarc-api.log" || status=$?
fi
# The pinned nightly (scripts/nightly-toolchain: Miri's and rustdoc JSON's)
# is not used again either; the next run installs it when missing.
reclaim "$target_dir/cudarc-api"
[ "${HIP_RECLAIM:-}" != 1 ] || rustup toolchain uninstall "$(cat scripts/nightly-toolchain)" 2>&1 | tail -n 1
if [ $status -eq 0 ]; then
  bash scripts/feature-check.sh 2>&1 | tee -a "$logs/9-cudarc-api.log" || status=$?
fi
reclaim "$target_dir/feature-check"
# cudarc's own unit tests that use only its public API build against the
# drop-in, or are listed with their reason (scripts/cudarc-tests.sh; they
# run on the GPU machine, gpu-session.sh tests).
if [ $status -eq 0 ]; then
  bash scripts/cudarc-tests.sh check 2>&1 | tee -a "$logs/9-cudarc-api.log" || status=$?
fi
# candle through the cudarc drop-in: the patch takes effect and candle-core,
# candle-nn (with their tests) and the Llama benchmark type-check
# (scripts/candle.sh check: one line per check; its cargo target folder is
# cached in ~/.cache/hip-rs/candle-target).
if [ $status -eq 0 ]; then
  bash scripts/candle.sh check 2>&1 | tee "$logs/7-candle.log" || status=$?
fi
# mistral.rs through the drop-ins: the patch resolves (scripts/mistral.sh
# check: cargo metadata and cargo tree of benches/mistral, no build; one
# line per check).
if [ $status -eq 0 ]; then
  bash scripts/mistral.sh check 2>&1 | tee "$logs/7-mistral.log" || status=$?
fi
# candle's kernels for AMD GPUs: candle-kernels compiled by the cudaforge
# drop-in with scripts/hip-toolchain.sh's clang for two gfx targets (one wave64, one wave32), then
# the static checks that stand in for an AMD GPU (scripts/candle.sh amd:
# one line per check, counted with candle's; the kernels are cached in
# ~/.cache/hip-rs/cudaforge-amd, keyed by sources, flags and compiler).
if [ $status -eq 0 ]; then
  bash scripts/candle.sh amd 2>&1 | tee -a "$logs/7-candle.log" || status=$?
fi
# candle's own target folder (check and the AMD kernels' build; the
# kernels stay in the cudaforge-amd cache, and candle.sh emu-ci builds in
# candle-emu-target).
reclaim "${CANDLE_TARGET_DIR:-$hip_cache/candle-target}"
# A tier run by its own script, which prints `DID NOT RUN` when it cannot
# run: optional_tier SKIP_VAR SCRIPT LOG sets $tier_line to what ran, and
# for how long (each tier has a time budget: the emulator tier's is 10 minutes).
optional_tier() {
  local skip_var=$1 script=$2 log=$3
  shift 3
  local start=$SECONDS
  tier_line="ran"
  if [ "${!skip_var:-}" = 1 ]; then
    tier_line="SKIPPED: $skip_var=1 (not for CI)"
  elif [ $status -eq 0 ]; then
    bash "$script" "$@" 2>&1 | tee "$log" || status=$?
    tier_line="ran in $((SECONDS - start)) s"
    grep -q "DID NOT RUN" "$log" && tier_line="FAILED: $(grep -m1 "DID NOT RUN" "$log")"
  else
    tier_line="not run: an earlier pass failed"
  fi
}
# Tier 2 on ROCm 5.7 and 6.4, in their sysroots.
optional_tier HIP_TEST_SKIP_SYSROOTS scripts/tier2-sysroots.sh "$logs/5-sysroots.log"
sysroots=$tier_line
# 5.7's sysroot is not used again (6.4's is, by the emulator tiers).
reclaim "${HIP_RUNTIMES_CACHE:-$hip_cache/rocm-runtimes}"/rocm-5.7-*
# The Wine tier: Windows builds of the tests under Wine.
optional_tier HIP_TEST_SKIP_WINE scripts/wine-tier.sh "$logs/6-wine.log"
wine=$tier_line
reclaim "$target_dir/x86_64-pc-windows-gnu" "${HIP_WINE_PREFIX:-$hip_cache/wine-prefix}"
# The software AMD GPU tier: hip's, hipblas's and cuda-compat's GPU tests
# and the nvrtc corpus on hip-emu's gfx942 and gfx1100.
optional_tier HIP_TEST_SKIP_EMU scripts/emu-tier.sh "$logs/10-emu.log"
emu=$tier_line
# candle on the software AMD GPU: candle-core's tensor_tests, candle-nn's
# ops and the seeded models (Llama and BERT against candle's CPU backend,
# the quantized matmuls) built for AMD by the drop-ins and run on hip-emu's
# gfx942 and gfx1100; every failure explained by
# benches/candle/candle-0.11.1.emu-residue.txt (scripts/candle.sh emu-ci).
# Before it, the workspace's build goes (candle.sh builds hip-emu's library
# again, a minute): candle's build for AMD is 1.6 GB more.
reclaim "$target_dir/debug" "$target_dir/cudarc-tests" "$target_dir/cudarc-examples"
optional_tier HIP_TEST_SKIP_CANDLE_EMU scripts/candle.sh "$logs/11-candle-emu.log" emu-ci
candle_emu=$tier_line

runtime=$(ls /usr/lib/x86_64-linux-gnu/libamdhip64.so.5.* 2>/dev/null | head -n1)
echo
echo "== test tiers =="
echo "tier 1 (pure Rust): ran"
echo "tier 2 (real AMD runtime, no GPU): $tier2${runtime:+ against $runtime}${HIP_TEST_EXPECT_RUNTIME:+ (HIP_TEST_EXPECT_RUNTIME=$HIP_TEST_EXPECT_RUNTIME)}"
echo "tier 2 on ROCm 5.7 and 6.4 (sysroots, scripts/tier2-sysroots.sh): $sysroots"
echo "Wine tier (Windows builds under Wine, scripts/wine-tier.sh): $wine"
echo "software AMD GPU tier (hip's, hipblas's and cuda-compat's GPU tests and the nvrtc corpus on hip-emu's gfx942 and gfx1100, scripts/emu-tier.sh): $emu"
echo "candle on the software AMD GPU (scripts/candle.sh emu-ci): $candle_emu"
echo "tier 3 (GPU): not run here: the ignored tests below; scripts/gpu-bundle.sh runs them on a GPU machine"
# Tier 2 that did not run (and was not skipped by name) is a failure:
# one failed check, which the tally counts.
if [ $tier2_failed -eq 1 ]; then
  echo "tier 2: the AMD runtime packages are installed (scripts/install-deps.sh) ... FAILED" >"$logs/0-tier2.log"
fi
# The counts (xtask/src/tally.rs): the lines below break them down, the
# last is `N passed, N failed, N skipped`. A tally that cannot run fails.
cargo xtask tally "$logs" "$status" || [ $status -ne 0 ] || status=1
exit $status

#!/usr/bin/env bash
# The software AMD GPU tier: hip's GPU tests (`hip/tests/gpu*.rs`, the
# tests marked `#[ignore = "needs a GPU"]`) and cuda-compat's cudarc-API
# and fault tests (`cuda-compat/tests/gpu_cudarc.rs`, `gpu_fault.rs`) run on hip-emu's emulated
# devices: two gfx942s (wave64), then two gfx1100s (wave32), two so that
# the `two_gpus_` tests (peer access and copies) run too. On gfx1100,
# hipblas's GPU tests too, over ROCm 6.4's real hipBLAS and rocBLAS (its
# Tensile GEMM kernels executed by the interpreter).
# scripts/test.sh calls it and counts its tests as tests of their own
# (`hip@emu-gfx942 hip/tests/gpu_x.rs`).
#
# The runtime is hip-emu's libhip_emu.so, loaded by hip-sys through
# HIP_PLATFORM=emulated and HIP_SYS_LIBRARY_PATH, as ROCm's runtime is.
# Kernels compiled at run time need hiprtc: ROCm 6.4's, from the sysroot of
# scripts/rocm-runtimes.sh, so the binaries run through that sysroot's
# dynamic loader (its glibc is newer than this machine's), as in
# scripts/tier2-sysroots.sh.
#
# Then, on each device, the nvrtc corpus (hip-emu/tests/corpus.rs: our
# kernels and cudarc's example kernels, each checked against the host)
# compiled through cuda-compat's nvrtc and hiprtc, as a CUDA program
# compiles at run time on AMD (HIP_EMU_CORPUS_COMPILER=nvrtc; plain
# `cargo test` compiles it with ROCm's clang).
#
# Then cudarc's examples built against cuda-compat (scripts/cudarc-examples.sh
# build, its `run-built`), those that need no library but the HIP runtime
# and nvrtc (hiprtc), run the same way on each device and checked as on the
# GPU machine; an example that stops where HIP differs from CUDA as
# documented (`cargo xtask example-differs`) is neither passed nor failed.
#
# A test that cannot pass on the emulated device is listed, with its
# reason, in hip-emu/gpu-tests-residue.txt (`TEST<TAB>TARGETS<TAB>REASON`,
# TARGETS `all` or a comma list; an example as `example:NAME`, TARGETS
# `all`); it is not run, and this script prints each one. Every other
# test must pass. A launch stops after 120 s (HIP_EMU_TIMEOUT) and a test
# binary after 600 s: a hang fails the tier instead of stalling it.
#
# Output: for each binary and device, `     Running@emu-DEV PKG-DIR/tests/FILE (EXE)`
# then libtest's own output; for the examples on each device,
# `     Running@emu-DEV cudarc-examples (scripts/cudarc-examples.sh run-built)`,
# a line per example, and `test result: ...` (`cargo xtask examples-result`:
# a failed, crashed or timed-out example, or a run that stopped, fails); `emu-tier: DID NOT RUN: REASON` when the tier
# cannot run. Exits non-zero when a test failed or the tier did not run.
# HIP_TEST_SKIP_EMU=1 skips it (scripts/test.sh says so); CI must not set it.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

if [ "${HIP_TEST_SKIP_EMU:-}" = 1 ]; then
  echo "emu-tier: skipped (HIP_TEST_SKIP_EMU=1)"
  exit 0
fi
devices=("$@")
[ ${#devices[@]} -gt 0 ] || devices=(gfx942 gfx1100)

# The emulated runtime: the cdylib of hip-emu, where cargo puts it.
if ! cargo build -q -p hip-emu --lib; then
  echo "emu-tier: DID NOT RUN: hip-emu could not be built"
  exit 1
fi
target_dir=${CARGO_TARGET_DIR:-$PWD/target}
so="$target_dir/debug/libhip_emu.so"
if [ ! -f "$so" ]; then
  echo "emu-tier: DID NOT RUN: no $so after building hip-emu"
  exit 1
fi

# The test executables of `cargo test -p PKG --test PATTERN`, one
# `TARGET EXE` line each; fails when there are none.
test_binaries() {
  local json
  json=$(cargo test -p "$1" --test "$2" --no-run --message-format=json 2>/dev/null)
  cargo xtask executables <<<"$json" | grep .
}
if ! exes=$(test_binaries hip 'gpu*'); then
  echo "emu-tier: DID NOT RUN: hip's GPU test binaries could not be built"
  exit 1
fi
# hipBLAS's GPU tests (hipblas/tests/gpu.rs) over ROCm's own hipBLAS and
# rocBLAS from the sysroots: 6.4 on gfx1100; on gfx942, 7.2 (Debian's
# rocBLAS 6.4 ships no gfx942 kernels, 7.2 does).
if ! blas=$(test_binaries hipblas gpu); then
  echo "emu-tier: DID NOT RUN: hipblas's GPU test binary could not be built"
  exit 1
fi
# cuda-compat's cudarc-API GPU tests (cuda-compat/tests/gpu_cudarc.rs:
# among them a launch over a kernel's bound, CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES)
# and the fault test (gpu_fault.rs: an illegal address, then a new context).
if ! compat=$(test_binaries cuda-compat gpu_cudarc) || ! fault=$(test_binaries cuda-compat gpu_fault); then
  echo "emu-tier: DID NOT RUN: cuda-compat's GPU test binaries could not be built"
  exit 1
fi
# The nvrtc corpus (hip-emu/tests/corpus.rs), compiled through
# cuda-compat's nvrtc (hiprtc from the sysroot below) instead of clang.
if ! corpus=$(test_binaries hip-emu corpus); then
  echo "emu-tier: DID NOT RUN: hip-emu's corpus test could not be built"
  exit 1
fi

if ! line=$(bash scripts/rocm-runtimes.sh 6.4); then
  echo "emu-tier: DID NOT RUN: the ROCm 6.4 sysroot (hiprtc) could not be made"
  exit 1
fi
root=${line#* }
lib=$root/usr/lib/x86_64-linux-gnu
ld=$lib/ld-linux-x86-64.so.2
[ -x "$ld" ] || { echo "emu-tier: DID NOT RUN: no dynamic loader at $ld"; exit 1; }

if ! line=$(bash scripts/rocm-runtimes.sh 7.2); then
  echo "emu-tier: DID NOT RUN: the ROCm 7.2 sysroot (rocBLAS with gfx942 kernels) could not be made"
  exit 1
fi
lib72=${line#* }/usr/lib/x86_64-linux-gnu

# rocBLAS and hipBLAS are linked against libamdhip64.so.6 (7 for ROCm
# 7.2's): those names, in a folder searched before the sysroots, are the
# emulator (the same file hip-sys opens, so one runtime serves both).
alias_dir=$target_dir/emu-amdhip64
mkdir -p "$alias_dir" && ln -sfn "$so" "$alias_dir/libamdhip64.so.6" && ln -sfn "$so" "$alias_dir/libamdhip64.so.7"

residue=hip-emu/gpu-tests-residue.txt
# A launch that runs past launch_timeout seconds fails (hipErrorLaunchTimeOut,
# hip-emu's HIP_EMU_TIMEOUT); a test binary still running after
# binary_timeout seconds is killed and fails, so that a hang costs minutes,
# not the CI run.
launch_timeout=120
binary_timeout=600
status=0
# run_binary DEV TARGET EXE [VAR=VALUE...] -- [ARG...]: runs the test
# binary EXE (of TARGET, `PKG-DIR/tests/FILE`) from its package folder on
# the emulated runtime, through the sysroot's loader, with the variables
# given and then the arguments; prints the `Running@emu-DEV` line the
# tally reads, and says when the binary was killed at binary_timeout.
# RUN_LIB: the sysroot library folder to run in (default ROCm 6.4's).
run_binary() {
  local dev=$1 target=$2 exe=$3 vars=() rlib=${RUN_LIB:-$lib}
  shift 3
  while [ $# -gt 0 ] && [ "$1" != -- ]; do
    vars+=("$1")
    shift
  done
  shift
  echo "     Running@emu-$dev $target ($exe)"
  (
    cd "${target%%/*}" || exit 2
    env -u ROCM_PATH -u HIP_PATH \
      HIP_PLATFORM=emulated HIP_SYS_LIBRARY_PATH="$so" HIP_EMU_TIMEOUT="$launch_timeout" \
      "${vars[@]}" timeout "$binary_timeout" \
      "$rlib/ld-linux-x86-64.so.2" --library-path "$alias_dir:$rlib" "$exe" "$@" 2>&1
    rc=$?
    [ $rc != 124 ] || echo "emu-tier: $target on $dev: killed after ${binary_timeout}s"
    exit $rc
  )
}
for dev in "${devices[@]}"; do
  # The tests this device does not run, as `--skip NAME --exact`-style
  # arguments, each printed with its reason.
  skips=()
  while IFS=$'\t' read -r name targets reason; do
    case "$name" in ''|'#'*|example:*) continue ;; esac
    if [ "$targets" = all ] || [[ ",$targets," == *",$dev,"* ]]; then
      echo "emu-tier: $dev: not run: $name: $reason"
      skips+=(--skip "$name")
    fi
  done <"$residue"
  binaries=$exes$'\n'$compat$'\n'$fault
  while read -r target exe; do
    run_binary "$dev" "$target" "$exe" HIP_EMU_DEVICES="$dev,$dev" HIP_TEST_EXPECT_RUNTIME=amd \
      -- --ignored --exact --test-threads=2 "${skips[@]}" || status=1
  done <<<"$binaries"
  # hipBLAS over the rocBLAS that has the device's kernels.
  blas_lib=$lib
  [ "$dev" != gfx942 ] || blas_lib=$lib72
  while read -r target exe; do
    RUN_LIB=$blas_lib run_binary "$dev" "$target" "$exe" HIP_EMU_DEVICES="$dev,$dev" HIP_TEST_EXPECT_RUNTIME=amd \
      -- --ignored --exact --test-threads=2 "${skips[@]}" || status=1
  done <<<"$blas"
  # The corpus through cuda-compat's nvrtc, for this device's target.
  while read -r target exe; do
    run_binary "$dev" "$target" "$exe" HIP_EMU_DEVICES="$dev" \
      HIP_EMU_CORPUS_COMPILER=nvrtc HIP_EMU_CORPUS_TARGETS="$dev" -- --test-threads=2 || status=1
  done <<<"$corpus"
done

# cudarc's examples: none of those that build uses cuBLAS or cuRAND;
# 13-copy-multi-gpu gets the two devices.
# An example listed in the residue as `example:NAME` is not run there.
examples=()
for ex in 01-allocate 02-copy 03-launch-kernel 04-streams 05-device-repr 06-threading \
  09-constant-memory 10-function-attributes 12-context-config 13-copy-multi-gpu \
  matmul-kernel nvrtc-compile; do
  skip=
  while IFS=$'\t' read -r name targets reason; do
    if [ "$name" = "example:$ex" ] && [ "$targets" = all ]; then
      echo "emu-tier: not run: cudarc example $ex: $reason"
      skip=1
    fi
  done <"$residue"
  [ -n "$skip" ] || examples+=("$ex")
done
build_log=$target_dir/cudarc-examples-emu-build.log
if ! { bash scripts/cudarc-examples.sh fetch && bash scripts/cudarc-examples.sh build; } >"$build_log" 2>&1; then
  echo "emu-tier: DID NOT RUN: cudarc's examples could not be built (see $build_log)"
  exit 1
fi
run_log=$(mktemp)
for dev in "${devices[@]}"; do
  echo "     Running@emu-$dev cudarc-examples (scripts/cudarc-examples.sh run-built)"
  env -u ROCM_PATH -u HIP_PATH \
    HIP_PLATFORM=emulated HIP_SYS_LIBRARY_PATH="$so" HIP_EMU_DEVICES="$dev,$dev" \
    HIP_EMU_TIMEOUT="$launch_timeout" EXAMPLE_LAUNCHER="$ld --library-path $lib" CUDARC_LOG_DIR="$PWD/target/cudarc-examples/logs-emu-$dev" \
    bash scripts/cudarc-examples.sh run-built "${examples[@]}" 2>&1 | tee "$run_log"
  run_status=${PIPESTATUS[0]}
  [ "$run_status" = 0 ] || status=1
  cargo xtask examples-result "$run_log" "$run_status" || status=1
done
rm -f "$run_log"
exit $status

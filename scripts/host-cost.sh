#!/usr/bin/env bash
# Host cost per op without a GPU: the per-op benchmark (allocate, launch,
# free; benches/cudarc/per_op.rs) built against real cudarc and against
# cuda-compat (scripts/cudarc-examples.sh bench-build), run on a stand-in
# CUDA driver (benches/stub-cuda/stub_cuda.c) that does no GPU work and
# counts every call.
#
#   bash scripts/host-cost.sh [check]   build, run, print, check (test.sh)
#   bash scripts/host-cost.sh stub DIR  only build the stand-in into DIR
#
# hip's own per-op path (benches/src/bin/per_op.rs) runs on it too, on a
# stream of its own and on the per-thread stream, and is held to the
# second check below.
#
# What it checks, for the null stream and the per-thread stream:
# - the driver and runtime calls per op through cuda-compat (calls /
#   launches) are no more than through real cudarc;
# - the only calls cuda-compat makes for every op are the allocation, the
#   launch, the free and `cuCtxGetCurrent` (a thread-local read in the
#   driver, cudarc's own binding check): no device query, no event, no
#   synchronization.
# Call counts are deterministic; a change that adds a driver call to the
# per-op path (a device query per bind, an event per allocation) fails
# here, before any GPU run. The host
# time per op on the stand-in is printed beside them: it is our layers'
# own time without the driver's, and it moves with the machine, so it is
# not checked (`gpu-session.sh bench` measures the real thing).
#
# Lines: `host cost: NAME ... ok|FAILED` (counted by test.sh's tally),
# then a table. Needs gcc and the cudarc pin of cudarc-examples.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)
STUB_DIR="$REPO/target/stub-cuda"

# The calls cuda-compat may make for every op (see above).
PER_OP_CALLS='cuCtxGetCurrent|cudaMallocAsync|cuMemAllocAsync|cudaFreeAsync|cuMemFreeAsync|cuLaunchKernel'

die() { echo "host-cost.sh: $*" >&2; exit 1; }

# build_stub DIR: libcuda.so.1 holds everything; libcudart.so.13 and
# libnvrtc.so.13 are empty and need it, so that lookups through their
# handles find its symbols and every library shares one current context.
build_stub() {
  local dir=$1
  mkdir -p "$dir"
  gcc -O2 -shared -fPIC -Wall -Wextra -Werror -o "$dir/libcuda.so.1" \
    benches/stub-cuda/stub_cuda.c -Wl,-soname,libcuda.so.1
  : >"$dir/empty.c"
  local lib
  for lib in libcudart.so.13 libnvrtc.so.13; do
    gcc -shared -fPIC -o "$dir/$lib" "$dir/empty.c" -Wl,-soname,"$lib" \
      -Wl,--no-as-needed -L"$dir" -l:libcuda.so.1
  done
}

# run_counted BIN STREAM COUNTS: runs the benchmark on the stand-in; its
# output on stdout, the call counts in COUNTS.
run_counted() {
  local bin=$1 stream=$2 counts=$3
  rm -f "$counts"
  LD_LIBRARY_PATH="$STUB_DIR" HIP_PLATFORM=nvidia STUB_CUDA_COUNTS="$counts" \
    "$bin" "$stream"
}

# The workspace's xtask (xtask/src/host_cost.rs reads the counts).
xtask() { cargo run -q -p xtask -- "$@"; }
# per_op COUNTS: calls per op (every call over the launches, one per op),
# or none.
per_op() { xtask host-cost per-op "$1"; }
# top COUNTS: the calls made about once per op or more, most first.
top() { xtask host-cost top "$1"; }

cmd_check() {
  build_stub "$STUB_DIR"
  bash scripts/cudarc-examples.sh fetch >/dev/null
  bash scripts/cudarc-examples.sh bench-build >"$STUB_DIR/build.log" 2>&1 ||
    { cat "$STUB_DIR/build.log"; die "bench-build failed"; }
  local real="$REPO/target/release/cudarc-per-op-real" compat="$REPO/target/release/cudarc-per-op-compat"
  [[ -x $real && -x $compat ]] || die "no $real or $compat after bench-build"
  local stream failed=0 table=() out extra
  for stream in default per-thread; do
    local rc=ok rn cn rt ct
    run_counted "$real" "$stream" "$STUB_DIR/real.counts" >"$STUB_DIR/real.out" 2>&1 || rc=FAILED
    run_counted "$compat" "$stream" "$STUB_DIR/compat.counts" >"$STUB_DIR/compat.out" 2>&1 || rc=FAILED
    if [[ $rc == FAILED ]]; then
      cat "$STUB_DIR/real.out" "$STUB_DIR/compat.out"
      echo "host cost: $stream stream: the benchmarks run on the stand-in ... FAILED"
      failed=1
      continue
    fi
    echo "host cost: $stream stream: the benchmarks run on the stand-in ... ok"
    rn=$(per_op "$STUB_DIR/real.counts")
    cn=$(per_op "$STUB_DIR/compat.counts")
    out=ok
    awk -v c="$cn" -v r="$rn" 'BEGIN { exit !(c != "none" && r != "none" && c + 0 <= r + 0) }' || { out=FAILED; failed=1; }
    echo "host cost: $stream stream: driver calls per op, cuda-compat $cn <= real cudarc $rn ... $out"
    [[ $out == ok ]] || echo "  cuda-compat: $(top "$STUB_DIR/compat.counts")"$'\n'"  real cudarc: $(top "$STUB_DIR/real.counts")"
    local extra
    extra=$(top "$STUB_DIR/compat.counts" | tr ',' '\n' | awk '{print $1}' | grep -Ev "^($PER_OP_CALLS)\$" | paste -sd' ' || true)
    out=ok
    [[ -z $extra ]] || { out=FAILED; failed=1; }
    echo "host cost: $stream stream: per op only allocate, launch, free and cuCtxGetCurrent${extra:+ (also: $extra)} ... $out"
    rt=$(grep -o 'step_us [0-9.]*' "$STUB_DIR/real.out" | awk '{print $2}')
    ct=$(grep -o 'step_us [0-9.]*' "$STUB_DIR/compat.out" | awk '{print $2}')
    table+=("$(printf '%-17s | %9s | %9s | %11s | %11s | %s' "compat $stream" "$cn" "$rn" "$ct" "$rt" "$(top "$STUB_DIR/compat.counts")")")
  done
  # hip's own per-op path (benches/src/bin/per_op.rs, the same work), on a
  # stream of its own and on the per-thread stream: what AMD users of hip
  # get, checked the same way.
  cargo build -q --release -p hip-benches --bin per_op >"$STUB_DIR/build-hip.log" 2>&1 ||
    { cat "$STUB_DIR/build-hip.log"; die "building per_op failed"; }
  local hip_bin="$REPO/target/release/per_op" hn
  for stream in named per-thread; do
    if ! run_counted "$hip_bin" "$stream" "$STUB_DIR/hip.counts" >"$STUB_DIR/hip.out" 2>&1; then
      cat "$STUB_DIR/hip.out"
      echo "host cost: hip, $stream stream: the benchmark runs on the stand-in ... FAILED"
      failed=1
      continue
    fi
    hn=$(per_op "$STUB_DIR/hip.counts")
    extra=$(top "$STUB_DIR/hip.counts" | tr ',' '\n' | awk '{print $1}' | grep -Ev "^($PER_OP_CALLS)\$" | paste -sd' ' || true)
    out=ok
    [[ -z $extra ]] || { out=FAILED; failed=1; }
    echo "host cost: hip, $stream stream: $hn calls per op, only allocate, launch, free and cuCtxGetCurrent${extra:+ (also: $extra)} ... $out"
    table+=("$(printf '%-17s | %9s | %9s | %11s | %11s | %s' "hip $stream" "$hn" "-" "$(grep -o 'step_us [0-9.]*' "$STUB_DIR/hip.out" | awk '{print $2}')" "-" "$(top "$STUB_DIR/hip.counts")")")
  done
  echo
  echo "path              | calls/op  | calls/op  | host us/op  | host us/op  | our calls per op"
  echo "                  | ours      | real      | ours        | real        |"
  printf '%s\n' "${table[@]}"
  echo "(host us/op: on the stand-in driver, this machine; not checked)"
  return $failed
}

case "${1:-check}" in
  check) cmd_check ;;
  stub) [[ $# -eq 2 ]] || die "usage: host-cost.sh stub DIR"; build_stub "$2" ;;
  *) die "usage: host-cost.sh [check] | stub DIR" ;;
esac

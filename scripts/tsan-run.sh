#!/usr/bin/env bash
# The ThreadSanitizer runner, copied to tsan-bundle/run.sh by
# scripts/tsan-bundle.sh. On the GPU machine:  tsan-bundle/run.sh [gpu]
# Here, without a GPU:                           tsan-bundle/run.sh cpu
#
# Runs, with HIP_PLATFORM=nvidia:
#   hip--lib           the unit tests of staging::pool, staging::ring and
#                      tracking (libtest's default threads: more overlap);
#   hip--gpu_staging, hip--gpu_tracking
#                      every GPU test (`--ignored --test-threads=1`; tests
#                      named two_gpus_* skipped on fewer than two GPUs);
#   hip--gpu           its GPU tests that use host threads ($GPU_THREADED).
# In `cpu` mode the GPU binaries run too, where every test must fail
# cleanly (no device): what counts there is that each starts under TSan
# and reports nothing.
#
# TSAN_OPTIONS (a caller's own are appended, so they win):
#   halt_on_error=0           go on after a report: one run finds them all;
#   exitcode=66               a process with reports exits 66 (told apart
#                             from a failed test, 101);
#   second_deadlock_stack=1   lock-order reports show both acquisitions;
#   history_size=7            keep 2^7 K accesses per thread, so the earlier
#                             access of a race in a long test still has its
#                             stack;
#   (not ignore_noninstrumented_modules=1: Rust links TSan's runtime into
#                             the executable, so TSan takes the executable
#                             itself for uninstrumented and that option
#                             hides real races met in its memcpy/memcmp
#                             calls; checked: a Relaxed staging latch is
#                             reported without it and not with it);
#   suppressions=tsan.supp    thread leaks of the CUDA libraries' own
#                             threads only (the file says why, and why
#                             tsan-cuda.supp, which also stops checking
#                             libc calls made inside those libraries, is
#                             not the default).
#
# Counts: a report is a `WARNING: ThreadSanitizer:` block; tests from
# libtest's `test result:` lines; a binary that times out
# (TSAN_RUN_TIMEOUT seconds, default 150), crashes, or stops TSan (FATAL)
# counts one failure. Last line:
#   tsan: N binaries, N tests passed, N failed, N reports
# Exit status 0 only when nothing failed and there was no report (in cpu
# mode: the unit tests passed, every GPU binary started under TSan, and no
# report). Each binary's log goes to $TSAN_LOG_DIR (default $OUT/tsan, or
# /tmp/tsan).
set -u
here=$(cd "$(dirname "$0")" && pwd)
if [ -f "$here/bin.tar.xz" ] && [ ! -d "$here/bin" ]; then
    tar -C "$here" -xJf "$here/bin.tar.xz" || {
        echo "run.sh: cannot unpack $here/bin.tar.xz" >&2
        exit 1
    }
fi
mode=${1:-gpu}
case "$mode" in gpu | cpu) ;; *)
    echo "usage: run.sh [gpu|cpu]" >&2
    exit 2
    ;;
esac
export HIP_PLATFORM=nvidia
export TSAN_OPTIONS="halt_on_error=0 exitcode=66 second_deadlock_stack=1 history_size=7 suppressions=$here/tsan.supp ${TSAN_OPTIONS:-}"
limit=${TSAN_RUN_TIMEOUT:-150}
logs=${TSAN_LOG_DIR:-${OUT:-/tmp}/tsan}
mkdir -p "$logs"
# The tests of hip/tests/gpu.rs that use host threads: shared devices,
# streams and buffers across threads, host callbacks (run on the driver's
# thread), staged and pinned copies (the host copy pool's threads).
GPU_THREADED=${GPU_THREADED:-sharing_across_threads device_synchronize_waits_for_captures_on_other_threads streams_events_and_host_callbacks capture_refuses_work_tracked_on_the_host stream_ordered_buffers_outlive_work_on_other_streams pinned_managed_and_pool_memory copies_views_memset_and_length_checks view_methods_and_pinned_reuse}

gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
echo "GPUs: $gpus (nvidia-smi -L); TSAN_OPTIONS=$TSAN_OPTIONS"
binaries=0 passed=0 failed=0 reports=0 not_tsan=0
failures=()

# run NAME ARGS...: runs bin/NAME with ARGS under the time limit, shows and
# counts its output. With ASLR too random for TSan's memory layout (newer
# kernels; TSan normally re-executes itself without ASLR), retried under
# `setarch -R`.
run() {
    local name=$1 log="$logs/$1.log" rc p f r
    shift
    binaries=$((binaries + 1))
    echo "=== $name $*"
    timeout "$limit" "$here/bin/$name" "$@" >"$log" 2>&1
    rc=$?
    if grep -q 'unexpected memory mapping\|memory layout is incompatible' "$log"; then
        echo "--- TSan's memory layout: retried under setarch -R"
        timeout "$limit" setarch "$(uname -m)" -R "$here/bin/$name" "$@" >"$log" 2>&1
        rc=$?
    fi
    cat "$log"
    p=$(grep -E '^test result: ' "$log" | sed -E 's/.* ([0-9]+) passed.*/\1/' | awk '{s += $1} END {print s + 0}')
    f=$(grep -E '^test result: ' "$log" | sed -E 's/.* ([0-9]+) failed.*/\1/' | awk '{s += $1} END {print s + 0}')
    r=$(grep -c '^WARNING: ThreadSanitizer:' "$log")
    passed=$((passed + p))
    reports=$((reports + r))
    if [ "$mode" = cpu ] && [ "$name" != hip--lib ]; then
        # No GPU here: every test fails; the binary must have run them.
        if [ "$p" -ne 0 ] || [ "$f" -eq 0 ]; then
            failures+=("$name: expected every test to fail without a GPU ($p passed, $f failed, exit $rc)")
            failed=$((failed + 1))
        else
            echo "--- $name: $f tests failed as they must without a GPU"
        fi
    else
        failed=$((failed + f))
        if [ "$f" -gt 0 ]; then failures+=("$name: $f tests failed"); fi
    fi
    case "$rc" in
        0 | 66) ;;
        124 | 137)
            failures+=("$name: timed out after ${limit}s")
            failed=$((failed + 1))
            ;;
        101) if [ "$f" -eq 0 ]; then
            failures+=("$name: exit 101 without a failed test")
            failed=$((failed + 1))
        fi ;;
        *)
            failures+=("$name: exit $rc$(grep -m1 'FATAL: ThreadSanitizer' "$log" | sed 's/^/: /')")
            failed=$((failed + 1))
            ;;
    esac
    if [ "$r" -gt 0 ]; then failures+=("$name: $r TSan reports (log $log)"); fi
}

# started NAME: the binary is instrumented and TSan starts in it.
started() {
    if TSAN_OPTIONS="$TSAN_OPTIONS verbosity=1" timeout 60 "$here/bin/$1" --list >/dev/null 2>"$logs/$1.start" &&
        grep -q 'ThreadSanitizer' "$logs/$1.start"; then
        echo "--- $1: runs under ThreadSanitizer"
    elif TSAN_OPTIONS="$TSAN_OPTIONS verbosity=1" timeout 60 setarch "$(uname -m)" -R "$here/bin/$1" --list >/dev/null 2>"$logs/$1.start" &&
        grep -q 'ThreadSanitizer' "$logs/$1.start"; then
        echo "--- $1: runs under ThreadSanitizer (with setarch -R)"
    else
        cat "$logs/$1.start"
        failures+=("$1: does not start under ThreadSanitizer")
        not_tsan=$((not_tsan + 1))
    fi
}

for b in hip--lib hip--gpu_staging hip--gpu_tracking hip--gpu; do
    if [ ! -x "$here/bin/$b" ]; then
        failures+=("$b: missing from $here/bin")
        not_tsan=$((not_tsan + 1))
        continue
    fi
    started "$b"
done

run hip--lib staging::pool staging::ring tracking capture_gate
for b in hip--gpu_staging hip--gpu_tracking; do
    skip=()
    if [ "$gpus" -lt 2 ]; then
        while read -r t; do
            case "${t##*::}" in two_gpus_*) skip+=(--skip "$t") ;; esac
        done < <("$here/bin/$b" --list --ignored --format terse 2>/dev/null | sed -n 's/: test$//p')
    fi
    if [ ${#skip[@]} -gt 0 ]; then skip+=(--exact); fi
    run "$b" --ignored --test-threads=1 "${skip[@]}"
done
# shellcheck disable=SC2086
run hip--gpu --ignored --test-threads=1 --exact $GPU_THREADED

if [ ${#failures[@]} -gt 0 ]; then
    echo "--- problems:"
    printf '  %s\n' "${failures[@]}"
fi
echo "tsan: $binaries binaries, $passed tests passed, $failed failed, $reports reports"
[ "$failed" -eq 0 ] && [ "$reports" -eq 0 ] && [ "$not_tsan" -eq 0 ] && [ $((passed + failed)) -gt 0 ]

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
#            and each check of scripts/candle.sh check.
#   failed   every test that failed in any pass (re-runs included), plus one
#            for a pass that failed without a failed test (a build error, a
#            crash before the summary).
#   skipped  distinct ignored tests: the GPU tier, not run here.
# The lines above it break these down. Tests are told apart by package,
# target and name; executables are mapped to packages with cargo's
# `--no-run --message-format=json` (no rebuild).
#
# The sysroot tier's tests count as tests of their own, keyed
# `CRATE@rocm-5.7` / `CRATE@rocm-6.4`; a release whose sysroot could not be
# made (no network), or a binary that ended without libtest's summary,
# counts as one failure. HIP_TEST_SKIP_SYSROOTS=1 skips that tier (the tier
# line says so); CI must not set it. The Wine tier's tests likewise count
# as tests of their own, keyed `CRATE@wine`; a tier that could not run (no
# Wine, no mingw, no Rust target) or a binary without libtest's summary is
# a failure. HIP_TEST_SKIP_WINE=1 skips it; CI must not set it.
#
# Extra arguments go to `cargo test`.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

tier2="ran"
if bash scripts/install-deps.sh; then
  export HIP_TEST_EXPECT_RUNTIME=amd
else
  tier2="DID NOT RUN: the AMD runtime packages could not be installed (see above)"
fi

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
  cargo test -p cuda-compat --features synthesized-enums,cufft "$@" 2>&1 | tee "$logs/3-rerun.log" || status=$?
fi
# cudarc's own example programs, built unmodified against cuda-compat
# renamed to cudarc (the one-line switch); scripts/cudarc-examples.sh
# fetches the pinned crate and prints one line per example.
if [ $status -eq 0 ]; then
  bash scripts/cudarc-examples.sh fetch >/dev/null && bash scripts/cudarc-examples.sh build 2>&1 | tee "$logs/4-cudarc.log" || status=$?
fi
# candle through the cudarc drop-in: the patch takes effect and candle-core,
# candle-nn (with their tests) and the Llama benchmark type-check
# (scripts/candle.sh check: one line per check; its cargo target folder is
# cached in ~/.cache/hip-rs/candle-target).
if [ $status -eq 0 ]; then
  bash scripts/candle.sh check 2>&1 | tee "$logs/7-candle.log" || status=$?
fi
# A tier run by its own script, which prints `DID NOT RUN` when it cannot
# run: optional_tier SKIP_VAR SCRIPT LOG sets $tier_line to what ran.
optional_tier() {
  local skip_var=$1 script=$2 log=$3
  tier_line="ran"
  if [ "${!skip_var:-}" = 1 ]; then
    tier_line="SKIPPED: $skip_var=1 (not for CI)"
  elif [ $status -eq 0 ]; then
    bash "$script" 2>&1 | tee "$log" || status=$?
    grep -q "DID NOT RUN" "$log" && tier_line="FAILED: $(grep -m1 "DID NOT RUN" "$log")"
  else
    tier_line="not run: an earlier pass failed"
  fi
}
# Tier 2 on ROCm 5.7 and 6.4, in their sysroots.
optional_tier HIP_TEST_SKIP_SYSROOTS scripts/tier2-sysroots.sh "$logs/5-sysroots.log"
sysroots=$tier_line
# The Wine tier: Windows builds of the tests under Wine.
optional_tier HIP_TEST_SKIP_WINE scripts/wine-tier.sh "$logs/6-wine.log"
wine=$tier_line
# Executable -> package, for telling tests of equal names apart.
cargo test --workspace --all-targets --no-run --message-format=json "$@" >"$logs/1.json" 2>/dev/null
if [ $feature_pass -eq 1 ]; then
  cargo test -p cuda-compat --features synthesized-enums,cufft --no-run --message-format=json "$@" >"$logs/3.json" 2>/dev/null
fi

runtime=$(ls /usr/lib/x86_64-linux-gnu/libamdhip64.so.5.* 2>/dev/null | head -n1)
echo
echo "== test tiers =="
echo "tier 1 (pure Rust): ran"
echo "tier 2 (real AMD runtime, no GPU): $tier2${runtime:+ against $runtime}${HIP_TEST_EXPECT_RUNTIME:+ (HIP_TEST_EXPECT_RUNTIME=$HIP_TEST_EXPECT_RUNTIME)}"
echo "tier 2 on ROCm 5.7 and 6.4 (sysroots, scripts/tier2-sysroots.sh): $sysroots"
echo "Wine tier (Windows builds under Wine, scripts/wine-tier.sh): $wine"
echo "tier 3 (GPU): not run here: the ignored tests below; scripts/gpu-bundle.sh runs them on a GPU machine"
python3 - "$logs" "$status" <<'EOF'
import os, re, subprocess, sys

logs, status = sys.argv[1], int(sys.argv[2])

def packages(path):
    """Executable file name -> package name, from cargo's JSON messages
    (through scripts/cargo-executables.py)."""
    if not os.path.exists(path):
        return {}
    with open(path, errors="replace") as f:
        lines = subprocess.run([sys.executable, "scripts/cargo-executables.py", "--kinds"],
                               stdin=f, capture_output=True, text=True, check=True).stdout
    out = {}
    for line in lines.splitlines():
        _, pkg, _, exe = line.split("\t")
        out[os.path.basename(exe)] = pkg
    return out

RUNNING = re.compile(r"^\s+Running (?:unittests )?(\S+) \((.+)\)$")
DOCTESTS = re.compile(r"^\s+Doc-tests (\S+)$")
TEST = re.compile(r"^test (.+) \.\.\. (ok|FAILED|ignored)(?:, .*)?$")
SUMMARY = re.compile(r"^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored")

def parse(log, pkgs):
    """Per binary: (key, {name: outcome}, summary counts or None)."""
    sections = []
    if not os.path.exists(log):
        return sections
    cur = None
    for line in open(log, errors="replace"):
        line = line.rstrip("\n")
        m = RUNNING.match(line)
        d = DOCTESTS.match(line)
        if m or d:
            if m:
                exe = os.path.basename(m.group(2))
                stem = exe.rsplit("-", 1)[0]
                key = (pkgs.get(exe, stem), m.group(1))
            else:
                key = ("doc", d.group(1))
            cur = [key, {}, None]
            sections.append(cur)
            continue
        if cur is None:
            continue
        t = TEST.match(line)
        if t and cur[2] is None:
            cur[1][t.group(1)] = t.group(2)
            continue
        s = SUMMARY.match(line)
        if s and cur[2] is None:
            cur[2] = tuple(int(x) for x in s.groups())
    return sections

def tally(sections):
    p = f = i = programs = 0
    for _, _, s in sections:
        if s is None:
            programs += 1
        else:
            p, f, i = p + s[0], f + s[1], i + s[2]
    return p, f, i, programs

pass1 = parse(f"{logs}/1-all-targets.log", packages(f"{logs}/1.json"))
pass2 = parse(f"{logs}/2-doc.log", {})
pass3 = parse(f"{logs}/3-rerun.log", packages(f"{logs}/3.json"))

def tier_counts(path, running, key_of):
    """A tier run by its own script: each line matching `running` opens a
    binary's section, keyed by key_of(match); the section's last libtest
    summary is the binary's own (a failing scenario test prints its
    child's summary before it). A section without a summary (a crash)
    and a `DID NOT RUN` line are failures. Returns passed, failed,
    ignored and the unfinished sections."""
    p = f = i = 0
    unfinished = []
    if not os.path.exists(path):
        return p, f, i, unfinished
    sections = []
    for line in open(path, errors="replace"):
        line = line.rstrip("\r\n")
        m = running.match(line)
        if m:
            sections.append([key_of(m), None])
            continue
        if "DID NOT RUN" in line:
            f += 1
            continue
        s = SUMMARY.match(line)
        if s and sections:
            sections[-1][1] = tuple(int(x) for x in s.groups())
    for key, counts in sections:
        if counts is None:
            unfinished.append(key)
            f += 1
        else:
            p, f, i = p + counts[0], f + counts[1], i + counts[2]
    return p, f, i, unfinished

# Tier 2 in the sysroots: `     Running@rocm-V CRATE/tests/FILE (EXE)`,
# keyed CRATE@rocm-V.
sys_p, sys_f, sys_i, sys_unfinished = tier_counts(
    f"{logs}/5-sysroots.log",
    re.compile(r"^\s+Running@rocm-(\S+) (\S+) \((.+)\)$"),
    lambda m: f"{m.group(2).split('/')[0]}@rocm-{m.group(1)} {m.group(2)}")
# The Wine tier: `     Running@wine CRATE/FILE (EXE)`, keyed CRATE@wine.
wine_p, wine_f, wine_i, wine_unfinished = tier_counts(
    f"{logs}/6-wine.log",
    re.compile(r"^\s+Running@wine (\S+) \((.+)\)$"),
    lambda m: f"{m.group(1).split('/')[0]}@wine {m.group(1)}")

# cudarc's examples: "NAME compiles" / "NAME does NOT compile" / "not built".
cudarc = {"compiles": 0, "does NOT compile": 0, "not built": 0}
if os.path.exists(f"{logs}/4-cudarc.log"):
    for line in open(f"{logs}/4-cudarc.log", errors="replace"):
        m = re.match(r"^\S+\s+(compiles|does NOT compile|not built)", line)
        if m:
            cudarc[m.group(1)] += 1

# candle through the drop-in: "candle check: NAME ... ok|FAILED".
candle = {"ok": 0, "FAILED": 0}
if os.path.exists(f"{logs}/7-candle.log"):
    for line in open(f"{logs}/7-candle.log", errors="replace"):
        m = re.match(r"^candle check: .+ \.\.\. (ok|FAILED)$", line.rstrip("\n"))
        if m:
            candle[m.group(1)] += 1

p1, f1, i1, prog1 = tally(pass1)
p2, f2, i2, prog2 = tally(pass2)
# A program (a target without libtest's harness) is known to have passed
# only if the pass went on after it: cargo stops at the first failure.
programs = prog1 + prog2

# Split the feature pass into re-runs (same package, target and name seen
# in the first two passes) and tests that exist only with the feature.
seen = {(key, name) for key, names, _ in pass1 + pass2 for name in names}
rerun = {"ok": 0, "FAILED": 0, "ignored": 0}
new = {"ok": 0, "FAILED": 0, "ignored": 0}
split_ok = True
for key, names, s in pass3:
    if s is None:
        programs += 1
        continue
    if (s[0], s[1], s[2]) != (
        sum(o == "ok" for o in names.values()),
        sum(o == "FAILED" for o in names.values()),
        sum(o == "ignored" for o in names.values()),
    ):
        split_ok = False
    for name, outcome in names.items():
        (rerun if (key, name) in seen else new)[outcome] += 1
if not split_ok:
    # The per-test lines did not add up to libtest's summaries: count the
    # whole pass as re-runs rather than guess.
    p3, f3, i3, _ = tally(pass3)
    rerun = {"ok": p3, "FAILED": f3, "ignored": i3}
    new = {"ok": 0, "FAILED": 0, "ignored": 0}

distinct_passed = p1 + p2 + new["ok"] + sys_p + wine_p
distinct_failed = f1 + f2 + new["FAILED"] + sys_f + wine_f
distinct_ignored = i1 + i2 + new["ignored"] + sys_i + wine_i
passed = distinct_passed + programs + cudarc["compiles"] + candle["ok"]
failed = distinct_failed + rerun["FAILED"] + cudarc["does NOT compile"] + candle["FAILED"]
if status != 0 and failed == 0:
    failed = 1  # a build error or a crash before any summary

print(f"distinct tests: {distinct_passed} passed, {distinct_failed} failed, "
      f"{distinct_ignored} ignored (each once; doc-tests: {p2} passed, {f2} failed, "
      f"{i2} ignored; only with synthesized-enums: {new['ok']} passed, "
      f"{new['FAILED']} failed)")
print(f"re-runs (cuda-compat with synthesized-enums, tests already counted): "
      f"{rerun['ok']} passed, {rerun['FAILED']} failed, {rerun['ignored']} ignored"
      + ("" if split_ok else " (not split by name: per-test lines and summaries disagree)"))
print(f"tier 2 on ROCm 5.7 and 6.4 (sysroots; counted above as tests of their own): "
      f"{sys_p} passed, {sys_f} failed, {sys_i} ignored"
      + (f"; ended without a summary: {', '.join(sys_unfinished)}" if sys_unfinished else ""))
print(f"Wine tier (Windows builds under Wine; counted above as tests of their own): "
      f"{wine_p} passed, {wine_f} failed, {wine_i} ignored"
      + (f"; ended without a summary: {', '.join(wine_unfinished)}" if wine_unfinished else ""))
print(f"programs (targets without libtest's harness, one each): {programs}")
print(f"cudarc's examples built against cuda-compat: {cudarc['compiles']} compile, "
      f"{cudarc['does NOT compile']} do not, {cudarc['not built']} not built (need CUPTI or cuFile)")
print(f"candle 0.11.1 through the cudarc drop-in (scripts/candle.sh check): "
      f"{candle['ok']} passed, {candle['FAILED']} failed")
print(f"not run: {distinct_ignored} ignored tests (the GPU tier, #[ignore = \"needs a GPU\"], "
      "and any other #[ignore]d test; reasons in the lines above)")
if status != 0:
    print(f"a cargo test pass failed (exit status {status}); later passes did not run")
print(f"{passed} passed, {failed} failed, {distinct_ignored} skipped")
EOF
exit $status

"""Reads cargo's --message-format=json from standard input and prints one
line for each executable it built:

  (no argument)  for each test harness build only, the target's source
                 path (relative to the working folder) and the executable's
                 path, space-separated: the list that
                 scripts/tier2-sysroots.sh and scripts/wine-tier.sh run
                 (a package's binaries, which cargo builds for its
                 integration tests, are left out: they are no tests);
  --kinds        KIND, PACKAGE, TARGET and the executable's path,
                 tab-separated, KIND being `test` for a test-harness build,
                 else the target's kind (bin, example, bench): for
                 scripts/gpu-bundle.sh, scripts/candle.sh and
                 scripts/test.sh."""
import json
import os
import sys


def package_of(package_id):
    """The package name in a package id: "path+file:///w/hip#0.1.0" ->
    "hip", "registry+https://...#half@2.7.1" -> "half"."""
    before, _, frag = package_id.partition("#")
    return frag.split("@")[0] if "@" in frag else before.rstrip("/").split("/")[-1]


def main():
    kinds = sys.argv[1:] == ["--kinds"]
    for line in sys.stdin:
        try:
            m = json.loads(line)
        except ValueError:
            continue
        if m.get("reason") != "compiler-artifact" or not m.get("executable"):
            continue
        t = m["target"]
        if kinds:
            kind = "test" if m["profile"]["test"] and "bench" not in t["kind"] else t["kind"][0]
            print("\t".join([kind, package_of(m["package_id"]), t["name"], m["executable"]]))
        elif m["profile"]["test"]:
            print(os.path.relpath(t["src_path"]), m["executable"])


if __name__ == "__main__":
    main()

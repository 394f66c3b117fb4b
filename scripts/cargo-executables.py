"""Reads cargo's --message-format=json from standard input and prints, for
each executable it built, the target's source path (relative to the
working folder) and the executable's path, one pair a line: the list that
scripts/tier2-sysroots.sh and scripts/wine-tier.sh run."""
import json
import os
import sys

for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        print(os.path.relpath(m["target"]["src_path"]), m["executable"])

#!/usr/bin/env bash
# Regenerates every committed generated file and fails when the result differs
# from what is committed. The work, the list of commands and the list of
# generated paths are in the generator (build.rs-tools/generator/src/check.rs);
# this script stays for CI and habit.
set -euo pipefail
cd "$(dirname "$0")/../.."
exec cargo run -q -p hip-generator -- check "$@"

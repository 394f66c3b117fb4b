# shellcheck shell=bash
# Sourced by .ci/run and scripts/test.sh. reclaim PATH...: deletes folders
# no later step reads, saying how much each held (CI's machines have had
# under 8 GB free).
reclaim() {
    local p
    for p in "$@"; do
        [ -e "$p" ] || continue
        echo "reclaim: $p ($(du -sh "$p" 2>/dev/null | cut -f1))"
        rm -rf "$p"
    done
}

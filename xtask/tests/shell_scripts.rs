//! Rules the repository's shell scripts keep, checked over every script.
//!
//! `cmd | grep -q PATTERN` under `set -o pipefail` is a race: `grep -q`
//! exits at its first match, `cmd` may then die of SIGPIPE, and the
//! pipeline fails although the pattern was there. CI failed that way on
//! `ldd "$exe" | grep -q libamdhip64` (ldd's output is long enough to be
//! written after grep has gone). `grep PATTERN >/dev/null` reads all of
//! its input and keeps the exit status meaning "found".

use std::path::{Path, PathBuf};

/// Whether `line` pipes into a `grep` run with `-q` (alone or among
/// other short options, `--quiet` and `--silent` too).
fn pipes_into_quiet_grep(line: &str) -> bool {
    let code = line.split(" #").next().unwrap_or(line);
    if code.trim_start().starts_with('#') {
        return false;
    }
    code.split('|').skip(1).any(|stage| {
        let mut words = stage.split_whitespace();
        if words.next() != Some("grep") {
            return false;
        }
        words.take_while(|w| w.starts_with('-')).any(|w| {
            w == "--quiet" || w == "--silent" || (!w.starts_with("--") && w[1..].contains('q'))
        })
    })
}

/// Every shell script of the repository: `scripts/**/*.sh` and `.ci/run`.
fn scripts(root: &Path) -> Vec<PathBuf> {
    let mut out = vec![root.join(".ci/run")];
    let mut dirs = vec![root.join("scripts")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("scripts/ is readable") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "sh") {
                out.push(path);
            }
        }
    }
    out
}

#[test]
fn the_detector_tells_a_quiet_grep_pipeline_from_the_others() {
    assert!(pipes_into_quiet_grep(
        r#"ldd "$exe" | grep -q libamdhip64 || exit 1"#
    ));
    assert!(pipes_into_quiet_grep(r#"! echo "$1" | grep -Eq "$x"; }"#));
    assert!(pipes_into_quiet_grep("a | sort | grep --quiet b"));
    assert!(!pipes_into_quiet_grep(
        r#"ldd "$exe" | grep libamdhip64 >/dev/null"#
    ));
    assert!(!pipes_into_quiet_grep(r#"grep -q done "$log""#));
    assert!(!pipes_into_quiet_grep("# a | grep -q b in a comment"));
    assert!(!pipes_into_quiet_grep("a | grep -c b"));
}

#[test]
fn no_script_pipes_into_grep_q() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let all = scripts(&root);
    assert!(
        all.len() > 20,
        "found only {} scripts under {}",
        all.len(),
        root.display()
    );
    let mut found = Vec::new();
    for path in &all {
        let text = std::fs::read_to_string(path).expect("a script is UTF-8 text");
        for (n, line) in text.lines().enumerate() {
            if pipes_into_quiet_grep(line) {
                found.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "`| grep -q` races with pipefail (write `| grep PATTERN >/dev/null`):\n{}",
        found.join("\n")
    );
}

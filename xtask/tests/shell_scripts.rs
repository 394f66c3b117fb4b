//! Rules the repository's shell scripts keep, checked over every script.
//!
//! `cmd | grep -q PATTERN` under `set -o pipefail` is a race: `grep -q`
//! exits at its first match, `cmd` may then die of SIGPIPE, and the
//! pipeline fails although the pattern was there. CI failed that way on
//! `ldd "$exe" | grep -q libamdhip64` (ldd's output is long enough to be
//! written after grep has gone). `grep PATTERN >/dev/null` reads all of
//! its input and keeps the exit status meaning "found".
//!
//! No script runs inline Python (`python3 - <<'PY'`, `python3 -c`) or an
//! awk program of more than one line: what a script parses, decides or
//! tabulates is an xtask subcommand with unit tests (CONTRIBUTING.md,
//! "Tooling").

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

/// Every shell script of the repository: `scripts/**/*.sh`,
/// `build.rs-tools/scripts/*.sh` and `.ci/run`.
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
    let tools = root.join("build.rs-tools/scripts");
    for entry in std::fs::read_dir(&tools).expect("build.rs-tools/scripts/ is readable") {
        let path = entry.expect("a directory entry").path();
        if path.extension().is_some_and(|e| e == "sh") {
            out.push(path);
        }
    }
    out
}

#[test]
fn every_folder_of_scripts_is_read() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let all = scripts(&root);
    for want in [
        ".ci/run",
        "scripts/test.sh",
        "build.rs-tools/scripts/fetch-cuda-headers.sh",
    ] {
        assert!(
            all.iter().any(|p| p.ends_with(want)),
            "{want} is not among the scripts checked"
        );
    }
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

/// Whether `line` runs Python code written in the script itself:
/// `python3 - ARGS <<'PY'` (the program on standard input), `python3 -c
/// CODE`, or an interpreter fed a heredoc or here-string. A Python file
/// run by path (`python3 "$bundle/torch_gemm.py"`) and a module (`python3
/// -m pip`) are not inline.
fn runs_inline_python(line: &str) -> bool {
    let code = line.split(" #").next().unwrap_or(line);
    if code.trim_start().starts_with('#') {
        return false;
    }
    let words: Vec<&str> = code.split_whitespace().collect();
    words.iter().enumerate().any(|(i, w)| {
        let name = w
            .rsplit('/')
            .next()
            .unwrap_or(w)
            .trim_matches(|c: char| !c.is_ascii_alphanumeric());
        let is_python = name
            .strip_prefix("python")
            .is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'));
        if !is_python {
            return false;
        }
        for arg in &words[i + 1..] {
            if *arg == "-" || arg.starts_with("<<") {
                return true;
            }
            match arg.strip_prefix('-') {
                Some(long) if long.starts_with('-') => continue,
                // Short options, `-c` among them: the program follows.
                Some(short) if short.contains('c') => return true,
                Some(short) if short.contains('m') => return false,
                Some(_) => continue,
                None => return false,
            }
        }
        false
    })
}

#[test]
fn the_detector_tells_inline_python_from_python_files() {
    assert!(runs_inline_python(
        r#"    python3 - "$WORK/amd.json" <<'PY'"#
    ));
    assert!(runs_inline_python(
        r#"  src=$(cargo metadata | python3 -c 'import json,sys; print(1)')"#
    ));
    assert!(runs_inline_python(
        r#"echo "$crate: $(python3 -c 'print(1)' "$f")""#
    ));
    assert!(runs_inline_python("python -c 'print(1)'"));
    assert!(runs_inline_python("/usr/bin/python3 -I -c 'print(1)'"));
    assert!(runs_inline_python("python3 <<'PY'"));
    assert!(runs_inline_python("python3.11 -Ic 'print(1)'"));
    assert!(!runs_inline_python(
        r#"timeout 600 python3 "$bundle/torch_gemm.py" >"$out/torch.txt""#
    ));
    assert!(!runs_inline_python(
        r#"python3 -m pip download -q --no-deps --dest "$wheels" "$spec""#
    ));
    assert!(!runs_inline_python(
        r#"python3 "$prune" extract "$deb" "$dest.tmp" "$targets" >&2"#
    ));
    assert!(!runs_inline_python(
        r#""$torchrun" --standalone --no-python --nproc-per-node="$n" "$prog""#
    ));
    assert!(!runs_inline_python("# python3 -c 'a comment'"));
    assert!(!runs_inline_python(
        "#   python3  (pip: build.rs-tools/scripts/fetch-cuda-headers.sh downloads NVIDIA's wheels)"
    ));
}

#[test]
fn no_script_runs_inline_python() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut found = Vec::new();
    for path in scripts(&root) {
        let text = std::fs::read_to_string(&path).expect("a script is UTF-8 text");
        for (n, line) in text.lines().enumerate() {
            if runs_inline_python(line) {
                found.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "inline Python in a script (make it an xtask subcommand):\n{}",
        found.join("\n")
    );
}

/// Whether `line` starts an awk program (`awk`, `gawk`, `mawk`, `nawk`, by
/// path too) whose quoted text goes on past the line: the quote opened
/// in the awk command is still open at the line's end. Quotes are read as
/// the shell reads them (`'...'` verbatim, `"..."` with `\` escapes and
/// `$(...)` inside); a `#` after a blank outside quotes starts a comment;
/// `|`, `;`, `&` and the end of a `$(...)` end the awk command.
fn opens_multiline_awk(line: &str) -> bool {
    let b = line.as_bytes();
    // The open contexts: `true` for code (the line, `$(...)`), `false`
    // for a double-quoted string.
    let mut stack = vec![true];
    // How deep the awk command runs, while it does.
    let mut awk: Option<usize> = None;
    let mut i = 0;
    while i < b.len() {
        let code = stack[stack.len() - 1];
        match b[i] {
            b'\\' => i += 1,
            b'\'' if code => match line[i + 1..].find('\'') {
                Some(n) => i += n + 1,
                None => return awk.is_some(),
            },
            b'"' if code => stack.push(false),
            b'"' => {
                stack.pop();
            }
            b'$' if b.get(i + 1) == Some(&b'(') => {
                stack.push(true);
                i += 1;
            }
            b'(' if code => stack.push(true),
            b')' if code && stack.len() > 1 => {
                stack.pop();
            }
            b'#' if code && (i == 0 || b[i - 1].is_ascii_whitespace()) => break,
            b'|' | b';' | b'&' if code && awk == Some(stack.len()) => awk = None,
            _ if code && is_awk_word(b, i) => awk = Some(stack.len()),
            _ => {}
        }
        if awk.is_some_and(|depth| depth > stack.len()) {
            awk = None;
        }
        i += 1;
    }
    awk.is_some_and(|depth| stack.len() > depth)
}

/// Whether an awk command's name starts at `b[i]`: `awk`, `gawk`, `mawk`
/// or `nawk`, after a blank, `|`, `;`, `&`, `(`, `/` or the line's start,
/// before a blank or the line's end.
fn is_awk_word(b: &[u8], i: usize) -> bool {
    let before = i == 0 || b" \t|;&(/`".contains(&b[i - 1]);
    let name = if matches!(b[i], b'g' | b'm' | b'n') {
        i + 1
    } else {
        i
    };
    before
        && b[name..].starts_with(b"awk")
        && !matches!(b.get(name + 3), Some(c) if !c.is_ascii_whitespace())
}

#[test]
fn the_detector_tells_a_multiline_awk_program_from_one_line() {
    for multi in [
        "  awk '{ n[$1] = $2; total += $2 } END {",
        r#"    awk -v a="$1" -v b="$2" '$1 >= a && $1 <= b && $2 != "" && (m == "" || $2 < m) { m = $2 }"#,
        r#"            got=$(awk -v k="$k" '/^[A-Za-z_0-9]+:/ { f = substr($1, 1, length($1) - 1) }"#,
        r#"    lines=$(resolved "$1" | awk -v want="$2" '$3 != "path" {"#,
        r#"    awk -F'\t' '!/^#/ {n[$1]++; if ($3 == "not built") nb[$1]++"#,
        r#"x="$(gawk "BEGIN {"#,
        "cmd | /usr/bin/awk '",
    ] {
        assert!(opens_multiline_awk(multi), "{multi}");
    }
    for one in [
        r#"    exe=$(xtask executables --kinds <"$WORK/amd.json" | awk -F'\t' '$1 == "bin" && $3 == "amd-kernels" {print $4}')"#,
        r#"rt=$(grep -o 'step_us [0-9.]*' "$STUB_DIR/real.out" | awk '{print $2}')"#,
        r#"x="$(awk '{print $1}' "$f")" # it's awk '{"#,
        r#"awk '{print}' f; echo "it's"#,
        "# awk '{ a comment",
        r#"grep -n "awk '[^']*$" scripts/*.sh"#,
        r#"echo "no awk '{ here""#,
        "gawkish '{",
        "awk '{ print }' \\",
    ] {
        assert!(!opens_multiline_awk(one), "{one}");
    }
}

#[test]
fn no_script_has_a_multiline_awk_program() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut found = Vec::new();
    for path in scripts(&root) {
        let text = std::fs::read_to_string(&path).expect("a script is UTF-8 text");
        for (n, line) in text.lines().enumerate() {
            if opens_multiline_awk(line) {
                found.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "an awk program of more than one line in a script (make it an xtask subcommand; \
         awk stays for one-line field picks):\n{}",
        found.join("\n")
    );
}

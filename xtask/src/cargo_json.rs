//! What scripts read from cargo: the executables, a build script's
//! `OUT_DIR` and rustc's errors in `--message-format=json`, and packages
//! of `cargo metadata`.

use std::path::{Component, Path, PathBuf};

/// One executable cargo built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Executable {
    /// `test` for a test-harness build, else the target's kind (`bin`,
    /// `example`, `bench`, ...).
    pub(crate) kind: String,
    /// The package's name.
    pub(crate) package: String,
    /// The target's name.
    pub(crate) target: String,
    /// The target's main source file.
    pub(crate) src_path: String,
    /// The executable's path.
    pub(crate) path: String,
    /// Whether it is a test-harness build (of a test, a library's unit
    /// tests or a bench): what the tiers run. A package's binaries, which
    /// cargo builds for its integration tests, are not.
    pub(crate) test_harness: bool,
    /// Whether the target is a test target (`tests/*.rs`, kind `test`
    /// alone): not a library's or binary's unit tests.
    pub(crate) test_target: bool,
}

/// The executables of cargo's JSON messages, one message a line; lines
/// that are not JSON (cargo's own text) are passed over.
pub(crate) fn executables(lines: &[String]) -> Vec<Executable> {
    lines.iter().filter_map(|l| executable(l)).collect()
}

/// The `OUT_DIR` of `package`'s build script: the last
/// `build-script-executed` message for it.
pub(crate) fn out_dir(lines: &[String], package: &str) -> Option<String> {
    lines.iter().rev().find_map(|l| {
        let m: serde_json::Value = serde_json::from_str(l).ok()?;
        if m.get("reason")?.as_str()? != "build-script-executed"
            || package_of(m.get("package_id")?.as_str()?) != package
        {
            return None;
        }
        Some(m.get("out_dir")?.as_str()?.to_owned())
    })
}

fn executable(line: &str) -> Option<Executable> {
    let m: serde_json::Value = serde_json::from_str(line).ok()?;
    if m.get("reason")?.as_str()? != "compiler-artifact" {
        return None;
    }
    let path = m.get("executable")?.as_str().filter(|p| !p.is_empty())?;
    let target = m.get("target")?;
    let kinds: Vec<&str> = target
        .get("kind")?
        .as_array()?
        .iter()
        .filter_map(|k| k.as_str())
        .collect();
    let test_profile = m
        .get("profile")
        .and_then(|p| p.get("test"))
        .and_then(|t| t.as_bool())
        .unwrap_or(false);
    let kind = if test_profile && !kinds.contains(&"bench") {
        "test"
    } else {
        kinds.first()?
    };
    Some(Executable {
        kind: kind.to_string(),
        package: package_of(m.get("package_id")?.as_str()?).to_string(),
        target: target.get("name")?.as_str()?.to_string(),
        src_path: target.get("src_path")?.as_str()?.to_string(),
        path: path.to_string(),
        test_harness: test_profile,
        test_target: kinds == ["test"],
    })
}

/// The package name in a package id: `path+file:///w/hip#0.1.0` -> `hip`,
/// `registry+https://...#half@2.7.1` -> `half`.
pub(crate) fn package_of(id: &str) -> &str {
    let (before, fragment) = id.split_once('#').unwrap_or((id, ""));
    match fragment.split_once('@') {
        Some((name, _)) => name,
        None => before
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or(""),
    }
}

/// The line `executables` prints: with `kinds`, KIND, PACKAGE, TARGET and
/// the path, tab-separated; else the source path relative to `cwd` and the
/// executable's path (printed for test-harness builds only, see
/// [`Executable::test_harness`]).
pub(crate) fn line(e: &Executable, kinds: bool, cwd: &Path) -> String {
    if kinds {
        format!("{}\t{}\t{}\t{}", e.kind, e.package, e.target, e.path)
    } else {
        format!(
            "{} {}",
            relative(Path::new(&e.src_path), cwd).display(),
            e.path
        )
    }
}

/// `path` relative to `base`, both absolute, by their components (no
/// links followed), as Python's `os.path.relpath` gives it.
pub(crate) fn relative(path: &Path, base: &Path) -> PathBuf {
    fn normal(p: &Path) -> Vec<Component<'_>> {
        let mut out: Vec<Component<'_>> = Vec::new();
        for c in p.components() {
            match c {
                Component::CurDir => {}
                Component::ParentDir if matches!(out.last(), Some(Component::Normal(_))) => {
                    out.pop();
                }
                other => out.push(other),
            }
        }
        out
    }
    let (p, b) = (normal(path), normal(base));
    let common = p.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut out = PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for c in &p[common..] {
        out.push(c.as_os_str());
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

/// A string as Python's `repr` writes it (for the lines `patch-used`
/// printed when it was Python).
fn py_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::from(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// candle.sh's check that the `[patch]` takes effect, from `cargo
/// metadata`: `cudarc` and `cudaforge` each resolve to one package, the
/// drop-in at `REPO/dropins/NAME/Cargo.toml`. For each name, the line to
/// print (what resolved) and a complaint when it is not the drop-in alone.
pub(crate) fn patch_used(
    metadata: &str,
    repo: &str,
) -> Result<Vec<(String, Option<String>)>, String> {
    let meta: serde_json::Value =
        serde_json::from_str(metadata).map_err(|e| format!("cargo metadata: {e}"))?;
    let ids: std::collections::HashSet<&str> = meta["resolve"]["nodes"]
        .as_array()
        .ok_or("cargo metadata: no resolve.nodes")?
        .iter()
        .filter_map(|n| n["id"].as_str())
        .collect();
    let packages = meta["packages"]
        .as_array()
        .ok_or("cargo metadata: no packages")?;
    let mut out = Vec::new();
    for name in ["cudarc", "cudaforge"] {
        let got: Vec<(&str, Option<&str>, &str)> = packages
            .iter()
            .filter(|p| p["name"] == name && p["id"].as_str().is_some_and(|id| ids.contains(id)))
            .map(|p| {
                (
                    p["version"].as_str().unwrap_or(""),
                    p["source"].as_str(),
                    p["manifest_path"].as_str().unwrap_or(""),
                )
            })
            .collect();
        let shown: Vec<String> = got
            .iter()
            .map(|(v, src, m)| {
                let src = src.map_or("None".to_string(), py_repr);
                format!("({}, {src}, {})", py_repr(v), py_repr(m))
            })
            .collect();
        let want = format!("{repo}/dropins/{name}/Cargo.toml");
        let alone = got.len() == 1 && got[0].1.is_none() && got[0].2 == want;
        out.push((
            format!("{name}: [{}]", shown.join(", ")),
            (!alone).then(|| format!("{name} does not resolve to {want} alone")),
        ));
    }
    Ok(out)
}

/// rustc's errors in cargo's JSON messages, one message a line (lines
/// that do not start with `{` are cargo's own text, passed over): one
/// `ID: MESSAGE (FILE:LINE, ...)` per error, ID the package id after its
/// `#` (`mistralrs-quant@0.8.1`), FILE a primary span's file below the
/// registry's source folder (`mistralrs-quant-0.8.1/src/x.rs`).
pub(crate) fn rust_errors(lines: &[String]) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        if !line.starts_with('{') {
            continue;
        }
        let m: serde_json::Value =
            serde_json::from_str(line).map_err(|e| format!("cargo's JSON, line {}: {e}", n + 1))?;
        let message = &m["message"];
        if m["reason"] != "compiler-message" || message["level"] != "error" {
            continue;
        }
        let id = m["package_id"].as_str().unwrap_or("");
        let package = id.rsplit('#').next().unwrap_or(id);
        let spans: Vec<String> = message["spans"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|s| s["is_primary"] == true)
            .map(|s| {
                let file = s["file_name"].as_str().unwrap_or("");
                let below = file.rsplit("/registry/src/").next().unwrap_or(file);
                let crate_file = below.split_once('/').map_or(below, |(_, f)| f);
                format!("{crate_file}:{}", s["line_start"])
            })
            .collect();
        out.push(format!(
            "{package}: {} ({})",
            message["message"].as_str().unwrap_or(""),
            spans.join(", ")
        ));
    }
    Ok(out)
}

/// The folder of `package`'s manifest in `cargo metadata` (the first
/// package of that name): where a registry crate's source is.
pub(crate) fn manifest_dir(metadata: &str, package: &str) -> Result<String, String> {
    let meta: serde_json::Value =
        serde_json::from_str(metadata).map_err(|e| format!("cargo metadata: {e}"))?;
    let manifest = meta["packages"]
        .as_array()
        .ok_or("cargo metadata: no packages")?
        .iter()
        .find(|p| p["name"] == package)
        .and_then(|p| p["manifest_path"].as_str())
        .ok_or_else(|| format!("cargo metadata: no package {package}"))?;
    Ok(manifest
        .rsplit_once('/')
        .map_or(manifest, |(dir, _)| dir)
        .to_owned())
}

/// The packages of `cargo metadata`'s resolve named in `names`, one line
/// each, ordered by package id: `NAME VERSION SOURCE MANIFEST DEPENDENTS`,
/// SOURCE `path` for a path crate, MANIFEST with symbolic links resolved,
/// DEPENDENTS the resolve's `NAME@VERSION`s that depend on it,
/// comma-separated and sorted (`-` for none).
pub(crate) fn resolved(metadata: &str, names: &[String]) -> Result<Vec<String>, String> {
    use std::collections::BTreeMap;
    let meta: serde_json::Value =
        serde_json::from_str(metadata).map_err(|e| format!("cargo metadata: {e}"))?;
    let nodes = meta["resolve"]["nodes"]
        .as_array()
        .ok_or("cargo metadata: no resolve.nodes")?;
    let packages: BTreeMap<&str, &serde_json::Value> = meta["packages"]
        .as_array()
        .ok_or("cargo metadata: no packages")?
        .iter()
        .filter_map(|p| Some((p["id"].as_str()?, p)))
        .collect();
    let package = |id: &str| {
        packages
            .get(id)
            .copied()
            .ok_or_else(|| format!("cargo metadata: the resolve's {id} is no package"))
    };
    let str_of = |v: &serde_json::Value| v.as_str().unwrap_or("").to_owned();
    let mut users: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut live = Vec::new();
    for n in nodes {
        let id = n["id"]
            .as_str()
            .ok_or("cargo metadata: a node without an id")?;
        live.push(id);
        let p = package(id)?;
        for d in n["deps"].as_array().into_iter().flatten() {
            users
                .entry(d["pkg"].as_str().unwrap_or(""))
                .or_default()
                .push(format!("{}@{}", str_of(&p["name"]), str_of(&p["version"])));
        }
    }
    live.sort_unstable();
    live.dedup();
    let mut out = Vec::new();
    for id in live {
        let p = package(id)?;
        let name = str_of(&p["name"]);
        if !names.contains(&name) {
            continue;
        }
        let manifest = str_of(&p["manifest_path"]);
        let manifest =
            std::fs::canonicalize(&manifest).map_or(manifest, |m| m.to_string_lossy().into_owned());
        let mut dependents = users.remove(id).unwrap_or_default();
        dependents.sort();
        let source = p["source"]
            .as_str()
            .filter(|s| !s.is_empty())
            .unwrap_or("path");
        out.push(format!(
            "{name} {} {source} {manifest} {}",
            str_of(&p["version"]),
            if dependents.is_empty() {
                "-".to_owned()
            } else {
                dependents.join(",")
            }
        ));
    }
    Ok(out)
}

/// The lines of [`resolved`]'s output (`NAME VERSION SOURCE MANIFEST
/// DEPENDENTS`) of a crates.io `name` with a dependent that is not `user`
/// (any version; `-`, no dependent, is not `user` either): where `name`
/// is in the resolve for more than `user`.
pub(crate) fn not_only_for<'a>(lines: &'a [String], name: &str, user: &str) -> Vec<&'a str> {
    let user = format!("{user}@");
    lines
        .iter()
        .filter(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            f.first() == Some(&name)
                && f.get(2) != Some(&"path")
                && f.get(4)
                    .unwrap_or(&"")
                    .split(',')
                    .filter(|d| !d.is_empty())
                    .any(|d| !d.starts_with(&user))
        })
        .map(String::as_str)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn artifact(pkg_id: &str, name: &str, kind: &str, test: bool, exe: Option<&str>) -> String {
        serde_json::json!({
            "reason": "compiler-artifact",
            "package_id": pkg_id,
            "target": {"kind": [kind], "name": name, "src_path": format!("/w/hip/tests/{name}.rs")},
            "profile": {"test": test},
            "executable": exe,
        })
        .to_string()
    }

    #[test]
    fn test_builds_benches_and_binaries_are_told_apart() {
        let lines = vec![
            "   Compiling hip v0.1.0".to_string(),
            artifact(
                "path+file:///w/hip#0.1.0",
                "tier1_x",
                "test",
                true,
                Some("/t/tier1_x-ab"),
            ),
            artifact(
                "path+file:///w/hip#0.1.0",
                "hip",
                "lib",
                true,
                Some("/t/hip-cd"),
            ),
            artifact(
                "path+file:///w/benches#hip-benches@0.1.0",
                "call_overhead",
                "bench",
                true,
                Some("/t/co-ef"),
            ),
            artifact(
                "path+file:///w/examples#hip-examples@0.1.0",
                "info",
                "example",
                false,
                Some("/t/info"),
            ),
            artifact("registry+https://x#half@2.7.1", "half", "lib", false, None),
            r#"{"reason":"build-finished","success":true}"#.to_string(),
        ];
        let got = executables(&lines);
        let kinds: Vec<_> = got
            .iter()
            .map(|e| (e.kind.as_str(), e.package.as_str()))
            .collect();
        assert_eq!(
            kinds,
            [
                ("test", "hip"),
                ("test", "hip"),
                ("bench", "hip-benches"),
                ("example", "hip-examples")
            ]
        );
        // The tiers' list: test-harness builds only, the example left out.
        let harness: Vec<_> = got
            .iter()
            .filter(|e| e.test_harness)
            .map(|e| e.target.as_str())
            .collect();
        assert_eq!(harness, ["tier1_x", "hip", "call_overhead"]);
        // --test-targets: a test target's build, not the library's unit tests.
        let tests: Vec<_> = got
            .iter()
            .filter(|e| e.test_target)
            .map(|e| e.path.as_str())
            .collect();
        assert_eq!(tests, ["/t/tier1_x-ab"]);
        assert_eq!(
            line(&got[0], true, Path::new("/w")),
            "test\thip\ttier1_x\t/t/tier1_x-ab"
        );
        assert_eq!(
            line(&got[0], false, Path::new("/w")),
            "hip/tests/tier1_x.rs /t/tier1_x-ab"
        );
    }

    #[test]
    fn the_patch_is_used_only_when_each_name_resolves_to_its_drop_in_alone() {
        let meta = |cudarc_source: &str| {
            format!(
                r#"{{"packages":[
                {{"name":"cudarc","id":"a","version":"0.19.10","source":{cudarc_source},"manifest_path":"/r/dropins/cudarc/Cargo.toml"}},
                {{"name":"cudaforge","id":"b","version":"0.1.6","source":null,"manifest_path":"/r/dropins/cudaforge/Cargo.toml"}},
                {{"name":"cudarc","id":"c","version":"0.17.0","source":"registry+x","manifest_path":"/reg/cudarc/Cargo.toml"}}],
                "resolve":{{"nodes":[{{"id":"a"}},{{"id":"b"}}]}}}}"#
            )
        };
        let got = patch_used(&meta("null"), "/r").unwrap();
        assert_eq!(
            got[0].0,
            "cudarc: [('0.19.10', None, '/r/dropins/cudarc/Cargo.toml')]"
        );
        assert!(
            got.iter().all(|(_, complaint)| complaint.is_none()),
            "{got:?}"
        );
        // A crates.io cudarc resolved: the patch did not take effect.
        let got = patch_used(&meta(r#""registry+x""#), "/r").unwrap();
        assert_eq!(
            got[0].0,
            "cudarc: [('0.19.10', 'registry+x', '/r/dropins/cudarc/Cargo.toml')]"
        );
        assert_eq!(
            got[0].1.as_deref(),
            Some("cudarc does not resolve to /r/dropins/cudarc/Cargo.toml alone")
        );
        assert_eq!(got[1].1, None);
        assert!(patch_used("{}", "/r").is_err());
    }

    #[test]
    fn rust_errors_name_the_package_and_the_primary_spans() {
        let error = |pkg: &str, level: &str, msg: &str, spans: serde_json::Value| {
            serde_json::json!({
                "reason": "compiler-message",
                "package_id": pkg,
                "message": {"level": level, "message": msg, "spans": spans},
            })
            .to_string()
        };
        let span = |file: &str, line: u32, primary: bool| serde_json::json!({"file_name": file, "line_start": line, "is_primary": primary});
        let lines = vec![
            "   Compiling mistralrs-quant v0.8.1".to_string(),
            error(
                "registry+https://github.com/rust-lang/crates.io-index#mistralrs-quant@0.8.1",
                "error",
                "mismatched types",
                serde_json::json!([
                    span("/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/mistralrs-quant-0.8.1/src/cublaslt/matmul.rs", 120, true),
                    span("/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/cudarc-0.19.10/src/lib.rs", 3, false),
                ]),
            ),
            error("path+file:///w/hip#0.1.0", "warning", "unused", serde_json::json!([])),
            error(
                "path+file:///w/benches/mistral#mistral-on-hip@0.1.0",
                "error",
                "aborting due to 2 previous errors",
                serde_json::json!([]),
            ),
            error(
                "path+file:///w/hip#0.1.0",
                "error",
                "two places",
                serde_json::json!([span("src/a.rs", 1, true), span("src/b/c.rs", 9, true)]),
            ),
            r#"{"reason":"build-finished","success":false}"#.to_string(),
        ];
        assert_eq!(
            rust_errors(&lines).unwrap(),
            [
                "mistralrs-quant@0.8.1: mismatched types (mistralrs-quant-0.8.1/src/cublaslt/matmul.rs:120)",
                "mistral-on-hip@0.1.0: aborting due to 2 previous errors ()",
                // Outside the registry, the first folder goes too, as it did.
                "0.1.0: two places (a.rs:1, b/c.rs:9)",
            ]
        );
        let err = rust_errors(&["{not json".to_string()]).unwrap_err();
        assert!(err.starts_with("cargo's JSON, line 1: "), "{err}");
    }

    #[test]
    fn the_manifest_folder_of_the_first_package_of_a_name() {
        let meta = r#"{"packages":[
            {"name":"half","manifest_path":"/reg/half-2.7.1/Cargo.toml"},
            {"name":"cudarc","manifest_path":"/reg/cudarc-0.19.10/Cargo.toml"},
            {"name":"cudarc","manifest_path":"/reg/cudarc-0.17.8/Cargo.toml"}]}"#;
        assert_eq!(manifest_dir(meta, "cudarc").unwrap(), "/reg/cudarc-0.19.10");
        assert_eq!(
            manifest_dir(meta, "cuda-compat").unwrap_err(),
            "cargo metadata: no package cuda-compat"
        );
        assert!(manifest_dir("[", "cudarc").is_err());
    }

    #[test]
    fn resolved_packages_with_their_dependents_and_real_manifests() {
        #[allow(clippy::disallowed_methods)] // two empty files, removed below
        let dir = std::env::temp_dir().join(format!("xtask-resolved-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("dropins/cudarc")).unwrap();
        std::fs::write(dir.join("dropins/cudarc/Cargo.toml"), "").unwrap();
        // benches/mistral reaches the drop-in through `..`; a link here.
        std::os::unix::fs::symlink(dir.join("dropins"), dir.join("link")).unwrap();
        let linked = dir.join("link/cudarc/Cargo.toml");
        let meta = serde_json::json!({
            "packages": [
                {"id": "p-cudarc", "name": "cudarc", "version": "0.19.10", "source": null,
                 "manifest_path": linked},
                {"id": "r-cudarc", "name": "cudarc", "version": "0.17.8",
                 "source": "registry+https://github.com/rust-lang/crates.io-index",
                 "manifest_path": "/nonexistent/cudarc-0.17.8/Cargo.toml"},
                {"id": "ug", "name": "ug-cuda", "version": "0.5.0", "source": "registry+x",
                 "manifest_path": "/nonexistent/ug-cuda/Cargo.toml"},
                {"id": "cc", "name": "candle-core", "version": "0.10.2", "source": "registry+x",
                 "manifest_path": "/nonexistent/candle-core/Cargo.toml"},
                {"id": "mq", "name": "mistralrs-quant", "version": "0.8.1", "source": "registry+x",
                 "manifest_path": "/nonexistent/mq/Cargo.toml"},
                {"id": "unused", "name": "cudarc", "version": "0.1.0", "source": "registry+x",
                 "manifest_path": "/nonexistent/old/Cargo.toml"},
            ],
            "resolve": {"nodes": [
                {"id": "p-cudarc", "deps": []},
                {"id": "r-cudarc", "deps": []},
                {"id": "ug", "deps": [{"pkg": "r-cudarc"}]},
                {"id": "mq", "deps": [{"pkg": "p-cudarc"}]},
                {"id": "cc", "deps": [{"pkg": "p-cudarc"}, {"pkg": "mq"}]},
            ]},
        })
        .to_string();
        let names = ["cudarc".to_string(), "bindgen_cuda".to_string()];
        let real = std::fs::canonicalize(dir.join("dropins/cudarc/Cargo.toml")).unwrap();
        assert_eq!(
            resolved(&meta, &names).unwrap(),
            [
                // Ordered by id; the unused 0.1.0 is not in the resolve.
                format!(
                    "cudarc 0.19.10 path {} candle-core@0.10.2,mistralrs-quant@0.8.1",
                    real.display()
                ),
                "cudarc 0.17.8 registry+https://github.com/rust-lang/crates.io-index \
                 /nonexistent/cudarc-0.17.8/Cargo.toml ug-cuda@0.5.0"
                    .to_string(),
            ]
        );
        assert_eq!(
            resolved(&meta, &["candle-core".to_string()]).unwrap(),
            ["candle-core 0.10.2 registry+x /nonexistent/candle-core/Cargo.toml -"]
        );
        assert!(resolved(r#"{"packages":[]}"#, &names).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_crate_in_the_resolve_for_more_than_one_user() {
        let lines: Vec<String> = [
            "cudarc 0.19.10 path /w/dropins/cudarc/Cargo.toml candle-core@0.10.2,mistralrs-quant@0.8.1",
            "cudarc 0.17.8 registry+x /r/cudarc-0.17.8/Cargo.toml ug-cuda@0.5.0",
            "cudarc 0.16.0 registry+x /r/cudarc-0.16.0/Cargo.toml candle-core@0.10.2,ug-cuda@0.4.0",
            "cudarc 0.15.0 registry+x /r/cudarc-0.15.0/Cargo.toml -",
            "ug-cuda 0.5.0 registry+x /r/ug-cuda/Cargo.toml candle-ug@0.5.0",
        ]
        .map(str::to_owned)
        .to_vec();
        // The path crate and the one only ug-cuda uses pass; a second user
        // and no user at all do not.
        assert_eq!(
            not_only_for(&lines, "cudarc", "ug-cuda"),
            [lines[2].as_str(), lines[3].as_str()]
        );
        assert!(not_only_for(&lines, "ug-cuda", "candle-ug").is_empty());
        assert_eq!(not_only_for(&lines, "ug-cuda", "ug"), [lines[4].as_str()]);
    }

    #[test]
    fn package_ids_old_and_new() {
        assert_eq!(package_of("path+file:///w/hip#0.1.0"), "hip");
        assert_eq!(
            package_of("path+file:///w/test-kit#hip-test-kit@0.1.0"),
            "hip-test-kit"
        );
        assert_eq!(
            package_of("registry+https://github.com/rust-lang/crates.io-index#half@2.7.1"),
            "half"
        );
    }

    #[test]
    fn relative_paths_climb_and_descend() {
        assert_eq!(
            relative(Path::new("/w/hip/src/lib.rs"), Path::new("/w")),
            Path::new("hip/src/lib.rs")
        );
        assert_eq!(
            relative(Path::new("/w/hip/src/lib.rs"), Path::new("/w/rccl")),
            Path::new("../hip/src/lib.rs")
        );
        assert_eq!(relative(Path::new("/w"), Path::new("/w")), Path::new("."));
        assert_eq!(
            relative(Path::new("/w/./a/../b"), Path::new("/w")),
            Path::new("b")
        );
    }
}

//! Checks of a crate's own source files (tier 1: no runtime, no GPU).

use std::path::Path;

/// Asserts that none of `files` (paths under the crate's `src/`, e.g.
/// `"nvidia/mod.rs"`) contains `name`, e.g. that a -sys crate's platform
/// backends do not import the loader that chooses between them
/// (`"crate::loader"`). `manifest_dir` is the crate's
/// `env!("CARGO_MANIFEST_DIR")`. Panics, failing the test, naming the file
/// that contains it or cannot be read.
pub fn assert_sources_do_not_name(manifest_dir: &str, files: &[&str], name: &str) {
    assert!(!files.is_empty(), "no files to check for {name}");
    let src = Path::new(manifest_dir).join("src");
    for file in files {
        let path = src.join(file);
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{} could not be read: {e}", path.display()));
        assert!(!text.contains(name), "{file} names {name}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_name_in_a_source_file() {
        let dir = env!("CARGO_MANIFEST_DIR");
        assert_sources_do_not_name(dir, &["compare.rs"], "crate::loader");
        let found = std::panic::catch_unwind(|| {
            assert_sources_do_not_name(dir, &["sources.rs"], "assert_sources_do_not_name")
        });
        assert!(found.is_err(), "this file names the function");
        let missing =
            std::panic::catch_unwind(|| assert_sources_do_not_name(dir, &["no_such_file.rs"], "x"));
        assert!(missing.is_err(), "a missing file must fail");
    }
}

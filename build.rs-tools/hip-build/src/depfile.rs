//! Reading the make-style dependency files that clang writes with `-MD -MF`.

use std::path::PathBuf;

/// The prerequisites listed in a dependency file (`target: a.hip b.h ...`),
/// with line continuations and escaped spaces undone.
pub(crate) fn prerequisites(text: &str) -> Vec<PathBuf> {
    let joined = text.replace("\\\r\n", " ").replace("\\\n", " ");
    let Some((_, rest)) = split_target(&joined) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut current = String::new();
    let mut chars = rest.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&' ') => {
                current.push(' ');
                chars.next();
            }
            c if c.is_whitespace() => {
                if !current.is_empty() {
                    out.push(PathBuf::from(std::mem::take(&mut current)));
                }
            }
            c => current.push(c),
        }
    }
    if !current.is_empty() {
        out.push(PathBuf::from(current));
    }
    out
}

/// Splits at the first `: ` that ends the target (a Windows drive letter's
/// colon is not followed by whitespace).
fn split_target(text: &str) -> Option<(&str, &str)> {
    let bytes = text.as_bytes();
    (0..bytes.len())
        .find(|&i| bytes[i] == b':' && bytes.get(i + 1).map_or(true, |b| b.is_ascii_whitespace()))
        .map(|i| (&text[..i], &text[i + 1..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continuations_and_escaped_spaces() {
        let text = "out.co: k.hip \\\n  /usr/include/hip/hip_runtime.h \\\n  my\\ dir/inc.h\n";
        assert_eq!(
            prerequisites(text),
            vec![
                PathBuf::from("k.hip"),
                PathBuf::from("/usr/include/hip/hip_runtime.h"),
                PathBuf::from("my dir/inc.h"),
            ]
        );
    }

    #[test]
    fn no_target_means_nothing() {
        assert!(prerequisites("").is_empty());
    }
}

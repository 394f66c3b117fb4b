//! `wheel-headers DEST WHEEL...`: the headers of NVIDIA's Python wheels,
//! for `build.rs-tools/scripts/fetch-cuda-headers.sh` (which downloads the
//! wheels and calls this once per wheel).
//!
//! Each member `nvidia/<component>/include/<path>` of a wheel (a zip
//! archive) is written to `DEST/nvidia/<component>/include/<path>`, and,
//! but for NCCL's (read by rccl-sys's checks only), again to
//! `DEST/include/<path>`, all components merged: a later member or wheel
//! overwrites an earlier one. Each wheel's file name is appended to
//! `DEST/PACKAGES`. The output is byte for byte what Python's `zipfile`
//! extracted before: members in the archive's order, a name given twice
//! read from its last entry (as `ZipFile.extract(name)` does), every
//! member's CRC-32 checked.
//!
//! The reader is this file's own (inflating with `miniz_oxide`, already in
//! the lock file through hip-emu, as `hip-emu/build/wheel.rs` does): the
//! wheels are up to a third of 1.9 GB, so it reads the central directory
//! and then one member at a time, never the whole archive. ZIP64 archives,
//! encrypted members and methods other than stored and deflate are refused
//! by name; no pinned wheel has them.

use crate::Result;
use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

/// Writes the headers of `wheel` under `dest` (see the module doc); the
/// number of headers written.
pub(crate) fn extract(dest: &Path, wheel: &Path) -> Result<usize> {
    let shown = wheel.display();
    let file_name = wheel
        .file_name()
        .ok_or_else(|| format!("{shown}: not a file name"))?
        .to_string_lossy();
    let packages = dest.join("PACKAGES");
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&packages)
        .and_then(|mut f| writeln!(f, "{file_name}"))
        .map_err(|e| format!("{}: {e}", packages.display()))?;

    let mut zip = File::open(wheel).map_err(|e| format!("{shown}: {e}"))?;
    let entries = central_directory(&mut zip).map_err(|e| format!("{shown}: {e}"))?;
    // `ZipFile.extract(name)` reads the last entry of that name.
    let last: HashMap<&str, usize> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.name.as_str(), i))
        .collect();
    let mut written = 0;
    for entry in &entries {
        let Some((component, path)) =
            header_path(&entry.name).map_err(|e| format!("{shown}: {e}"))?
        else {
            continue;
        };
        let chosen = &entries[last[entry.name.as_str()]];
        let bytes = read_member(&mut zip, chosen).map_err(|e| format!("{shown}: {e}"))?;
        write_file(&dest.join(&entry.name), &bytes)?;
        if component != "nccl" {
            write_file(&dest.join("include").join(path), &bytes)?;
        }
        written += 1;
    }
    Ok(written)
}

/// `(component, path under include/)` of a member `nvidia/<component>/include/<path>`
/// that is a file; `None` for any other member (Python's filter). A header
/// whose name has an empty, `.` or `..` part is refused: it would be
/// written elsewhere than its name says.
fn header_path(name: &str) -> Result<Option<(&str, &str)>> {
    let mut parts = name.splitn(4, '/');
    let (Some(top), Some(component), Some(include), Some(path)) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Ok(None);
    };
    if top != "nvidia" || include != "include" || name.ends_with('/') {
        return Ok(None);
    }
    let safe = |p: &str| !p.is_empty() && p != "." && p != "..";
    if !safe(component) || !path.split('/').all(safe) {
        return Err(format!("member {name}: an empty, . or .. part"));
    }
    Ok(Some((component, path)))
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// One central-directory entry: what reading its member needs.
#[derive(Debug)]
struct Entry {
    name: String,
    flags: u16,
    method: u16,
    crc: u32,
    compressed: u64,
    size: u64,
    local_header: u64,
}

fn u16_at(b: &[u8], o: usize) -> u16 {
    u16::from_le_bytes([b[o], b[o + 1]])
}

fn u32_at(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]])
}

const END_OF_CENTRAL_DIRECTORY: u32 = 0x0605_4b50;
const ZIP64_LOCATOR: u32 = 0x0706_4b50;
const CENTRAL_ENTRY: u32 = 0x0201_4b50;
const LOCAL_HEADER: u32 = 0x0403_4b50;

/// The archive's entries, in the central directory's order.
fn central_directory(zip: &mut (impl Read + Seek)) -> Result<Vec<Entry>> {
    let len = zip.seek(SeekFrom::End(0)).map_err(|e| e.to_string())?;
    // The end record (22 bytes and a comment of at most 65535), and the
    // ZIP64 locator (20 bytes) that would precede it.
    let tail_len = len.min(22 + 65_535 + 20);
    let mut tail = vec![0; tail_len as usize];
    zip.seek(SeekFrom::Start(len - tail_len))
        .and_then(|_| zip.read_exact(&mut tail))
        .map_err(|e| e.to_string())?;
    let eocd = (0..tail.len().saturating_sub(21))
        .rev()
        .find(|&o| u32_at(&tail, o) == END_OF_CENTRAL_DIRECTORY)
        .ok_or("not a zip archive (no end-of-central-directory record)")?;
    let zip64 = eocd >= 20 && u32_at(&tail, eocd - 20) == ZIP64_LOCATOR;
    let count = u16_at(&tail, eocd + 10);
    let dir_len = u32_at(&tail, eocd + 12);
    let dir_at = u32_at(&tail, eocd + 16);
    if zip64 || count == u16::MAX || dir_len == u32::MAX || dir_at == u32::MAX {
        return Err("a ZIP64 archive, which this reader does not read".into());
    }
    let mut dir = vec![0; dir_len as usize];
    zip.seek(SeekFrom::Start(u64::from(dir_at)))
        .and_then(|_| zip.read_exact(&mut dir))
        .map_err(|e| format!("reading the central directory: {e}"))?;
    let mut entries = Vec::with_capacity(usize::from(count));
    let mut at = 0;
    for _ in 0..count {
        if at + 46 > dir.len() || u32_at(&dir, at) != CENTRAL_ENTRY {
            return Err("corrupt central directory".into());
        }
        let name_len = usize::from(u16_at(&dir, at + 28));
        let extra_len = usize::from(u16_at(&dir, at + 30));
        let comment_len = usize::from(u16_at(&dir, at + 32));
        let flags = u16_at(&dir, at + 8);
        let raw = dir
            .get(at + 46..at + 46 + name_len)
            .ok_or("corrupt central directory")?;
        let name = member_name(raw, flags)?;
        let [compressed, size, local_header] =
            [20, 24, 42].map(|o| u64::from(u32_at(&dir, at + o)));
        if [compressed, size, local_header].contains(&u64::from(u32::MAX)) {
            return Err(format!(
                "{name}: a ZIP64 member, which this reader does not read"
            ));
        }
        entries.push(Entry {
            name,
            flags,
            method: u16_at(&dir, at + 10),
            crc: u32_at(&dir, at + 16),
            compressed,
            size,
            local_header,
        });
        at += 46 + name_len + extra_len + comment_len;
    }
    Ok(entries)
}

/// A member's name: UTF-8 when the archive says so (flag bit 11), else
/// code page 437, read here for ASCII only (Python reads it whole).
fn member_name(raw: &[u8], flags: u16) -> Result<String> {
    let utf8 = flags & 0x0800 != 0;
    let name = match std::str::from_utf8(raw) {
        Ok(s) if utf8 || s.is_ascii() => s.to_owned(),
        _ => {
            return Err(format!(
                "member name {} is not {}",
                String::from_utf8_lossy(raw),
                if utf8 { "UTF-8" } else { "ASCII" }
            ))
        }
    };
    if name.contains('\0') {
        return Err(format!("member name {name:?} holds a NUL"));
    }
    Ok(name)
}

/// A member's bytes, inflated and checked against its size and CRC-32.
fn read_member(zip: &mut (impl Read + Seek), entry: &Entry) -> Result<Vec<u8>> {
    let name = &entry.name;
    if entry.flags & 1 != 0 {
        return Err(format!("{name} is encrypted"));
    }
    let mut local = [0; 30];
    zip.seek(SeekFrom::Start(entry.local_header))
        .and_then(|_| zip.read_exact(&mut local))
        .map_err(|e| format!("{name}: {e}"))?;
    if u32_at(&local, 0) != LOCAL_HEADER {
        return Err(format!("{name}: corrupt local header"));
    }
    let skip = u64::from(u16_at(&local, 26)) + u64::from(u16_at(&local, 28));
    let compressed = usize::try_from(entry.compressed).map_err(|e| format!("{name}: {e}"))?;
    let mut data = vec![0; compressed];
    zip.seek(SeekFrom::Current(skip as i64))
        .and_then(|_| zip.read_exact(&mut data))
        .map_err(|e| format!("{name}: {e}"))?;
    let size = usize::try_from(entry.size).map_err(|e| format!("{name}: {e}"))?;
    let bytes = match entry.method {
        0 => data,
        8 => miniz_oxide::inflate::decompress_to_vec_with_limit(&data, size)
            .map_err(|e| format!("{name}: inflating: {:?}", e.status))?,
        m => {
            return Err(format!(
                "{name}: compression method {m}, which this reader does not read"
            ))
        }
    };
    if bytes.len() != size {
        return Err(format!(
            "{name}: {} bytes, not the {size} the archive lists",
            bytes.len()
        ));
    }
    if crc32(&bytes) != entry.crc {
        return Err(format!("{name}: bad CRC-32"));
    }
    Ok(bytes)
}

/// CRC-32 (IEEE 802.3, reflected), as zip archives store it.
fn crc32(bytes: &[u8]) -> u32 {
    static TABLE: std::sync::OnceLock<[u32; 256]> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut t = [0; 256];
        for (i, slot) in t.iter_mut().enumerate() {
            let mut c = i as u32;
            for _ in 0..8 {
                c = if c & 1 != 0 {
                    0xedb8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
            *slot = c;
        }
        t
    });
    !bytes.iter().fold(!0u32, |c, &b| {
        table[((c ^ u32::from(b)) & 0xff) as usize] ^ (c >> 8)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// A zip archive of `(name, bytes, deflated)` members, as a wheel
    /// writer lays it out.
    fn zip(members: &[(&str, &[u8], bool)]) -> Vec<u8> {
        let (mut out, mut dir) = (Vec::new(), Vec::new());
        for (name, bytes, deflated) in members {
            let data = if *deflated {
                miniz_oxide::deflate::compress_to_vec(bytes, 6)
            } else {
                bytes.to_vec()
            };
            let fields = |v: &mut Vec<u8>| {
                v.extend_from_slice(&20u16.to_le_bytes()); // version needed
                v.extend_from_slice(&0u16.to_le_bytes()); // flags
                v.extend_from_slice(&(if *deflated { 8u16 } else { 0 }).to_le_bytes());
                v.extend_from_slice(&[0; 4]); // time, date
                v.extend_from_slice(&crc32(bytes).to_le_bytes());
                v.extend_from_slice(&(data.len() as u32).to_le_bytes());
                v.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
                v.extend_from_slice(&(name.len() as u16).to_le_bytes());
                v.extend_from_slice(&0u16.to_le_bytes()); // extra
            };
            dir.extend_from_slice(&CENTRAL_ENTRY.to_le_bytes());
            dir.extend_from_slice(&20u16.to_le_bytes()); // version made by
            fields(&mut dir);
            dir.extend_from_slice(&[0; 6]); // comment, disk, internal attributes
            dir.extend_from_slice(&[0; 4]); // external attributes
            dir.extend_from_slice(&(out.len() as u32).to_le_bytes());
            dir.extend_from_slice(name.as_bytes());
            out.extend_from_slice(&LOCAL_HEADER.to_le_bytes());
            fields(&mut out);
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(&data);
        }
        let dir_at = out.len() as u32;
        out.extend_from_slice(&dir);
        out.extend_from_slice(&END_OF_CENTRAL_DIRECTORY.to_le_bytes());
        out.extend_from_slice(&[0; 4]); // disks
        out.extend_from_slice(&(members.len() as u16).to_le_bytes());
        out.extend_from_slice(&(members.len() as u16).to_le_bytes());
        out.extend_from_slice(&(dir.len() as u32).to_le_bytes());
        out.extend_from_slice(&dir_at.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes()); // comment
        out
    }

    /// A scratch folder of the system's temporary folder, removed by
    /// [`files`]'s caller at the end of each test.
    fn scratch(name: &str) -> PathBuf {
        #[allow(clippy::disallowed_methods)] // a few small files, removed by the test
        let d = std::env::temp_dir().join(format!("xtask-wheel-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("dest/include")).unwrap();
        d
    }

    /// Every file under `dir`: relative path and text, sorted.
    fn files(dir: &Path) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut dirs = vec![dir.to_path_buf()];
        while let Some(d) = dirs.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    dirs.push(p);
                } else {
                    let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                    out.push((rel, std::fs::read_to_string(&p).unwrap()));
                }
            }
        }
        out.sort();
        out
    }

    fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn headers_are_written_as_in_the_wheel_and_merged_but_nccls() {
        let d = scratch("merge");
        let runtime = d.join("nvidia_cuda_runtime_cu12-12.9.79-py3-none-manylinux.whl");
        std::fs::write(
            &runtime,
            zip(&[
                ("nvidia/__init__.py", b"", false),
                ("nvidia/cuda_runtime/include/", b"", false),
                ("nvidia/cuda_runtime/include/cuda.h", b"cuda 1\n", true),
                (
                    "nvidia/cuda_runtime/include/crt/host_defines.h",
                    b"crt\n",
                    true,
                ),
                ("nvidia/cuda_runtime/lib/libcudart.so.12", b"ELF", false),
                ("nvidia/cuda_runtime/include", b"no file", false),
                (
                    "nvidia_cuda_runtime_cu12-12.9.79.dist-info/RECORD",
                    b"r",
                    false,
                ),
                (
                    "nvidia/cuda_runtime/include/shared.h",
                    b"runtime's\n",
                    false,
                ),
            ]),
        )
        .unwrap();
        let nccl = d.join("nvidia_nccl_cu12-2.27.3-py3-none-manylinux.whl");
        std::fs::write(
            &nccl,
            zip(&[
                ("nvidia/nccl/include/nccl.h", b"nccl\n", true),
                ("nvidia/nccl/include/shared.h", b"nccl's\n", true),
            ]),
        )
        .unwrap();
        let cublas = d.join("nvidia_cublas_cu12-12.9.3.13-py3-none-manylinux.whl");
        std::fs::write(
            &cublas,
            zip(&[("nvidia/cublas/include/shared.h", b"cublas's\n", true)]),
        )
        .unwrap();
        let dest = d.join("dest");
        assert_eq!(extract(&dest, &runtime), Ok(3));
        assert_eq!(extract(&dest, &nccl), Ok(2));
        assert_eq!(extract(&dest, &cublas), Ok(1));
        assert_eq!(
            files(&dest),
            pairs(&[
                (
                    "PACKAGES",
                    "nvidia_cuda_runtime_cu12-12.9.79-py3-none-manylinux.whl\n\
                     nvidia_nccl_cu12-2.27.3-py3-none-manylinux.whl\n\
                     nvidia_cublas_cu12-12.9.3.13-py3-none-manylinux.whl\n"
                ),
                ("include/crt/host_defines.h", "crt\n"),
                ("include/cuda.h", "cuda 1\n"),
                // The last wheel's, NCCL's left out.
                ("include/shared.h", "cublas's\n"),
                ("nvidia/cublas/include/shared.h", "cublas's\n"),
                ("nvidia/cuda_runtime/include/crt/host_defines.h", "crt\n"),
                ("nvidia/cuda_runtime/include/cuda.h", "cuda 1\n"),
                ("nvidia/cuda_runtime/include/shared.h", "runtime's\n"),
                ("nvidia/nccl/include/nccl.h", "nccl\n"),
                ("nvidia/nccl/include/shared.h", "nccl's\n"),
            ])
        );
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_name_given_twice_is_read_from_its_last_entry() {
        let d = scratch("twice");
        let wheel = d.join("w.whl");
        std::fs::write(
            &wheel,
            zip(&[
                ("nvidia/a/include/x.h", b"first\n", true),
                ("nvidia/a/include/y.h", b"y\n", false),
                ("nvidia/a/include/x.h", b"second\n", false),
            ]),
        )
        .unwrap();
        let dest = d.join("dest");
        assert_eq!(extract(&dest, &wheel), Ok(3));
        assert_eq!(
            files(&dest),
            pairs(&[
                ("PACKAGES", "w.whl\n"),
                ("include/x.h", "second\n"),
                ("include/y.h", "y\n"),
                ("nvidia/a/include/x.h", "second\n"),
                ("nvidia/a/include/y.h", "y\n"),
            ])
        );
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_damaged_or_unread_archive_fails_naming_why() {
        let d = scratch("bad");
        let dest = d.join("dest");
        let wheel = d.join("w.whl");
        let good = zip(&[("nvidia/a/include/x.h", b"header text\n", false)]);

        // A changed byte of the member's data: the CRC-32 no longer holds.
        let mut bad = good.clone();
        let at = good
            .windows(12)
            .position(|w| w == b"header text\n")
            .unwrap();
        bad[at] = b'H';
        std::fs::write(&wheel, &bad).unwrap();
        let e = extract(&dest, &wheel).unwrap_err();
        assert!(
            e.ends_with("w.whl: nvidia/a/include/x.h: bad CRC-32"),
            "{e}"
        );

        std::fs::write(&wheel, &good[..good.len() - 22]).unwrap();
        let e = extract(&dest, &wheel).unwrap_err();
        assert!(e.contains("no end-of-central-directory record"), "{e}");

        // Method 12 (bzip2).
        let mut bzip2 = good.clone();
        for sig in [LOCAL_HEADER, CENTRAL_ENTRY] {
            let at = bzip2
                .windows(4)
                .position(|w| w == sig.to_le_bytes())
                .unwrap();
            let method = at + if sig == LOCAL_HEADER { 8 } else { 10 };
            bzip2[method] = 12;
        }
        std::fs::write(&wheel, &bzip2).unwrap();
        let e = extract(&dest, &wheel).unwrap_err();
        assert!(e.contains("compression method 12"), "{e}");

        // The central directory's offset set to ZIP64's "see the extra".
        let mut zip64 = good.clone();
        let n = zip64.len();
        zip64[n - 6..n - 2].copy_from_slice(&u32::MAX.to_le_bytes());
        std::fs::write(&wheel, &zip64).unwrap();
        let e = extract(&dest, &wheel).unwrap_err();
        assert!(e.contains("ZIP64"), "{e}");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn only_files_under_a_components_include_are_headers() {
        assert_eq!(
            header_path("nvidia/cufft/include/cufft.h"),
            Ok(Some(("cufft", "cufft.h")))
        );
        assert_eq!(
            header_path("nvidia/cuda_runtime/include/crt/math_functions.hpp"),
            Ok(Some(("cuda_runtime", "crt/math_functions.hpp")))
        );
        for not in [
            "nvidia/cufft/include/",
            "nvidia/cufft/include/crt/",
            "nvidia/cufft/include",
            "nvidia/cufft/lib/libcufft.so.11",
            "nvidia/include/x/y.h",
            "other/cufft/include/cufft.h",
            "/nvidia/cufft/include/cufft.h",
        ] {
            assert_eq!(header_path(not), Ok(None), "{not}");
        }
        for refused in [
            "nvidia/cufft/include/../../../x.h",
            "nvidia/../include/x.h",
            "nvidia/cufft/include//x.h",
            "nvidia/cufft/include/./x.h",
        ] {
            assert!(header_path(refused).is_err(), "{refused}");
        }
    }

    #[test]
    fn crc32_is_the_zip_one() {
        assert_eq!(crc32(b""), 0);
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
    }
}

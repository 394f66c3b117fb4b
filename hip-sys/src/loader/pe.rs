//! The names of the DLLs a Windows library imports, read from its file.
//!
//! When `LoadLibraryExW` fails with "module not found" for a file that
//! exists, Windows does not say which of its imports was missing; this
//! reader finds them so the report can (a missing COMGR DLL beside
//! `amdhip64_6.dll` is the usual case). Pure Rust, so it is tested on every
//! system.
//!
//! The walk: the DOS header's `e_lfanew` -> the `PE\0\0` signature -> the
//! COFF header (section count, optional-header size) -> the optional
//! header's data directory 1 (imports) -> the section that holds each
//! relative address -> the import descriptors -> their NUL-terminated
//! names. Every offset is checked against the slice; anything malformed is
//! an `Err` saying what, never a panic.

use std::fmt;

/// Why a file's import table could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PeError(pub String);

impl fmt::Display for PeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not a readable PE file: {}", self.0)
    }
}

impl std::error::Error for PeError {}

fn bad(what: impl Into<String>) -> PeError {
    PeError(what.into())
}

/// At most this many import descriptors are read: far more than any real
/// DLL has, and a bound on the work a crafted file can cause.
const MAX_IMPORTS: usize = 4096;
/// The longest DLL name accepted (Windows paths are shorter still).
const MAX_NAME: usize = 260;

/// The `N` bytes at `at`, or an error saying they lie past the end.
fn bytes_at<const N: usize>(b: &[u8], at: usize) -> Result<[u8; N], PeError> {
    let end = at.checked_add(N).ok_or_else(|| bad("offset overflows"))?;
    b.get(at..end)
        .and_then(|s| s.try_into().ok())
        .ok_or_else(|| {
            bad(format!(
                "{N} bytes at {at:#x} lie past the end ({:#x})",
                b.len()
            ))
        })
}

fn u16_at(b: &[u8], at: usize) -> Result<u16, PeError> {
    bytes_at(b, at).map(u16::from_le_bytes)
}

fn u32_at(b: &[u8], at: usize) -> Result<u32, PeError> {
    bytes_at(b, at).map(u32::from_le_bytes)
}

/// One section header: where its bytes sit in memory and in the file.
#[derive(Clone, Copy, Debug)]
struct Section {
    virtual_address: u32,
    virtual_size: u32,
    raw_offset: u32,
    raw_size: u32,
}

/// The file offset of relative virtual address `rva`, from the section
/// that holds it; only bytes present in the file count.
fn file_offset(sections: &[Section], rva: u32) -> Result<usize, PeError> {
    for s in sections {
        let size = s.virtual_size.max(s.raw_size);
        let start = s.virtual_address;
        let Some(end) = start.checked_add(size) else {
            continue;
        };
        if rva >= start && rva < end {
            let delta = rva - start;
            if delta >= s.raw_size {
                return Err(bad(format!("address {rva:#x} lies in no file bytes")));
            }
            return usize::try_from(s.raw_offset)
                .ok()
                .and_then(|o| o.checked_add(delta as usize))
                .ok_or_else(|| bad("offset overflows"));
        }
    }
    Err(bad(format!("address {rva:#x} lies in no section")))
}

/// The names of the DLLs `bytes` (a PE file: `.dll` or `.exe`) imports, in
/// the order of its import table. A file without imports gives an empty
/// list.
pub fn imported_dlls(bytes: &[u8]) -> Result<Vec<String>, PeError> {
    if bytes.get(0..2) != Some(b"MZ") {
        return Err(bad("no MZ signature"));
    }
    let pe = u32_at(bytes, 0x3c)? as usize;
    if bytes_at::<4>(bytes, pe).ok().as_ref() != Some(b"PE\0\0") {
        return Err(bad(format!("no PE signature at {pe:#x}")));
    }
    let coff = pe + 4;
    let section_count = u16_at(bytes, coff + 2)? as usize;
    let optional_size = u16_at(bytes, coff + 16)? as usize;
    let optional = coff + 20;
    let (directory_count_at, directories_at) = match u16_at(bytes, optional)? {
        0x10b => (optional + 92, optional + 96),   // PE32
        0x20b => (optional + 108, optional + 112), // PE32+
        m => return Err(bad(format!("unknown optional header magic {m:#x}"))),
    };
    let directory_count = u32_at(bytes, directory_count_at)? as usize;
    if directory_count < 2 {
        return Ok(Vec::new());
    }
    // Data directory 1: the import table's address and size.
    if directories_at + 16 > optional + optional_size {
        return Err(bad("the import directory lies past the optional header"));
    }
    let import_rva = u32_at(bytes, directories_at + 8)?;
    if import_rva == 0 {
        return Ok(Vec::new());
    }
    let table = optional + optional_size;
    let sections = (0..section_count)
        .map(|i| {
            let at = table + i * 40;
            Ok(Section {
                virtual_size: u32_at(bytes, at + 8)?,
                virtual_address: u32_at(bytes, at + 12)?,
                raw_size: u32_at(bytes, at + 16)?,
                raw_offset: u32_at(bytes, at + 20)?,
            })
        })
        .collect::<Result<Vec<_>, PeError>>()?;
    let mut at = file_offset(&sections, import_rva)?;
    let mut names = Vec::new();
    loop {
        if names.len() >= MAX_IMPORTS {
            return Err(bad(format!("more than {MAX_IMPORTS} import descriptors")));
        }
        let descriptor: [u8; 20] = bytes_at(bytes, at)?;
        if descriptor.iter().all(|&b| b == 0) {
            return Ok(names);
        }
        let name_rva = u32_at(bytes, at + 12)?;
        names.push(c_string_at(bytes, file_offset(&sections, name_rva)?)?);
        at += 20;
    }
}

/// The NUL-terminated ASCII name at `at`.
fn c_string_at(bytes: &[u8], at: usize) -> Result<String, PeError> {
    let tail = bytes
        .get(at..)
        .ok_or_else(|| bad(format!("name at {at:#x} lies past the end")))?;
    let len = tail
        .iter()
        .take(MAX_NAME + 1)
        .position(|&b| b == 0)
        .ok_or_else(|| {
            bad(format!(
                "name at {at:#x} has no end within {MAX_NAME} bytes"
            ))
        })?;
    let name = &tail[..len];
    if name.is_empty() || !name.iter().all(|b| b.is_ascii_graphic() || *b == b' ') {
        return Err(bad(format!("name at {at:#x} is not a file name")));
    }
    Ok(String::from_utf8_lossy(name).into_owned())
}

/// Builds minimal PE32+ images, the way a linker lays them out: headers,
/// then one section holding the import descriptors and the names.
#[cfg(test)]
pub(crate) fn image_importing(names: &[&str]) -> Vec<u8> {
    let pe = 0x80usize;
    let optional_size = 240usize; // PE32+ with 16 data directories
    let section_table = pe + 24 + optional_size;
    let raw_offset = 0x200usize;
    let rva = 0x1000u32;
    let mut section = vec![0u8; (names.len() + 1) * 20];
    for (i, name) in names.iter().enumerate() {
        let name_rva = rva as usize + section.len();
        section[i * 20 + 12..i * 20 + 16].copy_from_slice(&(name_rva as u32).to_le_bytes());
        section[i * 20..i * 20 + 4].copy_from_slice(&1u32.to_le_bytes());
        section.extend_from_slice(name.as_bytes());
        section.push(0);
    }
    let mut b = vec![0u8; raw_offset];
    b[0..2].copy_from_slice(b"MZ");
    b[0x3c..0x40].copy_from_slice(&(pe as u32).to_le_bytes());
    b[pe..pe + 4].copy_from_slice(b"PE\0\0");
    b[pe + 4..pe + 6].copy_from_slice(&0x8664u16.to_le_bytes());
    b[pe + 6..pe + 8].copy_from_slice(&1u16.to_le_bytes());
    b[pe + 20..pe + 22].copy_from_slice(&(optional_size as u16).to_le_bytes());
    let opt = pe + 24;
    b[opt..opt + 2].copy_from_slice(&0x20bu16.to_le_bytes());
    b[opt + 108..opt + 112].copy_from_slice(&16u32.to_le_bytes());
    b[opt + 120..opt + 124].copy_from_slice(&rva.to_le_bytes());
    b[opt + 124..opt + 128].copy_from_slice(&((names.len() as u32 + 1) * 20).to_le_bytes());
    let s = section_table;
    b[s..s + 6].copy_from_slice(b".idata");
    b[s + 8..s + 12].copy_from_slice(&(section.len() as u32).to_le_bytes());
    b[s + 12..s + 16].copy_from_slice(&rva.to_le_bytes());
    b[s + 16..s + 20].copy_from_slice(&(section.len() as u32).to_le_bytes());
    b[s + 20..s + 24].copy_from_slice(&(raw_offset as u32).to_le_bytes());
    b.extend_from_slice(&section);
    b
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn names_come_back_in_table_order() {
        let img = image_importing(&["amd_comgr_2.dll", "KERNEL32.dll"]);
        assert_eq!(
            imported_dlls(&img).unwrap(),
            ["amd_comgr_2.dll", "KERNEL32.dll"]
        );
        assert_eq!(
            imported_dlls(&image_importing(&[])).unwrap(),
            Vec::<String>::new()
        );
    }

    #[test]
    fn malformed_headers_are_named() {
        let img = image_importing(&["a.dll"]);
        assert_eq!(imported_dlls(b"").unwrap_err(), bad("no MZ signature"));
        assert_eq!(
            imported_dlls(b"\x7fELF").unwrap_err(),
            bad("no MZ signature")
        );
        let mut no_pe = img.clone();
        no_pe[0x80] = b'X';
        assert!(imported_dlls(&no_pe)
            .unwrap_err()
            .0
            .contains("no PE signature"));
        let mut far = img.clone();
        far[0x3c..0x40].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(imported_dlls(&far).is_err());
        let mut magic = img.clone();
        magic[0x80 + 24] = 0x07;
        assert!(imported_dlls(&magic).unwrap_err().0.contains("magic"));
        // A name address outside every section.
        let mut stray = img.clone();
        let desc = 0x200 + 12;
        stray[desc..desc + 4].copy_from_slice(&0x9000_0000u32.to_le_bytes());
        assert!(imported_dlls(&stray).unwrap_err().0.contains("no section"));
        // A name without its NUL.
        let cut = img.len() - 1;
        assert!(imported_dlls(&img[..cut]).is_err());
    }

    #[test]
    fn a_table_without_its_end_is_an_error() {
        // The all-zero descriptor that ends the table overwritten with a
        // copy of the first: the reader walks into the names, then past
        // the end of the file, and says so.
        let mut img = image_importing(&["a.dll"]);
        let (first, end) = (0x200, 0x214);
        let copy = img[first..first + 20].to_vec();
        img[end..end + 20].copy_from_slice(&copy);
        let e = imported_dlls(&img).unwrap_err();
        assert!(
            e.0.contains("past the end") || e.0.contains("not a file name"),
            "{e}"
        );
    }

    proptest! {
        // Miri interprets every case about a thousand times slower: sixteen
        // there check the reader's slicing, the full run is native.
        // It runs isolated from the file system, where failures persist.
        #![proptest_config(ProptestConfig {
            cases: if cfg!(miri) { 16 } else { 20_000 },
            failure_persistence: if cfg!(miri) {
                None
            } else {
                ProptestConfig::default().failure_persistence
            },
            ..ProptestConfig::default()
        })]

        /// Truncations and bit flips of a valid image never panic, and a
        /// success returns only names the reader could bound.
        #[test]
        fn damaged_images_never_panic(
            cut in 0usize..700,
            flips in proptest::collection::vec((0usize..700, 0u8..8), 0..6),
        ) {
            let mut img = image_importing(&["amdhip64_6.dll", "amd_comgr_2.dll"]);
            for (at, bit) in flips {
                if at < img.len() {
                    img[at] ^= 1 << bit;
                }
            }
            let cut = cut.min(img.len());
            if let Ok(names) = imported_dlls(&img[..cut]) {
                prop_assert!(names.len() <= MAX_IMPORTS);
                prop_assert!(names.iter().all(|n| !n.is_empty() && n.len() <= MAX_NAME));
            }
        }

        /// Random bytes behind a valid MZ and PE header never panic.
        #[test]
        fn random_bytes_never_panic(tail in proptest::collection::vec(any::<u8>(), 0..600)) {
            let mut img = image_importing(&[])[..0x80 + 4].to_vec();
            img.extend(tail);
            let _ = imported_dlls(&img);
        }
    }
}

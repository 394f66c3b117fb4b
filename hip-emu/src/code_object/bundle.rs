//! Clang offload bundles (clang's "Clang Offload Bundler" documentation,
//! "Bundled Binary File Layout"), and their compressed form (`CCOB`,
//! [`decompress`]). Uncompressed:
//!
//! ```text
//! "__CLANG_OFFLOAD_BUNDLE__"            24 bytes of magic
//! u64 number of entries
//! per entry: u64 offset, u64 size, u64 id length, id (not NUL-terminated)
//! ```
//!
//! all little-endian, offsets from the start of the bundle. An entry id is
//! `<offload kind>-<target triple>-<target id>`, the triple having four
//! parts: `hipv4-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-` (the
//! environment part empty), `host-x86_64-unknown-linux-gnu-` for the host.

use super::reader::{slice, Fields};
use super::Error;

/// The uncompressed bundle's magic.
pub(super) const MAGIC: &[u8] = b"__CLANG_OFFLOAD_BUNDLE__";
/// The compressed bundle's magic (zlib or zstd inside).
pub(super) const COMPRESSED_MAGIC: &[u8] = b"CCOB";

/// A compressed bundle's bytes: its header's length, the compressed data's
/// end (the whole image for version 1, which does not record it), the
/// method (0 zlib, 1 zstd) and the uncompressed size. Versions 1 to 3, as
/// clang's offload bundler writes them:
///
/// ```text
/// "CCOB" u16 version u16 method
/// v1: u32 uncompressed size                          u64 hash   (20 bytes)
/// v2: u32 total size        u32 uncompressed size    u64 hash   (24 bytes)
/// v3: u64 total size        u64 uncompressed size    u64 hash   (32 bytes)
/// ```
pub(super) fn compressed_header(image: &[u8]) -> Result<(usize, usize, u16, u64), Error> {
    let what = || "compressed offload bundle header".to_string();
    let h = Fields::new(slice(image, 0, 8, what)?);
    let (version, method) = (h.u16(4), h.u16(6));
    let (header, total, size) = match version {
        1 => {
            let f = Fields::new(slice(image, 0, 20, what)?);
            (20, image.len() as u64, u64::from(f.u32(8)))
        }
        2 => {
            let f = Fields::new(slice(image, 0, 24, what)?);
            (24, u64::from(f.u32(8)), u64::from(f.u32(12)))
        }
        3 => {
            let f = Fields::new(slice(image, 0, 32, what)?);
            (32, f.u64(8), f.u64(16))
        }
        v => {
            return Err(Error::Unsupported {
                what: format!("compressed offload bundle version {v} (1 to 3 are read)"),
            })
        }
    };
    if total < header as u64 || total > image.len() as u64 {
        return Err(Error::Malformed {
            what: what(),
            reason: format!("total size {total}, but {} bytes are there", image.len()),
        });
    }
    Ok((header, total as usize, method, size))
}

/// The bundle a compressed bundle (`CCOB`) holds, inflated.
pub(super) fn decompress(image: &[u8]) -> Result<Vec<u8>, Error> {
    let (header, end, method, size) = compressed_header(image)?;
    let data = &image[header..end];
    let bad = |reason: String| Error::Malformed {
        what: "compressed offload bundle".into(),
        reason,
    };
    // The header's size bounds the allocation, not the data: a corrupt
    // stream cannot make this allocate more than the bundle says.
    let limit = usize::try_from(size).map_err(|_| bad(format!("uncompressed size {size}")))?;
    let out = match method {
        0 => miniz_oxide::inflate::decompress_to_vec_zlib_with_limit(data, limit)
            .map_err(|e| bad(format!("zlib: {e:?}")))?,
        1 => {
            use std::io::Read;
            let mut out = Vec::new();
            ruzstd::StreamingDecoder::new(data)
                .map_err(|e| bad(format!("zstd: {e}")))?
                .take(size.saturating_add(1))
                .read_to_end(&mut out)
                .map_err(|e| bad(format!("zstd: {e}")))?;
            out
        }
        m => {
            return Err(Error::Unsupported {
                what: format!(
                    "compression method {m} of an offload bundle (0 zlib and 1 zstd are read)"
                ),
            })
        }
    };
    if out.len() as u64 != size {
        return Err(bad(format!(
            "{} bytes inflated, the header says {size}",
            out.len()
        )));
    }
    if !out.starts_with(MAGIC) {
        return Err(bad("what it holds is not an offload bundle".into()));
    }
    Ok(out)
}

/// The `amdgcn` entries of a bundle: (target id, code object).
pub(super) fn entries(bundle: &[u8]) -> Result<Vec<(String, Vec<u8>)>, Error> {
    let count = Fields::new(slice(bundle, MAGIC.len() as u64, 8, || {
        "offload bundle's entry count".into()
    })?)
    .u64(0);
    let mut out = Vec::new();
    let mut at = MAGIC.len() as u64 + 8;
    for i in 0..count {
        let what = || format!("offload bundle entry {i}");
        let h = Fields::new(slice(bundle, at, 24, what)?);
        let (offset, size, id_len) = (h.u64(0), h.u64(8), h.u64(16));
        let id = slice(bundle, at + 24, id_len, || {
            format!("id of offload bundle entry {i}")
        })?;
        at += 24 + id_len;
        let id = std::str::from_utf8(id).map_err(|_| Error::Malformed {
            what: what(),
            reason: "its id is not UTF-8".into(),
        })?;
        let Some(target) = amdgcn_target(id) else {
            continue; // the host's entry, or another offload target's
        };
        let code = slice(bundle, offset, size, || {
            format!("code object of bundle entry `{id}`")
        })?;
        if target.is_empty() {
            return Err(Error::Malformed {
                what: format!("offload bundle entry `{id}`"),
                reason: "its id names no target processor".into(),
            });
        }
        out.push((target.to_owned(), code.to_vec()));
    }
    Ok(out)
}

/// The target id of an `amdgcn` entry id; `None` for other entries.
fn amdgcn_target(id: &str) -> Option<&str> {
    // kind, then the triple's four parts, then the target id (which may
    // itself hold `-`, as in `xnack-`).
    let mut parts = id.splitn(6, '-');
    let _kind = parts.next()?;
    if parts.next()? != "amdgcn" {
        return None;
    }
    let (_vendor, _os, _env) = (parts.next()?, parts.next()?, parts.next()?);
    parts.next()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_ids_give_their_target_ids() {
        assert_eq!(
            amdgcn_target("hipv4-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"),
            Some("gfx942:sramecc+:xnack-")
        );
        assert_eq!(
            amdgcn_target("hip-amdgcn-amd-amdhsa--gfx1100"),
            Some("gfx1100")
        );
        assert_eq!(amdgcn_target("host-x86_64-unknown-linux-gnu-"), None);
        assert_eq!(amdgcn_target("hipv4-amdgcn"), None);
    }

    #[test]
    fn a_hand_made_bundle_splits_and_bad_offsets_are_errors() {
        let mut b = MAGIC.to_vec();
        b.extend_from_slice(&2u64.to_le_bytes());
        let ids = [
            "host-x86_64-unknown-linux-gnu-",
            "hipv4-amdgcn-amd-amdhsa--gfx1100",
        ];
        let header_len = MAGIC.len() + 8 + ids.iter().map(|i| 24 + i.len()).sum::<usize>();
        for (id, (off, size)) in ids.iter().zip([(0u64, 0u64), (header_len as u64, 4)]) {
            b.extend_from_slice(&off.to_le_bytes());
            b.extend_from_slice(&size.to_le_bytes());
            b.extend_from_slice(&(id.len() as u64).to_le_bytes());
            b.extend_from_slice(id.as_bytes());
        }
        b.extend_from_slice(b"\x7fELF");
        assert_eq!(
            entries(&b).unwrap(),
            [("gfx1100".to_owned(), b"\x7fELF".to_vec())]
        );
        b.truncate(b.len() - 1);
        let e = entries(&b).unwrap_err();
        assert!(
            e.to_string().contains("hipv4-amdgcn-amd-amdhsa--gfx1100"),
            "{e}"
        );
    }
}

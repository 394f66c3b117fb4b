//! AMD code inside host files: the `.hip_fatbin` section of an x86-64
//! object or shared library (where clang puts the offload bundle of a HIP
//! translation unit compiled with `-c`), and the members of an `ar`
//! archive of such objects (a static library of kernels).

use super::reader::{c_str, slice, Fields};
use super::Error;

/// The `ar` archive magic.
pub(super) const AR_MAGIC: &[u8] = b"!<arch>\n";

const EM_AMDGPU: u16 = 224;

/// The `.hip_fatbin` section of a host ELF (not AMD GPU code itself):
/// `Ok(None)` when the file is AMD GPU code or has no such section.
pub(super) fn fatbin(elf: &[u8]) -> Result<Option<&[u8]>, Error> {
    let what = || "the ELF header".to_string();
    let h = Fields::new(slice(elf, 0, 64, what)?);
    if h.u8(4) != 2 || h.u8(5) != 1 {
        return Ok(None); // not 64-bit little-endian: not ours to read
    }
    if h.u16(18) == EM_AMDGPU {
        return Ok(None);
    }
    let (shoff, shentsize, shnum, shstrndx) = (h.u64(40), h.u16(58), h.u16(60), h.u16(62));
    if shentsize != 64 {
        return Ok(None);
    }
    let header = |i: u64| -> Result<Fields<'_>, Error> {
        Ok(Fields::new(slice(
            elf,
            shoff.wrapping_add(i * 64),
            64,
            || format!("section header {i}"),
        )?))
    };
    let names = header(u64::from(shstrndx))?;
    let strings = slice(elf, names.u64(24), names.u64(32), || {
        "the section names".to_string()
    })?;
    for i in 0..u64::from(shnum) {
        let s = header(i)?;
        let name = c_str(strings, u64::from(s.u32(0)), || {
            format!("section {i}'s name")
        })?;
        if name == ".hip_fatbin" {
            return Ok(Some(slice(elf, s.u64(24), s.u64(32), || {
                ".hip_fatbin's contents".to_string()
            })?));
        }
    }
    Ok(None)
}

/// The members of an `ar` archive: (name, bytes). The GNU long-name table
/// (`//`) and symbol tables (`/`, `/SYM64/`) are read or skipped.
pub(super) fn members(ar: &[u8]) -> Result<Vec<(String, &[u8])>, Error> {
    let mut out = Vec::new();
    let mut at = AR_MAGIC.len();
    let mut long_names: &[u8] = &[];
    while at + 60 <= ar.len() {
        let head = &ar[at..at + 60];
        let text = |r: std::ops::Range<usize>| String::from_utf8_lossy(&head[r]).trim().to_string();
        let size: usize = text(48..58).parse().map_err(|_| Error::Malformed {
            what: format!("the archive member header at {at}"),
            reason: "its size is not a number".into(),
        })?;
        let start = at + 60;
        let body = ar
            .get(start..start + size)
            .ok_or_else(|| Error::Truncated {
                what: format!("the archive member at {at}"),
                offset: start as u64,
                needed: size as u64,
                len: ar.len() as u64,
            })?;
        let raw = text(0..16);
        if raw == "//" {
            long_names = body;
        } else if raw != "/" && raw != "/SYM64/" {
            let name = match raw.strip_prefix('/').and_then(|n| n.parse::<usize>().ok()) {
                Some(off) => {
                    let rest = long_names.get(off..).unwrap_or(&[]);
                    let end = rest
                        .iter()
                        .position(|&b| b == b'/' || b == b'\n')
                        .unwrap_or(rest.len());
                    String::from_utf8_lossy(&rest[..end]).into_owned()
                }
                None => raw.trim_end_matches('/').to_string(),
            };
            out.push((name, body));
        }
        at = start + size + (size & 1);
    }
    Ok(out)
}

//! Bounds-checked little-endian reads: every structure of a code object or
//! bundle is read through these, so malformed input gives an error naming
//! the structure and its offset.

use super::Error;

/// `len` bytes at `offset` of `data`; `what` names the structure for the
/// error when they are not all there.
pub(super) fn slice(
    data: &[u8],
    offset: u64,
    len: u64,
    what: impl FnOnce() -> String,
) -> Result<&[u8], Error> {
    let truncated = |what: String| Error::Truncated {
        what,
        offset,
        needed: len,
        len: data.len() as u64,
    };
    let Some(end) = offset.checked_add(len) else {
        return Err(truncated(what()));
    };
    match (usize::try_from(offset), usize::try_from(end)) {
        (Ok(start), Ok(end)) if end <= data.len() => Ok(&data[start..end]),
        _ => Err(truncated(what())),
    }
}

/// A cursor over one structure already known to be in bounds.
pub(super) struct Fields<'a> {
    bytes: &'a [u8],
}

impl<'a> Fields<'a> {
    /// The fields of `bytes` (a slice from [`slice`]).
    pub(super) fn new(bytes: &'a [u8]) -> Fields<'a> {
        Fields { bytes }
    }

    fn array<const N: usize>(&self, at: usize) -> [u8; N] {
        // Callers pass offsets inside the structure whose size they sliced;
        // a short structure yields zeros rather than a panic.
        let mut out = [0u8; N];
        if let Some(src) = self.bytes.get(at..at + N) {
            out.copy_from_slice(src);
        }
        out
    }

    pub(super) fn u8(&self, at: usize) -> u8 {
        self.bytes.get(at).copied().unwrap_or(0)
    }

    pub(super) fn u16(&self, at: usize) -> u16 {
        u16::from_le_bytes(self.array(at))
    }

    pub(super) fn u32(&self, at: usize) -> u32 {
        u32::from_le_bytes(self.array(at))
    }

    pub(super) fn u64(&self, at: usize) -> u64 {
        u64::from_le_bytes(self.array(at))
    }

    pub(super) fn i64(&self, at: usize) -> i64 {
        i64::from_le_bytes(self.array(at))
    }
}

/// The NUL-terminated string at `offset` of a string table.
pub(super) fn c_str(
    table: &[u8],
    offset: u64,
    what: impl FnOnce() -> String,
) -> Result<String, Error> {
    let rest = usize::try_from(offset)
        .ok()
        .and_then(|o| table.get(o..))
        .ok_or_else(|| Error::Malformed {
            what: what(),
            reason: format!(
                "its name offset {offset:#x} is past the end of the string table ({} bytes)",
                table.len()
            ),
        })?;
    let end = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
    Ok(String::from_utf8_lossy(&rest[..end]).into_owned())
}

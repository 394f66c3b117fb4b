//! Checks a code object image before the runtime reads it.
//!
//! `hipModuleLoadData` takes a bare pointer: the runtime trusts the image's
//! own offsets and sizes, so a truncated or corrupt image makes it read past
//! the end of the buffer. [`validate`] reads only inside the slice it is
//! given and accepts an image only when every structure the loader follows
//! lies inside it:
//!
//! - **AMD code objects**: 64-bit little-endian ELF for `EM_AMDGPU` (224),
//!   with its header, program headers, section headers and every section's
//!   bytes inside the slice;
//! - **clang offload bundles** (`__CLANG_OFFLOAD_BUNDLE__`): every entry
//!   inside the slice, each AMD GPU entry itself a valid code object;
//!   compressed bundles (`CCOB`): the header, and the declared total size
//!   from version 2 on, inside the slice;
//! - on NVIDIA, **cubin** (64-bit ELF for `EM_CUDA`, 190, checked as above),
//!   **fatbin** (magic `0xBA55ED50`, header and payload inside the slice)
//!   and **PTX** (UTF-8 text with a `.version` directive, ending at its first
//!   NUL: [`Module::load_data`](crate::Module::load_data) adds one when the
//!   text has none).
//!
//! Anything else is an [`InvalidImage`] naming what was wrong.
//!
//! [`Envelope`] reads the text form of an AMD bundle that kernel builders
//! write into `.ptx` files on AMD, and checks the bundle with [`validate`].
//!
//! [`kernels`] reads what each kernel of a code object uses (registers,
//! spills, scratch, LDS, maximum workgroup, waves per SIMD) from the
//! code object's metadata note, in any of these containers or in an ELF
//! object or archive that embeds them; [`SpillSummary`] counts the
//! spilling ones. `hip-info kernels` prints it.

use hip_sys::loader::Platform;
use std::fmt;

mod envelope;
mod kernels;
mod msgpack;
mod occupancy;
pub use envelope::{Envelope, InvalidEnvelope, Unavailable};
pub use kernels::{kernels, KernelInfo, SpillSummary};

/// What an image was recognised as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageKind {
    /// An AMD GPU code object (ELF, `EM_AMDGPU`).
    AmdCodeObject,
    /// A clang offload bundle, with this many entries.
    OffloadBundle {
        /// Entries in the bundle.
        entries: usize,
    },
    /// A compressed clang offload bundle (`CCOB`).
    CompressedBundle,
    /// An NVIDIA cubin (ELF, `EM_CUDA`).
    Cubin,
    /// An NVIDIA fatbin.
    Fatbin,
    /// PTX text.
    Ptx,
}

/// Why an image was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidImage {
    /// What the image looked like, when that could be told.
    pub kind: Option<ImageKind>,
    /// What is wrong with it.
    pub reason: String,
}

impl fmt::Display for InvalidImage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            Some(k) => write!(f, "invalid {k:?} image: {}", self.reason),
            None => write!(f, "not a code object: {}", self.reason),
        }
    }
}

impl std::error::Error for InvalidImage {}

fn refuse(kind: Option<ImageKind>, reason: impl Into<String>) -> InvalidImage {
    InvalidImage {
        kind,
        reason: reason.into(),
    }
}

const ELF_MAGIC: &[u8; 4] = b"\x7fELF";
const EM_AMDGPU: u16 = 224;
const EM_CUDA: u16 = 190;
const BUNDLE_MAGIC: &[u8; 24] = b"__CLANG_OFFLOAD_BUNDLE__";
const COMPRESSED_MAGIC: &[u8; 4] = b"CCOB";
const FATBIN_MAGIC: u32 = 0xBA55_ED50;
/// The deepest nesting of bundles followed (a bundle inside a bundle).
const MAX_DEPTH: u32 = 4;

/// Little-endian reads that fail instead of reading past the slice.
struct Reader<'a> {
    bytes: &'a [u8],
    kind: ImageKind,
}

impl<'a> Reader<'a> {
    fn slice(&self, at: u64, len: u64, what: &str) -> Result<&'a [u8], InvalidImage> {
        let end = at.checked_add(len);
        match end {
            Some(end) if end <= self.bytes.len() as u64 => {
                Ok(&self.bytes[at as usize..end as usize])
            }
            _ => Err(refuse(
                Some(self.kind),
                format!(
                    "{what} at {at}..{} lies outside the {}-byte image",
                    at.saturating_add(len),
                    self.bytes.len()
                ),
            )),
        }
    }

    fn u16(&self, at: u64, what: &str) -> Result<u16, InvalidImage> {
        let b = self.slice(at, 2, what)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    fn u32(&self, at: u64, what: &str) -> Result<u32, InvalidImage> {
        let b = self.slice(at, 4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u64(&self, at: u64, what: &str) -> Result<u64, InvalidImage> {
        let b = self.slice(at, 8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }
}

/// Checks `image` for `platform`: `Ok` with what it is when the loader of
/// that platform can read it without leaving the slice, else the reason.
///
/// ```
/// use hip::code_object::{validate, ImageKind};
/// use hip_sys::loader::Platform;
/// let ptx = b".version 8.0\n.target sm_90\n.address_size 64\n\0";
/// assert_eq!(validate(ptx, Platform::Nvidia), Ok(ImageKind::Ptx));
/// let e = validate(ptx, Platform::Amd).unwrap_err();
/// assert!(e.to_string().contains("NVIDIA"), "{e}");
/// assert!(validate(b"\x7fELF\x02\x01", Platform::Amd).is_err());
/// ```
pub fn validate(image: &[u8], platform: Platform) -> Result<ImageKind, InvalidImage> {
    let kind = classify(image, 0)?;
    let fits = match kind {
        ImageKind::AmdCodeObject
        | ImageKind::OffloadBundle { .. }
        | ImageKind::CompressedBundle => platform == Platform::Amd,
        ImageKind::Cubin | ImageKind::Fatbin | ImageKind::Ptx => platform == Platform::Nvidia,
    };
    if fits {
        Ok(kind)
    } else {
        let needs = if platform == Platform::Amd {
            "NVIDIA"
        } else {
            "AMD"
        };
        Err(refuse(
            Some(kind),
            format!("a {kind:?} image runs only on the {needs} platform, not on {platform}"),
        ))
    }
}

fn classify(image: &[u8], depth: u32) -> Result<ImageKind, InvalidImage> {
    if image.is_empty() {
        return Err(refuse(None, "the image is empty"));
    }
    if image.starts_with(ELF_MAGIC) {
        return elf(image);
    }
    if image.starts_with(BUNDLE_MAGIC) {
        return bundle(image, depth);
    }
    if image.starts_with(COMPRESSED_MAGIC) {
        return compressed_bundle(image);
    }
    if image.len() >= 4
        && u32::from_le_bytes([image[0], image[1], image[2], image[3]]) == FATBIN_MAGIC
    {
        return fatbin(image);
    }
    ptx(image)
}

/// A 64-bit little-endian ELF for `EM_AMDGPU` or `EM_CUDA`, every table
/// and section inside the slice.
fn elf(image: &[u8]) -> Result<ImageKind, InvalidImage> {
    let mut r = Reader {
        bytes: image,
        kind: ImageKind::AmdCodeObject,
    };
    if image.len() < 64 {
        return Err(refuse(
            None,
            format!(
                "an ELF header needs 64 bytes; the image has {}",
                image.len()
            ),
        ));
    }
    let machine = r.u16(18, "e_machine")?;
    r.kind = match machine {
        EM_AMDGPU => ImageKind::AmdCodeObject,
        EM_CUDA => ImageKind::Cubin,
        m => {
            return Err(refuse(
                None,
                format!("an ELF for machine {m}, neither an AMD GPU (224) nor an NVIDIA GPU (190)"),
            ))
        }
    };
    let kind = Some(r.kind);
    if image[4] != 2 {
        return Err(refuse(
            kind,
            format!("ELF class {} is not 64-bit", image[4]),
        ));
    }
    if image[5] != 1 {
        return Err(refuse(
            kind,
            format!("ELF data encoding {} is not little-endian", image[5]),
        ));
    }
    let ehsize = r.u16(52, "e_ehsize")?;
    if ehsize != 64 {
        return Err(refuse(kind, format!("e_ehsize {ehsize} is not 64")));
    }
    let (phoff, phentsize, phnum) = (
        r.u64(32, "e_phoff")?,
        r.u16(54, "e_phentsize")?,
        r.u16(56, "e_phnum")?,
    );
    // PN_XNUM: the real count lies in section 0, which no code object
    // needs (fewer than 65535 segments).
    if phnum == 0xffff {
        return Err(refuse(
            kind,
            "extended program header numbering (e_phnum PN_XNUM)",
        ));
    }
    if phnum == 0 {
        // No segments (nothing a loader could map), but an e_phoff past
        // the end still names a table outside the image: refused, as a
        // stray e_shoff is above.
        r.slice(phoff, 0, "the (empty) program header table")?;
    } else {
        if phentsize != 56 {
            return Err(refuse(kind, format!("e_phentsize {phentsize} is not 56")));
        }
        r.slice(phoff, u64::from(phnum) * 56, "the program header table")?;
        for i in 0..u64::from(phnum) {
            let at = phoff + i * 56;
            let (offset, filesz) = (r.u64(at + 8, "p_offset")?, r.u64(at + 32, "p_filesz")?);
            r.slice(offset, filesz, &format!("segment {i}"))?;
        }
    }
    let (shoff, shentsize, shnum, shstrndx) = (
        r.u64(40, "e_shoff")?,
        r.u16(58, "e_shentsize")?,
        r.u16(60, "e_shnum")?,
        r.u16(62, "e_shstrndx")?,
    );
    // e_shnum 0 with a table: extended numbering, the real count in
    // section 0 at e_shoff, which a loader reads; no code object needs it.
    if shnum == 0 && shoff != 0 {
        return Err(refuse(
            kind,
            format!("extended section numbering (e_shnum 0, e_shoff {shoff})"),
        ));
    }
    if shnum > 0 {
        if shentsize != 64 {
            return Err(refuse(kind, format!("e_shentsize {shentsize} is not 64")));
        }
        r.slice(shoff, u64::from(shnum) * 64, "the section header table")?;
        if shstrndx >= shnum {
            return Err(refuse(
                kind,
                format!("e_shstrndx {shstrndx} names no section of {shnum}"),
            ));
        }
        const SHT_NOBITS: u32 = 8;
        for i in 0..u64::from(shnum) {
            let at = shoff + i * 64;
            if r.u32(at + 4, "sh_type")? == SHT_NOBITS {
                continue;
            }
            let (offset, size) = (r.u64(at + 24, "sh_offset")?, r.u64(at + 32, "sh_size")?);
            r.slice(offset, size, &format!("section {i}"))?;
        }
    }
    Ok(r.kind)
}

/// One entry of a clang offload bundle: its triple and its bytes.
pub(crate) struct BundleEntry<'a> {
    pub(crate) index: u64,
    pub(crate) triple: &'a str,
    pub(crate) body: &'a [u8],
}

/// The entries of the offload bundle `image`, each table field, triple
/// and body checked to lie inside it, and where the bundle ends (the end
/// of its table or of its last entry, whichever is further). `kind` names
/// the image in errors.
pub(crate) fn bundle_entries(
    image: &[u8],
    kind: ImageKind,
) -> Result<(Vec<BundleEntry<'_>>, u64), InvalidImage> {
    let r = Reader { bytes: image, kind };
    let n = r.u64(24, "the entry count")?;
    // Each entry takes at least 24 bytes of table: a count that cannot fit
    // is refused before anything is read or allocated for it.
    if n == 0 || n > (image.len() as u64) / 24 {
        return Err(refuse(
            Some(kind),
            format!("{n} entries cannot fit in a {}-byte bundle", image.len()),
        ));
    }
    let mut entries = Vec::with_capacity(n as usize);
    let mut at = 32u64;
    let mut end = at;
    for index in 0..n {
        let offset = r.u64(at, "an entry offset")?;
        let size = r.u64(at + 8, "an entry size")?;
        let triple_len = r.u64(at + 16, "an entry triple's length")?;
        let triple = r.slice(at + 24, triple_len, &format!("entry {index}'s triple"))?;
        let body = r.slice(offset, size, &format!("entry {index}"))?;
        let triple = std::str::from_utf8(triple)
            .map_err(|_| refuse(Some(kind), format!("entry {index}'s triple is not UTF-8")))?;
        at += 24 + triple_len;
        end = end.max(at).max(offset + size);
        entries.push(BundleEntry {
            index,
            triple,
            body,
        });
    }
    Ok((entries, end))
}

/// A clang offload bundle: entry table and entries inside the slice; AMD GPU
/// entries are code objects themselves.
fn bundle(image: &[u8], depth: u32) -> Result<ImageKind, InvalidImage> {
    let kind = ImageKind::OffloadBundle { entries: 0 };
    if depth >= MAX_DEPTH {
        return Err(refuse(Some(kind), "bundles nested too deeply"));
    }
    let (entries, _) = bundle_entries(image, kind)?;
    for BundleEntry {
        index: i,
        triple,
        body,
    } in &entries
    {
        if triple.contains("amdgcn") && !body.is_empty() {
            match classify(body, depth + 1) {
                Ok(ImageKind::AmdCodeObject)
                | Ok(ImageKind::OffloadBundle { .. })
                | Ok(ImageKind::CompressedBundle) => {}
                Ok(other) => {
                    return Err(refuse(
                        Some(kind),
                        format!("entry {i} ({triple}) holds a {other:?}"),
                    ))
                }
                Err(e) => {
                    return Err(refuse(
                        Some(kind),
                        format!("entry {i} ({triple}): {}", e.reason),
                    ))
                }
            }
        }
    }
    Ok(ImageKind::OffloadBundle {
        entries: entries.len(),
    })
}

/// A compressed bundle: its header (and, from version 2, its declared total
/// size) inside the slice. The payload is the runtime's to decompress.
fn compressed_bundle(image: &[u8]) -> Result<ImageKind, InvalidImage> {
    let kind = ImageKind::CompressedBundle;
    let r = Reader { bytes: image, kind };
    let version = r.u16(4, "the version")?;
    let header = match version {
        1 => 24,
        2 => 28,
        3 => 40,
        v => return Err(refuse(Some(kind), format!("version {v} is not known"))),
    };
    r.slice(0, header, "the header")?;
    let total = match version {
        2 => u64::from(r.u32(8, "the total size")?),
        3 => r.u64(8, "the total size")?,
        _ => header,
    };
    if total < header {
        return Err(refuse(
            Some(kind),
            format!("a total size of {total} bytes is smaller than its header"),
        ));
    }
    r.slice(0, total, "the compressed bundle")?;
    Ok(kind)
}

/// A fatbin: its header and the payload it declares inside the slice.
fn fatbin(image: &[u8]) -> Result<ImageKind, InvalidImage> {
    let kind = ImageKind::Fatbin;
    let r = Reader { bytes: image, kind };
    let header = u64::from(r.u16(6, "the header size")?);
    let payload = r.u64(8, "the payload size")?;
    if header < 16 {
        return Err(refuse(
            Some(kind),
            format!("a {header}-byte header is too small"),
        ));
    }
    let total = header
        .checked_add(payload)
        .ok_or_else(|| refuse(Some(kind), "sizes overflow"))?;
    r.slice(0, total, "the fatbin")?;
    Ok(kind)
}

/// PTX: text up to the first NUL (or the end), UTF-8, with a `.version`.
fn ptx(image: &[u8]) -> Result<ImageKind, InvalidImage> {
    let text = match image.iter().position(|&b| b == 0) {
        Some(n) => &image[..n],
        None => image,
    };
    let Ok(text) = std::str::from_utf8(text) else {
        return Err(refuse(
            None,
            "neither an ELF, a bundle, a fatbin nor PTX text (not UTF-8)",
        ));
    };
    if !text.contains(".version") {
        return Err(refuse(
            None,
            "neither an ELF, a bundle, a fatbin nor PTX (no .version directive)",
        ));
    }
    Ok(ImageKind::Ptx)
}

#[cfg(test)]
mod tests;

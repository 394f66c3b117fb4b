//! What each kernel of an AMD code object uses: registers, spills, scratch,
//! LDS, its maximum workgroup, and the waves per SIMD these allow.
//!
//! The numbers come from the code object's metadata note (code object v3
//! and later: an ELF note `AMDGPU`, type `NT_AMDGPU_METADATA` (32), holding
//! MessagePack: `amdhsa.target` and the `amdhsa.kernels` list, one map per
//! kernel with `.vgpr_count`, `.sgpr_count`, `.agpr_count`,
//! `.vgpr_spill_count`, `.sgpr_spill_count`, `.private_segment_fixed_size`,
//! `.group_segment_fixed_size`, `.max_flat_workgroup_size`,
//! `.wavefront_size`), read by [`kernels`] from any container a build
//! leaves: see [`kernels`] for the list. The waves per SIMD are computed
//! from the target's register file (`occupancy.rs` states the formula and
//! the targets it knows).

use super::msgpack::{self, Value};
use super::occupancy;
use super::{
    bundle_entries, refuse, BundleEntry, Envelope, ImageKind, InvalidImage, Reader, BUNDLE_MAGIC,
    COMPRESSED_MAGIC,
};
use std::fmt;

/// One kernel of one code object (one target).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelInfo {
    /// The target, as the code object names it (`gfx90a:sramecc+:xnack-`).
    pub target: String,
    /// The kernel's name (`.name`).
    pub name: String,
    /// Lanes per wave (`.wavefront_size`): 32 or 64.
    pub wavefront_size: u32,
    /// VGPRs per lane (`.vgpr_count`). On gfx90a and later this counts the
    /// AGPRs too (one register file); on gfx908 it is the larger of the two.
    pub vgprs: u32,
    /// SGPRs per wave (`.sgpr_count`).
    pub sgprs: u32,
    /// AGPRs per lane (`.agpr_count`), on targets that have them.
    pub agprs: Option<u32>,
    /// VGPRs spilled to scratch (`.vgpr_spill_count`).
    pub vgpr_spills: u32,
    /// SGPRs spilled (`.sgpr_spill_count`).
    pub sgpr_spills: u32,
    /// Scratch memory per lane, bytes (`.private_segment_fixed_size`):
    /// spills, and private arrays the compiler could not keep in registers.
    pub scratch_bytes: u32,
    /// Whether the stack grows at run time beyond `scratch_bytes`
    /// (`.uses_dynamic_stack`, code object v5; `false` when absent).
    pub dynamic_stack: bool,
    /// LDS per workgroup, bytes (`.group_segment_fixed_size`), without what
    /// the launch adds dynamically.
    pub lds_bytes: u32,
    /// The largest workgroup the kernel was compiled for
    /// (`.max_flat_workgroup_size`: `__launch_bounds__`, else 1,024).
    pub max_workgroup_size: u32,
    /// Waves per SIMD these registers and LDS allow at the maximum
    /// workgroup size; `None` where the target's register file is not known.
    pub waves_per_simd: Option<u32>,
    /// The most VGPRs per lane with which a workgroup of the maximum size
    /// fits on one CU (what the compiler had to stay within); `None` where
    /// the target is not known.
    pub vgpr_cap: Option<u32>,
}

impl KernelInfo {
    /// Whether the kernel spills registers: VGPRs to scratch memory, or
    /// SGPRs, which go to free VGPR lanes first and to scratch only without
    /// them ([`KernelInfo::scratch_bytes`] tells).
    pub fn spills(&self) -> bool {
        self.vgpr_spills > 0 || self.sgpr_spills > 0
    }

    /// The processor: the target without its feature suffixes (`gfx90a`).
    pub fn processor(&self) -> &str {
        self.target.split(':').next().unwrap_or(&self.target)
    }
}

/// How many kernel instances spill, overall and per processor.
///
/// ```
/// use hip::code_object::SpillSummary;
/// let s = SpillSummary::of(&[]);
/// assert_eq!((s.instances, s.spilling), (0, 0));
/// assert_eq!(s.to_string(), "0 of 0 kernel instances spill registers");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SpillSummary {
    /// Kernel instances (a kernel once per target).
    pub instances: usize,
    /// Those that spill registers.
    pub spilling: usize,
    /// Spilling instances per processor, for processors with any, in the
    /// order they first appear.
    pub by_processor: Vec<(String, usize)>,
}

impl SpillSummary {
    /// Counts `kernels`.
    pub fn of(kernels: &[KernelInfo]) -> SpillSummary {
        let mut s = SpillSummary {
            instances: kernels.len(),
            ..SpillSummary::default()
        };
        for k in kernels.iter().filter(|k| k.spills()) {
            s.spilling += 1;
            match s.by_processor.iter_mut().find(|(p, _)| p == k.processor()) {
                Some((_, n)) => *n += 1,
                None => s.by_processor.push((k.processor().to_owned(), 1)),
            }
        }
        s
    }
}

impl fmt::Display for SpillSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} of {} kernel instances spill registers",
            self.spilling, self.instances
        )?;
        if !self.by_processor.is_empty() {
            let parts: Vec<String> = self
                .by_processor
                .iter()
                .map(|(p, n)| format!("{p} {n}"))
                .collect();
            write!(f, " ({})", parts.join(", "))?;
        }
        Ok(())
    }
}

/// The kernels of every AMD code object in `bytes`, in the order found.
///
/// `bytes` may be:
/// - an AMD code object (ELF, `EM_AMDGPU`), code object v3 or later;
/// - a clang offload bundle (`__CLANG_OFFLOAD_BUNDLE__`): each `amdgcn`
///   entry;
/// - hip-rs's text [`Envelope`] of a bundle (the `.ptx` files of the
///   cudaforge drop-in on AMD);
/// - an object, library or executable (ELF of any machine) whose
///   `.hip_fatbin` section holds bundles;
/// - a static library (`ar` archive) of such objects: members without
///   device code (host-only objects) are passed over.
///
/// Compressed bundles (`CCOB`) are refused: their payload is zlib or zstd,
/// which this crate does not decode (`clang-offload-bundler --unbundle`
/// decompresses them). Anything else, and anything malformed, is refused
/// with the reason; nothing is read outside `bytes`.
///
/// ```
/// let e = hip::code_object::kernels(b"hello").unwrap_err();
/// assert!(e.to_string().contains("none of"), "{e}");
/// ```
pub fn kernels(bytes: &[u8]) -> Result<Vec<KernelInfo>, InvalidImage> {
    let mut out = Vec::new();
    if !read(bytes, None, 0, &mut out)? {
        return Err(refuse(
            None,
            "an ELF without a .hip_fatbin section or an archive without one: no AMD GPU code",
        ));
    }
    Ok(out)
}

/// The deepest nesting of containers followed.
const MAX_DEPTH: u32 = 6;
const AR_MAGIC: &[u8; 8] = b"!<arch>\n";
const EM_AMDGPU: u16 = super::EM_AMDGPU;
const SHT_NOTE: u32 = 7;
const PT_NOTE: u32 = 4;
const NT_AMDGPU_METADATA: u32 = 32;
const NT_AMD_HSA_METADATA: u32 = 10;

/// Reads `bytes` into `out`; `Ok(false)` when it holds no device code (an
/// ELF without `.hip_fatbin`, an archive of such).
fn read(
    bytes: &[u8],
    target: Option<&str>,
    depth: u32,
    out: &mut Vec<KernelInfo>,
) -> Result<bool, InvalidImage> {
    if depth > MAX_DEPTH {
        return Err(refuse(None, "containers nested too deeply"));
    }
    if bytes.starts_with(super::ELF_MAGIC) {
        return elf(bytes, target, depth, out);
    }
    if bytes.starts_with(BUNDLE_MAGIC) {
        bundle(bytes, depth, out)?;
        return Ok(true);
    }
    if bytes.starts_with(COMPRESSED_MAGIC) {
        return Err(refuse(
            Some(ImageKind::CompressedBundle),
            "compressed bundles (zlib or zstd) are not read here; \
             `clang-offload-bundler --unbundle` writes the code objects",
        ));
    }
    if bytes.starts_with(AR_MAGIC) {
        return archive(bytes, depth, out);
    }
    if bytes.starts_with(super::envelope::FAMILY.as_bytes()) {
        let text = std::str::from_utf8(bytes)
            .map_err(|_| refuse(None, "an envelope that is not UTF-8 text"))?;
        let env = Envelope::parse(text).map_err(|e| refuse(None, e.to_string()))?;
        return read(env.image(), None, depth + 1, out);
    }
    Err(refuse(
        None,
        "none of the formats read here (an AMD code object, a clang offload bundle, \
         a hip-rs envelope, an ELF with a .hip_fatbin section, an ar archive)",
    ))
}

/// One section of an ELF: its name, type and bytes.
struct Section<'a> {
    name: &'a [u8],
    ty: u32,
    data: &'a [u8],
}

/// The sections of a 64-bit little-endian ELF of any machine (`SHT_NOBITS`
/// sections have no bytes), every one checked to lie inside `bytes`.
fn sections(bytes: &[u8], kind: ImageKind) -> Result<Vec<Section<'_>>, InvalidImage> {
    let r = Reader { bytes, kind };
    let k = Some(kind);
    if bytes.len() < 64 || bytes[4] != 2 || bytes[5] != 1 {
        return Err(refuse(k, "not a 64-bit little-endian ELF"));
    }
    let (shoff, shentsize, shnum, shstrndx) = (
        r.u64(40, "e_shoff")?,
        r.u16(58, "e_shentsize")?,
        r.u16(60, "e_shnum")?,
        r.u16(62, "e_shstrndx")?,
    );
    if shnum == 0 {
        return Ok(Vec::new());
    }
    if shentsize != 64 {
        return Err(refuse(k, format!("e_shentsize {shentsize} is not 64")));
    }
    r.slice(shoff, u64::from(shnum) * 64, "the section header table")?;
    if shstrndx >= shnum {
        return Err(refuse(
            k,
            format!("e_shstrndx {shstrndx} names no section of {shnum}"),
        ));
    }
    let header = |i: u64| -> Result<(u32, u32, &[u8]), InvalidImage> {
        let at = shoff + i * 64;
        let (name, ty) = (r.u32(at, "sh_name")?, r.u32(at + 4, "sh_type")?);
        let data = if ty == 8 {
            &[][..]
        } else {
            let (offset, size) = (r.u64(at + 24, "sh_offset")?, r.u64(at + 32, "sh_size")?);
            r.slice(offset, size, &format!("section {i}"))?
        };
        Ok((name, ty, data))
    };
    let (_, _, names) = header(u64::from(shstrndx))?;
    let mut out = Vec::with_capacity(usize::from(shnum));
    for i in 0..u64::from(shnum) {
        let (name, ty, data) = header(i)?;
        let name = names
            .get(name as usize..)
            .and_then(|s| s.split(|&b| b == 0).next())
            .ok_or_else(|| refuse(k, format!("section {i}'s name lies outside .shstrtab")))?;
        out.push(Section { name, ty, data });
    }
    Ok(out)
}

fn elf(
    bytes: &[u8],
    target: Option<&str>,
    depth: u32,
    out: &mut Vec<KernelInfo>,
) -> Result<bool, InvalidImage> {
    if bytes.len() < 20 {
        return Err(refuse(None, "an ELF header needs 64 bytes"));
    }
    let machine = u16::from_le_bytes([bytes[18], bytes[19]]);
    if machine == EM_AMDGPU {
        // The loader's own checks first: every table inside the image.
        super::elf(bytes)?;
        code_object(bytes, target, out)?;
        return Ok(true);
    }
    // A host object, library or executable: its bundles.
    let kind = ImageKind::OffloadBundle { entries: 0 };
    let mut found = false;
    let all = sections(bytes, kind)
        .map_err(|e| refuse(None, format!("an ELF for machine {machine}: {}", e.reason)))?;
    for s in all {
        if s.name != b".hip_fatbin" || s.data.is_empty() {
            continue;
        }
        // One bundle per translation unit, each aligned (4 KiB): the next
        // starts at the next magic after the end of the last.
        let mut rest = s.data;
        while let Some(at) = [find(rest, BUNDLE_MAGIC), find(rest, COMPRESSED_MAGIC)]
            .into_iter()
            .flatten()
            .min()
        {
            let b = &rest[at..];
            if b.starts_with(COMPRESSED_MAGIC) {
                // Refused, with the reason.
                read(b, None, depth + 1, out)?;
            }
            let len = bundle(b, depth + 1, out)?;
            found = true;
            rest = &b[len..];
        }
    }
    Ok(found)
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Reads a bundle's `amdgcn` entries into `out`; returns the bundle's
/// length (the end of its last entry).
fn bundle(bytes: &[u8], depth: u32, out: &mut Vec<KernelInfo>) -> Result<usize, InvalidImage> {
    let kind = ImageKind::OffloadBundle { entries: 0 };
    let (entries, end) = bundle_entries(bytes, kind)?;
    for BundleEntry {
        index: i,
        triple,
        body,
    } in entries
    {
        if !triple.contains("amdgcn") || body.is_empty() {
            continue;
        }
        // `hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-`: the target follows `--`.
        let target = triple.split_once("--").map(|(_, t)| t);
        match read(body, target, depth + 1, out) {
            Ok(true) => {}
            Ok(false) => {
                return Err(refuse(
                    Some(kind),
                    format!("entry {i} ({triple}) holds no AMD GPU code object"),
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
    Ok(end as usize)
}

/// The members of an `ar` archive (GNU or BSD names): each read, those
/// without device code passed over.
fn archive(bytes: &[u8], depth: u32, out: &mut Vec<KernelInfo>) -> Result<bool, InvalidImage> {
    let mut at = AR_MAGIC.len();
    let mut found = false;
    while at < bytes.len() {
        let Some(header) = bytes.get(at..at + 60) else {
            return Err(refuse(
                None,
                format!("archive member header at {at} is truncated"),
            ));
        };
        let name = String::from_utf8_lossy(&header[..16]).trim_end().to_owned();
        let size: usize = std::str::from_utf8(&header[48..58])
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .ok_or_else(|| refuse(None, format!("archive member {name:?}: bad size field")))?;
        let start = at + 60;
        let Some(data) = start
            .checked_add(size)
            .and_then(|end| bytes.get(start..end))
        else {
            return Err(refuse(
                None,
                format!("archive member {name:?} of {size} bytes runs past the archive"),
            ));
        };
        // The symbol table and the long-name table are not objects.
        if !(name.starts_with("/ ")
            || name == "/"
            || name.starts_with("//")
            || name.starts_with("/SYM64/"))
        {
            let member = data;
            match read(member, None, depth + 1, out) {
                Ok(f) => found |= f,
                // Text, host objects of other formats: not device code.
                Err(e) if e.kind.is_none() && !member.starts_with(super::ELF_MAGIC) => {}
                Err(e) => {
                    return Err(refuse(
                        e.kind,
                        format!("archive member {name:?}: {}", e.reason),
                    ))
                }
            }
        }
        at = start + size + (size & 1);
    }
    Ok(found)
}

/// The kernels of one AMD code object (already checked by `super::elf`).
fn code_object(
    bytes: &[u8],
    hint: Option<&str>,
    out: &mut Vec<KernelInfo>,
) -> Result<(), InvalidImage> {
    let kind = Some(ImageKind::AmdCodeObject);
    let mut notes: Vec<&[u8]> = sections(bytes, ImageKind::AmdCodeObject)?
        .into_iter()
        .filter(|s| s.ty == SHT_NOTE)
        .map(|s| s.data)
        .collect();
    if notes.is_empty() {
        // No section headers: the notes segments.
        let r = Reader {
            bytes,
            kind: ImageKind::AmdCodeObject,
        };
        let (phoff, phnum) = (r.u64(32, "e_phoff")?, r.u16(56, "e_phnum")?);
        for i in 0..u64::from(phnum) {
            let at = phoff + i * 56;
            if r.u32(at, "p_type")? == PT_NOTE {
                let (offset, size) = (r.u64(at + 8, "p_offset")?, r.u64(at + 32, "p_filesz")?);
                notes.push(r.slice(offset, size, "a note segment")?);
            }
        }
    }
    let mut saw_v2 = false;
    for data in notes {
        for note in note_entries(data)? {
            match note {
                (b"AMDGPU", NT_AMDGPU_METADATA, desc) => {
                    let meta = msgpack::decode(desc)
                        .map_err(|e| refuse(kind, format!("the metadata note: {e}")))?;
                    return metadata(&meta, hint, out)
                        .map_err(|e| refuse(kind, format!("the metadata note: {e}")));
                }
                (b"AMD", NT_AMD_HSA_METADATA, _) => saw_v2 = true,
                _ => {}
            }
        }
    }
    Err(refuse(
        kind,
        if saw_v2 {
            "code object v2 (YAML metadata) is not read: rebuild with code object v4 or later"
        } else {
            "no NT_AMDGPU_METADATA note (AMDGPU, type 32)"
        },
    ))
}

/// One ELF note: its name without the NUL, its type, its descriptor.
type Note<'a> = (&'a [u8], u32, &'a [u8]);

/// The notes of a note section.
fn note_entries(data: &[u8]) -> Result<Vec<Note<'_>>, InvalidImage> {
    let r = Reader {
        bytes: data,
        kind: ImageKind::AmdCodeObject,
    };
    let mut out = Vec::new();
    let mut at = 0u64;
    let align4 = |n: u64| n.div_ceil(4) * 4;
    while at < data.len() as u64 {
        let namesz = u64::from(r.u32(at, "a note's name size")?);
        let descsz = u64::from(r.u32(at + 4, "a note's descriptor size")?);
        let ty = r.u32(at + 8, "a note's type")?;
        let name = r.slice(at + 12, namesz, "a note's name")?;
        let desc_at = at + 12 + align4(namesz);
        let desc = r.slice(desc_at, descsz, "a note's descriptor")?;
        let name = name.strip_suffix(b"\0").unwrap_or(name);
        out.push((name, ty, desc));
        at = desc_at + align4(descsz);
    }
    Ok(out)
}

/// The kernels of a decoded metadata map.
fn metadata(meta: &Value, hint: Option<&str>, out: &mut Vec<KernelInfo>) -> Result<(), String> {
    if !matches!(meta, Value::Map(_)) {
        return Err(format!("the top level is {}, not a map", meta.kind()));
    }
    let target = match meta.get("amdhsa.target") {
        Some(Value::Str(t)) => t.split_once("--").map_or(t.as_str(), |(_, p)| p).to_owned(),
        Some(other) => return Err(format!("amdhsa.target is {}, not a string", other.kind())),
        // Code object v3 names no target: the bundle entry's, if any.
        None => hint.unwrap_or("unknown").to_owned(),
    };
    let list = match meta.get("amdhsa.kernels") {
        Some(Value::Array(list)) => list,
        Some(other) => return Err(format!("amdhsa.kernels is {}, not an array", other.kind())),
        None => return Err("no amdhsa.kernels list".into()),
    };
    for (i, k) in list.iter().enumerate() {
        out.push(kernel(k, i, &target)?);
    }
    Ok(())
}

fn kernel(k: &Value, i: usize, target: &str) -> Result<KernelInfo, String> {
    if !matches!(k, Value::Map(_)) {
        return Err(format!("kernel {i} is {}, not a map", k.kind()));
    }
    let name = match k.get(".name") {
        Some(Value::Str(s)) => s.clone(),
        Some(other) => {
            return Err(format!(
                "kernel {i}'s .name is {}, not a string",
                other.kind()
            ))
        }
        None => return Err(format!("kernel {i} has no .name")),
    };
    let num = |key: &str| -> Result<Option<u32>, String> {
        match k.get(key) {
            None => Ok(None),
            Some(Value::Int(n)) => u32::try_from(*n)
                .map(Some)
                .map_err(|_| format!("kernel {name}: {key} {n} is out of range")),
            Some(other) => Err(format!(
                "kernel {name}: {key} is {}, not an integer",
                other.kind()
            )),
        }
    };
    let required = |key: &str| num(key)?.ok_or_else(|| format!("kernel {name}: no {key}"));
    let dynamic_stack = match k.get(".uses_dynamic_stack") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => {
            return Err(format!(
                "kernel {name}: .uses_dynamic_stack is {}, not a boolean",
                other.kind()
            ))
        }
    };
    let wavefront_size = required(".wavefront_size")?;
    let vgprs = required(".vgpr_count")?;
    let sgprs = required(".sgpr_count")?;
    let lds_bytes = required(".group_segment_fixed_size")?;
    let max_workgroup_size = required(".max_flat_workgroup_size")?;
    let processor = target.split(':').next().unwrap_or(target);
    let limits = occupancy::limits(processor, wavefront_size);
    Ok(KernelInfo {
        target: target.to_owned(),
        wavefront_size,
        vgprs,
        sgprs,
        agprs: num(".agpr_count")?,
        vgpr_spills: num(".vgpr_spill_count")?.unwrap_or(0),
        sgpr_spills: num(".sgpr_spill_count")?.unwrap_or(0),
        scratch_bytes: required(".private_segment_fixed_size")?,
        dynamic_stack,
        lds_bytes,
        max_workgroup_size,
        waves_per_simd: limits.as_ref().map(|l| {
            occupancy::waves_per_simd(
                l,
                vgprs,
                sgprs,
                lds_bytes,
                max_workgroup_size,
                wavefront_size,
            )
        }),
        vgpr_cap: limits
            .as_ref()
            .map(|l| occupancy::vgpr_cap(l, max_workgroup_size, wavefront_size)),
        name,
    })
}

#[cfg(test)]
mod tests;

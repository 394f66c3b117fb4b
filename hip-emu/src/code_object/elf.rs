//! One AMDGPU code object: an ELF64 shared object (LLVM AMDGPUUsage,
//! "ELF Code Object"), parsed into what loading and launching need.

use super::metadata::{self, KernelInfo};
use super::reader::{c_str, slice, Fields};
use super::{msgpack, target, Error};

/// What every ELF file starts with.
pub(super) const ELF_MAGIC: &[u8] = b"\x7fELF";

// The ELF constants (the System V gABI) and the AMDGPU ones (AMDGPUUsage,
// "AMDGPU ELF Header", "Note Records", "Relocation Records").
const ELFCLASS64: u8 = 2;
const ELFDATA2LSB: u8 = 1;
const ELFOSABI_AMDGPU_HSA: u8 = 64;
const ET_DYN: u16 = 3;
const EM_AMDGPU: u16 = 224;
const EHDR_SIZE: u64 = 64;
const PHDR_SIZE: u64 = 56;
const SHDR_SIZE: u64 = 64;
const SYM_SIZE: u64 = 24;
const RELA_SIZE: u64 = 24;
const PT_LOAD: u32 = 1;
const PT_NOTE: u32 = 4;
const SHT_RELA: u32 = 4;
const SHT_DYNSYM: u32 = 11;
const SHT_SYMTAB: u32 = 2;
const SHN_UNDEF: u16 = 0;
const SHN_ABS: u16 = 0xfff1;
const STT_OBJECT: u8 = 1;
const STB_WEAK: u8 = 2;
const NT_AMDGPU_METADATA: u32 = 32;
/// `e_ident[EI_ABIVERSION]` for code object v4, v5 and v6.
const ABI_VERSIONS: [(u8, u32); 3] = [(2, 4), (3, 5), (4, 6)];
/// `e_flags` fields of code object v4 and later.
const EF_AMDGPU_MACH: u32 = 0x0ff;
const EF_AMDGPU_FEATURE_XNACK: u32 = 0x300;
const EF_AMDGPU_FEATURE_SRAMECC: u32 = 0xc00;
/// The feature field values: 0 unsupported, 1 any, 2 off, 3 on.
const FEATURE_OFF: u32 = 2;
const FEATURE_ON: u32 = 3;
/// The loaded image is kept within 4 GiB: no real code object comes near,
/// and a corrupt segment address must not ask the runtime for exabytes.
const MAX_LOAD_SIZE: u64 = 1 << 32;
/// The kernel descriptor's size (AMDGPUUsage, "Kernel Descriptor").
const KERNEL_DESCRIPTOR_SIZE: u64 = 64;

// The relocation types a loader applies (AMDGPUUsage, "Relocation Records").
const R_AMDGPU_NONE: u32 = 0;
const R_AMDGPU_ABS32_LO: u32 = 1;
const R_AMDGPU_ABS32_HI: u32 = 2;
const R_AMDGPU_ABS64: u32 = 3;
const R_AMDGPU_ABS32: u32 = 6;
const R_AMDGPU_RELATIVE64: u32 = 13;

/// A parsed AMDGPU code object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeObject {
    processor: &'static str,
    /// `Some(on)` when the object fixes the feature.
    sramecc: Option<bool>,
    xnack: Option<bool>,
    version: u32,
    segments: Vec<Segment>,
    load_size: u64,
    relocations: Vec<Relocation>,
    kernels: Vec<KernelInfo>,
    symbols: Vec<Symbol>,
    /// Functions (`STT_FUNC` with a size) of either symbol table: name,
    /// offset, size; kernels and the device functions they call.
    functions: Vec<(String, u64, u64)>,
    /// The ELF's bytes, for `load`.
    image: Vec<u8>,
}

/// A `PT_LOAD` segment.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Segment {
    offset: u64,
    vaddr: u64,
    filesz: u64,
    memsz: u64,
    /// `PF_X`: the segment holds code.
    executable: bool,
}

/// `STT_FUNC`: a symbol naming code.
const STT_FUNC: u8 = 2;

/// A defined symbol.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Symbol {
    name: String,
    value: u64,
    size: u64,
    kind: u8,
}

/// A dynamic relocation, its symbol already looked up.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Relocation {
    offset: u64,
    kind: u32,
    addend: i64,
    target: RelocTarget,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum RelocTarget {
    /// Symbol index 0, or a weak undefined symbol: S = 0.
    Zero,
    /// A symbol defined in the object: S = base + value.
    Defined(u64),
    /// An absolute symbol: S = value.
    Absolute(u64),
    /// An undefined symbol: an error when loaded.
    Undefined(String),
}

impl CodeObject {
    /// Parses and checks `elf`: ELF64 little-endian, `ELFOSABI_AMDGPU_HSA`,
    /// `ET_DYN`, `EM_AMDGPU`, code object v4, v5 or v6, a processor this
    /// crate names; its segments, symbols, dynamic relocations and kernel
    /// metadata. Never panics, whatever the bytes.
    pub fn parse(elf: &[u8]) -> Result<CodeObject, Error> {
        let header = Fields::new(slice(elf, 0, EHDR_SIZE, || "ELF header".into())?);
        let bad = |reason: String| Error::Malformed {
            what: "ELF header".into(),
            reason,
        };
        if !elf.starts_with(ELF_MAGIC) {
            return Err(bad("no ELF magic (7f 45 4c 46)".into()));
        }
        if header.u8(4) != ELFCLASS64 || header.u8(5) != ELFDATA2LSB {
            return Err(bad(format!(
                "class {} data {}: AMD code objects are ELF64 little-endian (2, 1)",
                header.u8(4),
                header.u8(5)
            )));
        }
        let machine = header.u16(18);
        if machine != EM_AMDGPU {
            return Err(bad(format!(
                "e_machine is {machine}, not EM_AMDGPU ({EM_AMDGPU}): not AMD GPU code"
            )));
        }
        if header.u8(7) != ELFOSABI_AMDGPU_HSA {
            return Err(bad(format!(
                "OS/ABI is {}, not ELFOSABI_AMDGPU_HSA ({ELFOSABI_AMDGPU_HSA})",
                header.u8(7)
            )));
        }
        let abi = header.u8(8);
        let Some(&(_, version)) = ABI_VERSIONS.iter().find(|(v, _)| *v == abi) else {
            return Err(Error::Unsupported {
                what: format!(
                    "ABI version {abi} (code object v{}); this reader takes code object v4, v5 \
                     and v6 (ABI versions 2, 3 and 4)",
                    u32::from(abi) + 2
                ),
            });
        };
        let e_type = header.u16(16);
        if e_type != ET_DYN {
            return Err(bad(format!(
                "e_type is {e_type}, not ET_DYN (3): a relocatable object, not a linked code \
                 object"
            )));
        }
        let flags = header.u32(48);
        let mach = flags & EF_AMDGPU_MACH;
        let processor = target::processor_of_mach(mach).ok_or_else(|| Error::Unsupported {
            what: format!(
                "EF_AMDGPU_MACH {mach:#05x} (e_flags {flags:#x}) is not a processor this reader \
                 knows"
            ),
        })?;
        let feature = |mask: u32| match (flags & mask) >> mask.trailing_zeros() {
            FEATURE_ON => Some(true),
            FEATURE_OFF => Some(false),
            _ => None,
        };

        let phoff = header.u64(32);
        let shoff = header.u64(40);
        let (phentsize, phnum) = (header.u16(54), header.u16(56));
        let (shentsize, shnum) = (header.u16(58), header.u16(60));
        if phnum > 0 && u64::from(phentsize) != PHDR_SIZE {
            return Err(bad(format!("e_phentsize is {phentsize}, not {PHDR_SIZE}")));
        }
        if shnum > 0 && u64::from(shentsize) != SHDR_SIZE {
            return Err(bad(format!("e_shentsize is {shentsize}, not {SHDR_SIZE}")));
        }

        let mut segments = Vec::new();
        let mut notes = Vec::new();
        for i in 0..u64::from(phnum) {
            let what = || format!("program header {i}");
            let p = Fields::new(slice(
                elf,
                phoff.wrapping_add(i * PHDR_SIZE),
                PHDR_SIZE,
                what,
            )?);
            let (p_type, offset, vaddr) = (p.u32(0), p.u64(8), p.u64(16));
            let (filesz, memsz) = (p.u64(32), p.u64(40));
            let executable = p.u32(4) & 1 != 0;
            match p_type {
                PT_LOAD => {
                    slice(elf, offset, filesz, || {
                        format!("PT_LOAD segment {i}'s contents")
                    })?;
                    if filesz > memsz {
                        return Err(Error::Malformed {
                            what: what(),
                            reason: format!("p_filesz {filesz:#x} exceeds p_memsz {memsz:#x}"),
                        });
                    }
                    match vaddr.checked_add(memsz) {
                        Some(end) if end <= MAX_LOAD_SIZE => {}
                        _ => {
                            return Err(Error::Malformed {
                                what: what(),
                                reason: format!(
                                    "the segment at {vaddr:#x} of {memsz:#x} bytes ends past \
                                     {MAX_LOAD_SIZE:#x}"
                                ),
                            })
                        }
                    }
                    segments.push(Segment {
                        offset,
                        vaddr,
                        filesz,
                        memsz,
                        executable,
                    });
                }
                PT_NOTE => notes.push(slice(elf, offset, filesz, || {
                    format!("PT_NOTE segment {i}")
                })?),
                _ => {}
            }
        }
        if segments.is_empty() {
            return Err(bad("no PT_LOAD segment: nothing to load".into()));
        }
        let end = segments
            .iter()
            .map(|s| s.vaddr + s.memsz)
            .max()
            .unwrap_or(0);
        let load_size = end.div_ceil(4096) * 4096;

        let sections = Sections::read(elf, shoff, shnum)?;
        let dynsym = sections.symbols(elf, SHT_DYNSYM)?;
        let symtab = sections.symbols(elf, SHT_SYMTAB)?;
        let relocations = sections.dynamic_relocations(elf, load_size)?;

        let mut kernels = Vec::new();
        for note in metadata_notes(&notes)? {
            kernels.extend(metadata::kernels(&note)?);
        }
        let defined: Vec<Symbol> = match (&dynsym, &symtab) {
            (Some(d), _) => d.defined.clone(),
            (None, Some(s)) => s.defined.clone(),
            (None, None) => Vec::new(),
        };
        for k in &mut kernels {
            let sym = defined
                .iter()
                .chain(symtab.iter().flat_map(|s| &s.defined))
                .find(|s| s.name == k.symbol)
                .ok_or_else(|| Error::Metadata {
                    kernel: Some(k.name.clone()),
                    reason: format!(
                        "its descriptor symbol `{}` is not defined in the code object",
                        k.symbol
                    ),
                })?;
            if sym.value.saturating_add(KERNEL_DESCRIPTOR_SIZE) > load_size {
                return Err(Error::Metadata {
                    kernel: Some(k.name.clone()),
                    reason: format!(
                        "its descriptor `{}` at {:#x} lies outside the loaded image ({load_size:#x} \
                         bytes)",
                        k.symbol, sym.value
                    ),
                });
            }
            k.descriptor_offset = sym.value;
        }

        let mut functions: Vec<(String, u64, u64)> = dynsym
            .iter()
            .chain(symtab.iter())
            .flat_map(|t| &t.defined)
            .filter(|s| s.kind == STT_FUNC && s.size > 0)
            .map(|s| (s.name.clone(), s.value, s.size))
            .collect();
        functions.sort_by_key(|f| (f.1, f.2));
        functions.dedup_by_key(|f| (f.1, f.2));
        Ok(CodeObject {
            functions,
            processor,
            sramecc: feature(EF_AMDGPU_FEATURE_SRAMECC),
            xnack: feature(EF_AMDGPU_FEATURE_XNACK),
            version,
            segments,
            load_size,
            relocations,
            kernels,
            symbols: defined,
            image: elf.to_vec(),
        })
    }

    /// The code: each function's offset from the load base and its bytes
    /// (kernels and the device functions they call, from the symbol
    /// tables); the executable `PT_LOAD` segments whole when no function
    /// symbol says where the instructions are (the padding between
    /// functions is not code).
    pub fn code(&self) -> Vec<(u64, &[u8])> {
        let in_code = |offset: u64, size: u64| -> Option<&[u8]> {
            let seg = self.segments.iter().find(|s| {
                s.executable
                    && offset >= s.vaddr
                    && offset
                        .checked_add(size)
                        .is_some_and(|end| end <= s.vaddr + s.filesz)
            })?;
            let start = usize::try_from(seg.offset + (offset - seg.vaddr)).ok()?;
            self.image
                .get(start..start.checked_add(usize::try_from(size).ok()?)?)
        };
        let functions: Vec<(u64, &[u8])> = self
            .functions
            .iter()
            .filter_map(|(_, offset, size)| Some((*offset, in_code(*offset, *size)?)))
            .collect();
        if !functions.is_empty() {
            return functions;
        }
        self.segments
            .iter()
            .filter(|s| s.executable)
            .filter_map(|s| {
                let start = usize::try_from(s.offset).ok()?;
                let end = start.checked_add(usize::try_from(s.filesz).ok()?)?;
                Some((s.vaddr, self.image.get(start..end)?))
            })
            .collect()
    }

    /// The processor (`gfx942`).
    pub fn processor(&self) -> &str {
        self.processor
    }

    /// The target id: the processor and the features the object fixes,
    /// in LLVM's order (`gfx942:sramecc+:xnack-`; `gfx942` when it fixes
    /// neither).
    pub fn target_id(&self) -> String {
        let mut id = self.processor.to_owned();
        for (name, on) in [("sramecc", self.sramecc), ("xnack", self.xnack)] {
            if let Some(on) = on {
                id.push(':');
                id.push_str(name);
                id.push(if on { '+' } else { '-' });
            }
        }
        id
    }

    /// The code object version: 4, 5 or 6.
    pub fn version(&self) -> u32 {
        self.version
    }

    /// Bytes of device memory the loaded image needs: the end of the last
    /// `PT_LOAD` segment (`p_vaddr + p_memsz`), rounded up to 4096.
    pub fn load_size(&self) -> u64 {
        self.load_size
    }

    /// Writes the loaded image for device address `base` into `dest`
    /// (at least [`load_size`](Self::load_size) bytes): every `PT_LOAD`
    /// segment at its `p_vaddr`, zeros elsewhere (`.bss`, gaps), then the
    /// dynamic relocations applied.
    ///
    /// Relocations (AMDGPUUsage, "Relocation Records"; B the base, S the
    /// symbol's address, A the addend): `R_AMDGPU_RELATIVE64` (B + A),
    /// `R_AMDGPU_ABS64` (S + A), `R_AMDGPU_ABS32` (S + A, 32 bits),
    /// `R_AMDGPU_ABS32_LO` / `_HI` (the low / high 32 bits of S + A). One
    /// against an undefined symbol is an [`Error::UndefinedSymbol`]; a weak
    /// undefined symbol is 0, as the ELF rules have it.
    pub fn load(&self, base: u64, dest: &mut [u8]) -> Result<(), Error> {
        let size = self.load_size as usize;
        if dest.len() < size {
            return Err(Error::DestinationTooSmall {
                needed: self.load_size,
                given: dest.len() as u64,
            });
        }
        let dest = &mut dest[..size];
        dest.fill(0);
        for s in &self.segments {
            // Bounds were checked by `parse`: the file range is inside the
            // image and vaddr + memsz <= load_size.
            let (from, to) = (s.offset as usize, s.vaddr as usize);
            let n = s.filesz as usize;
            dest[to..to + n].copy_from_slice(&self.image[from..from + n]);
        }
        for r in &self.relocations {
            let s = match &r.target {
                RelocTarget::Zero => 0,
                RelocTarget::Defined(v) => base.wrapping_add(*v),
                RelocTarget::Absolute(v) => *v,
                RelocTarget::Undefined(name) => {
                    return Err(Error::UndefinedSymbol {
                        symbol: name.clone(),
                        offset: r.offset,
                    })
                }
            };
            let sa = s.wrapping_add_signed(r.addend);
            let at = r.offset as usize;
            match r.kind {
                R_AMDGPU_RELATIVE64 => {
                    let v = base.wrapping_add_signed(r.addend);
                    dest[at..at + 8].copy_from_slice(&v.to_le_bytes());
                }
                R_AMDGPU_ABS64 => dest[at..at + 8].copy_from_slice(&sa.to_le_bytes()),
                R_AMDGPU_ABS32 | R_AMDGPU_ABS32_LO => {
                    dest[at..at + 4].copy_from_slice(&(sa as u32).to_le_bytes());
                }
                R_AMDGPU_ABS32_HI => {
                    dest[at..at + 4].copy_from_slice(&((sa >> 32) as u32).to_le_bytes());
                }
                _ => {} // R_AMDGPU_NONE; `parse` refused every other type.
            }
        }
        Ok(())
    }

    /// The kernels, in the metadata's order.
    pub fn kernels(&self) -> &[KernelInfo] {
        &self.kernels
    }

    /// The kernel named `name` (`.name`, what `hipModuleGetFunction` takes).
    pub fn kernel(&self, name: &str) -> Option<&KernelInfo> {
        self.kernels.iter().find(|k| k.name == name)
    }

    /// A global variable (a defined `STT_OBJECT` symbol that is not a
    /// kernel descriptor): its offset from the load base and its size, for
    /// `hipModuleGetGlobal`.
    pub fn global(&self, name: &str) -> Option<(u64, u64)> {
        self.symbols
            .iter()
            .find(|s| s.kind == STT_OBJECT && s.name == name && !s.name.ends_with(".kd"))
            .map(|s| (s.value, s.size))
    }

    /// The offset from the load base of any defined symbol (a kernel's
    /// entry, a descriptor, a variable).
    pub fn symbol(&self, name: &str) -> Option<u64> {
        self.symbols
            .iter()
            .find(|s| s.name == name)
            .map(|s| s.value)
    }
}

/// The decoded MessagePack of every `NT_AMDGPU_METADATA` note, in file
/// order. A code object linked from separately assembled kernels (rocBLAS's
/// Tensile libraries) has one note per kernel.
fn metadata_notes(notes: &[&[u8]]) -> Result<Vec<msgpack::Value>, Error> {
    let mut found = Vec::new();
    for segment in notes {
        let mut at = 0u64;
        while at < segment.len() as u64 {
            let what = || format!("note at offset {at:#x} of a PT_NOTE segment");
            let h = Fields::new(slice(segment, at, 12, what)?);
            let (namesz, descsz, kind) = (u64::from(h.u32(0)), u64::from(h.u32(4)), h.u32(8));
            // Name and descriptor are each padded to 4 bytes (AMDGPUUsage,
            // "Note Records").
            let name_at = at + 12;
            let desc_at = name_at + namesz.div_ceil(4) * 4;
            let name = slice(segment, name_at, namesz, what)?;
            let desc = slice(segment, desc_at, descsz, what)?;
            if kind == NT_AMDGPU_METADATA && name == b"AMDGPU\0" {
                found.push(msgpack::decode(desc).map_err(|reason| Error::Metadata {
                    kernel: None,
                    reason,
                })?);
            }
            at = desc_at + descsz.div_ceil(4) * 4;
        }
    }
    if !found.is_empty() {
        return Ok(found);
    }
    Err(Error::Metadata {
        kernel: None,
        reason: "no NT_AMDGPU_METADATA note (owner `AMDGPU`, type 32) in a PT_NOTE segment".into(),
    })
}

/// The section headers.
struct Sections {
    headers: Vec<SectionHeader>,
}

#[derive(Clone, Copy)]
struct SectionHeader {
    index: usize,
    kind: u32,
    offset: u64,
    size: u64,
    link: u32,
    info: u32,
}

/// A symbol table: its defined symbols by name, and every entry's
/// resolution for relocations.
struct SymbolTable {
    defined: Vec<Symbol>,
    targets: Vec<RelocTarget>,
}

impl Sections {
    fn read(elf: &[u8], shoff: u64, shnum: u16) -> Result<Sections, Error> {
        let mut headers = Vec::with_capacity(usize::from(shnum));
        for i in 0..u64::from(shnum) {
            let what = || format!("section header {i}");
            let s = Fields::new(slice(
                elf,
                shoff.wrapping_add(i * SHDR_SIZE),
                SHDR_SIZE,
                what,
            )?);
            headers.push(SectionHeader {
                index: i as usize,
                kind: s.u32(4),
                offset: s.u64(24),
                size: s.u64(32),
                link: s.u32(40),
                info: s.u32(44),
            });
        }
        Ok(Sections { headers })
    }

    fn contents<'a>(&self, elf: &'a [u8], h: &SectionHeader) -> Result<&'a [u8], Error> {
        slice(elf, h.offset, h.size, || {
            format!("section {}'s contents", h.index)
        })
    }

    /// The first symbol table of type `kind`, if any.
    fn symbols(&self, elf: &[u8], kind: u32) -> Result<Option<SymbolTable>, Error> {
        let Some(h) = self.headers.iter().find(|h| h.kind == kind) else {
            return Ok(None);
        };
        self.table(elf, h).map(Some)
    }

    fn table(&self, elf: &[u8], h: &SectionHeader) -> Result<SymbolTable, Error> {
        let bytes = self.contents(elf, h)?;
        let strings = self
            .headers
            .get(h.link as usize)
            .ok_or_else(|| Error::Malformed {
                what: format!("symbol table (section {})", h.index),
                reason: format!("its string table link {} names no section", h.link),
            })?;
        let strings = self.contents(elf, strings)?;
        let mut defined = Vec::new();
        let mut targets = Vec::with_capacity(bytes.len() / SYM_SIZE as usize);
        for (i, entry) in bytes.chunks_exact(SYM_SIZE as usize).enumerate() {
            let s = Fields::new(entry);
            let what = || format!("symbol {i} of section {}", h.index);
            let (info, shndx, value, size) = (s.u8(4), s.u16(6), s.u64(8), s.u64(16));
            if i == 0 {
                targets.push(RelocTarget::Zero);
                continue;
            }
            let name = c_str(strings, u64::from(s.u32(0)), what)?;
            targets.push(match shndx {
                SHN_UNDEF if info >> 4 == STB_WEAK => RelocTarget::Zero,
                SHN_UNDEF => RelocTarget::Undefined(name.clone()),
                SHN_ABS => RelocTarget::Absolute(value),
                _ => RelocTarget::Defined(value),
            });
            if shndx != SHN_UNDEF && shndx != SHN_ABS {
                defined.push(Symbol {
                    name,
                    value,
                    size,
                    kind: info & 0xf,
                });
            }
        }
        Ok(SymbolTable { defined, targets })
    }

    /// The dynamic relocations: every `SHT_RELA` section with no target
    /// section (`sh_info` 0), which is how AMD's loader tells `.rela.dyn`
    /// from static relocations; each against the symbol table it links.
    fn dynamic_relocations(&self, elf: &[u8], load_size: u64) -> Result<Vec<Relocation>, Error> {
        let mut out = Vec::new();
        for h in self
            .headers
            .iter()
            .filter(|h| h.kind == SHT_RELA && h.info == 0)
        {
            let bytes = self.contents(elf, h)?;
            let symbols = match self.headers.get(h.link as usize) {
                Some(s) if h.link != 0 => Some(self.table(elf, s)?),
                _ => None,
            };
            for (i, entry) in bytes.chunks_exact(RELA_SIZE as usize).enumerate() {
                let r = Fields::new(entry);
                let (offset, info, addend) = (r.u64(0), r.u64(8), r.i64(16));
                let (kind, sym) = ((info & 0xffff_ffff) as u32, (info >> 32) as usize);
                let what = || format!("relocation {i} of section {}", h.index);
                let width = match kind {
                    R_AMDGPU_NONE => continue,
                    R_AMDGPU_RELATIVE64 | R_AMDGPU_ABS64 => 8,
                    R_AMDGPU_ABS32 | R_AMDGPU_ABS32_LO | R_AMDGPU_ABS32_HI => 4,
                    other => {
                        return Err(Error::Unsupported {
                            what: format!(
                                "dynamic relocation type {other} at offset {offset:#x} ({})",
                                what()
                            ),
                        })
                    }
                };
                if offset
                    .checked_add(width)
                    .map_or(true, |end| end > load_size)
                {
                    return Err(Error::Malformed {
                        what: what(),
                        reason: format!(
                            "its place {offset:#x} ({width} bytes) is outside the loaded image \
                             ({load_size:#x} bytes)"
                        ),
                    });
                }
                let target = if kind == R_AMDGPU_RELATIVE64 || sym == 0 {
                    RelocTarget::Zero
                } else {
                    symbols
                        .as_ref()
                        .and_then(|t| t.targets.get(sym))
                        .cloned()
                        .ok_or_else(|| Error::Malformed {
                            what: what(),
                            reason: format!("its symbol index {sym} is not in its symbol table"),
                        })?
                };
                out.push(Relocation {
                    offset,
                    kind,
                    addend,
                    target,
                });
            }
        }
        Ok(out)
    }
}

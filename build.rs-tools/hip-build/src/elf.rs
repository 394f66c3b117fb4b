//! Just enough ELF reading to check that a file is an AMDGPU code object
//! and to list its symbols, without any tool from the toolchain.

use std::fmt;

/// `e_machine` of AMDGPU code objects.
pub const EM_AMDGPU: u16 = 224;

/// What an AMDGPU code object says about itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeObject {
    /// `e_machine` (224 for AMDGPU).
    pub machine: u16,
    /// `e_flags`: for AMDGPU, the processor in the low byte
    /// (`EF_AMDGPU_MACH`, e.g. 0x3f for gfx90a) and the xnack/sramecc
    /// settings above it.
    pub flags: u32,
    /// The names in the symbol tables (`.symtab` and `.dynsym`); a kernel
    /// `k` appears as `k` and as its descriptor `k.kd`.
    pub symbols: Vec<String>,
}

impl CodeObject {
    /// The processor field of `e_flags` (`EF_AMDGPU_MACH`).
    pub fn mach(&self) -> u32 {
        self.flags & 0xff
    }

    /// Whether a kernel of this (unmangled or mangled) name is defined:
    /// both its symbol and its kernel descriptor `name.kd` are present.
    pub fn has_kernel(&self, name: &str) -> bool {
        let kd = format!("{name}.kd");
        self.symbols.iter().any(|s| s == name) && self.symbols.contains(&kd)
    }
}

/// Why bytes are not a readable ELF code object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotElf(pub String);

impl fmt::Display for NotElf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NotElf {}

/// The `EF_AMDGPU_MACH` value of a processor name, for the processors
/// hip-build's tests and checks care about; `None` for others.
pub fn amdgpu_mach(processor: &str) -> Option<u32> {
    Some(match processor {
        "gfx803" => 0x2a,
        "gfx900" => 0x2c,
        "gfx906" => 0x2f,
        "gfx908" => 0x30,
        "gfx90a" => 0x3f,
        "gfx940" => 0x40,
        "gfx942" => 0x4c,
        "gfx1010" => 0x33,
        "gfx1030" => 0x36,
        "gfx1100" => 0x41,
        _ => return None,
    })
}

/// Reads a 64-bit little-endian ELF file's header and symbol names.
///
/// A clang offload bundle (`__CLANG_OFFLOAD_BUNDLE__`) is rejected with a
/// message saying so: it wraps code objects rather than being one.
pub fn parse(bytes: &[u8]) -> Result<CodeObject, NotElf> {
    if bytes.starts_with(b"__CLANG_OFFLOAD_BUNDLE__") {
        return Err(NotElf(
            "a clang offload bundle, not a plain code object (compile with --no-gpu-bundle-output)"
                .into(),
        ));
    }
    if bytes.len() < 64 || &bytes[..4] != b"\x7fELF" {
        return Err(NotElf("no ELF header".into()));
    }
    if bytes[4] != 2 || bytes[5] != 1 {
        return Err(NotElf("not a 64-bit little-endian ELF file".into()));
    }
    let r = Reader(bytes);
    let machine = r.u16(18)?;
    let flags = r.u32(48)?;
    let shoff = r.u64(40)? as usize;
    let shentsize = r.u16(58)? as usize;
    let shnum = r.u16(60)? as usize;
    let mut symbols = Vec::new();
    for i in 0..shnum {
        let sh = shoff + i * shentsize;
        let kind = r.u32(sh + 4)?;
        // SHT_SYMTAB = 2, SHT_DYNSYM = 11.
        if kind != 2 && kind != 11 {
            continue;
        }
        let offset = r.u64(sh + 24)? as usize;
        let size = r.u64(sh + 32)? as usize;
        let link = r.u32(sh + 40)? as usize;
        let entsize = (r.u64(sh + 56)? as usize).max(24);
        let strtab = shoff + link * shentsize;
        let str_offset = r.u64(strtab + 24)? as usize;
        let str_size = r.u64(strtab + 32)? as usize;
        let strings = bytes
            .get(str_offset..str_offset + str_size)
            .ok_or_else(|| NotElf("string table outside the file".into()))?;
        for sym in (offset..offset + size).step_by(entsize).skip(1) {
            let name_at = r.u32(sym)? as usize;
            let Some(tail) = strings.get(name_at..) else {
                continue;
            };
            let end = tail.iter().position(|b| *b == 0).unwrap_or(tail.len());
            let name = String::from_utf8_lossy(&tail[..end]).into_owned();
            if !name.is_empty() && !symbols.contains(&name) {
                symbols.push(name);
            }
        }
    }
    Ok(CodeObject {
        machine,
        flags,
        symbols,
    })
}

struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn bytes<const N: usize>(&self, at: usize) -> Result<[u8; N], NotElf> {
        self.0
            .get(at..at + N)
            .and_then(|s| s.try_into().ok())
            .ok_or_else(|| NotElf(format!("truncated ELF file (offset {at})")))
    }
    fn u16(&self, at: usize) -> Result<u16, NotElf> {
        self.bytes(at).map(u16::from_le_bytes)
    }
    fn u32(&self, at: usize) -> Result<u32, NotElf> {
        self.bytes(at).map(u32::from_le_bytes)
    }
    fn u64(&self, at: usize) -> Result<u64, NotElf> {
        self.bytes(at).map(u64::from_le_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_bundles_and_garbage() {
        let bundle = b"__CLANG_OFFLOAD_BUNDLE__\x02\x00\x00\x00";
        assert!(parse(bundle).unwrap_err().0.contains("bundle"));
        assert_eq!(parse(b"hello").unwrap_err().0, "no ELF header");
        let mut header = vec![0u8; 64];
        header[..4].copy_from_slice(b"\x7fELF");
        header[4] = 1;
        assert!(parse(&header).unwrap_err().0.contains("64-bit"));
    }

    #[test]
    fn reads_header_fields_of_a_minimal_file() {
        let mut header = vec![0u8; 64];
        header[..4].copy_from_slice(b"\x7fELF");
        header[4] = 2;
        header[5] = 1;
        header[18..20].copy_from_slice(&EM_AMDGPU.to_le_bytes());
        header[48..52].copy_from_slice(&0x53fu32.to_le_bytes());
        let co = parse(&header).unwrap();
        assert_eq!(co.machine, EM_AMDGPU);
        assert_eq!(co.mach(), amdgpu_mach("gfx90a").unwrap());
        assert!(co.symbols.is_empty());
        assert!(!co.has_kernel("k"));
    }
}

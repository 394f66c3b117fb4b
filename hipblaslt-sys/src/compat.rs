//! Whether a hipBLASLt file fits the HIP runtime this process loaded.
//!
//! hipBLASLt 7.1 is released with ROCm 7, but Debian builds it against
//! ROCm 6.4's HIP (`libhipblaslt1` 7.1.1 needs `libamdhip64.so.6`), so
//! "hipBLASLt 7.x" says nothing about the HIP it runs on. What decides is
//! the HIP runtime the library is linked against: its `DT_NEEDED` entry
//! `libamdhip64.so.N`. When N differs from the major of the runtime
//! hip-sys loaded (`libamdhip64.so.6` or `.7`), the dynamic linker would
//! bring a second HIP runtime into the process, whose devices, streams and
//! memory are not the first one's: every handle hip-sys gives hipBLASLt
//! would be foreign to it. So the loader refuses such a file with
//! [`check`]'s message instead of resolving its symbols.
//!
//! What is checked: the ELF dynamic section of the file (Linux). A file
//! that is not ELF (Windows DLLs), or that names no `libamdhip64`, is let
//! through: nothing can be told from it.

use std::path::Path;

/// The `libamdhip64.so.N` majors an ELF file's dynamic section needs;
/// `None` when the file is not a 64-bit little-endian ELF file with a
/// dynamic section. `read(offset, len)` gives the file's bytes there, so
/// only the headers, the dynamic section and its strings are read, not a
/// 150 MB library.
pub(crate) fn needed_hip_majors(read: &dyn Fn(u64, usize) -> Option<Vec<u8>>) -> Option<Vec<u32>> {
    Some(
        needed(read)?
            .iter()
            .filter_map(|n| n.strip_prefix("libamdhip64.so."))
            .filter_map(|v| v.split('.').next()?.parse().ok())
            .collect(),
    )
}

/// `read` over a file: its bytes at an offset, `None` past its end.
pub(crate) fn file_reader(file: std::fs::File) -> impl Fn(u64, usize) -> Option<Vec<u8>> {
    move |offset, len| {
        use std::io::{Read as _, Seek as _, SeekFrom};
        // Section tables are small; a length beyond this is a corrupt file.
        if len > 64 << 20 {
            return None;
        }
        let mut f = &file;
        f.seek(SeekFrom::Start(offset)).ok()?;
        let mut buf = vec![0; len];
        f.read_exact(&mut buf).ok()?;
        Some(buf)
    }
}

/// `read` over bytes in memory.
#[cfg(test)]
fn slice_reader(bytes: &[u8]) -> impl Fn(u64, usize) -> Option<Vec<u8>> + '_ {
    move |offset, len| {
        let start = usize::try_from(offset).ok()?;
        Some(bytes.get(start..start.checked_add(len)?)?.to_vec())
    }
}

/// The `DT_NEEDED` names of a 64-bit little-endian ELF file.
fn needed(read: &dyn Fn(u64, usize) -> Option<Vec<u8>>) -> Option<Vec<String>> {
    const SHT_DYNAMIC: u32 = 6;
    const DT_NULL: u64 = 0;
    const DT_NEEDED: u64 = 1;
    fn u16_at(b: &[u8], o: usize) -> Option<u16> {
        Some(u16::from_le_bytes(b.get(o..o + 2)?.try_into().ok()?))
    }
    fn u32_at(b: &[u8], o: usize) -> Option<u32> {
        Some(u32::from_le_bytes(b.get(o..o + 4)?.try_into().ok()?))
    }
    fn u64_at(b: &[u8], o: usize) -> Option<u64> {
        Some(u64::from_le_bytes(b.get(o..o + 8)?.try_into().ok()?))
    }
    let header = read(0, 0x40)?;
    // e_ident: magic, ELFCLASS64, ELFDATA2LSB.
    if header.get(0..6)? != b"\x7fELF\x02\x01" {
        return None;
    }
    let shoff = u64_at(&header, 0x28)?;
    let shentsize = usize::from(u16_at(&header, 0x3a)?);
    let shnum = usize::from(u16_at(&header, 0x3c)?);
    if shentsize < 0x40 {
        return None;
    }
    let table = read(shoff, shnum.checked_mul(shentsize)?)?;
    let section = |i: usize| {
        let base = i.checked_mul(shentsize)?;
        let kind = u32_at(&table, base + 4)?;
        let offset = u64_at(&table, base + 0x18)?;
        let size = usize::try_from(u64_at(&table, base + 0x20)?).ok()?;
        let link = usize::try_from(u32_at(&table, base + 0x28)?).ok()?;
        Some((kind, offset, size, link))
    };
    let mut names = Vec::new();
    let mut found = false;
    for i in 0..shnum {
        let (kind, offset, size, link) = section(i)?;
        if kind != SHT_DYNAMIC {
            continue;
        }
        found = true;
        let (_, str_offset, str_size, _) = section(link)?;
        let strings = read(str_offset, str_size)?;
        let dynamic = read(offset, size)?;
        for entry in (0..size / 16).map(|k| 16 * k) {
            let tag = u64_at(&dynamic, entry)?;
            if tag == DT_NULL {
                break;
            }
            if tag == DT_NEEDED {
                let at = usize::try_from(u64_at(&dynamic, entry + 8)?).ok()?;
                let rest = strings.get(at..)?;
                let end = rest.iter().position(|&b| b == 0)?;
                names.push(String::from_utf8_lossy(&rest[..end]).into_owned());
            }
        }
    }
    found.then_some(names)
}

/// The major of a HIP runtime file name (`libamdhip64.so.6.4.43484` -> 6).
pub(crate) fn runtime_major(runtime: &Path) -> Option<u32> {
    let name = runtime.file_name()?.to_str()?;
    name.strip_prefix("libamdhip64.so.")?
        .split('.')
        .next()?
        .parse()
        .ok()
}

/// `Err(reason)` when the hipBLASLt at `library` (whose bytes `read`
/// gives) needs another HIP runtime major than the one at `runtime` the
/// process loaded; `Ok` when they fit or nothing can be told (module doc).
pub(crate) fn check(
    library: &Path,
    read: &dyn Fn(u64, usize) -> Option<Vec<u8>>,
    runtime: &Path,
) -> Result<(), String> {
    let (Some(needs), Some(loaded)) = (needed_hip_majors(read), runtime_major(runtime)) else {
        return Ok(());
    };
    match needs.first() {
        Some(&wanted) if !needs.contains(&loaded) => Err(format!(
            "{} was built for HIP {wanted} (it needs libamdhip64.so.{wanted}), but this \
             process loaded the HIP {loaded} runtime {}: a second HIP runtime would share no \
             device, stream or memory with the first. Install a hipBLASLt built for HIP \
             {loaded} (Debian's libhipblaslt1 7.1.1 is built for HIP 6), or point \
             HIP_SYS_LIBRARY_PATH at a ROCm {wanted} installation that has both",
            library.display(),
            runtime.display()
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal ELF64 file: a null section, a string table and a dynamic
    /// section listing `needed` (the layout `needed` reads).
    fn elf_with(needed: &[&str]) -> Vec<u8> {
        let mut strings = vec![0u8];
        let mut offsets = Vec::new();
        for n in needed {
            offsets.push(strings.len() as u64);
            strings.extend_from_slice(n.as_bytes());
            strings.push(0);
        }
        let mut dynamic = Vec::new();
        for o in &offsets {
            dynamic.extend_from_slice(&1u64.to_le_bytes());
            dynamic.extend_from_slice(&o.to_le_bytes());
        }
        dynamic.extend_from_slice(&[0u8; 16]);
        let str_off = 0x40usize;
        let dyn_off = str_off + strings.len();
        let sh_off = dyn_off + dynamic.len();
        let mut elf = vec![0u8; 0x40];
        elf[..6].copy_from_slice(b"\x7fELF\x02\x01");
        elf[0x28..0x30].copy_from_slice(&(sh_off as u64).to_le_bytes());
        elf[0x3a..0x3c].copy_from_slice(&0x40u16.to_le_bytes());
        elf[0x3c..0x3e].copy_from_slice(&3u16.to_le_bytes());
        elf.extend_from_slice(&strings);
        elf.extend_from_slice(&dynamic);
        let header = |kind: u32, off: usize, size: usize, link: u32| {
            let mut h = vec![0u8; 0x40];
            h[4..8].copy_from_slice(&kind.to_le_bytes());
            h[0x18..0x20].copy_from_slice(&(off as u64).to_le_bytes());
            h[0x20..0x28].copy_from_slice(&(size as u64).to_le_bytes());
            h[0x28..0x2c].copy_from_slice(&link.to_le_bytes());
            h
        };
        elf.extend(header(0, 0, 0, 0));
        elf.extend(header(3, str_off, strings.len(), 0));
        elf.extend(header(6, dyn_off, dynamic.len(), 1));
        elf
    }

    #[test]
    fn reads_the_hip_runtime_a_file_needs() {
        let elf = elf_with(&["libamdhip64.so.6", "libstdc++.so.6", "libc.so.6"]);
        assert_eq!(
            needed(&slice_reader(&elf)).unwrap(),
            ["libamdhip64.so.6", "libstdc++.so.6", "libc.so.6"]
        );
        assert_eq!(needed_hip_majors(&slice_reader(&elf)), Some(vec![6]));
        let libc_only = elf_with(&["libc.so.6"]);
        assert_eq!(needed_hip_majors(&slice_reader(&libc_only)), Some(vec![]));
        assert_eq!(needed_hip_majors(&slice_reader(b"MZ\x90\x00 a DLL")), None);
        // Cut anywhere, the file is refused without a panic.
        for cut in 0..elf.len() {
            assert!(needed(&slice_reader(&elf[..cut])).is_none(), "cut at {cut}");
        }
    }

    #[test]
    fn a_hipblaslt_for_another_hip_major_is_refused_with_both_names() {
        let lib = Path::new("/opt/rocm-7.1.0/lib/libhipblaslt.so.1");
        let elf7 = elf_with(&["libamdhip64.so.7"]);
        let rt6 = Path::new("/usr/lib/x86_64-linux-gnu/libamdhip64.so.6.4.43484");
        let e = check(lib, &slice_reader(&elf7), rt6).unwrap_err();
        assert!(e.contains("built for HIP 7"), "{e}");
        assert!(e.contains("libamdhip64.so.6.4.43484"), "{e}");
        assert!(e.contains("libhipblaslt.so.1"), "{e}");
        // Debian's hipBLASLt 7.1.1 is built for HIP 6: it fits a 6.x runtime.
        let elf6 = elf_with(&["libamdhip64.so.6", "libc.so.6"]);
        assert_eq!(check(lib, &slice_reader(&elf6), rt6), Ok(()));
        // Nothing to tell: not ELF, no HIP named, runtime name unknown.
        assert_eq!(check(lib, &slice_reader(b"MZ"), rt6), Ok(()));
        let libc_only = elf_with(&["libc.so.6"]);
        assert_eq!(check(lib, &slice_reader(&libc_only), rt6), Ok(()));
        let dll = Path::new("amdhip64_6.dll");
        assert_eq!(check(lib, &slice_reader(&elf7), dll), Ok(()));
    }

    #[test]
    fn runtime_majors_come_from_the_file_name() {
        assert_eq!(runtime_major(Path::new("/x/libamdhip64.so.6")), Some(6));
        assert_eq!(runtime_major(Path::new("libamdhip64.so.7.1.2")), Some(7));
        assert_eq!(runtime_major(Path::new("libamdhip64.so")), None);
    }
}

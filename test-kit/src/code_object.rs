//! Code objects and envelopes built in memory, for the tests of
//! `hip::code_object` and of the loaders above it: no compiler needed.
//!
//! - [`tiny_elf`]: a small well-formed 64-bit ELF for a machine number;
//! - [`bundle_of`]: a clang offload bundle of AMD GPU entries;
//! - [`envelope`]: the text envelope (v1) of any bytes, header lines as
//!   given, so tests can wrap arbitrary payloads (the writer proper lives
//!   in the cudaforge drop-in).

/// `EM_AMDGPU`: the ELF machine number of AMD GPU code objects.
pub const EM_AMDGPU: u16 = 224;
/// `EM_CUDA`: the ELF machine number of NVIDIA cubins.
pub const EM_CUDA: u16 = 190;

/// A small, well-formed 64-bit ELF for `machine`: header, one program
/// header, three sections (null, .text, .shstrtab), section headers last
/// (as compilers lay them out).
pub fn tiny_elf(machine: u16) -> Vec<u8> {
    let text = [0xAAu8; 32];
    let shstrtab = b"\0.text\0.shstrtab\0";
    let phoff = 64u64;
    let text_off = phoff + 56;
    let strtab_off = text_off + text.len() as u64;
    let shoff = strtab_off + shstrtab.len() as u64;
    let mut e = vec![0u8; 64];
    e[..4].copy_from_slice(b"\x7fELF");
    e[4] = 2; // 64-bit
    e[5] = 1; // little-endian
    e[6] = 1;
    e[16..18].copy_from_slice(&3u16.to_le_bytes()); // ET_DYN
    e[18..20].copy_from_slice(&machine.to_le_bytes());
    e[32..40].copy_from_slice(&phoff.to_le_bytes());
    e[40..48].copy_from_slice(&shoff.to_le_bytes());
    e[52..54].copy_from_slice(&64u16.to_le_bytes());
    e[54..56].copy_from_slice(&56u16.to_le_bytes());
    e[56..58].copy_from_slice(&1u16.to_le_bytes());
    e[58..60].copy_from_slice(&64u16.to_le_bytes());
    e[60..62].copy_from_slice(&3u16.to_le_bytes());
    e[62..64].copy_from_slice(&2u16.to_le_bytes());
    let mut ph = vec![0u8; 56];
    ph[0..4].copy_from_slice(&1u32.to_le_bytes()); // PT_LOAD
    ph[8..16].copy_from_slice(&text_off.to_le_bytes());
    ph[32..40].copy_from_slice(&(text.len() as u64).to_le_bytes());
    e.extend_from_slice(&ph);
    e.extend_from_slice(&text);
    e.extend_from_slice(shstrtab);
    let section = |name: u32, ty: u32, off: u64, size: u64| {
        let mut s = vec![0u8; 64];
        s[0..4].copy_from_slice(&name.to_le_bytes());
        s[4..8].copy_from_slice(&ty.to_le_bytes());
        s[24..32].copy_from_slice(&off.to_le_bytes());
        s[32..40].copy_from_slice(&size.to_le_bytes());
        s
    };
    e.extend(section(0, 0, 0, 0));
    e.extend(section(1, 1, text_off, text.len() as u64));
    e.extend(section(7, 3, strtab_off, shstrtab.len() as u64));
    e
}

/// A clang offload bundle (`__CLANG_OFFLOAD_BUNDLE__`) of a host entry and
/// one AMD GPU entry per image (triples `...--gfx900`, `...--gfx901`, ...).
pub fn bundle_of(images: &[Vec<u8>]) -> Vec<u8> {
    let mut entries: Vec<(String, Vec<u8>)> =
        vec![("host-x86_64-unknown-linux-gnu-".into(), Vec::new())];
    for (i, img) in images.iter().enumerate() {
        entries.push((format!("hipv4-amdgcn-amd-amdhsa--gfx90{i}"), img.clone()));
    }
    let table: u64 = entries.iter().map(|(t, _)| 24 + t.len() as u64).sum();
    let mut out = b"__CLANG_OFFLOAD_BUNDLE__".to_vec();
    out.extend((entries.len() as u64).to_le_bytes());
    let mut offset = 32 + table;
    for (t, body) in &entries {
        out.extend(offset.to_le_bytes());
        out.extend((body.len() as u64).to_le_bytes());
        out.extend((t.len() as u64).to_le_bytes());
        out.extend(t.as_bytes());
        offset += body.len() as u64;
    }
    for (_, body) in &entries {
        out.extend(body);
    }
    out
}

/// A bundle of one tiny AMD code object: the smallest payload
/// `hip::code_object::Envelope::parse` accepts.
pub fn tiny_bundle() -> Vec<u8> {
    bundle_of(&[tiny_elf(EM_AMDGPU)])
}

/// base64 and sha256 as the envelope's writer (the cudaforge drop-in)
/// spells them.
pub use cudaforge::envelope::{base64, sha256_hex};

/// The text envelope (v1) of `image`, lines ending in `\n`: the magic
/// line, `// source:` when given, `// targets:`, one `// unavailable:` per
/// (kernel, reason), `// sha256:`, `// begin base64 N`, the base64 in lines
/// of 76 characters, `// end`.
pub fn envelope(
    image: &[u8],
    source: Option<&str>,
    targets: &[&str],
    unavailable: &[(&str, &str)],
) -> String {
    // The drop-in's own writer: the readers' tests parse what it writes.
    let targets: Vec<String> = targets.iter().map(|t| t.to_string()).collect();
    let unavailable: Vec<(String, String)> = unavailable
        .iter()
        .map(|(k, r)| (k.to_string(), r.to_string()))
        .collect();
    cudaforge::envelope::encode(image, source, &targets, &unavailable)
}

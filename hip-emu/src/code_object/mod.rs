//! AMD code objects: finding the one for a target in a module image,
//! parsing it, loading it into device memory, and laying out the kernarg
//! segment of a launch.
//!
//! A module image (what `hipModuleLoadData` takes) is one of
//! - a plain AMDGPU ELF code object (v4, v5 or v6),
//! - a clang offload bundle holding one code object per target
//!   ([`code_objects`] splits it; `bundle.rs` states the layout),
//! - hip-rs's text envelope of such a bundle (the `.ptx` files the
//!   `cudaforge` drop-in writes for AMD; `envelope.rs` states the format).
//!
//! [`select`] picks the code object for a [`Target`]; [`CodeObject::parse`]
//! reads its ELF structure, symbols, dynamic relocations and kernel metadata
//! (the `NT_AMDGPU_METADATA` note); [`CodeObject::load`] places it at a
//! device address; [`kernarg`] builds the bytes a kernel reads through its
//! kernarg segment pointer.
//!
//! Every reader here is bounds-checked: malformed bytes give an [`Error`]
//! naming what is wrong and where, never a panic.

mod bundle;
mod elf;
mod envelope;
mod host;
mod kernarg;
mod metadata;
mod msgpack;
mod reader;
mod target;

#[cfg(test)]
mod tests;

pub use elf::CodeObject;
pub use kernarg::{kernarg, kernarg_from_buffer, set_hostcall_buffer, uses_hostcall, LaunchDims};
pub use metadata::{ArgKind, HiddenArg, KernelArg, KernelInfo};
pub use target::{device_target_id, target_runs_on};

use crate::isa::Target;
use std::fmt;

/// Why a module image, code object or launch could not be handled.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The image is none of the formats this module reads.
    UnknownFormat {
        /// Its first bytes (at most 8), for the message.
        first_bytes: Vec<u8>,
    },
    /// A structure runs past the end of the bytes that hold it.
    Truncated {
        /// The structure (`ELF header`, `program header 3`, ...).
        what: String,
        /// Where it starts, in bytes from the start of its container.
        offset: u64,
        /// How many bytes it needs there.
        needed: u64,
        /// How many bytes the container has.
        len: u64,
    },
    /// A structure is present but its contents are invalid.
    Malformed {
        /// The structure.
        what: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Well-formed, but something this reader does not handle (a compressed
    /// bundle, code object v3, an unknown processor, a relocation type).
    Unsupported {
        /// What it is.
        what: String,
    },
    /// The code-object envelope text is invalid.
    Envelope {
        /// The line (from 1) where the problem lies.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// The image holds no code object for the wanted target.
    NoCompatibleTarget {
        /// The target asked for (`gfx942`, `gfx942:sramecc+:xnack-`).
        wanted: String,
        /// The target ids the image holds.
        available: Vec<String>,
    },
    /// A dynamic relocation refers to a symbol the code object does not
    /// define (code objects are loaded alone, so nothing else defines it).
    UndefinedSymbol {
        /// The symbol's name.
        symbol: String,
        /// The relocation's place, relative to the load base.
        offset: u64,
    },
    /// The kernel metadata (the `NT_AMDGPU_METADATA` note) is invalid.
    Metadata {
        /// The kernel it concerns, when one does.
        kernel: Option<String>,
        /// What is wrong.
        reason: String,
    },
    /// `load` was given less memory than [`CodeObject::load_size`].
    DestinationTooSmall {
        /// Bytes needed.
        needed: u64,
        /// Bytes given.
        given: u64,
    },
    /// A launch passed the wrong number of explicit arguments.
    ArgumentCount {
        /// The kernel.
        kernel: String,
        /// Explicit arguments it takes.
        expected: usize,
        /// Arguments given.
        given: usize,
    },
    /// A launch passed an explicit argument of the wrong size.
    ArgumentSize {
        /// The kernel.
        kernel: String,
        /// The argument's index among the explicit arguments (from 0).
        index: usize,
        /// Its size in the metadata.
        expected: u32,
        /// The size given.
        given: usize,
    },
    /// A launch's argument buffer (`HIP_LAUNCH_PARAM_BUFFER_POINTER`) has
    /// the wrong size.
    ArgumentBuffer {
        /// The kernel.
        kernel: String,
        /// The smallest size accepted: the end of the last explicit argument.
        min: u32,
        /// The largest: the kernarg segment's size.
        max: u32,
        /// The size given.
        given: usize,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::UnknownFormat { first_bytes } => write!(
                f,
                "not an AMD code object, clang offload bundle or hip-rs code-object envelope \
                 (the image starts with {first_bytes:02x?})"
            ),
            Error::Truncated {
                what,
                offset,
                needed,
                len,
            } => write!(
                f,
                "truncated: the {what} at offset {offset:#x} needs {needed} bytes, but only \
                 {} of {len} remain",
                len.saturating_sub(*offset)
            ),
            Error::Malformed { what, reason } => write!(f, "malformed {what}: {reason}"),
            Error::Unsupported { what } => write!(f, "not supported: {what}"),
            Error::Envelope { line, reason } => {
                write!(f, "invalid code-object envelope, line {line}: {reason}")
            }
            Error::NoCompatibleTarget { wanted, available } => {
                write!(f, "the image holds no code object for {wanted}; ")?;
                if available.is_empty() {
                    write!(f, "it holds no AMD code object at all")
                } else {
                    write!(f, "it holds code objects for {}", available.join(", "))
                }
            }
            Error::UndefinedSymbol { symbol, offset } => write!(
                f,
                "the dynamic relocation at offset {offset:#x} refers to the undefined symbol \
                 `{symbol}`; a code object is loaded alone, so nothing can define it"
            ),
            Error::Metadata { kernel, reason } => match kernel {
                Some(k) => write!(f, "invalid metadata of kernel `{k}`: {reason}"),
                None => write!(f, "invalid code-object metadata: {reason}"),
            },
            Error::DestinationTooSmall { needed, given } => write!(
                f,
                "the code object needs {needed} bytes of device memory to load; {given} were given"
            ),
            Error::ArgumentCount {
                kernel,
                expected,
                given,
            } => write!(
                f,
                "kernel `{kernel}` takes {expected} explicit arguments; {given} were given"
            ),
            Error::ArgumentSize {
                kernel,
                index,
                expected,
                given,
            } => write!(
                f,
                "argument {index} of kernel `{kernel}` is {expected} bytes; {given} were given"
            ),
            Error::ArgumentBuffer {
                kernel,
                min,
                max,
                given,
            } => write!(
                f,
                "the argument buffer of kernel `{kernel}` must hold at least {min} bytes \
                 (its explicit arguments, of a {max}-byte kernarg segment); {given} were given"
            ),
        }
    }
}

impl std::error::Error for Error {}

/// Splits a module image into its code objects, each with its target id
/// (`gfx942`, `gfx942:sramecc+:xnack-`), in the order the image has them.
///
/// - A plain AMDGPU ELF is one entry; its target id comes from `e_flags`.
/// - A clang offload bundle gives its `amdgcn` entries (`hipv4-amdgcn-amd-amdhsa--gfx942`),
///   with the target id written in the entry's id; host entries are skipped.
/// - A hip-rs code-object envelope is decoded and checked (length and
///   SHA-256), then read as the bundle it carries.
///
/// - A compressed bundle (`CCOB`, zlib or zstd: ROCm 7's libraries ship
///   their code objects so) is inflated, then read as a bundle.
pub fn code_objects(image: &[u8]) -> Result<Vec<(String, Vec<u8>)>, Error> {
    if image.starts_with(elf::ELF_MAGIC) {
        // A host object or library carries its kernels in `.hip_fatbin`.
        if let Some(fatbin) = host::fatbin(image)? {
            return code_objects(fatbin);
        }
        let co = CodeObject::parse(image)?;
        return Ok(vec![(co.target_id(), image.to_vec())]);
    }
    if image.starts_with(bundle::MAGIC) {
        return bundle::entries(image);
    }
    if image.starts_with(bundle::COMPRESSED_MAGIC) {
        return bundle::entries(&bundle::decompress(image)?);
    }
    if envelope::is_envelope(image) {
        let payload = envelope::decode(image)?;
        return code_objects(&payload);
    }
    if image.starts_with(host::AR_MAGIC) {
        // A static library: the code objects of every member that has some.
        let mut out = Vec::new();
        for (_, member) in host::members(image)? {
            match code_objects(member) {
                Ok(mut found) => out.append(&mut found),
                Err(Error::UnknownFormat { .. }) => {}
                Err(e) if member.starts_with(elf::ELF_MAGIC) => {
                    // A host object without `.hip_fatbin` holds no kernels.
                    if !matches!(e, Error::Malformed { .. } | Error::Unsupported { .. }) {
                        return Err(e);
                    }
                }
                Err(e) => return Err(e),
            }
        }
        return Ok(out);
    }
    Err(Error::UnknownFormat {
        first_bytes: image.iter().take(8).copied().collect(),
    })
}

/// The ELF for `target` from a module image: the code object of the same
/// processor whose target-id features (`sramecc`, `xnack`) are compatible
/// with the emulated device's ([`device_target_id`]), else an error listing
/// the targets the image has.
///
/// Where several entries fit, the most specific is taken: the one fixing
/// the most features (the device's way), then the first in the image.
pub fn select(image: &[u8], target: Target) -> Result<Vec<u8>, Error> {
    select_target_id(image, device_target_id(target))
}

/// Like [`select`], for a device given by its full target id
/// (`gfx942:sramecc+:xnack-`), as `gcnArchName` spells it.
pub fn select_target_id(image: &[u8], device: &str) -> Result<Vec<u8>, Error> {
    let entries = code_objects(image)?;
    let best = entries
        .iter()
        .enumerate()
        .filter(|(_, (id, _))| target_runs_on(id, device))
        .max_by_key(|(i, (id, _))| (target::specified_features(id), std::cmp::Reverse(*i)));
    match best {
        Some((_, (_, elf))) => Ok(elf.clone()),
        None => Err(Error::NoCompatibleTarget {
            wanted: device.to_owned(),
            available: entries.into_iter().map(|(id, _)| id).collect(),
        }),
    }
}

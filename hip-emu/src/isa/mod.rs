//! The ISA interpreter: executes one kernel dispatch, wave by wave.
//!
//! The runtime (`crate::runtime`) calls [`execute`] with a [`Dispatch`];
//! device memory is reached through the [`Memory`] trait, so that the
//! interpreter knows nothing of how allocations are kept.

use std::fmt;

pub mod rt;

mod decode;
mod exec;
pub use exec::STRICT_LDS_VAR;

/// CDNA (gfx942, gfx950), generated from the ISA data.
#[allow(
    clippy::all,
    dead_code,
    unreachable_pub,
    unused_assignments,
    unused_mut,
    unused_variables,
    unused_parens,
    non_snake_case,
    unreachable_code
)]
pub(crate) mod cdna {
    use super::rt::*;
    include!(concat!(env!("OUT_DIR"), "/isa_cdna.rs"));
}
/// RDNA 3 (gfx1100), generated from the ISA data.
#[allow(
    clippy::all,
    dead_code,
    unreachable_pub,
    unused_assignments,
    unused_mut,
    unused_variables,
    unused_parens,
    non_snake_case,
    unreachable_code
)]
pub(crate) mod rdna3 {
    use super::rt::*;
    include!(concat!(env!("OUT_DIR"), "/isa_rdna3.rs"));
}
/// RDNA 4 (gfx1201), generated from the ISA data.
#[allow(
    clippy::all,
    dead_code,
    unreachable_pub,
    unused_assignments,
    unused_mut,
    unused_variables,
    unused_parens,
    non_snake_case,
    unreachable_code
)]
pub(crate) mod rdna4 {
    use super::rt::*;
    include!(concat!(env!("OUT_DIR"), "/isa_rdna4.rs"));
}

/// A GPU architecture the interpreter executes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// CDNA 3 (MI300X), wave64.
    Gfx942,
    /// RDNA 3 (RX 7900 XTX), wave32.
    Gfx1100,
}

impl Target {
    /// Every target, in a fixed order.
    pub const ALL: [Target; 2] = [Target::Gfx942, Target::Gfx1100];

    /// The `gcnArchName` processor part (`gfx942`).
    pub fn name(self) -> &'static str {
        match self {
            Target::Gfx942 => "gfx942",
            Target::Gfx1100 => "gfx1100",
        }
    }

    /// The target a processor name (`gfx942`, `gfx942:sramecc+:xnack-`)
    /// names, if the interpreter executes it.
    pub fn from_name(name: &str) -> Option<Target> {
        let part = name.split(':').next().unwrap_or(name);
        Target::ALL.into_iter().find(|t| t.name() == part)
    }

    /// Lanes per wave.
    pub fn wave_size(self) -> u32 {
        match self {
            Target::Gfx942 => 64,
            Target::Gfx1100 => 32,
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Device memory as the interpreter sees it: a flat 64-bit address space.
///
/// A mapping stays valid for the whole dispatch: the runtime unmaps
/// nothing while a dispatch runs (`hipFree` waits for the device, as HIP's
/// does), so the interpreter may keep the host pointers it was given.
pub trait Memory: Sync {
    /// The mapped range (an allocation, a loaded code object, the kernarg
    /// segment, pinned or registered host memory) that holds device address
    /// `addr`; `None` when no range does, which the interpreter reports as
    /// a memory-access fault naming the address.
    fn mapping(&self, addr: u64) -> Option<Mapping>;
}

/// Services the host provides to a running kernel (device `printf`,
/// through [`crate::hostcall`]).
pub trait HostServices: Sync {
    /// Processes what the kernel has asked of the host so far. Called
    /// whenever a wave sleeps (`s_sleep`), as a wave waiting on the host
    /// does; an error stops the launch.
    fn serve(&self, memory: &dyn Memory) -> Result<(), String>;
}

/// One mapped range of device memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mapping {
    /// Its first device address.
    pub base: u64,
    /// Its length in bytes.
    pub len: u64,
    /// The host address of its first byte; `len` bytes are readable and
    /// writable there.
    pub host: *mut u8,
}

/// The flat-address aperture of LDS: a generic address whose high 32 bits
/// equal this base's is an LDS address (its low 32 bits the offset).
/// `src_shared_base` reads it; the runtime writes it to the
/// `hidden_shared_base` argument.
pub const SHARED_APERTURE_BASE: u64 = 0x0001_0000_0000_0000;

/// The flat-address aperture of scratch (the private segment), like
/// [`SHARED_APERTURE_BASE`]; the `hidden_private_base` argument.
pub const PRIVATE_APERTURE_BASE: u64 = 0x0002_0000_0000_0000;

/// Where the hidden arguments of host services point when no service is
/// there: `hidden_hostcall_buffer` (device `printf` and other hostcalls;
/// the runtime replaces it with a buffer of [`crate::hostcall`]), then
/// each further service [`NO_SERVICE_STRIDE`] above.
/// Nothing is mapped there, so a kernel that uses one faults at once, and
/// [`host_service_at`] names the service, instead of a hostcall spinning
/// forever or a `printf` printing nothing.
pub const NO_SERVICE_BASE: u64 = 0x0004_0000_0000_0000;
/// The distance between two services' addresses above [`NO_SERVICE_BASE`].
pub const NO_SERVICE_STRIDE: u64 = 1 << 32;
/// The services, in the order of their addresses, with what uses them.
pub const NO_SERVICES: [(&str, &str); 4] = [
    ("hidden_hostcall_buffer", "printf (and any other hostcall)"),
    ("hidden_printf_buffer", "buffered printf"),
    ("hidden_heap_v1", "device-side malloc/free"),
    ("hidden_multigrid_sync_arg", "multi-grid synchronisation"),
];

/// The host service whose [`NO_SERVICE_BASE`] range holds `address`, as
/// its hidden argument and what uses it.
pub fn host_service_at(address: u64) -> Option<(&'static str, &'static str)> {
    let i = address.checked_sub(NO_SERVICE_BASE)? / NO_SERVICE_STRIDE;
    NO_SERVICES.get(usize::try_from(i).ok()?).copied()
}

/// One kernel dispatch.
#[derive(Clone, Copy)]
pub struct Dispatch<'a> {
    /// The architecture the code object was built for.
    pub target: Target,
    /// The kernel's name, for errors.
    pub kernel: &'a str,
    /// Device address of the kernel's 64-byte kernel descriptor (the
    /// `NAME.kd` symbol of the loaded code object).
    pub descriptor: u64,
    /// Workgroups in x, y, z.
    pub grid: [u32; 3],
    /// Work-items per workgroup in x, y, z.
    pub block: [u32; 3],
    /// Device address of the kernarg segment (explicit and hidden
    /// arguments already written).
    pub kernarg: u64,
    /// Dynamic LDS bytes, added to the descriptor's fixed group segment.
    pub dynamic_lds: u32,
    /// Device memory.
    pub memory: &'a dyn Memory,
    /// The host's services, when the runtime provides them (it then puts
    /// their buffers in the kernarg segment's hidden arguments).
    pub host: Option<&'a dyn HostServices>,
}

impl fmt::Debug for Dispatch<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Dispatch")
            .field("target", &self.target)
            .field("kernel", &self.kernel)
            .field("grid", &self.grid)
            .field("block", &self.block)
            .finish_non_exhaustive()
    }
}

/// What one dispatch executed. `Display` writes it on one line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Waves run.
    pub waves: u64,
    /// Instructions executed (per wave), by class.
    pub instructions: Vec<(&'static str, u64)>,
    /// Lane-instructions: each vector instruction counted once per active lane.
    pub lane_instructions: u64,
    /// Bytes moved to and from scratch (private segment).
    pub scratch_bytes: u64,
    /// Bytes moved to and from LDS.
    pub lds_bytes: u64,
    /// Bytes moved to and from global memory.
    pub global_bytes: u64,
}

/// Why a dispatch failed. The runtime maps [`LaunchError::MemoryFault`] and
/// [`LaunchError::LdsOutOfRange`] to `hipErrorIllegalAddress`, the rest to
/// `hipErrorLaunchFailure`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LaunchError {
    /// An access outside every mapped range.
    MemoryFault {
        kernel: String,
        pc: u64,
        instruction: String,
        address: u64,
    },
    /// An LDS access beyond the workgroup's allocation (its kernel's
    /// static LDS plus the launch's dynamic LDS), with [`STRICT_LDS_VAR`]
    /// set. Without it the emulator does as the hardware does: such a
    /// read gives 0 and such a write is dropped.
    LdsOutOfRange {
        kernel: String,
        pc: u64,
        instruction: String,
        /// The LDS byte address.
        address: u64,
        /// The workgroup's LDS, in bytes.
        size: u64,
    },
    /// An instruction the interpreter does not implement.
    Unimplemented {
        kernel: String,
        pc: u64,
        instruction: String,
    },
    /// Bytes that decode to no instruction of the target.
    InvalidInstruction { kernel: String, pc: u64, word: u32 },
    /// A kernel descriptor or dispatch the interpreter cannot run.
    InvalidDispatch { kernel: String, reason: String },
    /// The kernel used a host service the emulator does not provide
    /// (device `printf`, `malloc`): it touched the address the runtime put
    /// in that service's hidden argument ([`NO_SERVICE_BASE`]).
    NoHostService {
        kernel: String,
        pc: u64,
        instruction: String,
        /// The hidden argument, e.g. `hidden_hostcall_buffer`.
        argument: &'static str,
        /// What uses it, e.g. `printf (and any other hostcall)`.
        used_by: &'static str,
    },
    /// The launch ran past its time limit ([`TIMEOUT_VAR`]): a wave that
    /// never ends (a spin on a flag nobody sets, a loop on a counter that
    /// never gets there) stops here instead of hanging the process.
    TimedOut {
        kernel: String,
        seconds: u64,
        pc: u64,
        instruction: String,
    },
}

/// The environment variable that bounds one launch's host time, in
/// seconds (default [`DEFAULT_TIMEOUT_S`]; `0`: no bound).
pub const TIMEOUT_VAR: &str = "HIP_EMU_TIMEOUT";
/// A launch's time limit when [`TIMEOUT_VAR`] is unset: ten minutes.
pub const DEFAULT_TIMEOUT_S: u64 = 600;

/// The launch time limit that [`TIMEOUT_VAR`] sets, `None` for none.
/// A value that is not a whole number of seconds is reported once and the
/// default used.
pub fn launch_timeout() -> Option<std::time::Duration> {
    let secs = match std::env::var(TIMEOUT_VAR) {
        Err(_) => DEFAULT_TIMEOUT_S,
        Ok(v) => match v.trim().parse::<u64>() {
            Ok(n) => n,
            Err(_) => {
                static WARNED: std::sync::Once = std::sync::Once::new();
                WARNED.call_once(|| {
                    eprintln!(
                        "hip-emu: {TIMEOUT_VAR}={v:?} is not a number of seconds; using {DEFAULT_TIMEOUT_S}"
                    )
                });
                DEFAULT_TIMEOUT_S
            }
        },
    };
    (secs > 0).then(|| std::time::Duration::from_secs(secs))
}

impl fmt::Display for LaunchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LaunchError::MemoryFault {
                kernel,
                pc,
                instruction,
                address,
            } => write!(
                f,
                "memory access fault in kernel {kernel}: `{instruction}` at pc {pc:#x} accessed unmapped address {address:#x}"
            ),
            LaunchError::LdsOutOfRange {
                kernel,
                pc,
                instruction,
                address,
                size,
            } => write!(
                f,
                "LDS access out of range in kernel {kernel}: `{instruction}` at pc {pc:#x} addressed LDS byte {address:#x}, beyond the workgroup's {size} bytes (static plus the launch's dynamic LDS)"
            ),
            LaunchError::Unimplemented {
                kernel,
                pc,
                instruction,
            } => write!(
                f,
                "kernel {kernel}: instruction {instruction} at pc {pc:#x} is not implemented by the emulator"
            ),
            LaunchError::NoHostService {
                kernel,
                pc,
                instruction,
                argument,
                used_by,
            } => write!(
                f,
                "kernel {kernel} uses a host service the emulator does not provide: {used_by} (`{instruction}` at pc {pc:#x} reached its {argument})"
            ),
            LaunchError::TimedOut {
                kernel,
                seconds,
                pc,
                instruction,
            } => write!(
                f,
                "kernel {kernel} did not finish within {seconds} s ({TIMEOUT_VAR}); a wave was at `{instruction}`, pc {pc:#x}"
            ),
            LaunchError::InvalidInstruction { kernel, pc, word } => write!(
                f,
                "kernel {kernel}: the word {word:#010x} at pc {pc:#x} is no instruction of this target"
            ),
            LaunchError::InvalidDispatch { kernel, reason } => {
                write!(f, "kernel {kernel}: {reason}")
            }
        }
    }
}

impl std::error::Error for LaunchError {}

/// Runs every workgroup of `dispatch` to completion, workgroup after
/// workgroup, on the calling thread.
///
/// With `HIP_EMU_COUNTERS=1` in the environment, each dispatch prints its
/// [`Counters`] to standard error, one line (see [`Counters`]'s `Display`).
pub fn execute(dispatch: &Dispatch<'_>) -> Result<Counters, LaunchError> {
    execute_within(dispatch, launch_timeout())
}

/// [`execute`] with the time limit `limit` (`None`: none) in place of the
/// one [`TIMEOUT_VAR`] sets: past it the launch fails with
/// [`LaunchError::TimedOut`].
pub fn execute_within(
    dispatch: &Dispatch<'_>,
    limit: Option<std::time::Duration>,
) -> Result<Counters, LaunchError> {
    let result = exec::execute(dispatch, limit).map_err(|e| match e {
        LaunchError::MemoryFault {
            kernel,
            pc,
            instruction,
            address,
        } => match host_service_at(address) {
            Some((argument, used_by)) => LaunchError::NoHostService {
                kernel,
                pc,
                instruction,
                argument,
                used_by,
            },
            None => LaunchError::MemoryFault {
                kernel,
                pc,
                instruction,
                address,
            },
        },
        e => e,
    });
    if let Ok(c) = &result {
        if std::env::var_os("HIP_EMU_COUNTERS").is_some_and(|v| !v.is_empty() && v != "0") {
            eprintln!(
                "hip-emu: {} on {} grid {:?} block {:?}: {c}",
                dispatch.kernel, dispatch.target, dispatch.grid, dispatch.block
            );
        }
    }
    result
}

impl fmt::Display for Counters {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let total: u64 = self.instructions.iter().map(|(_, n)| n).sum();
        write!(f, "{} waves, {total} instructions (", self.waves)?;
        for (i, (class, n)) in self.instructions.iter().enumerate() {
            write!(f, "{}{class} {n}", if i == 0 { "" } else { ", " })?;
        }
        write!(
            f,
            "), {} lane-instructions, global {} B, LDS {} B, scratch {} B",
            self.lane_instructions, self.global_bytes, self.lds_bytes, self.scratch_bytes
        )
    }
}

/// One instruction found by [`scan`]: how often it occurs and, when the
/// interpreter does not execute it, why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScanEntry {
    /// The mnemonic, as the disassembler spells it (`v_add_f32_e32`,
    /// `v_mov_b32_dpp`).
    pub mnemonic: String,
    /// Occurrences in the code.
    pub count: u64,
    /// `None` when the interpreter executes it; else the reason it does not.
    pub unsupported: Option<String>,
}

/// What a sweep over a code object's instructions found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scan {
    /// Every distinct instruction, by mnemonic.
    pub instructions: Vec<ScanEntry>,
    /// Words that decode to no instruction of the target: (offset, word).
    pub undecoded: Vec<(u64, u32)>,
    /// Zero words after a program's end (`s_endpgm`, `s_code_end`): the
    /// padding that aligns the next kernel's entry (rocBLAS's Tensile
    /// objects have thousands), neither instructions nor undecodable.
    pub padding: u64,
}

impl Scan {
    /// The instructions the interpreter does not execute.
    pub fn unsupported(&self) -> impl Iterator<Item = &ScanEntry> {
        self.instructions.iter().filter(|e| e.unsupported.is_some())
    }
}

/// Decodes every instruction of `code` (offset and bytes of each code
/// segment, as [`crate::code_object::CodeObject::code`] gives them) in
/// order, and says which the interpreter would not execute. No GPU and no
/// launch: this is the static check that a kernel can run here.
///
/// ```no_run
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use hip_emu::code_object::CodeObject;
/// use hip_emu::isa::{scan, Target};
/// let elf = std::fs::read("kernels.gfx942.co")?;
/// let co = CodeObject::parse(&elf)?;
/// let target = Target::from_name(co.processor()).ok_or("not a target the interpreter runs")?;
/// for e in scan(target, &co.code()).unsupported() {
///     println!("{} x{}: {}", e.mnemonic, e.count, e.unsupported.as_deref().unwrap_or(""));
/// }
/// # Ok(())
/// # }
/// ```
pub fn scan(target: Target, code: &[(u64, &[u8])]) -> Scan {
    let family = decode::Family::of(target);
    let tables = decode::tables(family);
    let mut counts: std::collections::BTreeMap<String, (u64, Option<String>)> = Default::default();
    let mut out = Scan::default();
    for (base, bytes) in code {
        let words: Vec<u32> = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let mut i = 0;
        let mut after_end = false;
        while i < words.len() {
            if after_end && words[i] == 0 {
                out.padding += 1;
                i += 1;
                continue;
            }
            let end = (i + 4).min(words.len());
            match decode::decode(&tables, family, &words[i..end]) {
                Ok(inst) => {
                    after_end = matches!(inst.op.name, "S_ENDPGM" | "S_CODE_END");
                    let e = counts
                        .entry(inst.mnemonic())
                        .or_insert_with(|| (0, exec::support(&tables, &inst).err()));
                    e.0 += 1;
                    i += (inst.len / 4).max(1) as usize;
                }
                Err(_) => {
                    out.undecoded.push((base + 4 * i as u64, words[i]));
                    after_end = false;
                    i += 1;
                }
            }
        }
    }
    out.instructions = counts
        .into_iter()
        .map(|(mnemonic, (count, unsupported))| ScanEntry {
            mnemonic,
            count,
            unsupported,
        })
        .collect();
    out
}

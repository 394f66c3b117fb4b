//! The interpreter proper: waves of a workgroup, their registers, LDS,
//! scratch; one instruction at a time, lane by lane, through the generated
//! semantics.

use super::decode::{self, DecodeError, Ext, Family, Inst, Tables};
use super::rt::*;
use super::{Counters, Dispatch, LaunchError, Mapping, Memory, Target};
use super::{PRIVATE_APERTURE_BASE, SHARED_APERTURE_BASE};
use std::collections::HashMap;
use std::rc::Rc;

#[path = "matrix.rs"]
mod matrix;
use matrix::Shape;

/// The kernel descriptor's fields the interpreter uses (AMDGPU's
/// `kernel_descriptor_t`, 64 bytes).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Descriptor {
    pub(crate) group_segment_fixed_size: u32,
    pub(crate) private_segment_fixed_size: u32,
    pub(crate) entry: u64,
    pub(crate) rsrc1: u32,
    pub(crate) rsrc2: u32,
    /// CDNA's ACCUM_OFFSET and more; kept for the descriptor's report.
    #[allow(dead_code)]
    pub(crate) rsrc3: u32,
    pub(crate) properties: u16,
}

impl Descriptor {
    pub(crate) fn read(bytes: &[u8; 64], address: u64) -> Descriptor {
        let u32at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
        let offset = i64::from_le_bytes(bytes[16..24].try_into().unwrap());
        Descriptor {
            group_segment_fixed_size: u32at(0),
            private_segment_fixed_size: u32at(4),
            entry: address.wrapping_add(offset as u64),
            rsrc3: u32at(44),
            rsrc1: u32at(48),
            rsrc2: u32at(52),
            properties: u16::from_le_bytes([bytes[56], bytes[57]]),
        }
    }
    fn user_sgprs(&self) -> u32 {
        (self.rsrc2 >> 1) & 0x1f
    }
    fn ieee(&self) -> bool {
        (self.rsrc1 >> 23) & 1 != 0
    }
}

/// Memory the interpreter itself provides: the dispatch packet.
const ENGINE_BASE: u64 = 0x0003_0000_0000_0000;
// The address map: device memory, then the LDS and private apertures, the
// engine's own memory and the unmapped host-service range, each apart.
const _: () = assert!(
    crate::memory::DEVICE_END <= SHARED_APERTURE_BASE
        && SHARED_APERTURE_BASE < PRIVATE_APERTURE_BASE
        && PRIVATE_APERTURE_BASE < ENGINE_BASE
        && ENGINE_BASE + (1 << 32) <= super::NO_SERVICE_BASE
);

/// A cache of the mappings last used, over the runtime's [`Memory`].
struct Global<'a> {
    memory: &'a dyn Memory,
    last: [Option<Mapping>; 4],
    next: usize,
    engine: &'a mut Vec<u8>,
    fault: Option<u64>,
    bytes: u64,
}

impl Global<'_> {
    #[inline(always)]
    fn ptr(&mut self, addr: u64, len: u64) -> Option<*mut u8> {
        for m in self.last.iter().flatten() {
            if addr >= m.base && addr.wrapping_add(len) <= m.base + m.len {
                // SAFETY: inside a mapping the runtime keeps valid for the dispatch.
                return Some(unsafe { m.host.add((addr - m.base) as usize) });
            }
        }
        if addr >= ENGINE_BASE && addr + len <= ENGINE_BASE + self.engine.len() as u64 {
            // SAFETY: inside the engine's own buffer.
            return Some(unsafe { self.engine.as_mut_ptr().add((addr - ENGINE_BASE) as usize) });
        }
        let m = self.memory.mapping(addr)?;
        if addr.wrapping_add(len) > m.base + m.len || addr < m.base {
            return None;
        }
        self.last[self.next] = Some(m);
        self.next = (self.next + 1) % self.last.len();
        // SAFETY: inside the mapping, which the runtime keeps valid for the dispatch.
        Some(unsafe { m.host.add((addr - m.base) as usize) })
    }

    fn load(&mut self, addr: u64, bytes: u32) -> u64 {
        self.bytes += bytes as u64;
        match self.ptr(addr, bytes as u64) {
            Some(p) => {
                let mut buf = [0u8; 8];
                // SAFETY: `p` points at `bytes` (<= 8) readable bytes.
                unsafe { std::ptr::copy_nonoverlapping(p, buf.as_mut_ptr(), bytes as usize) };
                u64::from_le_bytes(buf)
            }
            None => {
                self.fault.get_or_insert(addr);
                0
            }
        }
    }

    fn store(&mut self, addr: u64, bytes: u32, value: u64) {
        self.bytes += bytes as u64;
        match self.ptr(addr, bytes as u64) {
            Some(p) => {
                let buf = value.to_le_bytes();
                // SAFETY: `p` points at `bytes` (<= 8) writable bytes.
                unsafe { std::ptr::copy_nonoverlapping(buf.as_ptr(), p, bytes as usize) };
            }
            None => {
                self.fault.get_or_insert(addr);
            }
        }
    }
}

/// Where one instruction's accesses go.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Space {
    Global,
    Lds,
    Scratch,
    Flat,
    /// A buffer (MUBUF) access: global memory through a buffer resource,
    /// range-checked by [`Access::buffer`].
    Buffer,
}

/// The range a buffer access may touch: `limit` bytes from `start` (the
/// resource's base, with the scalar offset where the range check leaves
/// it out, and for a structured buffer the record). Outside it a load
/// reads 0 and a store does nothing, as the hardware's range checking
/// does.
#[derive(Clone, Copy, Debug)]
struct BufferRange {
    start: u64,
    limit: u64,
}

/// A MUBUF instruction's buffer resource and addressing bits.
#[derive(Clone, Copy, Debug)]
struct Buffer {
    base: u64,
    stride: u64,
    records: u64,
    add_tid: bool,
    oob_select: Option<u32>,
    soffset: u64,
    offen: bool,
    idxen: bool,
}

/// One access context: the space, the lane (for scratch), the memories.
struct Access<'a, 'b> {
    space: Space,
    /// For [`Space::Buffer`]: the lane's range, `None` when its record is
    /// out of range altogether.
    buffer: Option<BufferRange>,
    lane: usize,
    global: &'a mut Global<'b>,
    lds: &'a mut [u8],
    scratch: &'a mut [u8],
    scratch_per_lane: usize,
    fault: Option<u64>,
    /// An LDS access out of range stops the launch ([`STRICT_LDS_VAR`]);
    /// else, as on the hardware, it reads 0 and writes nothing.
    lds_strict: bool,
    lds_bytes: u64,
    scratch_bytes: u64,
}

/// With this variable `1`, an LDS access past the workgroup's allocation
/// stops the launch (`LaunchError::LdsOutOfRange`, naming the size) instead
/// of reading 0 and dropping the write as the hardware does: for finding a
/// kernel launched with less LDS than it uses. AMD's own code relies on the
/// hardware's rule (rocBLAS 7's Tensile kernels zero registers with reads
/// at LDS address 0xf00000), so it is not the default.
pub const STRICT_LDS_VAR: &str = "HIP_EMU_STRICT_LDS";

impl Access<'_, '_> {
    fn lds_at(&mut self, addr: u64, bytes: u32) -> Option<usize> {
        let a = addr as usize;
        if addr <= u32::MAX as u64 && a + bytes as usize <= self.lds.len() {
            Some(a)
        } else {
            None
        }
    }
    fn scratch_at(&mut self, addr: u64, bytes: u32) -> Option<usize> {
        let a = addr as usize;
        if addr <= u32::MAX as u64 && a + bytes as usize <= self.scratch_per_lane {
            Some(self.lane * self.scratch_per_lane + a)
        } else {
            None
        }
    }
    fn in_buffer(&self, addr: u64, bytes: u32) -> bool {
        self.buffer.is_some_and(|r| {
            addr.checked_sub(r.start)
                .is_some_and(|o| o + u64::from(bytes) <= r.limit)
        })
    }

    fn resolve(&self, addr: u64) -> (Space, u64) {
        match self.space {
            Space::Flat => {
                let hi = addr >> 32;
                if hi == SHARED_APERTURE_BASE >> 32 {
                    (Space::Lds, addr & 0xffff_ffff)
                } else if hi == PRIVATE_APERTURE_BASE >> 32 {
                    (Space::Scratch, addr & 0xffff_ffff)
                } else {
                    (Space::Global, addr)
                }
            }
            s => (s, addr),
        }
    }
}

impl Mem for Access<'_, '_> {
    fn load(&mut self, addr: u64, bytes: u32) -> u64 {
        let (space, a) = self.resolve(addr);
        let bytes = bytes.clamp(1, 8);
        let at = match space {
            Space::Global | Space::Flat => return self.global.load(a, bytes),
            Space::Buffer => {
                return if self.in_buffer(a, bytes) {
                    self.global.load(a, bytes)
                } else {
                    0
                };
            }
            Space::Lds => {
                self.lds_bytes += bytes as u64;
                self.lds_at(a, bytes).map(|i| (true, i))
            }
            Space::Scratch => {
                self.scratch_bytes += bytes as u64;
                self.scratch_at(a, bytes).map(|i| (false, i))
            }
        };
        match at {
            Some((lds, i)) => {
                let src = if lds {
                    &self.lds[i..]
                } else {
                    &self.scratch[i..]
                };
                let mut buf = [0u8; 8];
                buf[..bytes as usize].copy_from_slice(&src[..bytes as usize]);
                u64::from_le_bytes(buf)
            }
            // Past the LDS allocation: 0, as the hardware reads.
            None if space == Space::Lds && !self.lds_strict => 0,
            None => {
                self.fault.get_or_insert(addr);
                0
            }
        }
    }

    fn store(&mut self, addr: u64, bytes: u32, value: u64) {
        let (space, a) = self.resolve(addr);
        let bytes = bytes.clamp(1, 8);
        let at = match space {
            Space::Global | Space::Flat => return self.global.store(a, bytes, value),
            Space::Buffer => {
                if self.in_buffer(a, bytes) {
                    self.global.store(a, bytes, value);
                }
                return;
            }
            Space::Lds => {
                self.lds_bytes += bytes as u64;
                self.lds_at(a, bytes).map(|i| (true, i))
            }
            Space::Scratch => {
                self.scratch_bytes += bytes as u64;
                self.scratch_at(a, bytes).map(|i| (false, i))
            }
        };
        match at {
            Some((lds, i)) => {
                let dst = if lds {
                    &mut self.lds[i..]
                } else {
                    &mut self.scratch[i..]
                };
                dst[..bytes as usize].copy_from_slice(&value.to_le_bytes()[..bytes as usize]);
            }
            // Past the LDS allocation: dropped, as the hardware does.
            None if space == Space::Lds && !self.lds_strict => {}
            None => {
                self.fault.get_or_insert(addr);
            }
        }
    }
}

/// Memory for scalar instructions that touch none.
struct NoMem;
impl Mem for NoMem {
    fn load(&mut self, _: u64, _: u32) -> u64 {
        0
    }
    fn store(&mut self, _: u64, _: u32, _: u64) {}
}

/// One wave's state.
struct Wave {
    sgpr: [u32; 128],
    /// VGPR `r` of lane `l` at `r * 64 + l`.
    vgpr: Vec<u32>,
    agpr: Vec<u32>,
    scc: bool,
    pc: u64,
    done: bool,
    at_barrier: bool,
    scratch: Vec<u8>,
}

const NVGPR: usize = 256;

/// Why a wave stopped running for now.
enum Stop {
    Barrier,
    Ended,
}

/// The interpreter's state for one dispatch.
pub(crate) struct Engine<'a> {
    d: &'a Dispatch<'a>,
    family: Family,
    tables: Tables,
    wave_size: u32,
    desc: Descriptor,
    /// Decoded instructions by address: a slot per dword of the code
    /// mapping holding the entry, and a map for any other.
    decoded: Vec<Option<Rc<Inst>>>,
    code_base: u64,
    decoded_elsewhere: HashMap<u64, Rc<Inst>>,
    /// Waves of finished workgroups, for reuse.
    pool: Vec<Wave>,
    counters: Counters,
    by_class: HashMap<&'static str, u64>,
    engine_mem: Vec<u8>,
    lds_size: usize,
    scratch_per_lane: usize,
    /// `HIP_EMU_TRACE` names this kernel: print each instruction executed.
    trace: bool,
    /// [`STRICT_LDS_VAR`] was set at the launch.
    strict_lds: bool,
    /// The workgroup and wave (index in it) running, for the trace.
    tracing: ([u32; 3], u32),
    /// When the launch times out ([`super::launch_timeout`]), and the
    /// instructions left before the clock is looked at again.
    deadline: Option<(std::time::Instant, std::time::Duration)>,
    until_clock_check: u32,
}

/// Whether `HIP_EMU_TRACE` (`value`) asks for the instructions of
/// `kernel`: `1` traces every kernel, `0` or nothing none, any other
/// value the kernels whose name contains it.
fn trace_wanted(value: Option<&str>, kernel: &str) -> bool {
    match value {
        None | Some("") | Some("0") => false,
        Some("1") => true,
        Some(part) => kernel.contains(part),
    }
}

/// Instructions between two looks at the launch's deadline.
const CLOCK_CHECK_EVERY: u32 = 1 << 16;

fn err_dispatch(d: &Dispatch<'_>, reason: String) -> LaunchError {
    LaunchError::InvalidDispatch {
        kernel: d.kernel.to_owned(),
        reason,
    }
}

impl<'a> Engine<'a> {
    pub(crate) fn new(d: &'a Dispatch<'a>) -> Result<Engine<'a>, LaunchError> {
        let family = Family::of(d.target);
        let m = d
            .memory
            .mapping(d.descriptor)
            .filter(|m| d.descriptor + 64 <= m.base + m.len)
            .ok_or_else(|| {
                err_dispatch(d, format!("no kernel descriptor at {:#x}", d.descriptor))
            })?;
        let mut kd = [0u8; 64];
        // SAFETY: the mapping holds 64 bytes at the descriptor (checked above).
        unsafe {
            std::ptr::copy_nonoverlapping(
                m.host.add((d.descriptor - m.base) as usize),
                kd.as_mut_ptr(),
                64,
            )
        };
        let desc = Descriptor::read(&kd, d.descriptor);
        let code = d.memory.mapping(desc.entry).ok_or_else(|| {
            err_dispatch(
                d,
                format!("the kernel's entry {:#x} is in no mapped range", desc.entry),
            )
        })?;
        let wave_size = if family == Family::Cdna {
            64
        } else if desc.properties & (1 << 10) != 0 {
            32
        } else {
            64
        };
        let lds_size = desc.group_segment_fixed_size as usize + d.dynamic_lds as usize;
        if lds_size > 64 * 1024 {
            return Err(err_dispatch(
                d,
                format!("{lds_size} bytes of LDS exceed the 65536 a workgroup has"),
            ));
        }
        // The dispatch packet (hsa_kernel_dispatch_packet_t), for code that
        // reads the work-group sizes through the dispatch pointer.
        let mut engine_mem = vec![0u8; 64];
        let put16 =
            |m: &mut Vec<u8>, o: usize, v: u16| m[o..o + 2].copy_from_slice(&v.to_le_bytes());
        let put32 =
            |m: &mut Vec<u8>, o: usize, v: u32| m[o..o + 4].copy_from_slice(&v.to_le_bytes());
        let dims = if d.grid[2] > 1 || d.block[2] > 1 {
            3
        } else if d.grid[1] > 1 || d.block[1] > 1 {
            2
        } else {
            1
        };
        put16(&mut engine_mem, 2, dims);
        put16(&mut engine_mem, 4, d.block[0] as u16);
        put16(&mut engine_mem, 6, d.block[1] as u16);
        put16(&mut engine_mem, 8, d.block[2] as u16);
        put32(&mut engine_mem, 12, d.grid[0].wrapping_mul(d.block[0]));
        put32(&mut engine_mem, 16, d.grid[1].wrapping_mul(d.block[1]));
        put32(&mut engine_mem, 20, d.grid[2].wrapping_mul(d.block[2]));
        put32(&mut engine_mem, 24, desc.private_segment_fixed_size);
        put32(&mut engine_mem, 28, lds_size as u32);
        engine_mem[40..48].copy_from_slice(&d.kernarg.to_le_bytes());
        Ok(Engine {
            d,
            family,
            tables: decode::tables(family),
            wave_size,
            desc,
            decoded: vec![None; (code.len / 4) as usize],
            code_base: code.base,
            decoded_elsewhere: HashMap::new(),
            pool: Vec::new(),
            counters: Counters::default(),
            by_class: HashMap::new(),
            engine_mem,
            lds_size,
            scratch_per_lane: desc.private_segment_fixed_size as usize,
            trace: trace_wanted(std::env::var("HIP_EMU_TRACE").ok().as_deref(), d.kernel),
            strict_lds: std::env::var_os(STRICT_LDS_VAR).is_some_and(|v| v == "1"),
            tracing: ([0; 3], 0),
            deadline: None,
            until_clock_check: CLOCK_CHECK_EVERY,
        })
    }

    pub(crate) fn run(mut self) -> Result<Counters, LaunchError> {
        let [gx, gy, gz] = self.d.grid;
        let threads = self.d.block.iter().map(|&b| b as u64).product::<u64>();
        if threads == 0 || gx == 0 || gy == 0 || gz == 0 {
            return Err(err_dispatch(self.d, "an empty grid or block".into()));
        }
        if threads > 1024 {
            return Err(err_dispatch(
                self.d,
                format!("{threads} work-items in a block; at most 1024"),
            ));
        }
        let mut lds = vec![0u8; self.lds_size];
        for z in 0..gz {
            for y in 0..gy {
                for x in 0..gx {
                    lds.iter_mut().for_each(|b| *b = 0);
                    self.workgroup([x, y, z], &mut lds)?;
                }
            }
        }
        let mut by: Vec<(&'static str, u64)> = self.by_class.into_iter().collect();
        by.sort();
        self.counters.instructions = by;
        Ok(self.counters)
    }

    /// A wave at the kernel's entry: from the pool when one is free (its
    /// VGPRs, AGPRs and scratch keep what the last wave left, as a GPU's
    /// do: a kernel that reads them before writing reads garbage there too).
    fn new_wave(&mut self, wg: [u32; 3], first: u32) -> Wave {
        let ws = self.wave_size;
        let mut w = self.pool.pop().unwrap_or_else(|| Wave {
            sgpr: [0; 128],
            vgpr: vec![0; NVGPR * 64],
            agpr: if self.family == Family::Cdna {
                vec![0; NVGPR * 64]
            } else {
                Vec::new()
            },
            scc: false,
            pc: 0,
            done: false,
            at_barrier: false,
            scratch: vec![0; self.scratch_per_lane * ws as usize],
        });
        w.sgpr = [0; 128];
        w.scc = false;
        w.pc = self.desc.entry;
        w.done = false;
        w.at_barrier = false;
        // User SGPRs, in the order of the descriptor's enable bits.
        let mut s = 0usize;
        let p = self.desc.properties;
        let put = |w: &mut Wave, s: &mut usize, v: u64, n: usize| {
            for i in 0..n {
                if *s < 128 {
                    w.sgpr[*s] = (v >> (32 * i)) as u32;
                }
                *s += 1;
            }
        };
        if p & 1 != 0 {
            put(&mut w, &mut s, 0, 4); // private segment buffer (flat scratch is used instead)
        }
        if p & 2 != 0 {
            put(&mut w, &mut s, ENGINE_BASE, 2); // dispatch packet
        }
        if p & 4 != 0 {
            put(&mut w, &mut s, ENGINE_BASE, 2); // queue (reads nothing meaningful)
        }
        if p & 8 != 0 {
            put(&mut w, &mut s, self.d.kernarg, 2);
        }
        if p & 16 != 0 {
            put(&mut w, &mut s, 0, 2); // dispatch id
        }
        if p & 32 != 0 {
            put(&mut w, &mut s, 0, 2); // flat scratch init
        }
        if p & 64 != 0 {
            put(&mut w, &mut s, self.scratch_per_lane as u64, 1);
        }
        // Preloaded kernel arguments (gfx940+) fill the rest of the user SGPRs.
        let user = self.desc.user_sgprs() as usize;
        if s < user {
            let preload = user - s;
            let mut g = Global {
                memory: self.d.memory,
                last: [None; 4],
                next: 0,
                engine: &mut Vec::new(),
                fault: None,
                bytes: 0,
            };
            for i in 0..preload {
                w.sgpr[s + i] = g.load(self.d.kernarg + 4 * i as u64, 4) as u32;
            }
        }
        s = user;
        let r2 = self.desc.rsrc2;
        for (bit, id) in [(7, wg[0]), (8, wg[1]), (9, wg[2])] {
            if (r2 >> bit) & 1 != 0 && s < 128 {
                w.sgpr[s] = id;
                s += 1;
            }
        }
        if (r2 >> 10) & 1 != 0 && s < 128 {
            w.sgpr[s] = 0; // workgroup info
            s += 1;
        }
        if r2 & 1 != 0 && s < 128 {
            w.sgpr[s] = 0; // private segment wave byte offset
        }
        // Work-item IDs, packed into v0 (gfx90a+, gfx11): x | y << 10 | z << 20.
        let [bx, by, _] = self.d.block;
        let threads = self.d.block.iter().product::<u32>();
        let mut exec = 0u64;
        for lane in 0..ws {
            let t = first + lane;
            if t >= threads {
                continue;
            }
            exec |= 1 << lane;
            let x = t % bx;
            let y = (t / bx) % by;
            let z = t / (bx * by);
            w.vgpr[lane as usize] = x | (y << 10) | (z << 20);
        }
        w.sgpr[126] = exec as u32;
        w.sgpr[127] = if ws == 64 { (exec >> 32) as u32 } else { 0 };
        w
    }

    fn workgroup(&mut self, wg: [u32; 3], lds: &mut [u8]) -> Result<(), LaunchError> {
        let threads = self.d.block.iter().product::<u32>();
        let n = threads.div_ceil(self.wave_size);
        let mut waves: Vec<Wave> = Vec::with_capacity(n as usize);
        for i in 0..n {
            let w = self.new_wave(wg, i * self.wave_size);
            waves.push(w);
        }
        self.counters.waves += n as u64;
        loop {
            let mut progressed = false;
            for (i, wave) in waves.iter_mut().enumerate() {
                if wave.done || wave.at_barrier {
                    continue;
                }
                progressed = true;
                self.tracing = (wg, i as u32);
                match self.run_wave(wave, lds)? {
                    Stop::Ended => wave.done = true,
                    Stop::Barrier => wave.at_barrier = true,
                }
            }
            if waves.iter().all(|w| w.done) {
                self.pool.append(&mut waves);
                return Ok(());
            }
            if waves.iter().all(|w| w.done || w.at_barrier) {
                for w in waves.iter_mut() {
                    w.at_barrier = false;
                }
                continue;
            }
            if !progressed {
                return Err(err_dispatch(
                    self.d,
                    "the workgroup's waves wait on each other forever".into(),
                ));
            }
        }
    }

    fn fetch(&mut self, pc: u64) -> Result<Rc<Inst>, LaunchError> {
        let slot = pc.wrapping_sub(self.code_base) / 4;
        let in_code = pc >= self.code_base && (slot as usize) < self.decoded.len() && pc % 4 == 0;
        if in_code {
            if let Some(i) = &self.decoded[slot as usize] {
                return Ok(i.clone());
            }
        } else if let Some(i) = self.decoded_elsewhere.get(&pc) {
            return Ok(i.clone());
        }
        let mut g = Global {
            memory: self.d.memory,
            last: [None; 4],
            next: 0,
            engine: &mut self.engine_mem,
            fault: None,
            bytes: 0,
        };
        let mut words = Vec::with_capacity(4);
        for i in 0..4u64 {
            if g.ptr(pc + 4 * i, 4).is_none() {
                break;
            }
            words.push(g.load(pc + 4 * i, 4) as u32);
        }
        if words.is_empty() {
            return Err(LaunchError::MemoryFault {
                kernel: self.d.kernel.to_owned(),
                pc,
                instruction: "(instruction fetch)".into(),
                address: pc,
            });
        }
        let mut inst = decode::decode(&self.tables, self.family, &words).map_err(|e| match e {
            DecodeError::NoEncoding | DecodeError::Truncated => LaunchError::InvalidInstruction {
                kernel: self.d.kernel.to_owned(),
                pc,
                word: words[0],
            },
        })?;
        inst.by_hand = by_hand(inst.op.name);
        let inst = Rc::new(inst);
        if in_code {
            self.decoded[slot as usize] = Some(inst.clone());
        } else {
            self.decoded_elsewhere.insert(pc, inst.clone());
        }
        Ok(inst)
    }

    fn trace_line(&self, w: &Wave, inst: &Inst, pc: u64) {
        let exec = self.exec(w);
        let lane = if exec == 0 {
            0
        } else {
            exec.trailing_zeros() as usize
        };
        let vdst = inst
            .f
            .vdst
            .or(inst.f.sdst)
            .or_else(|| inst.field("vdata"))
            .unwrap_or(0);
        let v = if inst.format.name.starts_with('S') {
            format!("s{vdst}={:#x}", self.sreg(w, vdst))
        } else {
            let x = Self::vgpr(w, vdst, lane);
            format!("v{vdst}[{lane}]={x:#x} ({})", f32::from_bits(x))
        };
        let ([x, y, z], wave) = self.tracing;
        eprintln!(
            "hip-emu wg({x},{y},{z}) w{wave} {pc:#x} {:<28} exec={exec:#x} vcc={:#x} scc={} {v}",
            inst.mnemonic(),
            self.vcc(w),
            w.scc as u8
        );
    }

    fn unimplemented(&self, inst: &Inst, pc: u64, why: &str) -> LaunchError {
        LaunchError::Unimplemented {
            kernel: self.d.kernel.to_owned(),
            pc,
            instruction: if why.is_empty() {
                inst.mnemonic()
            } else {
                format!("{} ({why})", inst.mnemonic())
            },
        }
    }

    fn run_wave(&mut self, w: &mut Wave, lds: &mut [u8]) -> Result<Stop, LaunchError> {
        loop {
            let pc = w.pc;
            let inst = self.fetch(pc)?;
            *self.by_class.entry(inst.op.class).or_insert(0) += 1;
            self.until_clock_check -= 1;
            if self.until_clock_check == 0 {
                self.until_clock_check = CLOCK_CHECK_EVERY;
                if let Some((at, limit)) = self.deadline {
                    if std::time::Instant::now() >= at {
                        return Err(LaunchError::TimedOut {
                            kernel: self.d.kernel.to_owned(),
                            seconds: limit.as_secs(),
                            pc,
                            instruction: inst.mnemonic(),
                        });
                    }
                }
            }
            match self.special(w, &inst)? {
                Some(Flow::Next) => {
                    w.pc = pc + inst.len as u64;
                    if self.trace {
                        self.trace_line(w, &inst, pc);
                    }
                    continue;
                }
                Some(Flow::Stop(s)) => {
                    w.pc = pc + inst.len as u64;
                    return Ok(s);
                }
                Some(Flow::Jumped) => continue,
                None => {}
            }
            if inst.format.name == "VOPD" {
                self.vopd(w, &inst, pc)?;
                w.pc = pc + inst.len as u64;
                continue;
            }
            let sem = inst
                .op
                .sem
                .ok_or_else(|| self.unimplemented(&inst, pc, inst.op.why))?;
            let jumped = match inst.format.name {
                "SOP1" | "SOP2" | "SOPC" | "SOPK" | "SOPP" => self.scalar(w, &inst, sem, pc)?,
                "SMEM" => {
                    self.smem(w, &inst, sem, pc)?;
                    false
                }
                "VOP1" | "VOP2" | "VOPC" | "VOP3" | "VOP3SD" | "VOP3P" => {
                    self.valu(w, &inst, sem, pc)?;
                    false
                }
                "VOPD" => {
                    self.vopd(w, &inst, pc)?;
                    false
                }
                "DS" | "GLOBAL" | "FLAT" | "SCRATCH" | "MUBUF" => {
                    self.vmem(w, &inst, sem, pc, lds)?;
                    false
                }
                _ => return Err(self.unimplemented(&inst, pc, "its encoding is not executed yet")),
            };
            if !jumped {
                w.pc = pc + inst.len as u64;
            }
            if self.trace {
                self.trace_line(w, &inst, pc);
            }
        }
    }

    // ---------------------------------------------------------------
    // Operands

    fn exec(&self, w: &Wave) -> u64 {
        if self.wave_size == 64 {
            w.sgpr[126] as u64 | ((w.sgpr[127] as u64) << 32)
        } else {
            w.sgpr[126] as u64
        }
    }

    fn set_exec(&self, w: &mut Wave, v: u64) {
        w.sgpr[126] = v as u32;
        w.sgpr[127] = if self.wave_size == 64 {
            (v >> 32) as u32
        } else {
            0
        };
    }

    fn vcc(&self, w: &Wave) -> u64 {
        if self.wave_size == 64 {
            w.sgpr[106] as u64 | ((w.sgpr[107] as u64) << 32)
        } else {
            w.sgpr[106] as u64
        }
    }

    /// A lane mask from SGPR(s) at `r` (a pair in wave64).
    fn mask_at(&self, w: &Wave, r: u32) -> u64 {
        let lo = self.sreg(w, r) as u64;
        if self.wave_size == 64 {
            lo | ((self.sreg(w, r + 1) as u64) << 32)
        } else {
            lo
        }
    }

    fn set_mask_at(&self, w: &mut Wave, r: u32, v: u64) {
        self.set_sreg(w, r, v as u32);
        if self.wave_size == 64 {
            self.set_sreg(w, r + 1, (v >> 32) as u32);
        }
    }

    fn sreg(&self, w: &Wave, r: u32) -> u32 {
        match r {
            124 if self.family != Family::Cdna => 0,
            0..=127 => w.sgpr[r as usize],
            _ => 0,
        }
    }

    fn set_sreg(&self, w: &mut Wave, r: u32, v: u32) {
        match r {
            124 if self.family != Family::Cdna => {}
            0..=127 => w.sgpr[r as usize] = v,
            _ => {}
        }
    }

    /// A scalar (wave-uniform) source operand's value; `None` for a VGPR.
    fn scalar_src(&self, w: &Wave, inst: &Inst, code: u32, bits: u32, float: u32) -> Option<u64> {
        let lo = |r: u32| self.sreg(w, r) as u64;
        Some(match code {
            0..=127 => {
                if bits > 32 {
                    lo(code) | (lo(code + 1) << 32)
                } else {
                    lo(code)
                }
            }
            128..=192 => (code - 128) as u64,
            193..=208 => (-((code - 192) as i64)) as u64,
            235 => SHARED_APERTURE_BASE >> if bits > 32 { 0 } else { 32 },
            236 => (SHARED_APERTURE_BASE + 0xffff_ffff) >> if bits > 32 { 0 } else { 32 },
            237 => PRIVATE_APERTURE_BASE >> if bits > 32 { 0 } else { 32 },
            238 => (PRIVATE_APERTURE_BASE + 0xffff_ffff) >> if bits > 32 { 0 } else { 32 },
            240..=248 => {
                let v: f64 = match code {
                    240 => 0.5,
                    241 => -0.5,
                    242 => 1.0,
                    243 => -1.0,
                    244 => 2.0,
                    245 => -2.0,
                    246 => 4.0,
                    247 => -4.0,
                    _ => 0.15915494309189535,
                };
                match (float, bits) {
                    (16, _) | (_, 16) if float != 32 && float != 64 => f32_to_f16(v as f32) as u64,
                    (64, _) => v.to_bits(),
                    (0, 64) => v.to_bits(),
                    _ => (v as f32).to_bits() as u64,
                }
            }
            251 => (self.vcc(w) == 0) as u64,
            252 => (self.exec(w) == 0) as u64,
            253 => w.scc as u64,
            255 => {
                let l = inst.literal.unwrap_or(0) as u64;
                if bits > 32 && float == 64 {
                    l << 32
                } else {
                    l
                }
            }
            256..=511 => return None,
            _ => 0,
        })
    }

    // ---------------------------------------------------------------
    // Scalar ALU

    fn scalar(
        &mut self,
        w: &mut Wave,
        inst: &Inst,
        sem: Sem,
        pc: u64,
    ) -> Result<bool, LaunchError> {
        let op = inst.op;
        let mut c = Ctx {
            pc,
            wave64: self.wave_size == 64,
            ieee: self.desc.ieee(),
            scc: w.scc,
            exec: self.exec(w),
            vcc: self.vcc(w),
            m0: w.sgpr[self.family.m0()] as u64,
            ..Ctx::default()
        };
        let width = |i: usize| if op.widths[i] == 0 { 32 } else { op.widths[i] };
        for (i, name) in ["ssrc0", "ssrc1"].iter().enumerate() {
            if let Some(code) = inst.field(name) {
                c.s[i] = self
                    .scalar_src(w, inst, code, width(i), op.src_float[i])
                    .unwrap_or(0);
            }
        }
        if let Some(simm) = inst.f.simm16 {
            c.simm16 = simm as u64;
            // SOPK: S0 is SIMM16 for the compare/move forms; D0's old value is the sdst.
        }
        c.simm32 = inst.literal.unwrap_or(0) as u64;
        let sdst = inst.f.sdst;
        if inst.format.name == "SOPK" {
            if let Some(r) = sdst {
                // Where the immediate goes: the RDNA data names it SIMM16
                // (S0 is then the register); the CDNA data calls it S1 when
                // S0 is the register (`s_cmpk`), else S0 (`s_movk`).
                let reg = self.sreg(w, r) as u64;
                let imm = c.simm16;
                if op.reads & F_SIMM16 != 0 || op.widths[1] > 0 {
                    c.s[0] = reg;
                    c.s[1] = imm;
                } else {
                    c.s[0] = imm;
                }
                c.d[0] = reg;
            }
        }
        if let Some(r) = sdst {
            if inst.format.name != "SOPK" {
                c.d[0] = if width(3) > 32 {
                    self.sreg(w, r) as u64 | ((self.sreg(w, r + 1) as u64) << 32)
                } else {
                    self.sreg(w, r) as u64
                };
            }
        }
        c.vcc_out = c.vcc;
        sem(&mut c, &mut NoMem);
        self.counters.lane_instructions += 1;
        if op.writes & F_D0 != 0 {
            if let Some(r) = sdst {
                self.set_sreg(w, r, c.d[0] as u32);
                if width(3) > 32 {
                    self.set_sreg(w, r + 1, (c.d[0] >> 32) as u32);
                }
            }
        }
        if op.writes & F_SCC != 0 {
            w.scc = c.scc;
        }
        if op.writes & F_EXEC != 0 {
            self.set_exec(w, c.exec);
        }
        if op.writes & F_VCC != 0 {
            self.set_mask_at(w, 106, c.vcc_out);
        }
        if op.writes & F_PC != 0 {
            w.pc = c.pc;
            return Ok(true);
        }
        Ok(false)
    }

    fn smem(&mut self, w: &mut Wave, inst: &Inst, sem: Sem, pc: u64) -> Result<(), LaunchError> {
        let op = inst.op;
        let sbase = inst.f.sbase.unwrap_or(0) * 2;
        let base = self.sreg(w, sbase) as u64 | ((self.sreg(w, sbase + 1) as u64) << 32);
        let imm = inst.f.offset.unwrap_or(0);
        let mut off = sext(imm as i128, 21) as i64;
        let soff = inst.f.soffset.unwrap_or(0x7f);
        let use_soff = match self.family {
            Family::Cdna => inst.f.soffset_en.unwrap_or(0) != 0 || inst.f.imm == Some(0),
            _ => !self.family.is_off(soff),
        };
        if use_soff {
            let r = if self.family == Family::Cdna
                && inst.f.imm == Some(0)
                && inst.f.soffset_en == Some(0)
            {
                // gfx9 `imm = 0`: the offset field names the SGPR.
                imm & 0x7f
            } else {
                soff
            };
            if self.family == Family::Cdna && inst.f.imm == Some(0) && inst.f.soffset_en == Some(0)
            {
                off = 0;
            }
            off += self.sreg(w, r) as i64;
        }
        let addr = base.wrapping_add(off as u64);
        let mut c = Ctx {
            pc,
            addr: addr & !3,
            wave64: self.wave_size == 64,
            ..Ctx::default()
        };
        let sdata = inst.f.sdata.unwrap_or(0);
        let dwords = op.wide_bits[3].div_ceil(32).max(1);
        if op.reads & F_SDATA != 0 {
            for i in 0..dwords {
                c.sdata[i as usize] = self.sreg(w, sdata + i);
            }
        }
        let mut g = Global {
            memory: self.d.memory,
            last: [None; 4],
            next: 0,
            engine: &mut self.engine_mem,
            fault: None,
            bytes: 0,
        };
        {
            let mut acc = Access {
                space: Space::Global,
                buffer: None,
                lane: 0,
                global: &mut g,
                lds: &mut [],
                scratch: &mut [],
                scratch_per_lane: 0,
                fault: None,
                lds_strict: true,
                lds_bytes: 0,
                scratch_bytes: 0,
            };
            sem(&mut c, &mut acc);
        }
        self.counters.global_bytes += g.bytes;
        self.counters.lane_instructions += 1;
        if let Some(a) = g.fault {
            return Err(self.fault(inst, pc, a));
        }
        if op.writes & F_SDATA_W != 0 {
            for i in 0..dwords {
                self.set_sreg(w, sdata + i, c.sdata[i as usize]);
            }
        }
        Ok(())
    }

    fn fault(&self, inst: &Inst, pc: u64, address: u64) -> LaunchError {
        // DS instructions address the LDS only.
        if inst.mnemonic().starts_with("ds_") {
            return LaunchError::LdsOutOfRange {
                kernel: self.d.kernel.to_owned(),
                pc,
                instruction: inst.mnemonic(),
                address,
                size: self.lds_size as u64,
            };
        }
        LaunchError::MemoryFault {
            kernel: self.d.kernel.to_owned(),
            pc,
            instruction: inst.mnemonic(),
            address,
        }
    }

    // ---------------------------------------------------------------
    // Vector ALU

    fn vgpr(w: &Wave, r: u32, lane: usize) -> u32 {
        w.vgpr[(r as usize % NVGPR) * 64 + lane]
    }

    fn set_vgpr(w: &mut Wave, r: u32, lane: usize, v: u32) {
        w.vgpr[(r as usize % NVGPR) * 64 + lane] = v;
    }

    /// The per-lane value of a vector source (code 256..511), `bits` wide.
    fn vsrc(w: &Wave, code: u32, lane: usize, bits: u32) -> u64 {
        let r = code - 256;
        let lo = Self::vgpr(w, r, lane) as u64;
        if bits > 32 {
            lo | ((Self::vgpr(w, r + 1, lane) as u64) << 32)
        } else {
            lo
        }
    }

    fn valu(&mut self, w: &mut Wave, inst: &Inst, sem: Sem, pc: u64) -> Result<(), LaunchError> {
        let op = inst.op;
        let fmt = inst.format.name;
        let exec = self.exec(w);
        let width = |i: usize| if op.widths[i] == 0 { 32 } else { op.widths[i] };
        let mut codes: [Option<u32>; 3] = [inst.f.src0, inst.f.src1, inst.f.src2];
        if fmt == "VOP2" || fmt == "VOPC" {
            codes[1] = inst.f.vsrc1.map(|v| v + 256);
        }
        // V_FMAMK: S1 is the literal; V_FMAAK: S2. Their pseudocode reads SIMM32 itself.
        // DPP16/DPP8/SDWA: src0 is the extension word's VGPR.
        let dpp_src = match inst.ext {
            Ext::None => None,
            _ => Some(inst.ext_bits(0, 7) + 256),
        };
        if let Some(s) = dpp_src {
            codes[0] = Some(s);
        }
        // SDWA (gfx9): sub-dword selects of src0/src1 and of the result.
        let sdwa = inst.ext == Ext::Sdwa;
        if sdwa {
            // `s0`/`s1`: the source is an SGPR or constant, not a VGPR.
            if inst.ext_bits(23, 23) != 0 {
                codes[0] = Some(inst.ext_bits(0, 7));
            }
            if fmt != "VOP1" && inst.ext_bits(31, 31) != 0 {
                codes[1] = codes[1].map(|c| c - 256);
            }
        }
        let sdwa_src = |i: usize, v: u64| -> u64 {
            let (sel, signed, neg, abs) = match i {
                0 => (
                    inst.ext_bits(16, 18),
                    inst.ext_bits(19, 19),
                    inst.ext_bits(20, 20),
                    inst.ext_bits(21, 21),
                ),
                _ => (
                    inst.ext_bits(24, 26),
                    inst.ext_bits(27, 27),
                    inst.ext_bits(28, 28),
                    inst.ext_bits(29, 29),
                ),
            };
            let (shift, width) = match sel {
                0..=3 => (8 * sel, 8),
                4 => (0, 16),
                5 => (16, 16),
                _ => (0, 32),
            };
            let mut x = (v >> shift) & ((1u64 << width) - 1);
            if signed != 0 && width < 32 {
                x = (sext(x as i128, width) as u64) & 0xffff_ffff;
            }
            let f = op.src_float[i];
            if f != 0 {
                let sign = if f == 16 { 1u64 << 15 } else { 1u64 << 31 };
                if abs != 0 {
                    x &= !sign;
                }
                if neg != 0 {
                    x ^= sign;
                }
            }
            x
        };
        // gfx11 true16: in VOP1/VOP2/VOPC a 16-bit VGPR operand names a
        // half: bit 7 of the register number selects the high one.
        let true16 = self.family != Family::Cdna && matches!(fmt, "VOP1" | "VOP2" | "VOPC");
        let mut hi_src = [false; 3];
        if true16 {
            for i in 0..3 {
                if let Some(c) = codes[i] {
                    if c >= 256 && width(i) == 16 {
                        hi_src[i] = (c - 256) & 0x80 != 0;
                        codes[i] = Some(256 + ((c - 256) & 0x7f));
                    }
                }
            }
        }
        // Uniform sources once. A packed-f32 instruction (`v_pk_*_f32`,
        // `v_pk_mov_b32`) reads a 64-bit register pair as two f32 lanes, so
        // an inline float constant is the f32 in the low dword (the high
        // dword 0, which op_sel_hi:0 steers around), not the f64 the
        // operand's width would otherwise give.
        let packed_pair = fmt == "VOP3P" && op.name.starts_with("V_PK_");
        let mut uniform: [Option<u64>; 3] = [None; 3];
        for i in 0..3 {
            if let Some(code) = codes[i] {
                let float = if packed_pair && width(i) == 64 {
                    32
                } else {
                    op.src_float[i]
                };
                uniform[i] = self.scalar_src(w, inst, code, width(i), float);
            }
        }
        // VOP3 modifiers.
        let (abs, neg) = if matches!(fmt, "VOP3" | "VOP3SD") {
            (inst.f.abs.unwrap_or(0), inst.f.neg.unwrap_or(0))
        } else if matches!(inst.ext, Ext::Dpp16) {
            let n = inst.ext_bits(20, 20) | (inst.ext_bits(22, 22) << 1);
            let a = inst.ext_bits(21, 21) | (inst.ext_bits(23, 23) << 1);
            (a, n)
        } else {
            (0, 0)
        };
        let opsel = if fmt == "VOP3" {
            inst.f.opsel.unwrap_or(0)
        } else {
            0
        };
        clamp_executed(inst).map_err(|why| self.unimplemented(inst, pc, &why))?;
        let (clamp, omod) = if matches!(fmt, "VOP3" | "VOP3SD") {
            (inst.f.clmp.unwrap_or(0) != 0, inst.f.omod.unwrap_or(0))
        } else {
            (false, 0)
        };
        // VOP3P packed operands.
        let packed = fmt == "VOP3P";
        let (p_opsel, p_opsel_hi, p_neg, p_neg_hi) = if packed {
            (
                inst.f.opsel.unwrap_or(0),
                inst.f.opsel_hi.unwrap_or(3) | (inst.f.opsel_hi2.unwrap_or(1) << 2),
                inst.f.neg.unwrap_or(0),
                inst.f.neg_hi.unwrap_or(0),
            )
        } else {
            (0, 0, 0, 0)
        };
        let mut vdst = inst.f.vdst.unwrap_or(0);
        let mut vdst_hi = false;
        if true16 && width(3) == 16 && fmt != "VOPC" {
            vdst_hi = vdst & 0x80 != 0;
            vdst &= 0x7f;
        }
        let sdst = if fmt == "VOP3SD" { inst.f.sdst } else { None };
        let d0_is_sgpr = op.d0_mask;
        // Where a mask result goes: VCC (VOPC/VOP2 carry) or an SGPR (VOP3).
        let mask_dst = |fmt: &str| -> u32 {
            if fmt == "VOP3" || fmt == "VOP3SD" {
                vdst
            } else {
                106
            }
        };
        // VOP3's carry-in (V_ADDC, V_SUBB, V_CNDMASK) is its third source;
        // V_DIV_FMAS reads VCC itself, its third source is the addend.
        let carry_in_src2 = matches!(fmt, "VOP3" | "VOP3SD")
            && op.reads & F_VCC != 0
            && !op.name.starts_with("V_DIV_FMAS_");
        let vcc_in = if carry_in_src2 {
            codes[2]
                .map(|c| if c < 256 { self.mask_at(w, c) } else { 0 })
                .unwrap_or(0)
        } else {
            self.vcc(w)
        };
        let mut c = Ctx {
            pc,
            wave64: self.wave_size == 64,
            ieee: self.desc.ieee(),
            scc: w.scc,
            exec,
            vcc: vcc_in,
            vcc_out: 0,
            exec_out: 0,
            m0: w.sgpr[self.family.m0()] as u64,
            simm32: inst.literal.unwrap_or(0) as u64,
            ..Ctx::default()
        };
        if inst.literal.is_none() && op.reads & F_SIMM32 != 0 {
            c.simm32 = inst.words[inst.base_dwords as usize] as u64;
        }
        let dw = width(3);
        // gfx9 writes a 16-bit result's upper half as zeros (LLVM relies on
        // it: GCNSubtarget::zeroesHigh16BitsOfDest); the mix instructions
        // keep the other half, and op_sel and SDWA place the result.
        let zero_high16 = self.family == Family::Cdna
            && dw == 16
            && matches!(fmt, "VOP1" | "VOP2" | "VOP3")
            && !op.name.contains("MIX")
            && (opsel >> 3) & 1 == 0
            && inst.ext != Ext::Sdwa
            && op.reads & F_OPSEL == 0;
        c.opsel = if packed { p_opsel } else { opsel } as u64;
        c.opsel_hi = p_opsel_hi as u64;
        c.neg = p_neg as u64;
        // The pseudocode places a 16-bit result by OPSEL itself.
        let dst_opsel = if op.reads & F_OPSEL != 0 { 0 } else { opsel };
        // The data's V_DIV_SCALE leaves D0 unwritten where no scaling
        // applies; the instruction then passes S0 through.
        let d0_starts_as_s0 = op.name.starts_with("V_DIV_SCALE_");
        let mut d1_mask = 0u64;
        let mut active = exec;
        // DPP16 row/bank masks disable lanes' writes.
        let mut dpp_lane: Option<Box<dyn Fn(usize) -> Option<usize>>> = None;
        match inst.ext {
            Ext::Dpp16 => {
                let ctrl = inst.ext_bits(8, 16);
                let row_mask = inst.ext_bits(28, 31);
                let bank_mask = inst.ext_bits(24, 27);
                for lane in 0..self.wave_size as usize {
                    let row = lane / 16;
                    let bank = (lane % 16) / 4;
                    if (row_mask >> row) & 1 == 0 || (bank_mask >> bank) & 1 == 0 {
                        active &= !(1u64 << lane);
                    }
                }
                let ws = self.wave_size as usize;
                let family = self.family;
                dpp_lane = Some(Box::new(move |lane: usize| {
                    dpp16_source(ctrl, lane, ws, family)
                }));
            }
            Ext::Dpp8 { .. } => {
                let sel: Vec<usize> = (0..8)
                    .map(|i| inst.ext_bits(8 + 3 * i, 10 + 3 * i) as usize)
                    .collect();
                dpp_lane = Some(Box::new(move |lane: usize| {
                    Some((lane & !7) | sel[lane % 8])
                }));
            }
            _ => {}
        }
        let bound_ctrl = matches!(inst.ext, Ext::Dpp16) && inst.ext_bits(19, 19) != 0;
        let fi = match inst.ext {
            Ext::Dpp16 => self.family != Family::Cdna && inst.ext_bits(18, 18) != 0,
            Ext::Dpp8 { fi } => fi,
            _ => false,
        };
        // The common case, without modifiers, extensions or halves: each
        // source a constant or a VGPR, the result a 32- or 64-bit VGPR.
        let plain = inst.ext == Ext::None
            && !packed
            && abs == 0
            && neg == 0
            && opsel == 0
            && !clamp
            && omod == 0
            && hi_src == [false; 3]
            && !vdst_hi
            && !d0_starts_as_s0
            && !d0_is_sgpr
            && op.writes & F_D1 == 0
            && (dw == 32 || dw == 64)
            && (0..3).all(|i| width(i) == 32 || width(i) == 64 || codes[i].is_none());
        if plain {
            #[derive(Clone, Copy)]
            enum Src {
                Const(u64),
                V32(usize),
                V64(usize),
            }
            let mut srcs = [Src::Const(0); 3];
            for i in 0..3 {
                srcs[i] = match (codes[i], uniform[i]) {
                    (None, _) => Src::Const(0),
                    (Some(_), Some(u)) => Src::Const(u),
                    (Some(code), None) if width(i) > 32 => Src::V64((code as usize - 256) % NVGPR),
                    (Some(code), None) => Src::V32((code as usize - 256) % NVGPR),
                };
            }
            let d = vdst as usize % NVGPR;
            let d1 = (d + 1) % NVGPR;
            let writes = op.writes & F_D0 != 0;
            let mut bits = active;
            while bits != 0 {
                let lane = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                c.lane = lane as u32;
                for (i, src) in srcs.iter().enumerate() {
                    c.s[i] = match *src {
                        Src::Const(v) => v,
                        Src::V32(r) => w.vgpr[r * 64 + lane] as u64,
                        Src::V64(r) => {
                            w.vgpr[r * 64 + lane] as u64
                                | ((w.vgpr[((r + 1) % NVGPR) * 64 + lane] as u64) << 32)
                        }
                    };
                }
                c.d[0] = if dw > 32 {
                    w.vgpr[d * 64 + lane] as u64 | ((w.vgpr[d1 * 64 + lane] as u64) << 32)
                } else {
                    w.vgpr[d * 64 + lane] as u64
                };
                sem(&mut c, &mut NoMem);
                if writes {
                    w.vgpr[d * 64 + lane] = c.d[0] as u32;
                    if dw > 32 {
                        w.vgpr[d1 * 64 + lane] = (c.d[0] >> 32) as u32;
                    }
                }
            }
            self.counters.lane_instructions += active.count_ones() as u64;
        } else {
            for lane in 0..self.wave_size as usize {
                if (active >> lane) & 1 == 0 {
                    continue;
                }
                c.lane = lane as u32;
                let mut skip = false;
                for i in 0..3 {
                    let Some(code) = codes[i] else {
                        c.s[i] = 0;
                        continue;
                    };
                    let bits = width(i);
                    let mut v = match uniform[i] {
                        Some(u) => u,
                        None => {
                            let mut src_lane = lane;
                            if i == 0 {
                                if let Some(f) = &dpp_lane {
                                    match f(lane) {
                                        Some(l)
                                            if l < self.wave_size as usize
                                                && ((exec >> l) & 1 != 0 || fi) =>
                                        {
                                            src_lane = l
                                        }
                                        _ => {
                                            if bound_ctrl {
                                                c.s[0] = 0;
                                                continue;
                                            }
                                            skip = true;
                                            break;
                                        }
                                    }
                                }
                            }
                            Self::vsrc(w, code, src_lane, bits)
                        }
                    };
                    if packed && op.reads & (F_OPSEL | F_NEG) != 0 {
                        // The pseudocode selects the halves itself (the mix
                        // instructions read OP_SEL/OP_SEL_HI; dot4 reads NEG
                        // as signedness). For the mix ones, neg and neg_hi
                        // (abs) act on each source as the format it is read
                        // in: f32 when op_sel_hi is clear, else the f16 half
                        // op_sel names.
                        if op.reads & F_OPSEL != 0 {
                            let sign = if (p_opsel_hi >> i) & 1 == 0 || (p_opsel >> i) & 1 != 0 {
                                1u64 << 31
                            } else {
                                1u64 << 15
                            };
                            if (p_neg_hi >> i) & 1 != 0 {
                                v &= !sign;
                            }
                            if (p_neg >> i) & 1 != 0 {
                                v ^= sign;
                            }
                        }
                    } else if packed && bits == 64 {
                        // Two 32-bit halves (v_pk_fma_f32 and kin): op_sel
                        // and op_sel_hi pick each, neg_lo/neg_hi flip their
                        // signs.
                        let half = |sel: u32| {
                            if (sel >> i) & 1 != 0 {
                                v >> 32
                            } else {
                                v & 0xffff_ffff
                            }
                        };
                        let mut lo = half(p_opsel);
                        let mut hi = half(p_opsel_hi);
                        if (p_neg >> i) & 1 != 0 {
                            lo ^= 1 << 31;
                        }
                        if (p_neg_hi >> i) & 1 != 0 {
                            hi ^= 1 << 31;
                        }
                        v = lo | (hi << 32);
                    } else if packed {
                        let lo = if (p_opsel >> i) & 1 != 0 {
                            (v >> 16) & 0xffff
                        } else {
                            v & 0xffff
                        };
                        let hi = if (p_opsel_hi >> i) & 1 != 0 {
                            (v >> 16) & 0xffff
                        } else {
                            v & 0xffff
                        };
                        let f = op.src_float[i] == 16;
                        let lo = if f && (p_neg >> i) & 1 != 0 {
                            lo ^ 0x8000
                        } else {
                            lo
                        };
                        let hi = if f && (p_neg_hi >> i) & 1 != 0 {
                            hi ^ 0x8000
                        } else {
                            hi
                        };
                        if bits <= 32 {
                            v = lo | (hi << 16);
                        }
                    } else {
                        if bits == 16 && (opsel >> i) & 1 != 0 {
                            v >>= 16;
                        }
                        // Integer-typed operands too (v_cndmask takes |x| and -x
                        // this way): the modifiers act on the sign bit.
                        let fb = if op.src_float[i] != 0 {
                            op.src_float[i]
                        } else {
                            bits
                        };
                        if (abs | neg) >> i & 1 != 0 {
                            let sign = match fb {
                                16 => 1u64 << 15,
                                64 => 1u64 << 63,
                                _ => 1u64 << 31,
                            };
                            if (abs >> i) & 1 != 0 {
                                v &= !sign;
                            }
                            if (neg >> i) & 1 != 0 {
                                v ^= sign;
                            }
                        }
                    }
                    if sdwa && i < 2 {
                        v = sdwa_src(i, v);
                    }
                    if hi_src[i] {
                        v = (v >> 16) & 0xffff;
                    }
                    c.s[i] = v;
                }
                if skip {
                    continue;
                }
                if !d0_is_sgpr {
                    c.d[0] = if zero_high16 {
                        0
                    } else {
                        Self::vsrc(w, vdst + 256, lane, dw)
                    };
                    if dw == 16 && ((dst_opsel >> 3) & 1 != 0 || vdst_hi) {
                        c.d[0] >>= 16;
                    }
                }
                c.d[1] = 0;
                if d0_starts_as_s0 {
                    c.d[0] = c.s[0];
                }
                sem(&mut c, &mut NoMem);
                if op.writes & F_D1 != 0 {
                    set_lane(&mut d1_mask, lane as u32, c.d[1] & 1 != 0);
                }
                if !d0_is_sgpr && op.writes & F_D0 != 0 {
                    let mut r = c.d[0];
                    if op.src_float.contains(&32)
                        || op.src_float.contains(&64)
                        || op.src_float.contains(&16)
                    {
                        r = out_mods(r, dw, clamp, omod, op);
                    }
                    if sdwa && fmt != "VOPC" {
                        let sel = inst.ext_bits(8, 10);
                        let unused = inst.ext_bits(11, 12);
                        let (shift, width) = match sel {
                            0..=3 => (8 * sel, 8),
                            4 => (0, 16),
                            5 => (16, 16),
                            _ => (0, 32),
                        };
                        let m = if width == 32 {
                            u32::MAX
                        } else {
                            ((1u32 << width) - 1) << shift
                        };
                        let field = ((r as u32) << shift) & m;
                        let old = Self::vgpr(w, vdst, lane);
                        let rest = match unused {
                            2 => old & !m,
                            1 if width < 32 && (field >> (shift + width - 1)) & 1 != 0 => {
                                // Sign-extend above the field; pad below with zeros.
                                !((1u32 << (shift + width)) - 1)
                            }
                            _ => 0,
                        };
                        Self::set_vgpr(w, vdst, lane, field | rest);
                    } else if dw > 32 {
                        Self::set_vgpr(w, vdst, lane, r as u32);
                        Self::set_vgpr(w, vdst + 1, lane, (r >> 32) as u32);
                    } else if dw == 16 && ((dst_opsel >> 3) & 1 != 0 || vdst_hi) {
                        let old = Self::vgpr(w, vdst, lane);
                        Self::set_vgpr(w, vdst, lane, (old & 0xffff) | ((r as u32 & 0xffff) << 16));
                    } else if dw == 16
                        && self.family != Family::Cdna
                        && (fmt == "VOP3" || fmt == "VOP1" || fmt == "VOP2")
                    {
                        // gfx11 16-bit results write the low half and keep the high.
                        let old = Self::vgpr(w, vdst, lane);
                        Self::set_vgpr(w, vdst, lane, (old & 0xffff_0000) | (r as u32 & 0xffff));
                    } else {
                        Self::set_vgpr(w, vdst, lane, r as u32);
                    }
                }
                self.counters.lane_instructions += 1;
            }
        }
        if d0_is_sgpr {
            let r = if sdwa && fmt == "VOPC" && inst.ext_bits(15, 15) != 0 {
                inst.ext_bits(8, 14)
            } else {
                mask_dst(fmt)
            };
            self.set_mask_at(w, r, c.d[0]);
        }
        if op.writes & F_VCC != 0 {
            let r = sdst.unwrap_or(106);
            self.set_mask_at(w, r, c.vcc_out);
        }
        if op.writes & F_D1 != 0 {
            if let Some(r) = sdst {
                self.set_mask_at(w, r, d1_mask);
            }
        }
        if op.writes & F_EXEC != 0 {
            self.set_exec(w, c.exec_out);
        }
        Ok(())
    }

    /// VOPD: two VOP2/VOP1 operations issued together; both read their
    /// sources before either writes.
    fn vopd(&mut self, w: &mut Wave, inst: &Inst, pc: u64) -> Result<(), LaunchError> {
        let x = inst.op;
        let y = decode::vopd_y(&self.tables, inst)
            .ok_or_else(|| self.unimplemented(inst, pc, "its Y opcode"))?;
        let halves = [
            (
                x,
                inst.f.srcx0.unwrap_or(0),
                inst.f.vsrcx1.unwrap_or(0),
                inst.f.vdstx.unwrap_or(0),
            ),
            (y, inst.f.srcy0.unwrap_or(0), inst.f.vsrcy1.unwrap_or(0), {
                let vx = inst.f.vdstx.unwrap_or(0);
                (inst.f.vdsty.unwrap_or(0) << 1) | ((vx & 1) ^ 1)
            }),
        ];
        let exec = self.exec(w);
        let mut results: Vec<(u32, Vec<(usize, u32)>)> = Vec::new();
        for (dual, src0, vsrc1, vdst) in halves {
            let twin = decode::vopd_twin(&self.tables, dual)
                .ok_or_else(|| self.unimplemented(inst, pc, dual.name))?;
            let sem = twin
                .sem
                .ok_or_else(|| self.unimplemented(inst, pc, twin.why))?;
            let uniform = self.scalar_src(w, inst, src0, 32, twin.src_float[0]);
            let mut c = Ctx {
                pc,
                wave64: self.wave_size == 64,
                ieee: self.desc.ieee(),
                exec,
                vcc: self.vcc(w),
                simm32: inst.literal.unwrap_or(0) as u64,
                ..Ctx::default()
            };
            let mut out = Vec::new();
            for lane in 0..self.wave_size as usize {
                if (exec >> lane) & 1 == 0 {
                    continue;
                }
                c.lane = lane as u32;
                c.s[0] = uniform.unwrap_or_else(|| Self::vsrc(w, src0, lane, 32));
                c.s[1] = Self::vgpr(w, vsrc1, lane) as u64;
                c.d[0] = Self::vgpr(w, vdst, lane) as u64;
                sem(&mut c, &mut NoMem);
                out.push((lane, c.d[0] as u32));
            }
            results.push((vdst, out));
        }
        for (vdst, out) in results {
            self.counters.lane_instructions += out.len() as u64;
            for (lane, v) in out {
                Self::set_vgpr(w, vdst, lane, v);
            }
        }
        Ok(())
    }

    // ---------------------------------------------------------------
    // Vector memory: DS, FLAT, GLOBAL, SCRATCH, MUBUF

    /// The buffer resource (V#) of a MUBUF instruction and its addressing
    /// bits. Swizzled buffers, loads into LDS and TFE stop the launch.
    fn buffer_resource(&self, w: &Wave, inst: &Inst, pc: u64) -> Result<Buffer, LaunchError> {
        let r = inst.field("srsrc").unwrap_or(0) * 4;
        let d = [0, 1, 2, 3].map(|i| self.sreg(w, r + i));
        let soffset = match inst.field("soffset") {
            Some(code) => self.scalar_src(w, inst, code, 32, 0).unwrap_or(0) & 0xffff_ffff,
            None => 0,
        };
        // gfx9: bit 31 of dword 1 enables swizzling; gfx10+: bits 31:30.
        let swizzle = match self.family {
            Family::Cdna => d[1] >> 31 != 0,
            _ => d[1] >> 30 != 0,
        };
        let unsupported = if swizzle {
            Some("a swizzled buffer resource")
        } else if inst.field("lds").unwrap_or(0) != 0 {
            Some("a load into LDS")
        } else if inst.field("tfe").unwrap_or(0) != 0 {
            Some("TFE")
        } else {
            None
        };
        if let Some(what) = unsupported {
            return Err(self.unimplemented(inst, pc, &format!("{what} is not executed yet")));
        }
        Ok(Buffer {
            base: d[0] as u64 | ((d[1] as u64 & 0xffff) << 32),
            stride: ((d[1] >> 16) & 0x3fff) as u64,
            records: d[2] as u64,
            add_tid: (d[3] >> 23) & 1 != 0,
            // gfx10+: OOB_SELECT, bits 29:28 of dword 3; gfx9 has none.
            oob_select: match self.family {
                Family::Cdna => None,
                _ => Some((d[3] >> 28) & 3),
            },
            soffset,
            offen: inst.field("offen").unwrap_or(0) != 0,
            idxen: inst.field("idxen").unwrap_or(0) != 0,
        })
    }

    fn vmem(
        &mut self,
        w: &mut Wave,
        inst: &Inst,
        sem: Sem,
        pc: u64,
        lds: &mut [u8],
    ) -> Result<(), LaunchError> {
        let op = inst.op;
        let fmt = inst.format.name;
        let exec = self.exec(w);
        let vaddr = inst.f.addr.unwrap_or(0);
        let data0 = inst.field("data").or(inst.f.data0).unwrap_or(0);
        let data1 = inst.f.data1.unwrap_or(0);
        let vdst = inst.f.vdst.unwrap_or(0);
        let acc = inst.f.acc.unwrap_or(0) != 0;
        let space = match fmt {
            "DS" => Space::Lds,
            "GLOBAL" => Space::Global,
            "SCRATCH" => Space::Scratch,
            "MUBUF" => Space::Buffer,
            _ => Space::Flat,
        };
        // MUBUF names its registers vaddr and vdata (data in and out).
        let (buffer, vaddr, data0, vdst) = if space == Space::Buffer {
            let vdata = inst.field("vdata").unwrap_or(0);
            let b = self.buffer_resource(w, inst, pc)?;
            (Some(b), inst.field("vaddr").unwrap_or(0), vdata, vdata)
        } else {
            (None, vaddr, data0, vdst)
        };
        let saddr = inst.f.saddr.unwrap_or(0x7f);
        let soff = if self.family.is_off(saddr) {
            None
        } else {
            Some(saddr)
        };
        let offset_raw = inst.f.offset.unwrap_or(0);
        let off_bits = inst
            .format
            .fields
            .iter()
            .find(|f| f.0 == "offset")
            .map(|f| f.2 - f.1 + 1)
            .unwrap_or(12);
        let imm = match space {
            Space::Global | Space::Scratch => sext(offset_raw as i128, off_bits) as i64,
            _ => offset_raw as i64,
        };
        let sve = inst.f.sve.unwrap_or(0) != 0;
        let data_dw = op.wide_bits[0].div_ceil(32);
        let data2_dw = op.wide_bits[1].div_ceil(32);
        let vdata_dw = op.wide_bits[2].div_ceil(32);
        let ret_dw = op.wide_bits[4]
            .div_ceil(32)
            .max(op.wide_bits[2].div_ceil(32));
        let mut c = Ctx {
            pc,
            wave64: self.wave_size == 64,
            ieee: self.desc.ieee(),
            exec,
            m0: w.sgpr[self.family.m0()] as u64,
            ..Ctx::default()
        };
        let mut g = Global {
            memory: self.d.memory,
            last: [None; 4],
            next: 0,
            engine: &mut self.engine_mem,
            fault: None,
            bytes: 0,
        };
        let mut acc_mem = Access {
            space,
            buffer: None,
            lane: 0,
            global: &mut g,
            lds,
            scratch: &mut w.scratch,
            scratch_per_lane: self.scratch_per_lane,
            fault: None,
            lds_strict: self.strict_lds,
            lds_bytes: 0,
            scratch_bytes: 0,
        };
        let sbase = soff.map(|r| {
            let lo = if r == 124 && self.family != Family::Cdna {
                0
            } else {
                w.sgpr[r as usize & 127]
            } as u64;
            let hi = if r + 1 < 128 {
                w.sgpr[(r + 1) as usize]
            } else {
                0
            } as u64;
            (lo, lo | (hi << 32))
        });
        // Which instructions write their destination: loads; DS `_RTN`
        // forms; FLAT/GLOBAL atomics only when they ask for the old value.
        let returns = {
            let n = op.name;
            let atomic = n.contains("ATOMIC");
            if fmt == "DS" {
                n.contains("RTN") || n.contains("LOAD") || n.contains("READ")
            } else if atomic {
                inst.f.glc.or(inst.f.sc0).unwrap_or(0) != 0
            } else {
                true
            }
        };
        let is_load = op.name.contains("LOAD") || op.name.contains("READ");
        let vdata_in = if is_load { vdst } else { data0 };
        // A d16 load writes half of its destination. gfx942 runs with SRAM
        // ECC on (its code objects are sramecc+), where the hardware zeroes
        // the other half (LLVM: d16PreservesUnusedBits is false with
        // SRAMECC, and rocBLAS 7's bf16 GEMMs OR two such halves); RDNA
        // keeps it.
        let d16_zeroes = self.family == Family::Cdna && is_load && op.name.contains("D16");
        let mut lanes_done = 0u64;
        let mut fault = None;
        let mut results: Vec<(usize, [u32; 16])> = Vec::new();
        for lane in 0..self.wave_size as usize {
            if (exec >> lane) & 1 == 0 {
                continue;
            }
            acc_mem.lane = lane;
            c.lane = lane as u32;
            // The address is always in VGPRs; with `acc` (CDNA) the data
            // and the destination are AGPRs.
            let v = |r: u32| w.vgpr[(r as usize % NVGPR) * 64 + lane];
            let d = |r: u32| {
                if acc {
                    w.agpr[(r as usize % NVGPR) * 64 + lane]
                } else {
                    v(r)
                }
            };
            match space {
                Space::Lds => {
                    let o0 = inst.f.offset0.unwrap_or(0) as u64;
                    let o1 = inst.f.offset1.unwrap_or(0) as u64;
                    c.offset = o0 | (o1 << 8);
                    c.offset0 = o0;
                    c.offset1 = o1;
                    // `MEM[ADDR + OFFSET]` in some pseudocode, `MEM[ADDR]`
                    // (the offset already in) in the rest.
                    c.addr = if op.reads & F_OFFSET != 0 {
                        v(vaddr) as u64
                    } else {
                        (v(vaddr) as u64 + c.offset) & 0xffff_ffff
                    };
                }
                Space::Global => {
                    c.addr = match sbase {
                        Some((_, b64)) => b64.wrapping_add(v(vaddr) as u64),
                        None => v(vaddr) as u64 | ((v(vaddr + 1) as u64) << 32),
                    }
                    .wrapping_add(imm as u64);
                }
                Space::Scratch => {
                    let mut a = imm;
                    let use_v = match self.family {
                        Family::Cdna => sve || sbase.is_none(),
                        _ => sve,
                    };
                    if use_v {
                        a += v(vaddr) as i32 as i64;
                    }
                    if let Some((lo, _)) = sbase {
                        a += lo as u32 as i32 as i64;
                    }
                    c.addr = a as u64;
                }
                Space::Flat => {
                    c.addr =
                        (v(vaddr) as u64 | ((v(vaddr + 1) as u64) << 32)).wrapping_add(imm as u64);
                }
                Space::Buffer => {
                    let b = buffer.expect("a buffer resource for MUBUF");
                    let index = if b.idxen { v(vaddr) as u64 } else { 0 }
                        + if b.add_tid { lane as u64 } else { 0 };
                    let offset = if b.offen {
                        v(vaddr + u32::from(b.idxen)) as u64
                    } else {
                        0
                    } + offset_raw as u64;
                    let start = b.base.wrapping_add(b.soffset);
                    // Range checking. gfx9 (CDNA 3): a raw buffer (stride
                    // 0) checks the whole offset, the scalar offset with it,
                    // against the record count in bytes (rocBLAS 7's Tensile
                    // kernels step through A and B with soffset and rely on
                    // the check to read 0 past the edge), a structured one
                    // the index.
                    // gfx10+ by OOB_SELECT: 3 (raw) checks the offset with
                    // the scalar offset; 2 only that there are records; 1
                    // the index; 0 the index and the offset within the
                    // stride.
                    let whole = |start: u64, limit: u64| Some(BufferRange { start, limit });
                    acc_mem.buffer = match b.oob_select {
                        None if b.stride == 0 => whole(b.base, b.records),
                        None | Some(1) => (index < b.records).then(|| BufferRange {
                            start: start.wrapping_add(index.wrapping_mul(b.stride)),
                            limit: u64::MAX,
                        }),
                        Some(3) => whole(b.base, b.records),
                        Some(2) => (b.records != 0).then_some(BufferRange {
                            start,
                            limit: u64::MAX,
                        }),
                        Some(_) => (index < b.records).then(|| BufferRange {
                            start: start.wrapping_add(index.wrapping_mul(b.stride)),
                            limit: if b.stride == 0 { u64::MAX } else { b.stride },
                        }),
                    };
                    c.addr = start
                        .wrapping_add(index.wrapping_mul(b.stride))
                        .wrapping_add(offset);
                }
            }
            for i in 0..data_dw.min(16) {
                c.data[i as usize] = d(data0 + i);
            }
            for i in 0..data2_dw.min(16) {
                c.data2[i as usize] = d(data1 + i);
            }
            // VDATA is what a load writes; a d16 load keeps the other half
            // of its destination, so it starts as the destination (not the
            // encoding's store-data register).
            for i in 0..vdata_dw.min(16) {
                c.vdata[i as usize] = if d16_zeroes { 0 } else { d(vdata_in + i) };
            }
            // RETURN_DATA likewise: a d16 LDS load (`ds_load_u16_d16_hi`)
            // writes half of it and preserves the rest (zeroes it on
            // gfx942, as above), so it starts as this lane's destination
            // (never as the last lane's).
            if op.writes & F_RET_W != 0 {
                for i in 0..ret_dw.min(16) {
                    c.ret[i as usize] = if d16_zeroes { 0 } else { d(vdst + i) };
                }
            }
            sem(&mut c, &mut acc_mem);
            if let Some(a) = acc_mem.fault.take().or_else(|| acc_mem.global.fault.take()) {
                fault.get_or_insert(a);
            }
            if returns && op.writes & (F_VDATA_W | F_RET_W) != 0 {
                let mut out = [0u32; 16];
                if op.writes & F_RET_W != 0 {
                    out = c.ret;
                } else {
                    out = if op.writes & F_VDATA_W != 0 {
                        c.vdata
                    } else {
                        out
                    };
                }
                results.push((lane, out));
            }
            lanes_done += 1;
        }
        self.counters.lds_bytes += acc_mem.lds_bytes;
        self.counters.scratch_bytes += acc_mem.scratch_bytes;
        self.counters.global_bytes += g.bytes;
        self.counters.lane_instructions += lanes_done;
        if let Some(a) = fault {
            return Err(self.fault(inst, pc, a));
        }
        for (lane, out) in results {
            for i in 0..ret_dw.min(16) {
                let file = if acc { &mut w.agpr } else { &mut w.vgpr };
                file[((vdst + i) as usize % NVGPR) * 64 + lane] = out[i as usize];
            }
        }
        Ok(())
    }

    // ---------------------------------------------------------------
    // Instructions whose data is prose, or that act on the wave as a whole.

    fn special(&mut self, w: &mut Wave, inst: &Inst) -> Result<Option<Flow>, LaunchError> {
        if !inst.by_hand {
            return Ok(None);
        }
        let name = inst.op.name;
        Ok(Some(match name {
            "S_ENDPGM" | "S_CODE_END" | "S_ENDPGM_SAVED" => Flow::Stop(Stop::Ended),
            "S_BARRIER" => Flow::Stop(Stop::Barrier),
            "S_SLEEP" => {
                if let Some(host) = self.d.host {
                    host.serve(self.d.memory).map_err(|e| {
                        err_dispatch(self.d, format!("host service at pc {:#x}: {e}", w.pc))
                    })?;
                }
                Flow::Next
            }
            n if NO_EFFECT.contains(&n) => Flow::Next,
            n if n.starts_with("V_MFMA_") || n.starts_with("V_WMMA_") => {
                let shape = Shape::of(n, self.family)
                    .and_then(|s| s.ok_or_else(|| "not a matrix instruction".to_owned()))
                    .and_then(|s| s.check(inst).map(|()| s))
                    .map_err(|why| self.unimplemented(inst, w.pc, &why))?;
                self.matrix(w, inst, &shape)?;
                Flow::Next
            }
            "S_SETHALT" | "S_TRAP" => {
                return Err(err_dispatch(
                    self.d,
                    format!("the kernel executed {}", inst.mnemonic()),
                ));
            }
            "V_READFIRSTLANE_B32_E32"
            | "V_READFIRSTLANE_B32_E64"
            | "V_READLANE_B32"
            | "V_WRITELANE_B32" => {
                self.lane_move(w, inst);
                Flow::Next
            }
            "DS_BPERMUTE_B32" | "DS_PERMUTE_B32" | "DS_SWIZZLE_B32" => {
                self.permute(w, inst)?;
                Flow::Next
            }
            "V_ACCVGPR_READ"
            | "V_ACCVGPR_WRITE"
            | "V_ACCVGPR_MOV_B32_E32"
            | "V_ACCVGPR_MOV_B32_E64" => {
                self.agpr_move(w, inst);
                Flow::Next
            }
            "S_SENDMSG_RTN_B32" | "S_SENDMSG_RTN_B64" | "S_MEMTIME" | "S_MEMREALTIME" => {
                self.clock_read(w, inst);
                Flow::Next
            }
            _ => return Ok(None),
        }))
    }

    fn lane_move(&mut self, w: &mut Wave, inst: &Inst) {
        let name = inst.op.name;
        let exec = self.exec(w);
        let ws = self.wave_size as u64;
        let src0 = inst.f.src0.unwrap_or(0);
        let vdst = inst.f.vdst.unwrap_or(0);
        match name {
            "V_READFIRSTLANE_B32_E32" | "V_READFIRSTLANE_B32_E64" => {
                let lane = if exec == 0 {
                    0
                } else {
                    exec.trailing_zeros() as usize
                };
                let v = if src0 >= 256 {
                    Self::vgpr(w, src0 - 256, lane)
                } else {
                    self.scalar_src(w, inst, src0, 32, 0).unwrap_or(0) as u32
                };
                self.set_sreg(w, vdst, v);
            }
            "V_READLANE_B32" => {
                let sel = inst
                    .field("src1")
                    .and_then(|s| self.scalar_src(w, inst, s, 32, 0))
                    .unwrap_or(0);
                let lane = (sel % ws) as usize;
                let v = if src0 >= 256 {
                    Self::vgpr(w, src0 - 256, lane)
                } else {
                    0
                };
                self.set_sreg(w, vdst, v);
            }
            _ => {
                // V_WRITELANE_B32: S0 (scalar) into VGPR vdst at lane S1.
                let v = self.scalar_src(w, inst, src0, 32, 0).unwrap_or(0) as u32;
                let sel = inst
                    .field("src1")
                    .and_then(|s| self.scalar_src(w, inst, s, 32, 0))
                    .unwrap_or(0);
                Self::set_vgpr(w, vdst, (sel % ws) as usize, v);
            }
        }
        self.counters.lane_instructions += 1;
    }

    /// Clocks and the messages that return a value: `s_memtime` reads the
    /// emulated shader clock ([`clock_cycles`]); `s_memrealtime` and
    /// `s_sendmsg_rtn` with MSG_RTN_GET_REALTIME the 100 MHz one
    /// ([`clock_realtime`]); the other messages (doorbell, ids, trap
    /// addresses) read 0.
    fn clock_read(&mut self, w: &mut Wave, inst: &Inst) {
        let (dst, value, pair) = match inst.op.name {
            "S_MEMTIME" => (inst.f.sdata.unwrap_or(0), clock_cycles(), true),
            "S_MEMREALTIME" => (inst.f.sdata.unwrap_or(0), clock_realtime(), true),
            name => {
                // MSG_RTN_GET_REALTIME is 131 (0x83).
                let msg = inst.f.ssrc0.unwrap_or(0);
                let v = if msg == 131 { clock_realtime() } else { 0 };
                (inst.f.sdst.unwrap_or(0), v, name.ends_with("B64"))
            }
        };
        self.set_sreg(w, dst, value as u32);
        if pair {
            self.set_sreg(w, dst + 1, (value >> 32) as u32);
        }
        self.counters.lane_instructions += 1;
    }

    /// CDNA's accumulation registers: `v_accvgpr_read` (AGPR to VGPR),
    /// `_write` (VGPR or constant to AGPR), `_mov` (AGPR to AGPR).
    fn agpr_move(&mut self, w: &mut Wave, inst: &Inst) {
        let exec = self.exec(w);
        let src0 = inst.f.src0.unwrap_or(0);
        let vdst = inst.f.vdst.unwrap_or(0) as usize % NVGPR;
        let uniform = self.scalar_src(w, inst, src0, 32, 0);
        let s = (src0.wrapping_sub(256)) as usize % NVGPR;
        for lane in 0..self.wave_size as usize {
            if (exec >> lane) & 1 == 0 {
                continue;
            }
            match inst.op.name {
                "V_ACCVGPR_READ" => w.vgpr[vdst * 64 + lane] = w.agpr[s * 64 + lane],
                "V_ACCVGPR_WRITE" => {
                    w.agpr[vdst * 64 + lane] =
                        uniform.map(|u| u as u32).unwrap_or(w.vgpr[s * 64 + lane])
                }
                _ => w.agpr[vdst * 64 + lane] = w.agpr[s * 64 + lane],
            }
        }
        self.counters.lane_instructions += exec.count_ones() as u64;
    }

    fn permute(&mut self, w: &mut Wave, inst: &Inst) -> Result<(), LaunchError> {
        let name = inst.op.name;
        let exec = self.exec(w);
        let ws = self.wave_size as usize;
        let addr = inst.f.addr.unwrap_or(0);
        let data0 = inst.f.data0.unwrap_or(0);
        let vdst = inst.f.vdst.unwrap_or(0);
        let offset = inst.f.offset0.unwrap_or(0) | (inst.f.offset1.unwrap_or(0) << 8);
        let src: Vec<u32> = (0..ws).map(|l| Self::vgpr(w, data0, l)).collect();
        let mut out: Vec<u32> = (0..ws).map(|l| Self::vgpr(w, vdst, l)).collect();
        match name {
            "DS_BPERMUTE_B32" => {
                // Each active lane reads the lane its address names (bytes / 4).
                for (l, o) in out.iter_mut().enumerate() {
                    if (exec >> l) & 1 == 0 {
                        continue;
                    }
                    let from = ((Self::vgpr(w, addr, l).wrapping_add(offset)) / 4) as usize % ws;
                    *o = if (exec >> from) & 1 != 0 {
                        src[from]
                    } else {
                        0
                    };
                }
            }
            "DS_PERMUTE_B32" => {
                // Each active lane writes its data to the lane its address names.
                let mut next = vec![0u32; ws];
                for (l, v) in src.iter().enumerate() {
                    if (exec >> l) & 1 == 0 {
                        continue;
                    }
                    let to = ((Self::vgpr(w, addr, l).wrapping_add(offset)) / 4) as usize % ws;
                    next[to] = *v;
                }
                for (l, o) in out.iter_mut().enumerate() {
                    if (exec >> l) & 1 != 0 {
                        *o = next[l];
                    }
                }
            }
            _ => {
                // DS_SWIZZLE_B32: offset bit 15 set: quad permute; else bitmask mode in groups of 32.
                for (l, o) in out.iter_mut().enumerate() {
                    if (exec >> l) & 1 == 0 {
                        continue;
                    }
                    let from = if offset & 0x8000 != 0 {
                        let sel = (offset >> (2 * (l % 4))) & 3;
                        (l & !3) | sel as usize
                    } else {
                        let and = offset & 0x1f;
                        let or = (offset >> 5) & 0x1f;
                        let xor = (offset >> 10) & 0x1f;
                        let i = l as u32 & 0x1f;
                        ((l as u32 & !0x1f) | (((i & and) | or) ^ xor)) as usize
                    };
                    *o = if from < ws && (exec >> from) & 1 != 0 {
                        src[from]
                    } else {
                        0
                    };
                }
            }
        }
        for (l, o) in out.into_iter().enumerate() {
            Self::set_vgpr(w, vdst, l, o);
        }
        self.counters.lane_instructions += exec.count_ones() as u64;
        Ok(())
    }
}

/// Instructions with no effect in the interpreter: waits (every access
/// completes at once), hints, cache controls, scheduling and no-ops.
const NO_EFFECT: &[&str] = &[
    "S_NOP",
    "S_WAITCNT",
    "S_WAITCNT_VSCNT",
    "S_WAITCNT_VMCNT",
    "S_WAITCNT_EXPCNT",
    "S_WAITCNT_LGKMCNT",
    "S_WAITCNT_DEPCTR",
    "S_CLAUSE",
    "S_DELAY_ALU",
    "S_SETPRIO",
    "S_SLEEP",
    "S_INST_PREFETCH",
    "S_ICACHE_INV",
    "S_DCACHE_INV",
    "S_DCACHE_WB",
    "S_DCACHE_INV_VOL",
    "S_DCACHE_WB_VOL",
    "S_SET_INST_PREFETCH_DISTANCE",
    "S_WAIT_IDLE",
    "S_TTRACEDATA",
    "S_SENDMSG",
    "S_INCPERFLEVEL",
    "S_DECPERFLEVEL",
    "BUFFER_GL0_INV",
    "BUFFER_GL1_INV",
    "BUFFER_WBL2",
    "BUFFER_INV",
    "BUFFER_WBINVL1",
    "BUFFER_WBINVL1_VOL",
    "V_NOP_E32",
    "V_NOP_E64",
    "DS_NOP",
];

/// Instructions the interpreter executes by hand: their data is prose or
/// they act on the wave as a whole.
const BY_HAND: &[&str] = &[
    "S_ENDPGM",
    "S_CODE_END",
    "S_ENDPGM_SAVED",
    "S_BARRIER",
    "S_SETHALT",
    "S_TRAP",
    "V_READFIRSTLANE_B32_E32",
    "V_READFIRSTLANE_B32_E64",
    "V_READLANE_B32",
    "V_WRITELANE_B32",
    "DS_BPERMUTE_B32",
    "DS_PERMUTE_B32",
    "DS_SWIZZLE_B32",
    "V_ACCVGPR_READ",
    "V_ACCVGPR_WRITE",
    "V_ACCVGPR_MOV_B32_E32",
    "V_ACCVGPR_MOV_B32_E64",
    "S_SENDMSG_RTN_B32",
    "S_SENDMSG_RTN_B64",
    "S_MEMTIME",
    "S_MEMREALTIME",
];

/// Whether [`Engine::special`] executes the instruction `name`: the
/// lists above and the matrix instructions.
fn by_hand(name: &str) -> bool {
    NO_EFFECT.contains(&name)
        || BY_HAND.contains(&name)
        || name.starts_with("V_MFMA_")
        || name.starts_with("V_WMMA_")
}

/// The encodings the interpreter executes.
const FORMATS: &[&str] = &[
    "SOP1", "SOP2", "SOPC", "SOPK", "SOPP", "SMEM", "VOP1", "VOP2", "VOPC", "VOP3", "VOP3SD",
    "VOP3P", "VOPD", "DS", "GLOBAL", "FLAT", "SCRATCH", "MUBUF",
];

/// Whether the interpreter executes `inst`'s clamp bit: as a float
/// result's clamp to [0, 1] (VOP3). An integer result's saturation and a
/// packed or dot result's clamp are not executed, so an instruction with
/// one stops the launch rather than wrapping where the hardware saturates.
fn clamp_executed(inst: &Inst) -> Result<(), String> {
    if inst.f.clmp.unwrap_or(0) == 0 {
        return Ok(());
    }
    let float = inst.op.src_float.iter().any(|&b| b != 0);
    match inst.format.name {
        "VOP3P" => Err("the clamp bit of a VOP3P instruction".into()),
        "VOP3" | "VOP3SD" if !float => {
            Err("the clamp bit on an integer result (saturation)".into())
        }
        _ => Ok(()),
    }
}

/// Whether the interpreter executes `inst`, and why not.
pub(crate) fn support(tables: &Tables, inst: &Inst) -> Result<(), String> {
    let name = inst.op.name;
    if NO_EFFECT.contains(&name) || BY_HAND.contains(&name) {
        return Ok(());
    }
    if let Some(shape) = Shape::of(name, tables.family)? {
        return shape.check(inst);
    }
    if !FORMATS.contains(&inst.format.name) {
        return Err(format!(
            "the {} encoding is not executed yet",
            inst.format.name
        ));
    }
    if inst.f.acc.unwrap_or(0) != 0 && !inst.format.name.starts_with("VOP") {
        return Err("AGPR operands of memory instructions".into());
    }
    clamp_executed(inst)?;
    if inst.format.name == "VOPD" {
        let y = decode::vopd_y(tables, inst).ok_or("its Y opcode")?;
        for half in [inst.op, y] {
            let twin = decode::vopd_twin(tables, half)
                .ok_or_else(|| format!("{} has no VOP2 twin", half.name))?;
            if twin.sem.is_none() {
                return Err(twin.why.to_string());
            }
        }
        return Ok(());
    }
    match inst.op.sem {
        Some(_) => Ok(()),
        None => Err(inst.op.why.to_string()),
    }
}

enum Flow {
    Next,
    Stop(Stop),
    #[allow(dead_code)]
    Jumped,
}

/// The lane DPP16 control `ctrl` reads for `lane`, or `None` when none.
fn dpp16_source(ctrl: u32, lane: usize, ws: usize, family: Family) -> Option<usize> {
    let row = lane & !15;
    let i = lane & 15;
    let r = |j: isize| -> Option<usize> {
        if (0..16).contains(&j) {
            Some(row + j as usize)
        } else {
            None
        }
    };
    match ctrl {
        0x000..=0x0ff => Some((lane & !3) + ((ctrl >> (2 * (lane & 3))) & 3) as usize),
        0x101..=0x10f => r(i as isize + (ctrl & 15) as isize),
        0x111..=0x11f => r(i as isize - (ctrl & 15) as isize),
        0x121..=0x12f => Some(row + ((i + 16 - (ctrl & 15) as usize) % 16)),
        0x130 if family == Family::Cdna => lane.checked_add(1).filter(|&l| l < ws),
        0x134 if family == Family::Cdna => Some((lane + 1) % ws),
        0x138 if family == Family::Cdna => lane.checked_sub(1),
        0x13c if family == Family::Cdna => Some((lane + ws - 1) % ws),
        0x140 => Some(row + 15 - i),
        0x141 => Some((lane & !7) + 7 - (lane & 7)),
        0x142 if family == Family::Cdna => {
            // row_bcast:15: lane 15 of the previous row into rows 1..
            if row == 0 { None } else { Some(row - 1) }.map(|r| r + 15)
        }
        0x143 if family == Family::Cdna => {
            if lane < 32 {
                None
            } else {
                Some(31)
            }
        }
        0x150..=0x15f if family != Family::Cdna => Some(row + (ctrl & 15) as usize),
        0x160..=0x16f if family != Family::Cdna => Some(row + (i ^ (ctrl & 15) as usize)),
        _ => None,
    }
}

/// Output modifiers of a float result: omod (x2, x4, /2) then clamp to [0, 1].
fn out_mods(r: u64, bits: u32, clamp: bool, omod: u32, op: &OpInfo) -> u64 {
    if !clamp && omod == 0 {
        return r;
    }
    let _ = op;
    let scale = match omod {
        1 => 2.0,
        2 => 4.0,
        3 => 0.5,
        _ => 1.0,
    };
    let f = |x: f64| -> f64 {
        let y = x * scale;
        if clamp {
            if y.is_nan() {
                0.0
            } else {
                y.clamp(0.0, 1.0)
            }
        } else {
            y
        }
    };
    match bits {
        64 => f(f64::from_bits(r)).to_bits(),
        16 => (r & !0xffff) | f32_to_f16(f(f16_to_f32(r as u16) as f64) as f32) as u64,
        _ => (r & !0xffff_ffff) | (f(f32::from_bits(r as u32) as f64) as f32).to_bits() as u64,
    }
}

/// Runs a dispatch.
pub(crate) fn execute(
    d: &Dispatch<'_>,
    limit: Option<std::time::Duration>,
) -> Result<Counters, LaunchError> {
    if d.target != Target::Gfx942 && d.target != Target::Gfx1100 {
        return Err(err_dispatch(d, format!("{} is not executed", d.target)));
    }
    let mut e = Engine::new(d)?;
    e.deadline = limit.map(|t| (std::time::Instant::now() + t, t));
    e.run()
}

#[cfg(test)]
mod tests {
    use super::trace_wanted;

    #[test]
    fn trace_selects_kernels_by_name() {
        assert!(!trace_wanted(None, "saxpy"));
        assert!(!trace_wanted(Some("0"), "saxpy"));
        assert!(!trace_wanted(Some(""), "saxpy"));
        assert!(trace_wanted(Some("1"), "saxpy"));
        assert!(trace_wanted(
            Some("Cijk_Ailk"),
            "Cijk_Ailk_Bljk_HB_MT32x32x16"
        ));
        assert!(!trace_wanted(Some("Cijk_Ailk"), "saxpy"));
    }
}

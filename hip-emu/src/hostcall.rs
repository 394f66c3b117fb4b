//! The host side of AMD's hostcall protocol, which device `printf` uses.
//!
//! A kernel compiled by ROCm reaches the host through a buffer whose
//! address the runtime puts in its `hidden_hostcall_buffer` argument. A
//! wave takes a free packet from a lock-free stack in that buffer, writes
//! a service number and eight 64-bit words per active lane, pushes the
//! packet on the ready stack, adds 1 to a doorbell signal, and sleeps
//! (`s_sleep`) until the host clears the packet's ready flag; then each
//! lane reads its first two words back as the answer. The layouts are
//! ROCm's (CLR's `HostcallBuffer`, the device library's `hostcall_impl`):
//!
//! ```text
//! buffer:  headers ptr | payloads ptr | doorbell signal | free stack | ready stack | index mask
//! header:  next (tagged) | active lanes | service (u32) | control (u32, bit 0: ready)
//! payload: 64 lanes x 8 words
//! ```
//!
//! Stack entries are tagged pointers: the low bits (`index mask`) index
//! the packet, the rest is a tag that the device bumps on every return to
//! the free stack.
//!
//! The emulator runs one wave at a time, so no thread listens: a
//! [`Service`] processes the ready stack when a wave sleeps
//! ([`crate::isa::HostServices`]), which the waiting wave does.
//!
//! Of the services only `printf` (2) is provided, in its message form: a
//! lane's printf is a message of several packets (a descriptor word with
//! begin and end flags, a length and a message id, then up to seven
//! words), holding a control word (bit 0: standard error), the format
//! string and the arguments, each string padded to 8 bytes.

use crate::isa::{HostServices, Memory};
use std::collections::HashMap;
use std::ffi::{c_char, c_int, CString};
use std::io::Write;
use std::sync::Mutex;

/// Packets in a buffer: a power of two, more than the waves that can wait
/// on the host at once (one, in the emulator).
pub const PACKETS: u64 = 16;
const HEADER_BYTES: u64 = 24;
const PAYLOAD_BYTES: u64 = 64 * 8 * 8;
/// The doorbell signal (an `amd_signal_t`, 64 bytes) follows the buffer's
/// 48-byte head.
const SIGNAL_AT: u64 = 64;
const HEADERS_AT: u64 = 128;
const PAYLOADS_AT: u64 = HEADERS_AT + PACKETS * HEADER_BYTES;
/// `AMD_SIGNAL_KIND_USER`: a signal in memory, not a hardware doorbell.
const SIGNAL_KIND_USER: u64 = 1;

/// The service number of `printf` (CLR's `SERVICE_PRINTF`).
pub const SERVICE_PRINTF: u32 = 2;

/// Bytes of device memory a hostcall buffer takes.
pub const fn buffer_size() -> u64 {
    PAYLOADS_AT + PACKETS * PAYLOAD_BYTES
}

/// Where a finished `printf` goes: standard output, or standard error
/// when the device asked for it (`fprintf(stderr, ...)`).
pub type Sink = Box<dyn FnMut(bool, &[u8]) + Send>;

/// The host end of one hostcall buffer.
pub struct Service {
    base: u64,
    state: Mutex<State>,
}

struct State {
    /// Unfinished messages by id.
    messages: HashMap<u64, Vec<u64>>,
    next_id: u64,
    sink: Sink,
}

impl std::fmt::Debug for Service {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Service")
            .field("base", &format_args!("{:#x}", self.base))
            .finish_non_exhaustive()
    }
}

/// The host address of the 8 bytes at device address `addr`.
fn host_word(memory: &dyn Memory, addr: u64) -> Result<*mut u8, String> {
    let m = memory
        .mapping(addr)
        .filter(|m| addr + 8 <= m.base + m.len)
        .ok_or_else(|| format!("hostcall buffer: address {addr:#x} is not mapped"))?;
    // SAFETY: `addr..addr + 8` lies inside the mapping, whose host bytes
    // the memory keeps valid.
    Ok(unsafe { m.host.add((addr - m.base) as usize) })
}

fn word(memory: &dyn Memory, addr: u64) -> Result<u64, String> {
    let p = host_word(memory, addr)?;
    let mut b = [0u8; 8];
    // SAFETY: `p` points at 8 readable bytes (`host_word`).
    unsafe { std::ptr::copy_nonoverlapping(p, b.as_mut_ptr(), 8) };
    Ok(u64::from_le_bytes(b))
}

fn set_word(memory: &dyn Memory, addr: u64, value: u64) -> Result<(), String> {
    let p = host_word(memory, addr)?;
    // SAFETY: `p` points at 8 writable bytes of device memory (`host_word`).
    unsafe { std::ptr::copy_nonoverlapping(value.to_le_bytes().as_ptr(), p, 8) };
    Ok(())
}

impl Service {
    /// Lays a hostcall buffer out at device address `base` (mapped,
    /// [`buffer_size`] bytes): the packets on the free stack, the ready
    /// stack empty, a user-mode doorbell signal. Output goes to the
    /// process's standard output and error.
    pub fn new(memory: &dyn Memory, base: u64) -> Result<Service, String> {
        Service::with_sink(
            memory,
            base,
            Box::new(|stderr, bytes| {
                if stderr {
                    let mut e = std::io::stderr().lock();
                    let _ = e.write_all(bytes);
                } else {
                    let mut o = std::io::stdout().lock();
                    let _ = o.write_all(bytes);
                    let _ = o.flush();
                }
            }),
        )
    }

    /// [`Service::new`] with the output given to `sink`.
    pub fn with_sink(memory: &dyn Memory, base: u64, sink: Sink) -> Result<Service, String> {
        let mask = PACKETS - 1;
        set_word(memory, base, base + HEADERS_AT)?;
        set_word(memory, base + 8, base + PAYLOADS_AT)?;
        set_word(memory, base + 16, base + SIGNAL_AT)?;
        set_word(memory, base + 40, mask)?;
        for i in 0..8 {
            set_word(memory, base + SIGNAL_AT + 8 * i, 0)?;
        }
        set_word(memory, base + SIGNAL_AT, SIGNAL_KIND_USER)?;
        // The free stack: packet i links to i - 1, packet 0 ends it. The
        // link to packet 0 carries tag 1, so that no pointer is 0.
        let mut next = mask + 1;
        for i in 0..PACKETS {
            let h = base + HEADERS_AT + i * HEADER_BYTES;
            set_word(memory, h, if i == 0 { 0 } else { next })?;
            set_word(memory, h + 8, 0)?;
            set_word(memory, h + 16, 0)?;
            if i > 0 {
                next = i;
            }
        }
        set_word(memory, base + 24, next)?;
        set_word(memory, base + 32, 0)?;
        Ok(Service {
            base,
            state: Mutex::new(State {
                messages: HashMap::new(),
                next_id: 0,
                sink,
            }),
        })
    }

    /// The buffer's device address, for `hidden_hostcall_buffer`.
    pub fn address(&self) -> u64 {
        self.base
    }

    fn process(&self, memory: &dyn Memory) -> Result<(), String> {
        let mut ready = word(memory, self.base + 32)?;
        if ready == 0 {
            return Ok(());
        }
        set_word(memory, self.base + 32, 0)?;
        let mask = PACKETS - 1;
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        while ready != 0 {
            let i = ready & mask;
            let h = self.base + HEADERS_AT + i * HEADER_BYTES;
            let next = word(memory, h)?;
            let active = word(memory, h + 8)?;
            let service_control = word(memory, h + 16)?;
            let service = service_control as u32;
            if service != SERVICE_PRINTF {
                let name = match service {
                    1 => "function call",
                    3 => "device memory",
                    4 => "address sanitizer",
                    _ => "unknown",
                };
                return Err(format!(
                    "the kernel asked the host for hostcall service {service} ({name}); hip-emu provides printf (2) only"
                ));
            }
            let payload = self.base + PAYLOADS_AT + i * PAYLOAD_BYTES;
            for lane in 0..64u64 {
                if active & (1 << lane) == 0 {
                    continue;
                }
                let slot = payload + lane * 64;
                let mut words = [0u64; 8];
                for (k, w) in words.iter_mut().enumerate() {
                    *w = word(memory, slot + 8 * k as u64)?;
                }
                let answer = state.printf(&words)?;
                set_word(memory, slot, answer)?;
            }
            // Clear the ready flag (bit 0 of the control word, the high
            // half of the word at +16): the wave goes on.
            let control = (service_control >> 32) & !1;
            set_word(memory, h + 16, (control << 32) | service as u64)?;
            ready = next;
        }
        Ok(())
    }
}

impl HostServices for Service {
    fn serve(&self, memory: &dyn Memory) -> Result<(), String> {
        self.process(memory)
    }
}

// The message descriptor: bit 0 begin, bit 1 end, bits 5..8 the number
// of words that follow, bits 8.. the message id.
const BEGIN: u64 = 1;
const END: u64 = 2;

impl State {
    /// One packet of a lane's printf message; returns the word the lane
    /// reads back (the descriptor with the message's id, or, at the end,
    /// the number of bytes printed).
    fn printf(&mut self, words: &[u64; 8]) -> Result<u64, String> {
        let mut desc = words[0];
        let id = if desc & BEGIN != 0 {
            let id = self.next_id;
            self.next_id += 1;
            self.messages.insert(id, Vec::new());
            desc = (desc & !BEGIN & 0xff) | (id << 8);
            id
        } else {
            desc >> 8
        };
        let len = ((desc >> 5) & 7) as usize;
        let message = self
            .messages
            .get_mut(&id)
            .ok_or_else(|| format!("printf: a packet of message {id}, which was never begun"))?;
        message.extend_from_slice(&words[1..1 + len.min(7)]);
        if desc & END == 0 {
            return Ok(desc);
        }
        let message = self.messages.remove(&id).unwrap_or_default();
        let Some((&control, body)) = message.split_first() else {
            return Ok(u64::MAX);
        };
        if control & !1 != 0 {
            return Ok(u64::MAX);
        }
        let text = format(body);
        (self.sink)(control & 1 != 0, &text);
        Ok(text.len() as u64)
    }
}

extern "C" {
    fn snprintf(buf: *mut c_char, n: usize, fmt: *const c_char, ...) -> c_int;
}

/// The bytes of a NUL-terminated string stored inline in `words` (padded
/// to 8 bytes), and the words it takes.
fn inline_str(words: &[u64]) -> (Vec<u8>, usize) {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let n = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    (bytes[..n].to_vec(), (n + 1).div_ceil(8).min(words.len()))
}

/// One conversion, `spec` (`%` to the conversion character) with up to
/// two `*` values, as C's printf prints it.
fn convert(spec: &str, stars: &[u64], arg: Arg) -> Vec<u8> {
    let Ok(fmt) = CString::new(spec) else {
        return Vec::new();
    };
    let mut buf = vec![0u8; 256];
    loop {
        let p = buf.as_mut_ptr().cast::<c_char>();
        let n = buf.len();
        let (a, b) = (
            stars.first().copied().unwrap_or(0) as c_int,
            stars.get(1).copied().unwrap_or(0) as c_int,
        );
        // SAFETY: `fmt` is one conversion whose arguments are the stars
        // (ints) and one value of the type its conversion character reads
        // (`arg` was chosen by that character); `buf` holds `n` bytes.
        let written = unsafe {
            match (stars.len(), arg) {
                (0, Arg::Int(v)) => snprintf(p, n, fmt.as_ptr(), v),
                (1, Arg::Int(v)) => snprintf(p, n, fmt.as_ptr(), a, v),
                (_, Arg::Int(v)) => snprintf(p, n, fmt.as_ptr(), a, b, v),
                (0, Arg::Float(v)) => snprintf(p, n, fmt.as_ptr(), v),
                (1, Arg::Float(v)) => snprintf(p, n, fmt.as_ptr(), a, v),
                (_, Arg::Float(v)) => snprintf(p, n, fmt.as_ptr(), a, b, v),
                (0, Arg::Str(s)) => snprintf(p, n, fmt.as_ptr(), s),
                (1, Arg::Str(s)) => snprintf(p, n, fmt.as_ptr(), a, s),
                (_, Arg::Str(s)) => snprintf(p, n, fmt.as_ptr(), a, b, s),
            }
        };
        if written < 0 {
            return Vec::new();
        }
        if (written as usize) < n {
            buf.truncate(written as usize);
            return buf;
        }
        buf.resize(written as usize + 1, 0);
    }
}

#[derive(Clone, Copy)]
enum Arg {
    Int(u64),
    Float(f64),
    Str(*const c_char),
}

/// A printf message's text: the format string, then its arguments, one
/// word each but strings (inline, padded to 8 bytes). Like ROCm's host,
/// it stops at the first conversion with no argument left.
fn format(body: &[u64]) -> Vec<u8> {
    let (fmt, used) = inline_str(body);
    let mut args = &body[used.max(1).min(body.len())..];
    let mut out = Vec::new();
    let mut i = 0;
    while i < fmt.len() {
        let Some(at) = fmt[i..].iter().position(|&c| c == b'%') else {
            out.extend_from_slice(&fmt[i..]);
            break;
        };
        out.extend_from_slice(&fmt[i..i + at]);
        i += at + 1;
        if fmt.get(i) == Some(&b'%') {
            out.push(b'%');
            i += 1;
            continue;
        }
        let Some(end) = fmt[i..]
            .iter()
            .position(|c| b"diouxXfFeEgGaAcspn".contains(c))
        else {
            break;
        };
        let spec = String::from_utf8_lossy(&fmt[i - 1..i + end + 1]).into_owned();
        i += end + 1;
        let nstars = spec.matches('*').count().min(2);
        if args.len() < nstars + 1 {
            break;
        }
        let stars = &args[..nstars];
        args = &args[nstars..];
        let conv = spec.as_bytes()[spec.len() - 1];
        match conv {
            b'n' => args = &args[1..],
            b's' => {
                let (s, n) = inline_str(args);
                args = &args[n.max(1).min(args.len())..];
                let s = CString::new(s).unwrap_or_default();
                out.extend(convert(&spec, stars, Arg::Str(s.as_ptr())));
            }
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => {
                out.extend(convert(&spec, stars, Arg::Float(f64::from_bits(args[0]))));
                args = &args[1..];
            }
            _ => {
                out.extend(convert(&spec, stars, Arg::Int(args[0])));
                args = &args[1..];
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &[u8]) -> Vec<u64> {
        let mut b = s.to_vec();
        b.push(0);
        b.resize(b.len().div_ceil(8) * 8, 0);
        b.chunks(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }

    #[test]
    fn formats_like_c() {
        let mut body = words(b"x=%d y=%5.2f %s|%-4x|%*d%%");
        body.push((-3i64) as u64);
        body.push(2.5f64.to_bits());
        body.extend(words(b"str"));
        body.push(0xab);
        body.push(4);
        body.push(7);
        assert_eq!(
            String::from_utf8(format(&body)).unwrap(),
            "x=-3 y= 2.50 str|ab  |   7%"
        );
        // Fewer arguments than conversions: printing stops there.
        assert_eq!(format(&words(b"a %d b")), b"a ");
    }
}

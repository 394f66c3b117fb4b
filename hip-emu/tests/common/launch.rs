//! Running a test kernel on the interpreter: device memory as host ranges
//! at made-up device addresses, a loaded code object, and a one-dimension
//! launch that writes the kernarg segment the way the runtime does.

use hip_emu::code_object::{self, CodeObject, LaunchDims};
use hip_emu::hostcall;
use hip_emu::isa::{self, Counters, Dispatch, LaunchError, Mapping, Memory, Target};
use std::sync::Mutex;

/// Device memory for the tests: ranges at made-up device addresses.
pub struct TestMemory {
    ranges: Mutex<Vec<(u64, Box<[u8]>)>>,
    next: Mutex<u64>,
}

// SAFETY: the boxes never move while mapped; the interpreter runs on one
// thread, and the tests read a range only after a dispatch ends.
unsafe impl Sync for TestMemory {}

impl Memory for TestMemory {
    fn mapping(&self, addr: u64) -> Option<Mapping> {
        let mut r = self.ranges.lock().unwrap();
        r.iter_mut()
            .find(|(b, v)| addr >= *b && addr < *b + v.len() as u64)
            .map(|(b, v)| Mapping {
                base: *b,
                len: v.len() as u64,
                host: v.as_mut_ptr(),
            })
    }
}

impl TestMemory {
    pub fn new() -> TestMemory {
        TestMemory {
            ranges: Mutex::new(Vec::new()),
            next: Mutex::new(0x8000_0000_0000),
        }
    }

    /// A new range holding `bytes`; its device address.
    pub fn alloc(&self, bytes: &[u8]) -> u64 {
        let mut next = self.next.lock().unwrap();
        let base = *next;
        *next += (bytes.len() as u64).div_ceil(4096).max(1) * 4096 + 4096;
        self.ranges
            .lock()
            .unwrap()
            .push((base, bytes.to_vec().into_boxed_slice()));
        base
    }

    /// `len` bytes of the range that starts at `addr`.
    pub fn read(&self, addr: u64, len: usize) -> Vec<u8> {
        let r = self.ranges.lock().unwrap();
        let (b, v) = r.iter().find(|(b, _)| *b == addr).expect("a range");
        v[(addr - b) as usize..][..len].to_vec()
    }

    /// Writes `bytes` at `addr`, inside one range.
    pub fn write(&self, addr: u64, bytes: &[u8]) {
        let mut r = self.ranges.lock().unwrap();
        let (b, v) = r
            .iter_mut()
            .find(|(b, v)| addr >= *b && addr + bytes.len() as u64 <= *b + v.len() as u64)
            .unwrap_or_else(|| panic!("no range holds {:#x}+{}", addr, bytes.len()));
        let at = (addr - *b) as usize;
        v[at..at + bytes.len()].copy_from_slice(bytes);
    }

    /// The address the next range gets.
    pub fn next_address(&self) -> u64 {
        *self.next.lock().unwrap()
    }
}

/// A loaded code object and the memory it lives in.
pub struct Loaded {
    pub mem: TestMemory,
    pub co: CodeObject,
    pub base: u64,
    pub target: Target,
}

impl Loaded {
    /// Loads the code object `elf`, built for `target`, into a new memory.
    pub fn new(elf: &[u8], target: Target) -> Loaded {
        let co = CodeObject::parse(elf).expect("parse");
        let mem = TestMemory::new();
        let mut image = vec![0u8; co.load_size() as usize];
        let base = mem.next_address();
        co.load(base, &mut image).expect("load");
        assert_eq!(mem.alloc(&image), base);
        Loaded {
            mem,
            co,
            base,
            target,
        }
    }

    /// Runs `kernel` on `grid` blocks of `block` threads (x only) with the
    /// explicit arguments `args`, each as its bytes.
    pub fn launch(
        &self,
        kernel: &str,
        grid: u32,
        block: u32,
        args: &[&[u8]],
    ) -> Result<Counters, LaunchError> {
        let dims = LaunchDims {
            grid: [grid, 1, 1],
            block: [block, 1, 1],
            dynamic_lds: 0,
        };
        self.launch_dims(kernel, &dims, args)
    }

    /// Runs `kernel` with the launch shape `dims` (grid and block in three
    /// dimensions, dynamic LDS bytes) and the explicit arguments `args`,
    /// each as its bytes.
    pub fn launch_dims(
        &self,
        kernel: &str,
        dims: &LaunchDims,
        args: &[&[u8]],
    ) -> Result<Counters, LaunchError> {
        self.launch_within(kernel, dims, args, isa::launch_timeout())
    }

    /// [`Self::launch`] with the host's printf service: a hostcall buffer
    /// in this memory, its address in the kernel's
    /// `hidden_hostcall_buffer`. Returns the launch's result and what the
    /// kernel printed, each printf as (to standard error, text).
    #[allow(dead_code)] // not every test binary prints
    pub fn launch_printing(
        &self,
        kernel: &str,
        grid: u32,
        block: u32,
        args: &[&[u8]],
    ) -> (Result<Counters, LaunchError>, Vec<(bool, String)>) {
        use std::sync::Arc;
        let printed: Arc<Mutex<Vec<(bool, String)>>> = Arc::default();
        let buffer = self.mem.alloc(&vec![0u8; hostcall::buffer_size() as usize]);
        let sink = printed.clone();
        let service = hostcall::Service::with_sink(
            &self.mem,
            buffer,
            Box::new(move |stderr, text| {
                sink.lock()
                    .unwrap()
                    .push((stderr, String::from_utf8_lossy(text).into_owned()))
            }),
        )
        .expect("a hostcall buffer");
        let dims = LaunchDims {
            grid: [grid, 1, 1],
            block: [block, 1, 1],
            dynamic_lds: 0,
        };
        let result = self.dispatch(kernel, &dims, args, isa::launch_timeout(), Some(&service));
        let out = std::mem::take(&mut *printed.lock().unwrap());
        (result, out)
    }

    /// [`Self::launch_dims`] with the time limit `limit`.
    pub fn launch_within(
        &self,
        kernel: &str,
        dims: &LaunchDims,
        args: &[&[u8]],
        limit: Option<std::time::Duration>,
    ) -> Result<Counters, LaunchError> {
        self.dispatch(kernel, dims, args, limit, None)
    }

    /// Writes the kernarg segment (with `service`'s buffer when given) and
    /// runs the dispatch.
    fn dispatch(
        &self,
        kernel: &str,
        dims: &LaunchDims,
        args: &[&[u8]],
        limit: Option<std::time::Duration>,
        service: Option<&hostcall::Service>,
    ) -> Result<Counters, LaunchError> {
        let info = self
            .co
            .kernel(kernel)
            .unwrap_or_else(|| panic!("no kernel {kernel}"));
        let mut ka = code_object::kernarg(info, args, dims).expect("kernarg");
        if let Some(s) = service {
            code_object::set_hostcall_buffer(info, &mut ka, s.address());
        }
        // Code reads the segment with wide scalar loads that may pass its
        // end (an s_load_dwordx4 at offset 24 of a 36-byte segment); CLR
        // places it in a kernarg pool, where those bytes are readable.
        ka.resize(ka.len() + KERNARG_SLACK, 0);
        let kernarg = self.mem.alloc(&ka);
        isa::execute_within(
            &Dispatch {
                target: self.target,
                kernel,
                descriptor: self.base + info.descriptor_offset,
                grid: dims.grid,
                block: dims.block,
                kernarg,
                dynamic_lds: dims.dynamic_lds,
                memory: &self.mem,
                host: service.map(|s| s as &dyn isa::HostServices),
            },
            limit,
        )
    }

    /// Writes `bytes` over the start of the code object's global variable
    /// `name` (a `__constant__` or `__device__` variable), as
    /// `hipMemcpyToSymbol` does.
    pub fn write_global(&self, name: &str, bytes: &[u8]) {
        let (offset, size) = self
            .co
            .global(name)
            .unwrap_or_else(|| panic!("no global variable {name}"));
        assert!(
            bytes.len() as u64 <= size,
            "{} bytes for {name}, of {size}",
            bytes.len()
        );
        self.mem.write(self.base + offset, bytes);
    }
}

/// Zero bytes readable after each kernarg segment.
const KERNARG_SLACK: usize = 256;

/// Bytes read back from a device buffer as plain old data (the inverse of
/// [`bytes`]); a trailing part shorter than a `T` is left out.
pub fn values<T: Copy>(b: &[u8]) -> Vec<T> {
    b.chunks_exact(size_of::<T>())
        // SAFETY: each chunk holds exactly one `T`'s bytes; plain old data,
        // read unaligned.
        .map(|c| unsafe { std::ptr::read_unaligned(c.as_ptr().cast::<T>()) })
        .collect()
}

/// Plain old data as its bytes.
pub fn bytes<T: Copy>(v: &[T]) -> Vec<u8> {
    // SAFETY: plain old data viewed as bytes.
    unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, size_of_val(v)).to_vec() }
}

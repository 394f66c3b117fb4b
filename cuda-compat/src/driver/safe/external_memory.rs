//! `ExternalMemory` and `MappedBuffer`: memory exported by another API or
//! process (an opaque POSIX file descriptor, or a Win32 handle), imported
//! with `hipImportExternalMemory` and mapped into the device's address
//! space with `hipExternalMemoryGetMappedBuffer`, as cudarc's
//! `CudaContext::import_external_memory`.

use super::context::{CudaContext, CudaEvent, CudaStream};
use super::memory::{DevicePtr, DeviceSlice, SyncOnDrop};
use crate::driver::result::{self, invalid_because, DriverError, ToDriver};
use crate::driver::sys;
use std::fs::File;
#[cfg(windows)]
use std::mem::ManuallyDrop;
use std::ops::Range;
use std::sync::Arc;

/// Imported external memory (`hipImportExternalMemory`), destroyed on drop
/// (`hipDestroyExternalMemory`). Map it with [`ExternalMemory::map_all`]
/// or [`ExternalMemory::map_range`].
///
/// The file it came from: on Unix the descriptor is the runtime's from the
/// import call on (never closed here); on Windows the handle stays the
/// caller's, and is closed when this is dropped.
///
/// **Threads**: `Send + Sync`: a handle the runtime may use from any
/// thread, and a file.
#[derive(Debug)]
pub struct ExternalMemory {
    external_memory: sys::CUexternalMemory,
    size: u64,
    ctx: Arc<CudaContext>,
    #[cfg(windows)]
    _file: ManuallyDrop<File>,
}

// SAFETY: see the type's docs.
unsafe impl Send for ExternalMemory {}
// SAFETY: as above; `&ExternalMemory` allows no calls on the handle.
unsafe impl Sync for ExternalMemory {}

impl Drop for ExternalMemory {
    fn drop(&mut self) {
        let ctx = &self.ctx;
        // Destroying the import acts on the whole device (see
        // `MappedBuffer`'s drop).
        let _held = ctx
            .device
            .hold_captures("ExternalMemory::drop")
            .map_err(|e| ctx.record_err(Err::<(), _>(e).drv()));
        ctx.record_err(ctx.bind_to_thread());
        // SAFETY: we own the handle; its mapped buffer (if any) owned this
        // and was freed first.
        ctx.record_err(unsafe {
            result::external_memory::destroy_external_memory(self.external_memory)
        });
        // The Win32 handle stays the application's after the import.
        #[cfg(windows)]
        // SAFETY: `_file` is never used again.
        unsafe {
            ManuallyDrop::drop(&mut self._file)
        };
    }
}

impl CudaContext {
    /// Imports `size` bytes of external memory from `file`: an opaque file
    /// descriptor on Unix (`hipExternalMemoryHandleTypeOpaqueFd`), an
    /// opaque Win32 handle on Windows (`hipExternalMemoryHandleTypeOpaqueWin32`).
    /// A `size` of zero is `CUDA_ERROR_INVALID_VALUE` (and `file` is closed
    /// here); a descriptor that is no exported memory handle is the
    /// runtime's error. On Unix the descriptor passes to the runtime at the
    /// call whatever its outcome, and is never closed here: CUDA closes it
    /// even when the import fails, so closing it again could close an
    /// unrelated file that reused the number.
    ///
    /// # Safety
    ///
    /// `size` is the size of the exported memory in bytes (as cudarc's).
    ///
    /// ```no_run
    /// # fn main() -> Result<(), cuda_compat::driver::DriverError> {
    /// use cuda_compat::driver::CudaContext;
    /// let ctx = CudaContext::new(0)?;
    /// // A memory handle exported by Vulkan, or by another process, and
    /// // the size of its allocation.
    /// # let file = std::fs::File::open("exported-memory").expect("a handle");
    /// # let size = 1u64 << 20;
    /// // SAFETY: `size` is the exported allocation's size.
    /// let memory = unsafe { ctx.import_external_memory(file, size) }?;
    /// let mapped = memory.map_all()?;
    /// let bytes: Vec<u8> = ctx.default_stream().clone_dtoh(&mapped)?;
    /// # Ok(()) }
    /// ```
    #[cfg(any(unix, windows))]
    pub unsafe fn import_external_memory(
        self: &Arc<Self>,
        file: File,
        size: u64,
    ) -> Result<ExternalMemory, DriverError> {
        if size == 0 {
            return Err(invalid_because("external memory of 0 bytes"));
        }
        self.bind_to_thread()?;
        #[cfg(unix)]
        // SAFETY: `file` is the caller's exported handle of `size` bytes;
        // its descriptor is given up here, so nothing closes it twice.
        let external_memory = unsafe {
            use std::os::fd::IntoRawFd;
            result::external_memory::import_external_memory_opaque_fd(file.into_raw_fd(), size)
        }?;
        #[cfg(windows)]
        // SAFETY: as above; the handle stays open until the drop.
        let external_memory = unsafe {
            use std::os::windows::io::AsRawHandle;
            result::external_memory::import_external_memory_opaque_win32(file.as_raw_handle(), size)
        }?;
        Ok(ExternalMemory {
            external_memory,
            size,
            ctx: self.clone(),
            #[cfg(windows)]
            _file: ManuallyDrop::new(file),
        })
    }
}

impl ExternalMemory {
    /// Its size in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Maps all of it (`hipExternalMemoryGetMappedBuffer`).
    pub fn map_all(self) -> Result<MappedBuffer, DriverError> {
        let size = usize::try_from(self.size)
            .map_err(|_| invalid_because("the external memory is larger than the address space"))?;
        self.map_range(0..size)
    }

    /// Maps bytes `range` of it (`hipExternalMemoryGetMappedBuffer`). One
    /// mapping at a time, as in cudarc (the buffer owns the memory). A
    /// range past the end, or an empty one, is `CUDA_ERROR_INVALID_VALUE`
    /// (where cudarc panics).
    pub fn map_range(self, range: Range<usize>) -> Result<MappedBuffer, DriverError> {
        if range.start >= range.end || range.end as u64 > self.size {
            return Err(invalid_because(&format!(
                "the range {range:?} is empty or past the end of {} bytes of external memory",
                self.size
            )));
        }
        self.ctx.bind_to_thread()?;
        // SAFETY: the handle is live and the range lies within it (checked).
        let device_ptr = unsafe {
            result::external_memory::get_mapped_buffer(
                self.external_memory,
                range.start as u64,
                range.len() as u64,
            )
        }?;
        // From here the buffer frees the mapping, whatever fails.
        let stream = self.ctx.default_stream();
        let event = match self.ctx.new_event(None) {
            Ok(event) => event,
            Err(e) => {
                // SAFETY: just mapped, used by nothing.
                self.ctx
                    .record_err(unsafe { result::memory_free(device_ptr) });
                return Err(e);
            }
        };
        Ok(MappedBuffer {
            device_ptr,
            len: range.len(),
            external_memory: self,
            event,
            stream,
        })
    }
}

/// Imported memory mapped into the device's address space, freed on drop
/// (`hipFree`, after the last recorded read) before the external memory
/// it owns is destroyed. Read-only, as in cudarc: it is a [`DevicePtr`]
/// (copies out, kernel inputs), not a `DevicePtrMut`.
///
/// **Threads**: `Send + Sync`: a device address and thread-safe handles.
#[derive(Debug)]
pub struct MappedBuffer {
    device_ptr: sys::CUdeviceptr,
    len: usize,
    event: CudaEvent,
    stream: Arc<CudaStream>,
    /// Dropped after the mapping is freed (fields drop after `drop`).
    external_memory: ExternalMemory,
}

impl MappedBuffer {
    /// The external memory it maps.
    pub fn external_memory(&self) -> &ExternalMemory {
        &self.external_memory
    }
}

impl Drop for MappedBuffer {
    fn drop(&mut self) {
        let ctx = &self.external_memory.ctx;
        // hipFree and the import's destruction (a field, dropped after
        // this) act on the whole device: both wait for other threads'
        // captures. On a thread that captures itself the error is
        // recorded and they go ahead, as before the gate.
        let _held = ctx
            .device
            .hold_captures("MappedBuffer::drop")
            .map_err(|e| ctx.record_err(Err::<(), _>(e).drv()));
        ctx.record_err(ctx.bind_to_thread());
        ctx.record_err(self.stream.wait(&self.event));
        // SAFETY: we own the mapping; hipFree waits for the device, so the
        // reads recorded above are done.
        ctx.record_err(unsafe { result::memory_free(self.device_ptr) });
    }
}

impl DeviceSlice<u8> for MappedBuffer {
    fn len(&self) -> usize {
        self.len
    }
    fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }
}

impl DevicePtr<u8> for MappedBuffer {
    fn device_ptr<'a>(&'a self, stream: &'a CudaStream) -> (sys::CUdeviceptr, SyncOnDrop<'a>) {
        // Only read (no DevicePtrMut): nothing to wait for, but the read is
        // recorded so that the free waits for it.
        (
            self.device_ptr,
            SyncOnDrop::Record(Some((&self.event, stream))),
        )
    }
}

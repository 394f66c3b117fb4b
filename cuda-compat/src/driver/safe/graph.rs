//! Stream capture into graphs (cudarc's `begin_capture`/`end_capture`).

use super::context::CudaStream;
use crate::driver::result::{check, DriverError};
use crate::driver::sys;
use std::sync::Arc;

/// An instantiated graph captured from a stream (cudarc's `CudaGraph`);
/// launches on that stream.
///
/// **Threads**: `Send + Sync`: the handles are passed only to thread-safe
/// runtime calls.
#[derive(Debug)]
pub struct CudaGraph {
    graph: hip::sys::hipGraph_t,
    exec: hip::sys::hipGraphExec_t,
    stream: Arc<CudaStream>,
}

// SAFETY: see the type's docs.
unsafe impl Send for CudaGraph {}
// SAFETY: as above.
unsafe impl Sync for CudaGraph {}

impl Drop for CudaGraph {
    fn drop(&mut self) {
        let ctx = &self.stream.ctx;
        // Replays may still run: wait for the stream first.
        ctx.record_err(self.stream.synchronize());
        // SAFETY: we own both handles.
        ctx.record_err(check(unsafe { hip::sys::hipGraphExecDestroy(self.exec) }));
        // SAFETY: as above.
        ctx.record_err(check(unsafe { hip::sys::hipGraphDestroy(self.graph) }));
    }
}

impl CudaStream {
    /// Starts capturing this stream's work (`hipStreamBeginCapture`).
    ///
    /// Work captured is replayed by [`CudaGraph::launch`] with the buffers
    /// captured: they must outlive the graph.
    pub fn begin_capture(&self, mode: sys::CUstreamCaptureMode) -> Result<(), DriverError> {
        self.ctx.bind_to_thread()?;
        // SAFETY: the stream is live.
        check(unsafe { hip::sys::hipStreamBeginCapture(self.cu_stream(), mode.into()) })
    }

    /// Ends the capture (`hipStreamEndCapture`) and instantiates it
    /// (`hipGraphInstantiateWithFlags`); `None` when nothing was captured.
    pub fn end_capture(
        self: &Arc<Self>,
        flags: sys::CUgraphInstantiate_flags,
    ) -> Result<Option<CudaGraph>, DriverError> {
        self.ctx.bind_to_thread()?;
        let mut graph = std::ptr::null_mut();
        // SAFETY: the stream is live; `graph` is a valid place.
        check(unsafe { hip::sys::hipStreamEndCapture(self.cu_stream(), &mut graph) })?;
        if graph.is_null() {
            return Ok(None);
        }
        let mut exec = std::ptr::null_mut();
        let flags: hip::sys::hipGraphInstantiateFlags = flags.into();
        // SAFETY: `graph` is live; `exec` is a valid place.
        let r = check(unsafe {
            hip::sys::hipGraphInstantiateWithFlags(&mut exec, graph, flags.0 as u64)
        });
        if let Err(e) = r {
            // SAFETY: we own the graph.
            self.ctx
                .record_err(check(unsafe { hip::sys::hipGraphDestroy(graph) }));
            return Err(e);
        }
        Ok(Some(CudaGraph {
            graph,
            exec,
            stream: self.clone(),
        }))
    }

    /// Whether, and how, the stream is capturing (`hipStreamIsCapturing`).
    pub fn capture_status(&self) -> Result<sys::CUstreamCaptureStatus, DriverError> {
        let mut s = hip::sys::hipStreamCaptureStatus::hipStreamCaptureStatusNone;
        // SAFETY: the stream is live; `s` is a valid place.
        check(unsafe { hip::sys::hipStreamIsCapturing(self.cu_stream(), &mut s) })?;
        Ok(s.into())
    }
}

impl CudaGraph {
    /// Replays the graph on its stream (`hipGraphLaunch`).
    pub fn launch(&self) -> Result<(), DriverError> {
        self.stream.ctx.bind_to_thread()?;
        // SAFETY: both handles are live.
        check(unsafe { hip::sys::hipGraphLaunch(self.exec, self.stream.cu_stream()) })
    }

    /// Uploads the graph to the device ahead of its first launch
    /// (`hipGraphUpload`).
    pub fn upload(&self) -> Result<(), DriverError> {
        self.stream.ctx.bind_to_thread()?;
        // SAFETY: both handles are live.
        check(unsafe { hip::sys::hipGraphUpload(self.exec, self.stream.cu_stream()) })
    }

    /// The raw graph.
    pub fn cu_graph(&self) -> sys::CUgraph {
        self.graph
    }

    /// The raw executable graph.
    pub fn cu_graph_exec(&self) -> sys::CUgraphExec {
        self.exec
    }
}

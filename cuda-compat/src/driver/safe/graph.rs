//! Stream capture into graphs (cudarc's `begin_capture`/`end_capture`),
//! over `hip`'s `Stream::begin_capture`, `Graph`, `GraphExec`.

use super::context::CudaStream;
use crate::driver::result::{DriverError, ToDriver};
use crate::driver::sys;
use std::sync::{Arc, Mutex};

/// An instantiated graph captured from a stream (cudarc's `CudaGraph`);
/// launches on that stream. Dropping it waits for its replays.
///
/// **Threads**: `Send + Sync`: the graphs are behind a mutex (the runtime
/// does not synchronise concurrent use of one).
#[derive(Debug)]
pub struct CudaGraph {
    /// The executable graph and the graph (destroyed in this order).
    inner: Mutex<(hip::GraphExec<'static>, hip::Graph<'static>)>,
    stream: Arc<CudaStream>,
}

impl Drop for CudaGraph {
    fn drop(&mut self) {
        // Replays may still run on the stream.
        self.stream.ctx.record_err(self.stream.synchronize());
    }
}

impl CudaStream {
    /// Starts capturing this stream's work (`hipStreamBeginCapture`).
    ///
    /// The captured work is replayed by [`CudaGraph::launch`] with the
    /// buffers it captured, which must outlive the graph (as in cudarc).
    /// Buffer events of work outside the capture cannot be waited for
    /// inside it: use buffers without event tracking
    /// ([`crate::driver::CudaContext::disable_event_tracking`]) or made on
    /// the capturing stream.
    pub fn begin_capture(&self, mode: sys::CUstreamCaptureMode) -> Result<(), DriverError> {
        // SAFETY: cudarc's contract, stated above: what the graph uses
        // outlives it; the capture is ended by `end_capture`.
        unsafe { self.stream.begin_capture(mode.into()) }.drv()
    }

    /// Ends the capture (`hipStreamEndCapture`) and instantiates it
    /// (`hipGraphInstantiateWithFlags`); `None` when the runtime returns
    /// no graph (CUDA returns an empty one for a capture of no work).
    pub fn end_capture(
        self: &Arc<Self>,
        flags: sys::CUgraphInstantiate_flags,
    ) -> Result<Option<CudaGraph>, DriverError> {
        let Some(graph) = self.stream.end_capture().drv()? else {
            return Ok(None);
        };
        let flags: hip::sys::hipGraphInstantiateFlags = flags.into();
        let exec = graph.instantiate_with_flags(flags.0 as u64).drv()?;
        Ok(Some(CudaGraph {
            inner: Mutex::new((exec, graph)),
            stream: self.clone(),
        }))
    }

    /// Whether, and how, the stream is capturing (`hipStreamIsCapturing`).
    pub fn capture_status(&self) -> Result<sys::CUstreamCaptureStatus, DriverError> {
        Ok(self.stream.capture_status().drv()?.into())
    }
}

impl CudaGraph {
    /// Replays the graph on its stream (`hipGraphLaunch`).
    pub fn launch(&self) -> Result<(), DriverError> {
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        inner.0.launch(&self.stream.stream).drv()
    }

    /// Uploads the graph to the device ahead of its first launch
    /// (`hipGraphUpload`).
    pub fn upload(&self) -> Result<(), DriverError> {
        let inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        inner.0.upload(&self.stream.stream).drv()
    }

    /// The raw graph.
    pub fn cu_graph(&self) -> sys::CUgraph {
        self.inner
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .1
            .as_raw()
    }

    /// The raw executable graph.
    pub fn cu_graph_exec(&self) -> sys::CUgraphExec {
        self.inner
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .0
            .as_raw()
    }
}

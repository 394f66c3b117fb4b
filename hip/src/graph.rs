//! Graphs: record what a closure enqueues on a stream, replay it cheaply.

use crate::device::Device;
use crate::error;
use crate::error::{Error, Result};
use crate::result;
use crate::stream::Stream;
use hip_sys as sys;
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

/// A captured graph (`hipGraph_t`), tied by `'a` to what the capture
/// closure borrowed, so the buffers it used cannot be dropped first.
///
/// **Threads**: `Send` but not `Sync`: the runtime does not synchronise
/// access to a graph, so one may be used by one thread at a time.
pub struct Graph<'a> {
    raw: sys::hipGraph_t,
    device: Arc<Device>,
    _borrows: PhantomData<&'a ()>,
}

// SAFETY: an opaque runtime handle that may be used from any one thread.
// Not `Sync`: the runtime does not synchronise access to a graph, so two
// threads may not use one at once (CUDA documents the same).
unsafe impl Send for Graph<'_> {}

impl fmt::Debug for Graph<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Graph")
            .field("raw", &self.raw)
            .field("device", &self.device.ordinal())
            .finish()
    }
}

impl Stream {
    /// Captures the work `record` enqueues on this stream into a graph
    /// instead of running it (`hipStreamBeginCapture` /
    /// `hipStreamEndCapture`, thread-local mode). The default stream
    /// cannot capture.
    ///
    /// If `record` fails, capture is ended and its error returned.
    ///
    /// # Safety
    ///
    /// Every launch of a graph made from the result re-runs the captured
    /// work: the memory it uses must stay valid for every launch (the `'a`
    /// bound keeps borrowed buffers alive; buffers owned by or created in
    /// the closure are not covered), and the launch-safety contract of
    /// every kernel captured must hold for each replay.
    pub unsafe fn capture<'a, F>(&self, record: F) -> Result<Graph<'a>>
    where
        F: FnOnce(&Stream) -> Result<()> + 'a,
    {
        if self.is_default() {
            return Err(Error::invalid(
                "Stream::capture",
                "the default stream cannot be captured; use Stream::new",
            ));
        }
        // SAFETY: a live, non-default stream.
        unsafe {
            self.begin_capture_gated(sys::hipStreamCaptureMode::hipStreamCaptureModeThreadLocal)
        }?;
        // Ends the capture even if `record` panics, so the stream stays usable.
        struct EndOnUnwind<'s>(&'s Stream, bool);
        impl Drop for EndOnUnwind<'_> {
            fn drop(&mut self) {
                if self.1 {
                    // SAFETY: the stream is capturing; the partial graph is
                    // destroyed at once.
                    let r = unsafe { self.0.end_capture_gated() }
                        .and_then(|g| unsafe { result::graph_destroy(g) });
                    error::record_result(r);
                }
            }
        }
        let mut guard = EndOnUnwind(self, true);
        let recorded = record(self);
        guard.1 = false;
        // SAFETY: the stream is capturing (begun above).
        let ended = unsafe { self.end_capture_gated() };
        let graph = ended.map(|raw| Graph {
            raw,
            device: self.device().clone(),
            _borrows: PhantomData,
        });
        recorded?;
        graph
    }
}

impl Stream {
    /// Starts capturing this stream's work into a graph
    /// (`hipStreamBeginCapture`), to be ended with [`Stream::end_capture`]:
    /// the begin/end form of [`Stream::capture`].
    ///
    /// # Safety
    ///
    /// Everything the captured work uses stays valid for every replay of
    /// the graph (nothing borrows it here, unlike [`Stream::capture`]), and
    /// the capture is ended on this stream.
    pub unsafe fn begin_capture(&self, mode: sys::hipStreamCaptureMode) -> Result<()> {
        if self.is_default() {
            return Err(Error::invalid(
                "Stream::begin_capture",
                "the default stream cannot be captured; use Stream::new",
            ));
        }
        // SAFETY: a live, non-default stream.
        unsafe { self.begin_capture_gated(mode) }
    }

    /// Ends the capture begun with [`Stream::begin_capture`]
    /// (`hipStreamEndCapture`); `None` when the runtime returns no graph.
    /// A capture of no work may still end in an (empty) graph: CUDA's
    /// does.
    pub fn end_capture(&self) -> Result<Option<Graph<'static>>> {
        // SAFETY: a live stream; ending a stream that is not capturing is
        // an error status, not undefined behaviour.
        let raw = unsafe { self.end_capture_gated() }?;
        Ok((!raw.is_null()).then(|| Graph {
            raw,
            device: self.device().clone(),
            _borrows: PhantomData,
        }))
    }

    /// Whether the stream is capturing (`hipStreamIsCapturing`).
    pub fn capture_status(&self) -> Result<sys::hipStreamCaptureStatus> {
        self.bind_if_default()?;
        // SAFETY: a live stream.
        unsafe { result::stream_capture_status(self.as_raw()) }
    }
}

impl Stream {
    /// Enters the device's capture gate (after any device-wide
    /// synchronization running or waiting: see `capture_gate`), then
    /// begins capturing; leaves the gate again if the capture does not
    /// begin.
    ///
    /// # Safety
    ///
    /// A live, non-default stream.
    unsafe fn begin_capture_gated(&self, mode: sys::hipStreamCaptureMode) -> Result<()> {
        self.device().bind()?;
        let gate = self.device().capture_gate();
        gate.enter(self.as_raw() as usize);
        // SAFETY: as the caller promised.
        let begun = unsafe { result::stream_begin_capture(self.as_raw(), mode) };
        if begun.is_err() {
            gate.leave(self.as_raw() as usize);
        }
        begun
    }

    /// Ends capturing and leaves the device's capture gate, whether the
    /// capture ended well or not (an invalidated capture has ended too).
    ///
    /// # Safety
    ///
    /// A live stream.
    unsafe fn end_capture_gated(&self) -> Result<sys::hipGraph_t> {
        let bound = self.device().bind();
        // SAFETY: as the caller promised.
        let ended = bound.and_then(|()| unsafe { result::stream_end_capture(self.as_raw()) });
        self.device().capture_gate().leave(self.as_raw() as usize);
        ended
    }
}

impl<'a> Graph<'a> {
    /// Instantiates with flags (`hipGraphInstantiateWithFlags`), e.g.
    /// `hipGraphInstantiateFlagAutoFreeOnLaunch`.
    pub fn instantiate_with_flags(&self, flags: u64) -> Result<GraphExec<'a>> {
        self.device.bind()?;
        // SAFETY: a live graph.
        let raw = unsafe { result::graph_instantiate_with_flags(self.raw, flags) }?;
        Ok(GraphExec {
            raw,
            device: self.device.clone(),
            _borrows: PhantomData,
        })
    }

    /// Number of nodes (`hipGraphGetNodes`).
    pub fn node_count(&self) -> Result<usize> {
        // SAFETY: a live graph.
        unsafe { result::graph_get_node_count(self.raw) }
    }

    /// Makes an executable graph (`hipGraphInstantiate`).
    pub fn instantiate(&self) -> Result<GraphExec<'a>> {
        self.device.bind()?;
        // SAFETY: a live graph.
        let raw = unsafe { result::graph_instantiate(self.raw) }?;
        Ok(GraphExec {
            raw,
            device: self.device.clone(),
            _borrows: PhantomData,
        })
    }

    /// The raw handle.
    pub fn as_raw(&self) -> sys::hipGraph_t {
        self.raw
    }
}

impl Drop for Graph<'_> {
    fn drop(&mut self) {
        // SAFETY: we own the graph.
        error::record_result(unsafe { result::graph_destroy(self.raw) });
    }
}

/// An executable graph (`hipGraphExec_t`).
///
/// **Threads**: `Send` but not `Sync`: launching and updating one
/// executable graph from two threads at once is not allowed by the runtime.
pub struct GraphExec<'a> {
    raw: sys::hipGraphExec_t,
    device: Arc<Device>,
    _borrows: PhantomData<&'a ()>,
}

// SAFETY: an opaque runtime handle that may be used from any one thread.
unsafe impl Send for GraphExec<'_> {}

impl fmt::Debug for GraphExec<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GraphExec")
            .field("raw", &self.raw)
            .field("device", &self.device.ordinal())
            .finish()
    }
}

impl<'a> GraphExec<'a> {
    /// Uploads the graph to the device ahead of its first launch
    /// (`hipGraphUpload`).
    pub fn upload(&self, stream: &Stream) -> Result<()> {
        if stream.device().ordinal() != self.device.ordinal() {
            return Err(Error::invalid(
                "GraphExec::upload",
                format!(
                    "graph is on device {} but the stream is on device {}",
                    self.device.ordinal(),
                    stream.device().ordinal()
                ),
            ));
        }
        self.device.bind()?;
        // SAFETY: live graph and stream, both on this device (checked above).
        unsafe { result::graph_upload(self.raw, stream.as_raw()) }
    }

    /// The raw handle.
    pub fn as_raw(&self) -> sys::hipGraphExec_t {
        self.raw
    }

    /// Enqueues one run of the graph on `stream` (`hipGraphLaunch`).
    pub fn launch(&mut self, stream: &Stream) -> Result<()> {
        if stream.device().ordinal() != self.device.ordinal() {
            return Err(Error::invalid(
                "GraphExec::launch",
                format!(
                    "graph is on device {} but the stream is on device {}",
                    self.device.ordinal(),
                    stream.device().ordinal()
                ),
            ));
        }
        self.device.bind()?;
        // SAFETY: live graph and stream; the captured work's validity was
        // promised by `Stream::capture`'s caller.
        unsafe { result::graph_launch(self.raw, stream.as_raw()) }
    }

    /// Updates the executable graph in place from `graph`, which must have
    /// the same topology (`hipGraphExecUpdate`); kernel arguments and copy
    /// addresses may differ. The update's borrows must outlive this graph's.
    pub fn update(&mut self, graph: &Graph<'a>) -> Result<()> {
        self.device.bind()?;
        // SAFETY: both graphs are live.
        let res = unsafe { result::graph_exec_update(self.raw, graph.raw) }?;
        if res != sys::hipGraphExecUpdateResult::hipGraphExecUpdateSuccess {
            return Err(Error::invalid(
                "GraphExec::update",
                format!("the graph cannot be updated in place: {res:?}"),
            ));
        }
        Ok(())
    }
}

impl Drop for GraphExec<'_> {
    fn drop(&mut self) {
        // The borrows in `'a` end with this value, but launched replays may
        // still be using what was borrowed: wait for the device first.
        error::record_result(self.device.synchronize());
        // SAFETY: we own the executable graph.
        error::record_result(unsafe { result::graph_exec_destroy(self.raw) });
    }
}

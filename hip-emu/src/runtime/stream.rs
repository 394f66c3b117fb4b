//! Streams, events, stream capture and graphs.
//!
//! Operations run when enqueued (see the module docs of `runtime`); a
//! capturing stream records them instead, and a graph is the recorded list,
//! replayed in order by `hipGraphLaunch`. Kernel arguments are copied at
//! capture time, as HIP does; copies read their source when replayed.

use super::{fail, invalid, lock, put, rt, unsupported, R};
use hip_sys::{
    hipError_t, hipEvent_t, hipGraphExecUpdateResult, hipGraphExec_t, hipGraphNode_t, hipGraph_t,
    hipHostFn_t, hipStreamCallback_t, hipStreamCaptureMode, hipStreamCaptureStatus, hipStream_t,
};
use std::ffi::{c_char, c_int, c_uint, c_ulonglong, c_void};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// One stream operation, as run now or replayed by a graph.
pub(crate) type Op = Arc<dyn Fn() -> R + Send + Sync>;

/// `hipStreamPerThread`: `(hipStream_t)2` in ROCm's headers.
pub(crate) const STREAM_PER_THREAD: usize = 2;

/// A stream.
pub(crate) struct Stream {
    pub(crate) device: i32,
    pub(crate) flags: u32,
    pub(crate) priority: i32,
    /// The operations recorded while capturing, with the capture's id.
    capture: Mutex<Option<(u64, Vec<Op>)>>,
}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stream")
            .field("device", &self.device)
            .field("flags", &self.flags)
            .field("priority", &self.priority)
            .finish_non_exhaustive()
    }
}

impl Stream {
    pub(crate) fn new(device: i32, flags: u32, priority: i32) -> Stream {
        Stream {
            device,
            flags,
            priority,
            capture: Mutex::new(None),
        }
    }
}

/// An event: the emulated time it was last recorded, in shader-clock
/// cycles ([`crate::isa::rt::clock_cycles`], 2 GHz): the clock kernels read,
/// so that an event pair around a kernel that waits a number of cycles
/// measures that wait, as on a GPU.
#[derive(Debug)]
pub(crate) struct Event {
    flags: u32,
    recorded: Mutex<Option<u64>>,
}

/// A graph (or an instantiated one): the operations, in order.
pub(crate) struct Graph {
    ops: Mutex<Vec<Op>>,
}

impl Graph {
    fn new(ops: Vec<Op>) -> Graph {
        Graph {
            ops: Mutex::new(ops),
        }
    }

    fn ops(&self) -> Vec<Op> {
        lock(&self.ops).clone()
    }
}

impl std::fmt::Debug for Graph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Graph")
            .field("ops", &lock(&self.ops).len())
            .finish()
    }
}

/// The stream a handle names: null and `hipStreamPerThread` are the
/// current device's null stream.
pub(crate) fn stream(h: hipStream_t) -> R<Arc<Stream>> {
    let r = rt();
    let n = h as usize;
    if n == 0 || n == STREAM_PER_THREAD {
        return r.streams.get(r.current()?.default_stream);
    }
    r.streams.get(n)
}

/// Runs `op` on stream `h` now, or records it when the stream captures.
pub(crate) fn enqueue(h: hipStream_t, op: impl Fn() -> R + Send + Sync + 'static) -> R {
    let s = stream(h)?;
    let mut capture = lock(&s.capture);
    if let Some((_, ops)) = capture.as_mut() {
        ops.push(Arc::new(op));
        return Ok(());
    }
    drop(capture);
    op()
}

/// Fails when stream `h` is capturing (for calls a capture cannot hold).
fn not_capturing(s: &Stream) -> R {
    if lock(&s.capture).is_some() {
        return fail(
            hipError_t::hipErrorStreamCaptureUnsupported,
            "the stream is capturing; this operation cannot be captured",
        );
    }
    Ok(())
}

static CAPTURE_ID: AtomicU64 = AtomicU64::new(1);

fn create(out: *mut hipStream_t, flags: c_uint, priority: c_int) -> R<()> {
    let r = rt();
    let d = r.current()?.ordinal;
    if out.is_null() {
        return invalid("`stream` is null");
    }
    let h = r
        .streams
        .insert(Stream::new(d, flags, priority.clamp(-1, 0)));
    // SAFETY: `out` is non-null and a valid `hipStream_t*` by the caller's contract.
    unsafe { put(out, h as hipStream_t, "stream") }
}

fn event(h: hipEvent_t) -> R<Arc<Event>> {
    if h.is_null() {
        return fail(hipError_t::hipErrorInvalidHandle, "the event is null");
    }
    rt().events.get(h as usize)
}

fn record(e: hipEvent_t, s: hipStream_t) -> R {
    let ev = event(e)?;
    enqueue(s, move || {
        *lock(&ev.recorded) = Some(crate::isa::rt::clock_cycles());
        Ok(())
    })
}

export! {
    /// A stream on the current device.
    fn hipStreamCreate(stream: *mut hipStream_t) {
        create(stream, 0, 0)
    }

    /// A stream with flags (`hipStreamNonBlocking` is kept and reported).
    fn hipStreamCreateWithFlags(stream: *mut hipStream_t, flags: c_uint) {
        create(stream, flags, 0)
    }

    /// A stream with flags and a priority (clamped to 0..=-1).
    fn hipStreamCreateWithPriority(stream: *mut hipStream_t, flags: c_uint, priority: c_int) {
        create(stream, flags, priority)
    }

    /// Destroys a stream (its work is done: it ran when enqueued).
    fn hipStreamDestroy(stream: hipStream_t) {
        let n = stream as usize;
        if n == 0 || n == STREAM_PER_THREAD {
            return fail(hipError_t::hipErrorInvalidHandle, "the null stream cannot be destroyed");
        }
        rt().streams.remove(n).map(drop)
    }

    /// Waits for a stream: returns at once.
    fn hipStreamSynchronize(stream: hipStream_t) {
        let s = self::stream(stream)?;
        not_capturing(&s)
    }

    /// Whether a stream's work is done: always.
    fn hipStreamQuery(stream: hipStream_t) {
        self::stream(stream).map(drop)
    }

    /// Makes a stream wait for an event: a no-op, since the event's work is
    /// done.
    fn hipStreamWaitEvent(stream: hipStream_t, event: hipEvent_t, _flags: c_uint) {
        self::stream(stream)?;
        self::event(event).map(drop)
    }

    /// A stream's flags.
    fn hipStreamGetFlags(stream: hipStream_t, flags: *mut c_uint) {
        let s = self::stream(stream)?;
        // SAFETY: `flags` is null or a valid `unsigned*`.
        unsafe { put(flags, s.flags, "flags") }
    }

    /// A stream's priority.
    fn hipStreamGetPriority(stream: hipStream_t, priority: *mut c_int) {
        let s = self::stream(stream)?;
        // SAFETY: `priority` is null or a valid `int*`.
        unsafe { put(priority, s.priority, "priority") }
    }

    /// A stream's device.
    fn hipStreamGetDevice(stream: hipStream_t, device: *mut hip_sys::hipDevice_t) {
        let s = self::stream(stream)?;
        // SAFETY: `device` is null or a valid `hipDevice_t*`.
        unsafe { put(device, s.device, "device") }
    }

    /// Calls `callback(stream, hipSuccess, userData)` after the stream's
    /// work, which is now; not allowed while capturing (as in CUDA).
    fn hipStreamAddCallback(stream: hipStream_t, callback: hipStreamCallback_t, userData: *mut c_void, flags: c_uint) {
        let s = self::stream(stream)?;
        not_capturing(&s)?;
        if flags != 0 {
            return invalid(format!("flags must be 0, not {flags}"));
        }
        let Some(cb) = callback else {
            return invalid("`callback` is null");
        };
        // SAFETY: the caller's callback, called as HIP calls it, with the
        // stream and data it gave.
        unsafe { cb(stream, hipError_t::hipSuccess, userData) };
        Ok(())
    }

    /// Calls `fn_(userData)` in stream order (now, or when a captured graph
    /// replays).
    fn hipLaunchHostFunc(stream: hipStream_t, fn_: hipHostFn_t, userData: *mut c_void) {
        let Some(f) = fn_ else {
            return invalid("`fn` is null");
        };
        let data = userData as usize;
        enqueue(stream, move || {
            // SAFETY: the caller's host function with the data it gave,
            // which it keeps valid until the function has run.
            unsafe { f(data as *mut c_void) };
            Ok(())
        })
    }

    /// An event with default flags.
    fn hipEventCreate(event: *mut hipEvent_t) {
        if event.is_null() {
            return invalid("`event` is null");
        }
        let h = rt().events.insert(Event { flags: 0, recorded: Mutex::new(None) });
        // SAFETY: non-null and a valid `hipEvent_t*` by the contract.
        unsafe { put(event, h as hipEvent_t, "event") }
    }

    /// An event with flags (`hipEventDisableTiming` makes
    /// `hipEventElapsedTime` refuse it).
    fn hipEventCreateWithFlags(event: *mut hipEvent_t, flags: c_uint) {
        if event.is_null() {
            return invalid("`event` is null");
        }
        let h = rt().events.insert(Event { flags, recorded: Mutex::new(None) });
        // SAFETY: non-null and a valid `hipEvent_t*` by the contract.
        unsafe { put(event, h as hipEvent_t, "event") }
    }

    /// Records an event on a stream: it completes now (or when a captured
    /// graph replays).
    fn hipEventRecord(event: hipEvent_t, stream: hipStream_t) {
        record(event, stream)
    }

    /// As [`hipEventRecord`].
    fn hipEventRecordWithFlags(event: hipEvent_t, stream: hipStream_t, _flags: c_uint) {
        record(event, stream)
    }

    /// Waits for an event: returns at once.
    fn hipEventSynchronize(event: hipEvent_t) {
        self::event(event).map(drop)
    }

    /// Whether an event has completed: always.
    fn hipEventQuery(event: hipEvent_t) {
        self::event(event).map(drop)
    }

    /// Milliseconds of emulated time between two recorded events (the
    /// shader clock's cycles at 2 GHz).
    fn hipEventElapsedTime(ms: *mut f32, start: hipEvent_t, stop: hipEvent_t) {
        let (a, b) = (event(start)?, event(stop)?);
        let disabled = hip_sys::hipEventDisableTiming;
        if a.flags & disabled != 0 || b.flags & disabled != 0 {
            return fail(hipError_t::hipErrorInvalidHandle, "an event was created with hipEventDisableTiming");
        }
        let (Some(t0), Some(t1)) = (*lock(&a.recorded), *lock(&b.recorded)) else {
            return fail(hipError_t::hipErrorInvalidHandle, "an event has not been recorded");
        };
        let v = (t1 as f64 - t0 as f64) / 2e6;
        // SAFETY: `ms` is null or a valid `float*`.
        unsafe { put(ms, v as f32, "ms") }
    }

    /// Destroys an event.
    fn hipEventDestroy(event: hipEvent_t) {
        if event.is_null() {
            return fail(hipError_t::hipErrorInvalidHandle, "the event is null");
        }
        rt().events.remove(event as usize).map(drop)
    }

    /// Starts recording a stream's operations into a graph.
    fn hipStreamBeginCapture(stream: hipStream_t, _mode: hipStreamCaptureMode) {
        let s = self::stream(stream)?;
        let mut c = lock(&s.capture);
        if c.is_some() {
            return fail(hipError_t::hipErrorIllegalState, "the stream is already capturing");
        }
        *c = Some((CAPTURE_ID.fetch_add(1, Ordering::Relaxed), Vec::new()));
        Ok(())
    }

    /// Ends a capture; the graph holds the operations recorded.
    fn hipStreamEndCapture(stream: hipStream_t, pGraph: *mut hipGraph_t) {
        let s = self::stream(stream)?;
        if pGraph.is_null() {
            return invalid("`pGraph` is null");
        }
        let Some((_, ops)) = lock(&s.capture).take() else {
            return fail(hipError_t::hipErrorIllegalState, "the stream is not capturing");
        };
        let h = rt().graphs.insert(Graph::new(ops));
        // SAFETY: non-null and a valid `hipGraph_t*` by the contract.
        unsafe { put(pGraph, h as hipGraph_t, "pGraph") }
    }

    /// Whether a stream is capturing.
    fn hipStreamIsCapturing(stream: hipStream_t, pCaptureStatus: *mut hipStreamCaptureStatus) {
        let s = self::stream(stream)?;
        let status = if lock(&s.capture).is_some() {
            hipStreamCaptureStatus::hipStreamCaptureStatusActive
        } else {
            hipStreamCaptureStatus::hipStreamCaptureStatusNone
        };
        // SAFETY: `pCaptureStatus` is null or a valid pointer.
        unsafe { put(pCaptureStatus, status, "pCaptureStatus") }
    }

    /// Whether a stream is capturing, and the capture's id.
    fn hipStreamGetCaptureInfo(stream: hipStream_t, pCaptureStatus: *mut hipStreamCaptureStatus, pId: *mut c_ulonglong) {
        let s = self::stream(stream)?;
        let id = lock(&s.capture).as_ref().map(|(id, _)| *id);
        let status = match id {
            Some(_) => hipStreamCaptureStatus::hipStreamCaptureStatusActive,
            None => hipStreamCaptureStatus::hipStreamCaptureStatusNone,
        };
        // SAFETY: `pCaptureStatus` is null or valid; `pId` may be null.
        unsafe {
            put(pCaptureStatus, status, "pCaptureStatus")?;
            if let (Some(id), false) = (id, pId.is_null()) {
                put(pId, id, "pId")?;
            }
        }
        Ok(())
    }

    /// As [`hipStreamGetCaptureInfo`]; the graph, dependencies and their
    /// count are written as null / 0 (the capture has no node objects).
    fn hipStreamGetCaptureInfo_v2(
        stream: hipStream_t,
        captureStatus_out: *mut hipStreamCaptureStatus,
        id_out: *mut c_ulonglong,
        graph_out: *mut hipGraph_t,
        dependencies_out: *mut *const hipGraphNode_t,
        numDependencies_out: *mut usize,
    ) {
        let s = self::stream(stream)?;
        let id = lock(&s.capture).as_ref().map(|(id, _)| *id);
        let status = match id {
            Some(_) => hipStreamCaptureStatus::hipStreamCaptureStatusActive,
            None => hipStreamCaptureStatus::hipStreamCaptureStatusNone,
        };
        // SAFETY: `captureStatus_out` is null or valid; the others may be null.
        unsafe {
            put(captureStatus_out, status, "captureStatus_out")?;
            if let (Some(id), false) = (id, id_out.is_null()) {
                put(id_out, id, "id_out")?;
            }
            if !graph_out.is_null() {
                put(graph_out, std::ptr::null_mut(), "graph_out")?;
            }
            if !dependencies_out.is_null() {
                put(dependencies_out, std::ptr::null(), "dependencies_out")?;
            }
            if !numDependencies_out.is_null() {
                put(numDependencies_out, 0, "numDependencies_out")?;
            }
        }
        Ok(())
    }

    /// Accepted; the mode is not enforced (every capture is treated as
    /// relaxed). Writes back the mode given.
    fn hipThreadExchangeStreamCaptureMode(mode: *mut hipStreamCaptureMode) {
        if mode.is_null() {
            return invalid("`mode` is null");
        }
        Ok(())
    }

    /// An executable graph: the graph's operations.
    fn hipGraphInstantiate(
        pGraphExec: *mut hipGraphExec_t,
        graph: hipGraph_t,
        _pErrorNode: *mut hipGraphNode_t,
        _pLogBuffer: *mut c_char,
        _bufferSize: usize,
    ) {
        instantiate(pGraphExec, graph)
    }

    /// As [`hipGraphInstantiate`].
    fn hipGraphInstantiateWithFlags(pGraphExec: *mut hipGraphExec_t, graph: hipGraph_t, _flags: c_ulonglong) {
        instantiate(pGraphExec, graph)
    }

    /// Replays an executable graph's operations on a stream, in order.
    fn hipGraphLaunch(graphExec: hipGraphExec_t, stream: hipStream_t) {
        let g = rt().execs.get(graphExec as usize)?;
        for op in g.ops() {
            enqueue(stream, move || op())?;
        }
        Ok(())
    }

    /// Accepted: graphs need no upload.
    fn hipGraphUpload(graphExec: hipGraphExec_t, stream: hipStream_t) {
        rt().execs.get(graphExec as usize)?;
        self::stream(stream).map(drop)
    }

    /// Replaces an executable graph's operations with a graph's (the
    /// topology is a list here, so every update succeeds).
    fn hipGraphExecUpdate(
        hGraphExec: hipGraphExec_t,
        hGraph: hipGraph_t,
        hErrorNode_out: *mut hipGraphNode_t,
        updateResult_out: *mut hipGraphExecUpdateResult,
    ) {
        let r = rt();
        let exec = r.execs.get(hGraphExec as usize)?;
        let g = r.graphs.get(hGraph as usize)?;
        *lock(&exec.ops) = g.ops();
        // SAFETY: each is null (skipped) or a valid pointer of its type.
        unsafe {
            if !hErrorNode_out.is_null() {
                put(hErrorNode_out, std::ptr::null_mut(), "hErrorNode_out")?;
            }
            put(
                updateResult_out,
                hipGraphExecUpdateResult::hipGraphExecUpdateSuccess,
                "updateResult_out",
            )
        }
    }

    /// Destroys an executable graph.
    fn hipGraphExecDestroy(graphExec: hipGraphExec_t) {
        rt().execs.remove(graphExec as usize).map(drop)
    }

    /// Destroys a graph.
    fn hipGraphDestroy(graph: hipGraph_t) {
        rt().graphs.remove(graph as usize).map(drop)
    }

    /// The number of a graph's nodes (with `nodes` null); node handles
    /// are not supported.
    fn hipGraphGetNodes(graph: hipGraph_t, nodes: *mut hipGraphNode_t, numNodes: *mut usize) {
        let g = rt().graphs.get(graph as usize)?;
        if !nodes.is_null() {
            return unsupported("hipGraphGetNodes", " with a node array (graph nodes are not objects here)");
        }
        // SAFETY: `numNodes` is null or a valid `size_t*`.
        unsafe { put(numNodes, g.ops().len(), "numNodes") }
    }
}

fn instantiate(out: *mut hipGraphExec_t, graph: hipGraph_t) -> R {
    if out.is_null() {
        return invalid("`pGraphExec` is null");
    }
    let r = rt();
    let g = r.graphs.get(graph as usize)?;
    let h = r.execs.insert(Graph::new(g.ops()));
    // SAFETY: non-null and a valid `hipGraphExec_t*` by the contract.
    unsafe { put(out, h as hipGraphExec_t, "pGraphExec") }
}

/// The device of `stream` (the null stream: the current device's), or -1
/// when it is no stream: ROCm's extension, which rocRAND calls. It returns
/// the device, not a status, so no last error is set.
#[allow(non_snake_case, unreachable_pub)]
#[no_mangle]
pub extern "C" fn hipGetStreamDeviceId(stream: hipStream_t) -> c_int {
    std::panic::catch_unwind(|| self::stream(stream).map_or(-1, |s| s.device)).unwrap_or(-1)
}

//! Profiler ranges (cudarc's `profiler_start`, `profiler_stop`, `Profiler`)
//! over `hipProfilerStart`/`hipProfilerStop`: on the NVIDIA platform they
//! reach CUDA's profiler API (`nsys profile -c cudaProfilerApi`); on AMD,
//! ROCm's profilers honour them where they still do (ROCm deprecates them
//! in favour of roctx), and a runtime without them returns its error.

use crate::driver::result::{ours, DriverError};

/// Starts profile collection for the current context
/// (`hipProfilerStart`); a no-op when it is already on.
pub fn profiler_start() -> Result<(), DriverError> {
    hip::result::profiler_start().map_err(ours)
}

/// Stops profile collection for the current context (`hipProfilerStop`);
/// a no-op when it is already off.
pub fn profiler_stop() -> Result<(), DriverError> {
    hip::result::profiler_stop().map_err(ours)
}

/// Profile collection from [`Profiler::new`] until the value is dropped
/// (cudarc's `Profiler`). An error stopping it in drop is ignored, as in
/// cudarc: profiling is advisory. `Profiler::default()` starts nothing
/// and stops collection when dropped, as cudarc's derived one does.
#[derive(Debug, Default)]
pub struct Profiler;

impl Profiler {
    /// Starts profile collection ([`profiler_start`]).
    pub fn new() -> Result<Profiler, DriverError> {
        profiler_start()?;
        Ok(Profiler)
    }
}

impl Drop for Profiler {
    fn drop(&mut self) {
        // Advisory, and `Drop` never panics: the error is dropped.
        let _ = profiler_stop();
    }
}

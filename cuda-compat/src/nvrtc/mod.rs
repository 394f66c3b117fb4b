//! nvrtc over hiprtc, in cudarc's layout.
//!
//! The raw names (`nvrtcCreateProgram`, ...) are generated from
//! hipify-perl's table and reachable both here and at cudarc's path
//! ([`sys`]). The safe part is cudarc's: [`compile_ptx`],
//! [`compile_ptx_with_opts`], [`CompileOptions`], [`Ptx`], [`CompileError`].
//!
//! On AMD, "PTX" is a misnomer kept for source compatibility: [`compile_ptx`]
//! produces a code object for one gfx architecture, and [`Ptx`] records it
//! (see [`Ptx`] for what happens on a device of another architecture). On
//! the NVIDIA platform (`HIP_PLATFORM=nvidia`) hiprtc is nvrtc and the
//! output is PTX (or a CUBIN) as with cudarc.

mount_generated!("../generated/nvrtc.rs");

pub mod safe;
pub use safe::*;

pub mod result;

/// The raw nvrtc names at cudarc's path (`cudarc::nvrtc::sys`).
pub mod sys {
    pub use super::generated::*;
    culib_present!(
        "hiprtc",
        hip_sys::loader::runtime().is_ok_and(|rt| rt.is_available("hiprtcCreateProgram"))
    );
}

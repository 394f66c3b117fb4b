//! A software AMD GPU: an emulated HIP runtime with the C ABI of ROCm's
//! `libamdhip64.so`, executing real AMD code objects (gfx942 wave64,
//! gfx1100 wave32) on an ISA interpreter whose decoder and instruction
//! semantics are generated from AMD's machine-readable ISA.
//!
//! See the crate's README for how to use it and where the ISA data comes
//! from.

pub mod code_object;
pub mod hostcall;
pub mod isa;
pub mod memory;
pub mod runtime;

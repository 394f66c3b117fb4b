//! The NVIDIA platform backend: HIP's functions implemented over CUDA.
//!
//! Filled in by the NVIDIA backend work; until then no CUDA runtime is
//! opened and the platform reports itself as unavailable.

use crate::loader::{Attempt, Loaded};

pub(crate) fn load(attempts: &mut Vec<Attempt>) -> Option<Loaded> {
    attempts.push(Attempt {
        role: "CUDA runtime",
        candidate: "libcudart".into(),
        source: "NVIDIA backend".into(),
        outcome: Err("the NVIDIA backend is not part of this build yet".into()),
    });
    None
}

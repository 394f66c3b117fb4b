//! Criterion: CPU-side cost of a safe `hip` call against the raw `hip_sys`
//! call it wraps (stream query, event record); see
//! [`hip_benches::call_overhead`]. Also built as the binary `call_overhead`
//! for the GPU machine (no cargo there): run it with `--bench`.

use criterion::{criterion_group, criterion_main};

criterion_group!(benches, hip_benches::call_overhead);
criterion_main!(benches);

//! The criterion bench `call_overhead` as a plain binary, for the GPU
//! machine (no cargo there): `call_overhead --bench`.

use criterion::{criterion_group, criterion_main};

criterion_group!(benches, hip_benches::call_overhead);
criterion_main!(benches);

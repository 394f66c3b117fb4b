//! What cuda-compat's GPU test files share (`mod common;` in each).

use cuda_compat::driver::{CudaContext, CudaModule};
use cuda_compat::nvrtc::compile_ptx;
use std::sync::Arc;

/// Fresh values in [0.5, 2), from the test's printed seed.
pub(crate) fn random(n: usize) -> Vec<f32> {
    test_kit::random_nonzero(n, 0.5f32..2.0)
}

/// Device 0's context, with `kernels` (CUDA C++) compiled and loaded;
/// prints what serves the CUDA names first.
pub(crate) fn setup(kernels: &str) -> (Arc<CudaContext>, Arc<CudaModule>) {
    println!("{}", cuda_compat::backend_summary());
    let ctx = CudaContext::new(0).expect("a GPU");
    let module = ctx
        .load_module(compile_ptx(kernels).expect("kernels compile"))
        .expect("kernels load");
    (ctx, module)
}

//! What the examples share: finding enough GPUs, with a message that says
//! what was looked for when there are not enough (`gemm` and the multi-GPU
//! examples), and the element-wise kernels of the dense layers of
//! `pipeline`'s and `data_parallel`'s small models (compiled with hiprtc).
//!
//! Each example uses a part of it, hence `allow(dead_code)`.
#![allow(dead_code)]

use hip::{Device, DeviceSlice, DeviceSliceMut, LaunchConfig, Module, Stream, TypedKernel};
use std::sync::Arc;

/// Every visible device, or why there are fewer than `needed`: the runtime
/// that loaded (or why none did) and how many devices it reports.
pub(crate) fn devices(needed: usize) -> Result<Vec<Arc<Device>>, String> {
    let rt = hip_sys::loader::runtime().map_err(|e| {
        format!("looked for a HIP runtime (AMD ROCm, or CUDA with HIP_PLATFORM=nvidia):\n{e}")
    })?;
    let count = Device::count().unwrap_or(0);
    if count < needed {
        return Err(format!(
            "needs {needed} GPU(s), but the {} runtime {} loaded from {} reports {count}",
            rt.platform,
            rt.version,
            rt.libraries[0].path.display()
        ));
    }
    if let Err(e) = hipblas_sys::loader::hipblas() {
        return Err(format!("looked for hipBLAS:\n{e}"));
    }
    Device::all().map_err(|e| e.to_string())
}

/// `y[i] = f(y[i] + bias[i % rows])` over a column-major `rows x cols`
/// matrix; `f` is tanh or the identity (the last layer of a regression
/// model). The backward kernel gives the gradient through tanh from the
/// layer's output: `g[i] *= 1 - y[i]^2`.
const KERNELS: &str = r#"
extern "C" __global__ void bias_tanh(float* y, const float* bias, unsigned rows, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = tanhf(y[i] + bias[i % rows]);
}
extern "C" __global__ void bias_only(float* y, const float* bias, unsigned rows, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = y[i] + bias[i % rows];
}
extern "C" __global__ void tanh_backward(float* g, const float* y, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) g[i] = g[i] * (1.0f - y[i] * y[i]);
}
"#;

type BiasKernel = TypedKernel<(*mut f32, *const f32, u32, u32)>;

/// The element-wise kernels of a dense layer, compiled for one device.
pub(crate) struct LayerKernels {
    bias_tanh: BiasKernel,
    bias_only: BiasKernel,
    tanh_backward: TypedKernel<(*mut f32, *const f32, u32)>,
}

/// What follows a layer's GEMM.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Activation {
    /// `tanh(x + b)`
    Tanh,
    /// `x + b`
    Identity,
}

impl LayerKernels {
    /// Compiles the kernels for `device` (hiprtc).
    pub(crate) fn compile(device: &Arc<Device>) -> hip::Result<LayerKernels> {
        let module = Module::compile(device, KERNELS)?;
        // SAFETY: each parameter list matches its kernel's signature above.
        unsafe {
            Ok(LayerKernels {
                bias_tanh: TypedKernel::new(module.function("bias_tanh")?),
                bias_only: TypedKernel::new(module.function("bias_only")?),
                tanh_backward: TypedKernel::new(module.function("tanh_backward")?),
            })
        }
    }

    /// Adds `bias` (one value per row) to the column-major `y` and applies
    /// `act`, on `stream`.
    pub(crate) fn bias_act(
        &self,
        stream: &Stream,
        act: Activation,
        y: DeviceSliceMut<'_, f32>,
        bias: DeviceSlice<'_, f32>,
    ) -> Result<(), Box<dyn std::error::Error>> {
        let rows = bias.len();
        if rows == 0 || y.len() % rows != 0 {
            return Err(format!("{} elements are not columns of {rows}", y.len()).into());
        }
        let n = u32::try_from(y.len())?;
        let kernel = match act {
            Activation::Tanh => &self.bias_tanh,
            Activation::Identity => &self.bias_only,
        };
        // SAFETY: the kernel touches y[..n] and bias[i % rows] with
        // rows = bias.len(); n is y's length.
        unsafe {
            kernel.launch(
                stream,
                LaunchConfig::for_num_elems(n),
                (y, bias, rows as u32, n),
            )?
        };
        Ok(())
    }

    /// `g *= 1 - y^2` element-wise (the gradient through tanh, from the
    /// layer's output `y`), on `stream`.
    pub(crate) fn tanh_backward(
        &self,
        stream: &Stream,
        g: DeviceSliceMut<'_, f32>,
        y: DeviceSlice<'_, f32>,
    ) -> Result<(), Box<dyn std::error::Error>> {
        if g.len() != y.len() {
            return Err(format!("gradient of {} elements, output of {}", g.len(), y.len()).into());
        }
        let n = u32::try_from(g.len())?;
        // SAFETY: the kernel touches g[..n] and y[..n]; both have n elements.
        unsafe {
            self.tanh_backward
                .launch(stream, LaunchConfig::for_num_elems(n), (g, y, n))?
        };
        Ok(())
    }
}

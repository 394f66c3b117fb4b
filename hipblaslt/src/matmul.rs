//! [`LtHandle`]: a hipBLASLt handle on one stream, the workspace it owns,
//! and the plans (descriptors, layouts and the heuristic's algorithm) it
//! keeps per problem.

use crate::error::DROP_ERRORS;
use crate::error::{Error, Result};
use crate::layout::{check_bias, resolve, Activation, MatmulConfig, Resolved};
use crate::result;
use hip::{AccessEvents, DeviceBuffer, DeviceMemory, DeviceMemoryMut, Stream};
use hipblaslt_sys::{
    hipDataType, hipblasComputeType_t, hipblasLtEpilogue_t, hipblasLtHandle_t,
    hipblasLtMatmulAlgo_t, hipblasLtMatmulDescAttributes_t, hipblasLtMatmulDesc_t,
    hipblasLtMatrixLayoutAttribute_t, hipblasLtMatrixLayout_t, hipblasOperation_t,
};
use std::collections::HashMap;
use std::ffi::c_void;

/// The operation named in errors.
const MATMUL: &str = "LtHandle::matmul";

/// The most workspace the heuristic may ask for: 32 MiB, what cuBLASLt
/// advises for Hopper and more than hipBLASLt's kernels use for these
/// epilogues. The handle allocates only what the chosen algorithm needs.
pub const MAX_WORKSPACE: usize = 32 << 20;

/// The element types hipBLASLt multiplies here: `f32`, and `f16`/`bf16`
/// with `f32` accumulation. `A`, `B`, `C`/`D` and the bias are all `T`; the
/// scalars are `f32`.
pub trait LtElement: hip::Element {
    /// The type's `hipDataType`.
    const DATA_TYPE: hipDataType;
}

impl LtElement for f32 {
    const DATA_TYPE: hipDataType = hipDataType::HIP_R_32F;
}
impl LtElement for half::f16 {
    const DATA_TYPE: hipDataType = hipDataType::HIP_R_16F;
}
impl LtElement for half::bf16 {
    const DATA_TYPE: hipDataType = hipDataType::HIP_R_16BF;
}

/// The epilogue of a matmul: an optional bias (one value per output row in
/// column-major order, per output column in row-major order; see
/// [`Order`](crate::Order)) added first, then the activation.
#[derive(Clone, Copy)]
pub struct Epilogue<'a, T: LtElement> {
    bias: Option<&'a dyn DeviceMemory<T>>,
    activation: Activation,
}

impl<T: LtElement> std::fmt::Debug for Epilogue<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Epilogue")
            .field("bias_len", &self.bias.map(|b| b.len()))
            .field("activation", &self.activation)
            .finish()
    }
}

impl<'a, T: LtElement> Epilogue<'a, T> {
    /// No bias, no activation.
    pub fn none() -> Self {
        Epilogue {
            bias: None,
            activation: Activation::None,
        }
    }

    /// `activation` without a bias.
    pub fn activation(activation: Activation) -> Self {
        Epilogue {
            bias: None,
            activation,
        }
    }

    /// Adds `bias` before the activation.
    pub fn with_bias(mut self, bias: &'a dyn DeviceMemory<T>) -> Self {
        self.bias = Some(bias);
        self
    }

    /// The hipBLASLt epilogue.
    fn kind(&self) -> hipblasLtEpilogue_t {
        use hipblasLtEpilogue_t as E;
        match (self.bias.is_some(), self.activation) {
            (false, Activation::None) => E::HIPBLASLT_EPILOGUE_DEFAULT,
            (false, Activation::Relu) => E::HIPBLASLT_EPILOGUE_RELU,
            (false, Activation::Gelu) => E::HIPBLASLT_EPILOGUE_GELU,
            (true, Activation::None) => E::HIPBLASLT_EPILOGUE_BIAS,
            (true, Activation::Relu) => E::HIPBLASLT_EPILOGUE_RELU_BIAS,
            (true, Activation::Gelu) => E::HIPBLASLT_EPILOGUE_GELU_BIAS,
        }
    }
}

/// What a plan is made for: the resolved problem, the element type and
/// the epilogue.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct PlanKey {
    problem: Resolved,
    data_type: u32,
    epilogue: u32,
}

/// hipBLASLt's descriptors for one problem and the algorithm the heuristic
/// chose, destroyed with the handle.
struct Plan {
    desc: hipblasLtMatmulDesc_t,
    a: hipblasLtMatrixLayout_t,
    b: hipblasLtMatrixLayout_t,
    c: hipblasLtMatrixLayout_t,
    algo: hipblasLtMatmulAlgo_t,
    workspace: usize,
}

impl Plan {
    /// Destroys the descriptors, recording failures.
    fn destroy(&self) {
        // SAFETY: each was made once for this plan and is destroyed once,
        // here (plans are dropped only by the handle's `Drop`).
        let results = unsafe {
            [
                result::desc_destroy(self.desc),
                result::layout_destroy(self.a),
                result::layout_destroy(self.b),
                result::layout_destroy(self.c),
            ]
        };
        for r in results {
            if let Err(e) = r {
                DROP_ERRORS.record_error(e);
            }
        }
    }
}

/// A hipBLASLt handle whose matmuls run on one stream.
///
/// [`LtHandle::matmul`] checks the problem and the buffers, then (the
/// first time it sees the problem) creates its descriptors and asks the
/// heuristic for the best algorithm within [`MAX_WORKSPACE`]; the plan is
/// kept, so repeating a problem costs one `hipblasLtMatmul`. The workspace
/// the chosen algorithms need is allocated by the handle, grown when a
/// plan needs more, and freed with it.
///
/// ```no_run
/// # fn main() -> hipblaslt::Result<()> {
/// use hipblaslt::{Activation, Epilogue, LtHandle, MatmulConfig, Order};
/// let device = hip::Device::get(0)?;
/// let stream = hip::Stream::new(&device)?;
/// let mut lt = LtHandle::new(&stream)?;
/// // y (4 x 3) = gelu(x (4 x 2) * w^T (2 x 3) + b), row-major like F.linear.
/// let x = stream.clone_htod(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0])?;
/// let w = stream.clone_htod(&[0.5f32, -1.0, 1.0, 0.0, 0.25, 0.25])?;
/// let b = stream.clone_htod(&[0.1f32, 0.2, 0.3])?;
/// let mut y = hip::DeviceBuffer::<f32>::zeroed(&device, 12)?;
/// let mut cfg = MatmulConfig::new(4, 3, 2, Order::RowMajor);
/// cfg.transb = true;
/// lt.matmul(&cfg, &x, &w, &mut y, Epilogue::activation(Activation::Gelu).with_bias(&b))?;
/// let y = stream.clone_dtoh(&y)?;
/// # Ok(()) }
/// ```
pub struct LtHandle {
    raw: hipblasLtHandle_t,
    stream: Stream,
    plans: HashMap<PlanKey, Plan>,
    workspace: Option<DeviceBuffer<u8>>,
}

// SAFETY: a hipBLASLt handle may be used from any host thread, one at a
// time; every use takes `&mut self`, so `LtHandle` moves between threads
// but is not shared (no `Sync`). The raw descriptors are owned by it alone.
unsafe impl Send for LtHandle {}

impl std::fmt::Debug for LtHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LtHandle")
            .field("device", &self.stream.device().ordinal())
            .field("plans", &self.plans.len())
            .field("workspace_bytes", &self.workspace_bytes())
            .finish_non_exhaustive()
    }
}

impl Drop for LtHandle {
    fn drop(&mut self) {
        if let Err(e) = self.stream.device().bind() {
            DROP_ERRORS.record_error(Error::Runtime(e));
        }
        for plan in self.plans.values() {
            plan.destroy();
        }
        let raw = hip::SendPtr(self.raw);
        self.stream.device().release_outside_captures(move |held| {
            // SAFETY: made by `hipblasLtCreate`, destroyed once, here; its
            // plans are destroyed above.
            if let Err(e) = unsafe { result::destroy(raw.get(), held) } {
                DROP_ERRORS.record_error(e);
            }
        });
    }
}

impl LtHandle {
    /// A handle on `stream`'s device whose matmuls are enqueued on
    /// `stream`.
    pub fn new(stream: &Stream) -> Result<LtHandle> {
        result::library()?;
        let held = stream.device().hold_captures("LtHandle::new")?;
        stream.device().bind()?;
        Ok(LtHandle {
            raw: result::create(&held)?,
            stream: stream.clone(),
            plans: HashMap::new(),
            workspace: None,
        })
    }

    /// The stream matmuls are enqueued on.
    pub fn stream(&self) -> &Stream {
        &self.stream
    }

    /// The raw handle (owned by `self`).
    pub fn as_raw(&self) -> hipblasLtHandle_t {
        self.raw
    }

    /// The bytes of workspace the handle holds (0 until an algorithm needs
    /// some).
    pub fn workspace_bytes(&self) -> usize {
        self.workspace.as_ref().map_or(0, |w| w.len())
    }

    /// `D = act(alpha * op(A) * op(B) + beta * C + bias)` into `c`, on the
    /// handle's stream (the call returns without waiting).
    ///
    /// Checked before hipBLASLt is called ([`Error::Invalid`]): the sizes
    /// (at least 1, 32-bit), the leading dimensions and batch strides
    /// against the stored shapes, each buffer's length against what the
    /// layout reaches, the bias length, and that every buffer is on the
    /// stream's device. [`Error::Unsupported`] when the library has no
    /// algorithm for the problem.
    pub fn matmul<T: LtElement>(
        &mut self,
        cfg: &MatmulConfig,
        a: &impl DeviceMemory<T>,
        b: &impl DeviceMemory<T>,
        c: &mut impl DeviceMemoryMut<T>,
        epilogue: Epilogue<'_, T>,
    ) -> Result<()> {
        let problem = resolve(MATMUL, cfg)?;
        let device = self.stream.device().ordinal();
        // A row-major problem runs with A and B swapped (layout.rs).
        let (need_a, need_b) = if problem.swapped {
            (problem.b.needed, problem.a.needed)
        } else {
            (problem.a.needed, problem.b.needed)
        };
        check_buffer::<T>("A", a.len(), a.device().ordinal(), need_a, device)?;
        check_buffer::<T>("B", b.len(), b.device().ordinal(), need_b, device)?;
        check_buffer::<T>("C", c.len(), c.device().ordinal(), problem.c.needed, device)?;
        if let Some(bias) = epilogue.bias {
            check_bias(MATMUL, cfg, &problem, bias.len())?;
            check_buffer::<T>(
                "bias",
                bias.len(),
                bias.device().ordinal(),
                problem.bias_len,
                device,
            )?;
        }
        self.stream.device().bind()?;
        let key = PlanKey {
            problem,
            data_type: T::DATA_TYPE.0,
            epilogue: epilogue.kind().0,
        };
        if !self.plans.contains_key(&key) {
            let plan = self.make_plan::<T>(&problem, epilogue.kind())?;
            self.plans.insert(key, plan);
        }
        let plan = &self.plans[&key];
        if self.workspace_bytes() < plan.workspace {
            // Grown to what the plan needs; the old one is freed in stream
            // order after the matmuls that used it.
            self.workspace = Some(self.stream.alloc::<u8>(plan.workspace)?);
        }
        let plan = &self.plans[&key];
        let bias_ptr = epilogue
            .bias
            .map_or(std::ptr::null(), |b| b.device_ptr().cast::<c_void>());
        if epilogue.bias.is_some() {
            // SAFETY: a live descriptor; the bias pointer's C type is
            // `void*`, and the bias was checked to hold `bias_len` elements
            // on this device; it is set before every matmul that uses it.
            unsafe {
                result::desc_set(
                    plan.desc,
                    hipblasLtMatmulDescAttributes_t::HIPBLASLT_MATMUL_DESC_BIAS_POINTER,
                    bias_ptr,
                )
            }?;
        }
        let (pa, pb) = if problem.swapped {
            (
                b.device_ptr().cast::<c_void>(),
                a.device_ptr().cast::<c_void>(),
            )
        } else {
            (
                a.device_ptr().cast::<c_void>(),
                b.device_ptr().cast::<c_void>(),
            )
        };
        let mut reads: Vec<&AccessEvents> = vec![a.access_events(), b.access_events()];
        if let Some(bias) = epilogue.bias {
            reads.push(bias.access_events());
        }
        let mut writes: Vec<&AccessEvents> = Vec::new();
        let (ws_ptr, ws_len) = match &mut self.workspace {
            Some(w) if plan.workspace > 0 => {
                let len = w.len();
                (w.device_ptr_mut().cast::<c_void>(), len)
            }
            _ => (std::ptr::null_mut(), 0),
        };
        if let (Some(w), true) = (&self.workspace, plan.workspace > 0) {
            writes.push(w.access_events());
        }
        let c_ptr = c.device_ptr_mut().cast::<c_void>();
        writes.push(c.access_events());
        let raw = self.raw;
        let stream = self.stream.as_raw();
        let (desc, la, lb, lc, algo) = (plan.desc, plan.a, plan.b, plan.c, plan.algo);
        let (alpha, beta) = (cfg.alpha, cfg.beta);
        self.stream.enqueue_tracked(&reads, &writes, || {
            // SAFETY: live handle and descriptors of this problem; every
            // buffer was checked above to hold what its layout reaches, on
            // the stream's device; the workspace holds `ws_len` bytes, at
            // least what the algorithm needs; tracking keeps the buffers'
            // other streams ordered with this one.
            unsafe {
                result::matmul(
                    raw, desc, alpha, pa, la, pb, lb, beta, c_ptr, lc, &algo, ws_ptr, ws_len,
                    stream,
                )
            }
        })
    }

    /// Creates the descriptors of `p` and asks the heuristic for its best
    /// algorithm.
    fn make_plan<T: LtElement>(&self, p: &Resolved, epilogue: hipblasLtEpilogue_t) -> Result<Plan> {
        let desc = result::desc_create(
            hipblasComputeType_t::HIPBLAS_COMPUTE_32F,
            hipDataType::HIP_R_32F,
        )?;
        let mut plan = Plan {
            desc,
            a: std::ptr::null_mut(),
            b: std::ptr::null_mut(),
            c: std::ptr::null_mut(),
            algo: hipblasLtMatmulAlgo_t::default(),
            workspace: 0,
        };
        let made = (|| -> Result<()> {
            let op = |t: bool| {
                if t {
                    hipblasOperation_t::HIPBLAS_OP_T
                } else {
                    hipblasOperation_t::HIPBLAS_OP_N
                }
            };
            // SAFETY: a live descriptor; TRANSA/TRANSB are int32_t,
            // EPILOGUE uint32_t, BIAS_DATA_TYPE int32_t (hipDataType).
            unsafe {
                result::desc_set(
                    desc,
                    hipblasLtMatmulDescAttributes_t::HIPBLASLT_MATMUL_DESC_TRANSA,
                    op(p.transa).0 as i32,
                )?;
                result::desc_set(
                    desc,
                    hipblasLtMatmulDescAttributes_t::HIPBLASLT_MATMUL_DESC_TRANSB,
                    op(p.transb).0 as i32,
                )?;
                result::desc_set(
                    desc,
                    hipblasLtMatmulDescAttributes_t::HIPBLASLT_MATMUL_DESC_EPILOGUE,
                    epilogue.0,
                )?;
                if matches!(
                    epilogue,
                    hipblasLtEpilogue_t::HIPBLASLT_EPILOGUE_BIAS
                        | hipblasLtEpilogue_t::HIPBLASLT_EPILOGUE_RELU_BIAS
                        | hipblasLtEpilogue_t::HIPBLASLT_EPILOGUE_GELU_BIAS
                ) {
                    result::desc_set(
                        desc,
                        hipblasLtMatmulDescAttributes_t::HIPBLASLT_MATMUL_DESC_BIAS_DATA_TYPE,
                        T::DATA_TYPE.0 as i32,
                    )?;
                }
            }
            let layout = |o: &crate::layout::Operand| -> Result<hipblasLtMatrixLayout_t> {
                let l = result::layout_create(T::DATA_TYPE, o.rows, o.cols, o.ld)?;
                if p.batch > 1 {
                    // SAFETY: a live layout; BATCH_COUNT is int32_t,
                    // STRIDED_BATCH_OFFSET int64_t.
                    let set = unsafe {
                        result::layout_set(l, hipblasLtMatrixLayoutAttribute_t::HIPBLASLT_MATRIX_LAYOUT_BATCH_COUNT, p.batch)
                            .and_then(|()| result::layout_set(l, hipblasLtMatrixLayoutAttribute_t::HIPBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, o.stride))
                    };
                    if let Err(e) = set {
                        // SAFETY: made just above, destroyed once.
                        let _ = unsafe { result::layout_destroy(l) };
                        return Err(e);
                    }
                }
                Ok(l)
            };
            plan.a = layout(&p.a)?;
            plan.b = layout(&p.b)?;
            plan.c = layout(&p.c)?;
            let pref = result::preference_create()?;
            // SAFETY: live handle, descriptors and preference; the
            // preference is destroyed once, below.
            let found = unsafe {
                result::preference_set_max_workspace(pref, MAX_WORKSPACE as u64).and_then(|()| {
                    result::heuristic(self.raw, desc, plan.a, plan.b, plan.c, plan.c, pref, 1)
                })
            };
            // SAFETY: made above, destroyed once.
            let destroyed = unsafe { result::preference_destroy(pref) };
            let found = found?;
            destroyed?;
            let best = found.first().ok_or_else(|| {
                Error::unsupported(
                    MATMUL,
                    format!(
                        "the library has no algorithm for this {} matmul (m {}, n {}, k {}, batch {}, epilogue {:?})",
                        T::NAME, p.m, p.n, p.k, p.batch, epilogue
                    ),
                )
            })?;
            plan.algo = best.algo;
            plan.workspace = best.workspaceSize;
            Ok(())
        })();
        match made {
            Ok(()) => Ok(plan),
            Err(e) => {
                // SAFETY: whatever was made is destroyed once.
                unsafe {
                    let _ = result::desc_destroy(plan.desc);
                    for l in [plan.a, plan.b, plan.c] {
                        if !l.is_null() {
                            let _ = result::layout_destroy(l);
                        }
                    }
                }
                Err(e)
            }
        }
    }
}

/// One buffer's rules: on the stream's device, and at least `needed`
/// elements.
fn check_buffer<T: LtElement>(
    name: &str,
    len: usize,
    device: usize,
    needed: usize,
    stream_device: usize,
) -> Result<()> {
    if device != stream_device {
        return Err(Error::invalid(
            MATMUL,
            format!("{name} is on device {device}, the handle's stream on device {stream_device}"),
        ));
    }
    if len < needed {
        return Err(Error::invalid(
            MATMUL,
            format!(
                "{name} has {len} {} elements; its layout reaches {needed}",
                T::NAME
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_checked_by_device_and_length() {
        let e = check_buffer::<f32>("A", 10, 1, 10, 0)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("A is on device 1") && e.contains("device 0"),
            "{e}"
        );
        let e = check_buffer::<half::f16>("C", 9, 0, 10, 0)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("C has 9 f16 elements; its layout reaches 10"),
            "{e}"
        );
        assert!(check_buffer::<f32>("B", 10, 0, 10, 0).is_ok());
    }

    #[test]
    fn epilogues_pick_hipblaslts() {
        use hipblasLtEpilogue_t as E;
        assert_eq!(
            Epilogue::<f32>::none().kind(),
            E::HIPBLASLT_EPILOGUE_DEFAULT
        );
        assert_eq!(
            Epilogue::<f32>::activation(Activation::Relu).kind(),
            E::HIPBLASLT_EPILOGUE_RELU
        );
        assert_eq!(
            Epilogue::<f32>::activation(Activation::Gelu).kind(),
            E::HIPBLASLT_EPILOGUE_GELU
        );
    }
}

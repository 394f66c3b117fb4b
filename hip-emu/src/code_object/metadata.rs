//! The kernel metadata of a code object: the MessagePack map in its
//! `NT_AMDGPU_METADATA` note (LLVM AMDGPUUsage, "Code Object V3 Metadata"
//! and its V4/V5 additions): `amdhsa.kernels`, one map per kernel.

use super::msgpack::Value;
use super::Error;

/// One kernel of a code object, as its metadata describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelInfo {
    /// The kernel's name (`.name`), what `hipModuleGetFunction` takes.
    pub name: String,
    /// The kernel descriptor's symbol (`.symbol`, `NAME.kd`).
    pub symbol: String,
    /// The value of the descriptor symbol: the 64-byte kernel descriptor's
    /// offset from the load base.
    pub descriptor_offset: u64,
    /// Bytes of the kernarg segment, hidden arguments included
    /// (`.kernarg_segment_size`).
    pub kernarg_size: u32,
    /// The kernarg segment's alignment (`.kernarg_segment_align`).
    pub kernarg_align: u32,
    /// The arguments, explicit and hidden, in the metadata's order.
    pub args: Vec<KernelArg>,
    /// Static LDS bytes per workgroup (`.group_segment_fixed_size`).
    pub group_segment_fixed_size: u32,
    /// Scratch bytes per work-item (`.private_segment_fixed_size`).
    pub private_segment_fixed_size: u32,
    /// SGPRs per wave (`.sgpr_count`).
    pub sgpr_count: u32,
    /// VGPRs per work-item (`.vgpr_count`).
    pub vgpr_count: u32,
    /// AGPRs per work-item (`.agpr_count`; 0 when absent).
    pub agpr_count: u32,
    /// SGPRs spilled (`.sgpr_spill_count`; 0 when absent).
    pub sgpr_spill_count: u32,
    /// VGPRs spilled (`.vgpr_spill_count`; 0 when absent).
    pub vgpr_spill_count: u32,
    /// The largest workgroup the kernel supports
    /// (`.max_flat_workgroup_size`).
    pub max_flat_workgroup_size: u32,
    /// Work-items per wave (`.wavefront_size`): 64 or 32.
    pub wavefront_size: u32,
    /// Whether the stack grows at run time (`.uses_dynamic_stack`, v5;
    /// `false` when absent).
    pub uses_dynamic_stack: bool,
}

impl KernelInfo {
    /// The explicit (non-hidden) arguments, in order: what a launch passes.
    pub fn explicit_args(&self) -> impl Iterator<Item = &KernelArg> {
        self.args.iter().filter(|a| !a.kind.is_hidden())
    }

    /// The size of the explicit part of the kernarg segment: the end of
    /// the last explicit argument (0 when there is none).
    pub fn explicit_size(&self) -> u32 {
        self.explicit_args()
            .map(|a| a.offset.saturating_add(a.size))
            .max()
            .unwrap_or(0)
    }
}

/// One kernel argument (an entry of `.args`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelArg {
    /// Its byte offset in the kernarg segment (`.offset`).
    pub offset: u32,
    /// Its size in bytes (`.size`).
    pub size: u32,
    /// What it is (`.value_kind`).
    pub kind: ArgKind,
    /// Its source name (`.name`), when the compiler wrote one.
    pub name: Option<String>,
}

/// What an argument is: `.value_kind`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArgKind {
    /// `by_value`: the bytes of a value the launch passes.
    ByValue,
    /// `global_buffer`: a pointer to global memory.
    GlobalBuffer,
    /// `dynamic_shared_pointer`: a pointer to dynamically sized LDS.
    DynamicSharedPointer,
    /// `image`: an image handle.
    Image,
    /// `sampler`: a sampler handle.
    Sampler,
    /// `pipe`: a pipe pointer.
    Pipe,
    /// `queue`: a device-enqueue queue pointer.
    Queue,
    /// An argument the runtime fills, not the launch.
    Hidden(HiddenArg),
}

impl ArgKind {
    /// Whether the runtime fills it.
    pub fn is_hidden(&self) -> bool {
        matches!(self, ArgKind::Hidden(_))
    }

    /// The kind a `.value_kind` string names; `None` for an unknown
    /// explicit kind (an unknown `hidden_*` kind is [`HiddenArg::Other`]).
    pub fn from_value_kind(kind: &str) -> Option<ArgKind> {
        use HiddenArg as H;
        Some(match kind {
            "by_value" => ArgKind::ByValue,
            "global_buffer" => ArgKind::GlobalBuffer,
            "dynamic_shared_pointer" => ArgKind::DynamicSharedPointer,
            "image" => ArgKind::Image,
            "sampler" => ArgKind::Sampler,
            "pipe" => ArgKind::Pipe,
            "queue" => ArgKind::Queue,
            _ => ArgKind::Hidden(match kind {
                "hidden_block_count_x" => H::BlockCountX,
                "hidden_block_count_y" => H::BlockCountY,
                "hidden_block_count_z" => H::BlockCountZ,
                "hidden_group_size_x" => H::GroupSizeX,
                "hidden_group_size_y" => H::GroupSizeY,
                "hidden_group_size_z" => H::GroupSizeZ,
                "hidden_remainder_x" => H::RemainderX,
                "hidden_remainder_y" => H::RemainderY,
                "hidden_remainder_z" => H::RemainderZ,
                "hidden_global_offset_x" => H::GlobalOffsetX,
                "hidden_global_offset_y" => H::GlobalOffsetY,
                "hidden_global_offset_z" => H::GlobalOffsetZ,
                "hidden_grid_dims" => H::GridDims,
                "hidden_dynamic_lds_size" => H::DynamicLdsSize,
                "hidden_private_base" => H::PrivateBase,
                "hidden_shared_base" => H::SharedBase,
                "hidden_queue_ptr" => H::QueuePtr,
                "hidden_printf_buffer" => H::PrintfBuffer,
                "hidden_hostcall_buffer" => H::HostcallBuffer,
                "hidden_multigrid_sync_arg" => H::MultigridSyncArg,
                "hidden_heap_v1" => H::HeapV1,
                "hidden_default_queue" => H::DefaultQueue,
                "hidden_completion_action" => H::CompletionAction,
                "hidden_none" => H::None,
                other if other.starts_with("hidden_") => H::Other(other.to_owned()),
                _ => return None,
            }),
        })
    }
}

/// A hidden argument: one the runtime fills (`hidden_*` value kinds).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HiddenArg {
    /// `hidden_block_count_x`: workgroups in x.
    BlockCountX,
    /// `hidden_block_count_y`.
    BlockCountY,
    /// `hidden_block_count_z`.
    BlockCountZ,
    /// `hidden_group_size_x`: work-items per workgroup in x.
    GroupSizeX,
    /// `hidden_group_size_y`.
    GroupSizeY,
    /// `hidden_group_size_z`.
    GroupSizeZ,
    /// `hidden_remainder_x`: work-items in the partial last workgroup.
    RemainderX,
    /// `hidden_remainder_y`.
    RemainderY,
    /// `hidden_remainder_z`.
    RemainderZ,
    /// `hidden_global_offset_x`: the grid's offset (OpenCL).
    GlobalOffsetX,
    /// `hidden_global_offset_y`.
    GlobalOffsetY,
    /// `hidden_global_offset_z`.
    GlobalOffsetZ,
    /// `hidden_grid_dims`: the launch's number of dimensions.
    GridDims,
    /// `hidden_dynamic_lds_size`: dynamic LDS bytes of the launch.
    DynamicLdsSize,
    /// `hidden_private_base`: the high 32 bits of the private aperture.
    PrivateBase,
    /// `hidden_shared_base`: the high 32 bits of the shared (LDS) aperture.
    SharedBase,
    /// `hidden_queue_ptr`: the AQL queue.
    QueuePtr,
    /// `hidden_printf_buffer`.
    PrintfBuffer,
    /// `hidden_hostcall_buffer`.
    HostcallBuffer,
    /// `hidden_multigrid_sync_arg`.
    MultigridSyncArg,
    /// `hidden_heap_v1`: device `malloc`'s heap.
    HeapV1,
    /// `hidden_default_queue`.
    DefaultQueue,
    /// `hidden_completion_action`.
    CompletionAction,
    /// `hidden_none`: padding the runtime leaves zero.
    None,
    /// A `hidden_*` kind this reader does not know; filled with zeros.
    Other(String),
}

/// The kernels of a metadata map (the note's decoded MessagePack). Their
/// `descriptor_offset` is left 0, for the caller to resolve from `symbol`.
pub(super) fn kernels(root: &Value) -> Result<Vec<KernelInfo>, Error> {
    let list = match root.get("amdhsa.kernels") {
        Some(v) => v.as_array().ok_or_else(|| {
            meta(
                None,
                format!("`amdhsa.kernels` is {}, not an array", v.kind()),
            )
        })?,
        None => {
            return Err(meta(
                None,
                match root {
                    Value::Map(_) => "no `amdhsa.kernels` list".to_owned(),
                    other => format!("the metadata is {}, not a map", other.kind()),
                },
            ))
        }
    };
    list.iter().enumerate().map(|(i, k)| kernel(i, k)).collect()
}

/// The largest kernarg segment accepted. Real kernels stay within a few
/// KiB; the cap keeps a corrupt size from costing a launch gigabytes.
const MAX_KERNARG_SIZE: u32 = 1 << 20;

fn meta(kernel: Option<&str>, reason: String) -> Error {
    Error::Metadata {
        kernel: kernel.map(str::to_owned),
        reason,
    }
}

fn kernel(index: usize, map: &Value) -> Result<KernelInfo, Error> {
    if !matches!(map, Value::Map(_)) {
        return Err(meta(
            None,
            format!(
                "entry {index} of `amdhsa.kernels` is {}, not a map",
                map.kind()
            ),
        ));
    }
    let name = string(map, ".name").map_err(|r| meta(None, format!("kernel {index}: {r}")))?;
    let k = Some(name.as_str());
    let err = |r: String| meta(k, r);
    let req = |key: &str| u32_field(map, key).and_then(|v| v.ok_or(format!("no `{key}`")));
    let opt = |key: &str| u32_field(map, key).map(|v| v.unwrap_or(0));

    let kernarg_size = req(".kernarg_segment_size").map_err(err)?;
    if kernarg_size > MAX_KERNARG_SIZE {
        return Err(err(format!(
            "`.kernarg_segment_size` is {kernarg_size} bytes, more than the {MAX_KERNARG_SIZE} \
             this reader accepts"
        )));
    }
    let mut args = Vec::new();
    if let Some(list) = map.get(".args") {
        let list = list
            .as_array()
            .ok_or_else(|| err(format!("`.args` is {}, not an array", list.kind())))?;
        for (i, a) in list.iter().enumerate() {
            let arg = arg(a).map_err(|r| err(format!("argument {i}: {r}")))?;
            if u64::from(arg.offset) + u64::from(arg.size) > u64::from(kernarg_size) {
                return Err(err(format!(
                    "argument {i} (offset {}, {} bytes) ends past the kernarg segment's {} bytes",
                    arg.offset, arg.size, kernarg_size
                )));
            }
            args.push(arg);
        }
    }
    let uses_dynamic_stack = match map.get(".uses_dynamic_stack") {
        None => false,
        Some(v) => v.as_bool().ok_or_else(|| {
            err(format!(
                "`.uses_dynamic_stack` is {}, not a boolean",
                v.kind()
            ))
        })?,
    };
    let wavefront_size = req(".wavefront_size").map_err(err)?;
    if wavefront_size != 32 && wavefront_size != 64 {
        return Err(err(format!(
            "`.wavefront_size` is {wavefront_size}, not 32 or 64"
        )));
    }
    Ok(KernelInfo {
        symbol: string(map, ".symbol").map_err(err)?,
        descriptor_offset: 0,
        kernarg_size,
        kernarg_align: req(".kernarg_segment_align").map_err(err)?,
        args,
        group_segment_fixed_size: req(".group_segment_fixed_size").map_err(err)?,
        private_segment_fixed_size: req(".private_segment_fixed_size").map_err(err)?,
        sgpr_count: req(".sgpr_count").map_err(err)?,
        vgpr_count: req(".vgpr_count").map_err(err)?,
        agpr_count: opt(".agpr_count").map_err(err)?,
        sgpr_spill_count: opt(".sgpr_spill_count").map_err(err)?,
        vgpr_spill_count: opt(".vgpr_spill_count").map_err(err)?,
        max_flat_workgroup_size: req(".max_flat_workgroup_size").map_err(err)?,
        wavefront_size,
        uses_dynamic_stack,
        name,
    })
}

fn arg(map: &Value) -> Result<KernelArg, String> {
    if !matches!(map, Value::Map(_)) {
        return Err(format!("{}, not a map", map.kind()));
    }
    let req = |key: &str| u32_field(map, key).and_then(|v| v.ok_or(format!("no `{key}`")));
    let kind_name = string(map, ".value_kind")?;
    let kind = ArgKind::from_value_kind(&kind_name)
        .ok_or_else(|| format!("`.value_kind` {kind_name:?} is not a kind this reader knows"))?;
    let name = match map.get(".name") {
        None => None,
        Some(v) => Some(
            v.as_str()
                .ok_or_else(|| format!("`.name` is {}, not a string", v.kind()))?
                .to_owned(),
        ),
    };
    Ok(KernelArg {
        offset: req(".offset")?,
        size: req(".size")?,
        kind,
        name,
    })
}

fn string(map: &Value, key: &str) -> Result<String, String> {
    match map.get(key) {
        None => Err(format!("no `{key}`")),
        Some(v) => v
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| format!("`{key}` is {}, not a string", v.kind())),
    }
}

/// `map[key]` as a u32; `Ok(None)` when absent.
fn u32_field(map: &Value, key: &str) -> Result<Option<u32>, String> {
    match map.get(key) {
        None => Ok(None),
        Some(v) => match v.as_int() {
            Some(i) => u32::try_from(i)
                .map(Some)
                .map_err(|_| format!("`{key}` is {i}, outside 0..=4294967295")),
            None => Err(format!("`{key}` is {}, not an integer", v.kind())),
        },
    }
}

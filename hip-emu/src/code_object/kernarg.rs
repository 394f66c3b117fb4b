//! The kernarg segment of one launch: explicit arguments where the
//! metadata puts them, hidden arguments filled as HIP's runtime (CLR)
//! fills them for a HIP launch.

use super::metadata::{ArgKind, HiddenArg, KernelInfo};
use super::Error;
use crate::isa::{NO_SERVICE_BASE, NO_SERVICE_STRIDE, PRIVATE_APERTURE_BASE, SHARED_APERTURE_BASE};

/// The shape of one launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchDims {
    /// Workgroups in x, y, z (HIP's grid, `gridDim`).
    pub grid: [u32; 3],
    /// Work-items per workgroup in x, y, z (`blockDim`).
    pub block: [u32; 3],
    /// Dynamic LDS bytes (`sharedMemBytes`).
    pub dynamic_lds: u32,
}

/// HIP builds every launch's NDRange with 3 dimensions (CLR's
/// `hipModuleLaunchKernel` and `hipLaunchKernel` paths construct
/// `NDRangeContainer(3, ...)`), and CLR writes that count to
/// `hidden_grid_dims`.
const HIP_GRID_DIMS: u64 = 3;

/// The kernarg segment for one launch: `info.kernarg_size` bytes, the
/// explicit arguments from `explicit` (one slice per explicit argument, in
/// the metadata's order, each exactly the argument's size) and the hidden
/// ones from `dims`:
///
/// - block counts = `dims.grid`, group sizes = `dims.block`;
/// - remainders 0 (HIP launches whole workgroups), global offsets 0;
/// - grid dims 3 (HIP always launches a 3-dimensional NDRange);
/// - dynamic LDS size = `dims.dynamic_lds`;
/// - private / shared base = the high 32 bits of
///   [`PRIVATE_APERTURE_BASE`] / [`SHARED_APERTURE_BASE`] (AMDGPUUsage:
///   these hidden arguments hold the aperture's high half);
/// - hostcall, printf, heap and multigrid: an address in
///   [`NO_SERVICE_BASE`]'s unmapped range, so that a service's use faults
///   naming it (the runtime then puts its hostcall buffer, which device
///   `printf` uses, over `hidden_hostcall_buffer`: [`crate::hostcall`]);
/// - every other hidden argument (queue, completion action) 0.
///
/// Bytes that no argument covers (padding) are 0.
pub fn kernarg(info: &KernelInfo, explicit: &[&[u8]], dims: &LaunchDims) -> Result<Vec<u8>, Error> {
    let expected = info.explicit_args().count();
    if explicit.len() != expected {
        return Err(Error::ArgumentCount {
            kernel: info.name.clone(),
            expected,
            given: explicit.len(),
        });
    }
    let mut out = vec![0u8; info.kernarg_size as usize];
    for (index, (arg, bytes)) in info.explicit_args().zip(explicit).enumerate() {
        if bytes.len() != arg.size as usize {
            return Err(Error::ArgumentSize {
                kernel: info.name.clone(),
                index,
                expected: arg.size,
                given: bytes.len(),
            });
        }
        place(&mut out, arg.offset, bytes, &info.name)?;
    }
    hidden(info, &mut out, dims)?;
    Ok(out)
}

/// Like [`kernarg`], from HIP's `extra` form
/// (`HIP_LAUNCH_PARAM_BUFFER_POINTER`): `buffer` already holds the explicit
/// arguments at their offsets. Its length must be at least
/// [`KernelInfo::explicit_size`] (the end of the last explicit argument);
/// bytes at or past the first hidden argument's offset, or past the
/// kernarg segment, are not copied (a C struct's tail padding may reach
/// there, and ROCm takes longer buffers: rocBLAS's Tensile passes 116
/// bytes to kernels whose segment is 112), the hidden arguments being
/// filled from `dims`.
pub fn kernarg_from_buffer(
    info: &KernelInfo,
    buffer: &[u8],
    dims: &LaunchDims,
) -> Result<Vec<u8>, Error> {
    let min = info.explicit_size();
    if buffer.len() < min as usize {
        return Err(Error::ArgumentBuffer {
            kernel: info.name.clone(),
            min,
            max: info.kernarg_size,
            given: buffer.len(),
        });
    }
    let hidden_start = info
        .args
        .iter()
        .filter(|a| a.kind.is_hidden())
        .map(|a| a.offset as usize)
        .min()
        .unwrap_or(info.kernarg_size as usize)
        .max(min as usize);
    let mut out = vec![0u8; info.kernarg_size as usize];
    let n = buffer.len().min(hidden_start).min(out.len());
    out[..n].copy_from_slice(&buffer[..n]);
    hidden(info, &mut out, dims)?;
    Ok(out)
}

/// Puts `address` in `kernarg`'s `hidden_hostcall_buffer` (a segment
/// [`kernarg`] built for `info`), where the kernel looks for the host's
/// hostcall buffer ([`crate::hostcall`]); `false` when the kernel has no
/// such argument (it calls no host service).
pub fn set_hostcall_buffer(info: &KernelInfo, kernarg: &mut [u8], address: u64) -> bool {
    let Some(arg) = info
        .args
        .iter()
        .find(|a| matches!(a.kind, ArgKind::Hidden(HiddenArg::HostcallBuffer)))
    else {
        return false;
    };
    match kernarg.get_mut(arg.offset as usize..arg.offset as usize + 8) {
        Some(slot) => {
            slot.copy_from_slice(&address.to_le_bytes());
            true
        }
        None => false,
    }
}

/// Whether kernel `info` may call a host service through the hostcall
/// buffer (its metadata lists `hidden_hostcall_buffer`).
pub fn uses_hostcall(info: &KernelInfo) -> bool {
    info.args
        .iter()
        .any(|a| matches!(a.kind, ArgKind::Hidden(HiddenArg::HostcallBuffer)))
}

fn hidden(info: &KernelInfo, out: &mut [u8], dims: &LaunchDims) -> Result<(), Error> {
    use HiddenArg as H;
    for arg in &info.args {
        let ArgKind::Hidden(h) = &arg.kind else {
            continue;
        };
        let value: u64 = match h {
            H::BlockCountX => dims.grid[0].into(),
            H::BlockCountY => dims.grid[1].into(),
            H::BlockCountZ => dims.grid[2].into(),
            H::GroupSizeX => dims.block[0].into(),
            H::GroupSizeY => dims.block[1].into(),
            H::GroupSizeZ => dims.block[2].into(),
            H::GridDims => HIP_GRID_DIMS,
            H::DynamicLdsSize => dims.dynamic_lds.into(),
            H::PrivateBase => PRIVATE_APERTURE_BASE >> 32,
            H::SharedBase => SHARED_APERTURE_BASE >> 32,
            H::HostcallBuffer => NO_SERVICE_BASE,
            H::PrintfBuffer => NO_SERVICE_BASE + NO_SERVICE_STRIDE,
            H::HeapV1 => NO_SERVICE_BASE + 2 * NO_SERVICE_STRIDE,
            H::MultigridSyncArg => NO_SERVICE_BASE + 3 * NO_SERVICE_STRIDE,
            _ => 0,
        };
        let bytes = value.to_le_bytes();
        let size = (arg.size as usize).min(8);
        place(out, arg.offset, &bytes[..size], &info.name)?;
    }
    Ok(())
}

/// Copies `bytes` to `out[offset..]`; an argument past the segment's end is
/// a metadata error (`parse` refuses such metadata; this guards
/// hand-made `KernelInfo`s).
fn place(out: &mut [u8], offset: u32, bytes: &[u8], kernel: &str) -> Result<(), Error> {
    let start = offset as usize;
    match out.get_mut(start..start.saturating_add(bytes.len())) {
        Some(dst) => {
            dst.copy_from_slice(bytes);
            Ok(())
        }
        None => Err(Error::Metadata {
            kernel: Some(kernel.to_owned()),
            reason: format!(
                "an argument at offset {offset} of {} bytes ends past the {}-byte kernarg segment",
                bytes.len(),
                out.len()
            ),
        }),
    }
}

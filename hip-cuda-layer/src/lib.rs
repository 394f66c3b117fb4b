//! The CUDA-over-HIP header layer: CUDA's device-side names over HIP's,
//! for compiling CUDA C++ written for nvcc or nvrtc for AMD GPUs, in one
//! copy for every tool of this workspace that does so (the cudaforge
//! drop-in's build-time compiles today).
//!
//! [`HEADERS`] are the files, by the name they are included under;
//! [`FORCE_INCLUDE`] is the one a compile includes ahead of the user's
//! source (`-include hiprs_cuda.h` on a clang command line). It provides:
//! - HIP's runtime, half and bfloat16 headers;
//! - the CUDA version and architecture macros nvcc defines
//!   (`__CUDA_ARCH__` is `HIPRS_CUDA_ARCH`, default 890, in the device
//!   pass);
//! - what CUDA has and HIP lacks or names differently: `__nv_bfloat16`,
//!   OCP fp8 in software, the `*_sync` warp functions (on 32-lane halves of
//!   a wave64 wavefront), `__reduce_*_sync`, 16-bit and packed
//!   (`__half2`, `__nv_bfloat162`) atomic adds, `__dp4a`, the
//!   integer-to-bf16 conversions (`__int2bfloat16_rn`, ...), `__ldg` of
//!   bf16;
//! - `cuda.h`, `cuda_runtime.h`, `cuda_fp16.h`, `cuda_bf16.h`,
//!   `cuda_fp8.h`, `mma.h`, `cuda/std/limits` and the like, which resolve
//!   to it;
//! - CUB by its own header paths (`cub/cub.cuh`, `cub/block/block_load.cuh`,
//!   `cub/device/device_reduce.cuh`, ...), each hipCUB's header of the same
//!   name under `namespace cub = hipcub` (`hiprs_cuda_cub.h`); and for
//!   rocThrust, whose `thrust/` headers CUDA code includes as they are, its
//!   configuration read as for HIP (the layer defines `__CUDACC__`, which
//!   rocThrust would take for nvcc) and `thrust::cuda::par`. hipCUB,
//!   rocPRIM and rocThrust are ROCm's headers, not the layer's: a compile
//!   that uses them needs them on its include path.
//!
//! ```
//! use hip_cuda_layer::{header, FORCE_INCLUDE, HEADERS};
//! let main = header(FORCE_INCLUDE).expect("the force-included header");
//! assert!(main.contains("HIPRS_CUDA_H"));
//! // Every CUDA header name a source may include is here.
//! assert!(HEADERS.iter().any(|(name, _)| *name == "cuda_fp16.h"));
//! assert!(header("cub/block/block_load.cuh").unwrap().contains("hipcub/block/block_load.hpp"));
//! ```

pub mod ptx;

/// The header a compile includes ahead of the user's source.
pub const FORCE_INCLUDE: &str = "hiprs_cuda.h";

/// The macro the layer takes `__CUDA_ARCH__` from in the device pass
/// (`-DHIPRS_CUDA_ARCH=800`); 890 when undefined.
pub const ARCH_MACRO: &str = "HIPRS_CUDA_ARCH";

/// The `__CUDA_ARCH__` values a compile claims, in order: 890 first, so
/// that every bf16 and fp8 kernel is built, then lower levels, at which
/// code that takes inline PTX assembly only on newer architectures
/// compiles its portable path. Both the build-time drop-in and
/// cuda-compat's run-time compiles try them in this order.
pub const CLAIMED_ARCHS: &[u32] = &[890, 800, 750, 700, 610];

/// Why CUDA source did not compile for AMD, from the compiler's log: the
/// construct when one is recognized (inline PTX assembly, WMMA fragments,
/// a CUDA header HIP does not have), then the log's first error line.
///
/// ```
/// let log = "k.cu:3:5: error: invalid input constraint 'l' in asm\n";
/// let why = hip_cuda_layer::unsupported_reason(log);
/// assert!(why.starts_with("uses inline PTX assembly"));
/// assert!(why.ends_with("(first error: k.cu:3:5: error: invalid input constraint 'l' in asm)"));
/// ```
pub fn unsupported_reason(log: &str) -> String {
    let first = log
        .lines()
        .find(|l| l.contains("error:"))
        .unwrap_or("the compiler gave no error line")
        .trim();
    let lower = log.to_ascii_lowercase();
    let what = if lower.contains("has no amd translation") {
        "uses inline PTX assembly that the layer does not translate"
    } else if lower.contains("wmma") || lower.contains("'mma.h'") {
        "uses WMMA tensor-core fragments (nvcuda::wmma), which HIP does not provide"
    } else if lower.contains("in asm")
        || lower.contains("invalid instruction")
        || lower.contains("inline asm")
    {
        "uses inline PTX assembly, which only NVIDIA GPUs run"
    } else if lower.contains("file not found") || lower.contains("headers were not found") {
        "needs a CUDA header or library that HIP does not provide"
    } else {
        "does not compile for AMD"
    };
    format!("{what} (first error: {first})")
}

/// The layer's headers, named as included, each with its text from `$dir`.
macro_rules! headers {
    ($dir:literal: $($name:literal),* $(,)?) => {
        &[$(($name, include_str!(concat!("../", $dir, "/", $name)))),*]
    };
}

/// Every header of the layer: the name it is included under (relative to
/// an include folder) and its text. Tools write them into a folder of
/// their own, or hand them to hiprtc as in-memory headers.
pub const HEADERS: &[(&str, &str)] = headers!["include":
    "hiprs_cuda.h",
    "hiprs_cuda_cub.h",
    "hiprs_cuda_fp8.h",
    "hiprs_cuda_runtime.h",
    "hiprs_cuda_warp.h",
    "hiprs_cuda_ptx.h",
    "cuda.h",
    "cuda_runtime.h",
    "cuda_runtime_api.h",
    "cuda_fp16.h",
    "cuda_bf16.h",
    "cuda_fp8.h",
    "device_launch_parameters.h",
    "driver_types.h",
    "cuda_device_runtime_api.h",
    "mma.h",
    "cooperative_groups.h",
    "cuda/std/limits",
    // CUB over hipCUB (hiprs_cuda_cub.h), by CUB's own paths.
    "cub/block/block_adjacent_difference.cuh",
    "cub/block/block_discontinuity.cuh",
    "cub/block/block_exchange.cuh",
    "cub/block/block_histogram.cuh",
    "cub/block/block_load.cuh",
    "cub/block/block_merge_sort.cuh",
    "cub/block/block_radix_rank.cuh",
    "cub/block/block_radix_sort.cuh",
    "cub/block/block_raking_layout.cuh",
    "cub/block/block_reduce.cuh",
    "cub/block/block_run_length_decode.cuh",
    "cub/block/block_scan.cuh",
    "cub/block/block_shuffle.cuh",
    "cub/block/block_store.cuh",
    "cub/block/radix_rank_sort_operations.cuh",
    "cub/config.cuh",
    "cub/cub.cuh",
    "cub/device/device_adjacent_difference.cuh",
    "cub/device/device_copy.cuh",
    "cub/device/device_for.cuh",
    "cub/device/device_histogram.cuh",
    "cub/device/device_memcpy.cuh",
    "cub/device/device_merge_sort.cuh",
    "cub/device/device_partition.cuh",
    "cub/device/device_radix_sort.cuh",
    "cub/device/device_reduce.cuh",
    "cub/device/device_run_length_encode.cuh",
    "cub/device/device_scan.cuh",
    "cub/device/device_segmented_radix_sort.cuh",
    "cub/device/device_segmented_reduce.cuh",
    "cub/device/device_segmented_sort.cuh",
    "cub/device/device_select.cuh",
    "cub/device/device_spmv.cuh",
    "cub/grid/grid_barrier.cuh",
    "cub/grid/grid_even_share.cuh",
    "cub/grid/grid_mapping.cuh",
    "cub/grid/grid_queue.cuh",
    "cub/iterator/arg_index_input_iterator.cuh",
    "cub/iterator/cache_modified_input_iterator.cuh",
    "cub/iterator/cache_modified_output_iterator.cuh",
    "cub/iterator/constant_input_iterator.cuh",
    "cub/iterator/counting_input_iterator.cuh",
    "cub/iterator/discard_output_iterator.cuh",
    "cub/iterator/tex_obj_input_iterator.cuh",
    "cub/iterator/tex_ref_input_iterator.cuh",
    "cub/iterator/transform_input_iterator.cuh",
    "cub/thread/thread_load.cuh",
    "cub/thread/thread_operators.cuh",
    "cub/thread/thread_reduce.cuh",
    "cub/thread/thread_scan.cuh",
    "cub/thread/thread_search.cuh",
    "cub/thread/thread_sort.cuh",
    "cub/thread/thread_store.cuh",
    "cub/util_allocator.cuh",
    "cub/util_device.cuh",
    "cub/util_macro.cuh",
    "cub/util_ptx.cuh",
    "cub/util_temporary_storage.cuh",
    "cub/util_type.cuh",
    "cub/warp/warp_exchange.cuh",
    "cub/warp/warp_load.cuh",
    "cub/warp/warp_merge_sort.cuh",
    "cub/warp/warp_reduce.cuh",
    "cub/warp/warp_scan.cuh",
    "cub/warp/warp_store.cuh",
    // rocThrust's configuration and CUDA policy names (thrust/ is ROCm's).
    "thrust/detail/config/config.h",
    "thrust/execution_policy.h",
];

/// Stand-ins for the C library headers device code includes (`stdint.h`,
/// `math.h`, `assert.h`, `limits.h`, ...), for run-time compiles (hiprtc)
/// only: hiprtc has none, and the host's clash with its built-in types.
/// They give what device code takes from them (the fixed-width types,
/// `M_PI`, `INFINITY`, `INT_MAX`, `FLT_MAX`, `assert`); the functions are
/// hiprtc's built-ins. A build-time compile must not see them: it has the
/// real headers.
pub const RTC_HEADERS: &[(&str, &str)] = headers!["include-rtc":
    "assert.h",
    "cassert",
    "cfloat",
    "climits",
    "cmath",
    "cstddef",
    "cstdint",
    "cstdio",
    "cstdlib",
    "float.h",
    "limits.h",
    "math.h",
    "stddef.h",
    "stdint.h",
    "stdio.h",
    "stdlib.h",
];

/// The text of the header included as `name`, if the layer has it.
pub fn header(name: &str) -> Option<&'static str> {
    HEADERS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| *text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::path::Path;

    /// Each list names every file of its folder, once, and nothing else:
    /// a header added to the folder and not listed would be missing from
    /// every compile.
    #[test]
    fn headers_are_their_folder_exactly_once() {
        fn walk(dir: &Path, base: &Path, out: &mut Vec<String>) {
            for e in std::fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    walk(&p, base, out);
                } else {
                    let rel = p.strip_prefix(base).unwrap();
                    out.push(rel.to_string_lossy().replace('\\', "/"));
                }
            }
        }
        for (folder, list) in [("include", HEADERS), ("include-rtc", RTC_HEADERS)] {
            let base = Path::new(env!("CARGO_MANIFEST_DIR")).join(folder);
            let mut files = Vec::new();
            walk(&base, &base, &mut files);
            let listed: HashSet<&str> = list.iter().map(|(n, _)| *n).collect();
            assert_eq!(listed.len(), list.len(), "{folder}: a name listed twice");
            let on_disk: HashSet<&str> = files.iter().map(String::as_str).collect();
            assert_eq!(listed, on_disk, "{folder}");
        }
        // No stand-in shadows a layer header.
        assert!(RTC_HEADERS.iter().all(|(n, _)| header(n).is_none()));
    }

    #[test]
    fn reasons_name_the_construct_and_the_first_error() {
        let r = unsupported_reason("mmq.cuh:765:15: error: invalid input constraint 'l' in asm\n");
        assert!(r.starts_with("uses inline PTX assembly"), "{r}");
        assert!(
            r.contains("mmq.cuh:765:15: error: invalid input constraint"),
            "{r}"
        );
        let r =
            unsupported_reason("x.cu:3:1: error: no member named 'wmma' in namespace 'nvcuda'\n");
        assert!(r.starts_with("uses WMMA"), "{r}");
        let r = unsupported_reason("x.cu:4:10: fatal error: 'cub/cub.cuh' file not found\n");
        assert!(r.starts_with("needs a CUDA header"), "{r}");
        // CUB on a ROCm without hipCUB (the layer's cub/ headers say so).
        let r = unsupported_reason(
            "hiprs_cuda_cub.h:22:2: error: \"cub/*.cuh: the layer maps CUB to hipCUB, \
             whose headers were not found (hipcub/config.hpp): ...\"\n",
        );
        assert!(r.starts_with("needs a CUDA header"), "{r}");
        let r = unsupported_reason("x.cu:9:2: error: use of undeclared identifier 'foo'\n");
        assert!(r.starts_with("does not compile for AMD"), "{r}");
        assert!(unsupported_reason("").contains("no error line"));
    }

    /// Each CUDA-named header resolves to the layer.
    #[test]
    fn cuda_headers_include_the_layer() {
        for (name, text) in HEADERS {
            if name.starts_with("hiprs_") {
                continue;
            }
            assert!(
                text.contains("hiprs_cuda"),
                "{name} does not include the layer"
            );
        }
        assert!(header(FORCE_INCLUDE).is_some());
        assert!(header("nvrtc.h").is_none());
    }

    /// Each CUB header is hipCUB's of the same name under namespace cub:
    /// it includes hiprs_cuda_cub.h, and hipCUB's header of its name or
    /// all of hipCUB (cub/cub.cuh, and where that header is not enough).
    #[test]
    fn cub_headers_are_hipcubs_of_the_same_name() {
        let cub: Vec<_> = HEADERS
            .iter()
            .filter(|(n, _)| n.starts_with("cub/"))
            .collect();
        assert!(cub.len() > 60, "{}", cub.len());
        for (name, text) in cub {
            let stem = &name["cub/".len()..name.len() - ".cuh".len()];
            let own = format!("<hipcub/{stem}.hpp>");
            assert!(
                text.contains("#include \"") && text.contains("hiprs_cuda_cub.h\""),
                "{name}"
            );
            if *name == "cub/cub.cuh" {
                assert!(text.contains("#include <hipcub/hipcub.hpp>"), "{name}");
            } else {
                assert!(text.contains(&own), "{name} does not name {own}");
                assert!(
                    text.contains(&format!("#include {own}"))
                        || text.contains("#include <hipcub/hipcub.hpp>"),
                    "{name}"
                );
            }
        }
        assert!(header("hiprs_cuda_cub.h")
            .unwrap()
            .contains("namespace cub = ::hipcub;"));
    }
}

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
//!   a wave64 wavefront), `__reduce_*_sync`, 16-bit atomics, `__dp4a`;
//! - `cuda.h`, `cuda_runtime.h`, `cuda_fp16.h`, `cuda_bf16.h`,
//!   `cuda_fp8.h`, `mma.h`, `cuda/std/limits` and the like, which resolve
//!   to it.
//!
//! ```
//! use hip_cuda_layer::{header, FORCE_INCLUDE, HEADERS};
//! let main = header(FORCE_INCLUDE).expect("the force-included header");
//! assert!(main.contains("HIPRS_CUDA_H"));
//! // Every CUDA header name a source may include is here.
//! assert!(HEADERS.iter().any(|(name, _)| *name == "cuda_fp16.h"));
//! ```

/// The header a compile includes ahead of the user's source.
pub const FORCE_INCLUDE: &str = "hiprs_cuda.h";

/// Every header of the layer: the name it is included under (relative to
/// an include folder) and its text. Tools write them into a folder of
/// their own, or hand them to hiprtc as in-memory headers.
pub const HEADERS: &[(&str, &str)] = &[
    ("hiprs_cuda.h", include_str!("../include/hiprs_cuda.h")),
    (
        "hiprs_cuda_fp8.h",
        include_str!("../include/hiprs_cuda_fp8.h"),
    ),
    (
        "hiprs_cuda_runtime.h",
        include_str!("../include/hiprs_cuda_runtime.h"),
    ),
    (
        "hiprs_cuda_warp.h",
        include_str!("../include/hiprs_cuda_warp.h"),
    ),
    ("cuda.h", include_str!("../include/cuda.h")),
    ("cuda_runtime.h", include_str!("../include/cuda_runtime.h")),
    (
        "cuda_runtime_api.h",
        include_str!("../include/cuda_runtime_api.h"),
    ),
    ("cuda_fp16.h", include_str!("../include/cuda_fp16.h")),
    ("cuda_bf16.h", include_str!("../include/cuda_bf16.h")),
    ("cuda_fp8.h", include_str!("../include/cuda_fp8.h")),
    (
        "device_launch_parameters.h",
        include_str!("../include/device_launch_parameters.h"),
    ),
    ("mma.h", include_str!("../include/mma.h")),
    (
        "cuda/std/limits",
        include_str!("../include/cuda/std/limits"),
    ),
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

    /// The list names every file of `include/`, once, and nothing else:
    /// a header added to the folder and not listed would be missing from
    /// every compile.
    #[test]
    fn headers_are_the_include_folder_exactly_once() {
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
        let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("include");
        let mut files = Vec::new();
        walk(&base, &base, &mut files);
        let listed: HashSet<&str> = HEADERS.iter().map(|(n, _)| *n).collect();
        assert_eq!(listed.len(), HEADERS.len(), "a name listed twice");
        let on_disk: HashSet<&str> = files.iter().map(String::as_str).collect();
        assert_eq!(listed, on_disk);
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
}

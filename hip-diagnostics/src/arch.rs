//! GPU architecture names: what a device supports, what
//! `HSA_OVERRIDE_GFX_VERSION` turns it into, and which rocBLAS kernels
//! exist for it.

use std::path::{Path, PathBuf};

/// The processor part of an architecture string: `gfx90a` of
/// `gfx90a:sramecc+:xnack-`.
pub(super) fn processor(arch: &str) -> &str {
    arch.split(':').next().unwrap_or("").trim()
}

/// The processor `HSA_OVERRIDE_GFX_VERSION` (`major.minor.stepping`, e.g.
/// `10.3.0`) makes AMD devices present: `gfx1030`; `9.0.10` -> `gfx90a`
/// (the stepping is written in hex). `None` when the value is malformed.
pub(super) fn override_processor(value: &str) -> Option<String> {
    let parts: Vec<u32> = value
        .trim()
        .split('.')
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    match parts.as_slice() {
        [major, minor, stepping] if *major >= 7 && *minor < 16 && *stepping < 16 => {
            Some(format!("gfx{major}{minor:x}{stepping:x}"))
        }
        _ => None,
    }
}

/// Whether the device does half-precision (f16) arithmetic natively.
///
/// AMD: every architecture ROCm supports (GCN 3 / gfx8 onward). NVIDIA:
/// compute capability 5.3 and up. Unknown architectures: false.
pub(super) fn native_f16(arch: &str, compute_capability: (i32, i32)) -> bool {
    let p = processor(arch);
    match gfx_number(p) {
        Some(_) => !p.starts_with("gfx6") && !p.starts_with("gfx7"),
        None => compute_capability >= (5, 3),
    }
}

/// Whether the device has bf16 arithmetic or matrix instructions.
///
/// AMD: gfx908 and gfx90a (MFMA), gfx94x/gfx95x, RDNA 3 (gfx11) and RDNA 4
/// (gfx12); RDNA 1/2 and older GCN convert in software. NVIDIA: compute
/// capability 8.0 and up.
pub(super) fn native_bf16(arch: &str, compute_capability: (i32, i32)) -> bool {
    let p = processor(arch);
    match gfx_number(p) {
        Some(_) => {
            matches!(p, "gfx908" | "gfx90a")
                || p.starts_with("gfx94")
                || p.starts_with("gfx95")
                || p.starts_with("gfx11")
                || p.starts_with("gfx12")
        }
        None => compute_capability >= (8, 0),
    }
}

fn gfx_number(p: &str) -> Option<&str> {
    p.strip_prefix("gfx")
        .filter(|rest| !rest.is_empty() && rest.chars().all(|c| c.is_ascii_alphanumeric()))
}

/// Whether a file name names a processor as a whole token (`gfx90a` in
/// `TensileLibrary_gfx90a.co` or `Kernels.so-000-gfx90a-xnack+.hsaco`, but
/// not `gfx90` in it).
pub(super) fn file_names_processor(file_name: &str, processor: &str) -> bool {
    let mut rest = file_name;
    while let Some(at) = rest.find(processor) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + processor.len()..].chars().next();
        let bounded = |c: Option<char>| c.map_or(true, |c| !c.is_ascii_alphanumeric());
        if bounded(before) && bounded(after) {
            return true;
        }
        rest = &rest[at + processor.len()..];
    }
    false
}

/// Every processor name (`gfx` + letters/digits) in a file name.
fn processors_in(file_name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = file_name;
    while let Some(at) = rest.find("gfx") {
        let tail = &rest[at + 3..];
        let len = tail
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(tail.len());
        if len > 0 {
            out.push(format!("gfx{}", &tail[..len]));
        }
        rest = &tail[len..];
    }
    out
}

/// rocBLAS's kernel folder and what it holds.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct RocblasKernels {
    /// The rocBLAS library file whose kernels these are.
    pub library: Option<String>,
    /// The kernel folder: `ROCBLAS_TENSILE_LIBPATH`, else the `rocblas/library`
    /// folder beside the library (Debian: `rocblas/<version>/library`).
    pub kernel_dir: Option<String>,
    /// Every processor some kernel file names, sorted.
    pub processors_available: Vec<String>,
    /// Per device processor: how many kernel files name it.
    pub per_processor: Vec<ProcessorKernels>,
}

/// The kernel files for one processor.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct ProcessorKernels {
    /// The processor, e.g. `gfx1010` (after any override).
    pub processor: String,
    /// The number of files in the kernel folder naming it.
    pub files: usize,
}

/// The kernel folder of the rocBLAS library at `library`.
pub(super) fn rocblas_kernel_dir(library: &Path, tensile_libpath: Option<&str>) -> Option<PathBuf> {
    if let Some(p) = tensile_libpath {
        return Some(PathBuf::from(p));
    }
    let base = library.parent()?.join("rocblas");
    let direct = base.join("library");
    if direct.is_dir() {
        return Some(direct);
    }
    // Debian and some distributions add a version folder.
    let mut versioned: Vec<PathBuf> = std::fs::read_dir(&base)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path().join("library"))
        .filter(|p| p.is_dir())
        .collect();
    versioned.sort();
    versioned.pop().or(Some(direct))
}

/// What the kernel folder holds for each processor.
pub(super) fn rocblas_kernels(
    library: Option<&Path>,
    kernel_dir: Option<&Path>,
    processors: &[String],
) -> RocblasKernels {
    let files: Vec<String> = kernel_dir
        .and_then(|d| std::fs::read_dir(d).ok())
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    let mut available: Vec<String> = files.iter().flat_map(|f| processors_in(f)).collect();
    available.sort();
    available.dedup();
    let mut per_processor: Vec<ProcessorKernels> = Vec::new();
    for p in processors {
        if per_processor.iter().any(|k| &k.processor == p) {
            continue;
        }
        per_processor.push(ProcessorKernels {
            processor: p.clone(),
            files: files.iter().filter(|f| file_names_processor(f, p)).count(),
        });
    }
    RocblasKernels {
        library: library.map(|p| p.display().to_string()),
        kernel_dir: kernel_dir.map(|p| p.display().to_string()),
        processors_available: available,
        per_processor,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_name_processors() {
        assert_eq!(override_processor("10.3.0").as_deref(), Some("gfx1030"));
        assert_eq!(override_processor("9.0.10").as_deref(), Some("gfx90a"));
        assert_eq!(override_processor("11.0.0").as_deref(), Some("gfx1100"));
        assert_eq!(override_processor("10.3"), None);
        assert_eq!(override_processor("gfx1030"), None);
    }

    #[test]
    fn processor_tokens_in_file_names() {
        assert!(file_names_processor(
            "TensileLibrary_Type_HH_gfx90a.co",
            "gfx90a"
        ));
        assert!(file_names_processor(
            "Kernels.so-000-gfx90a-xnack+.hsaco",
            "gfx90a"
        ));
        assert!(!file_names_processor("TensileLibrary_gfx90a.co", "gfx90"));
        assert!(!file_names_processor("TensileLibrary_gfx1030.co", "gfx103"));
        assert!(file_names_processor("x_gfx103_gfx1030.dat", "gfx1030"));
        assert_eq!(
            processors_in("Kernels.so-000-gfx90a-xnack+.hsaco_gfx1100"),
            ["gfx90a", "gfx1100"]
        );
    }

    #[test]
    fn precision_support_by_architecture() {
        assert!(native_f16("gfx1010:xnack-", (10, 1)));
        assert!(!native_bf16("gfx1010:xnack-", (10, 1)));
        assert!(native_bf16("gfx90a:sramecc+:xnack-", (9, 0)));
        assert!(native_bf16("gfx1100", (11, 0)));
        assert!(native_bf16("sm_90", (9, 0)));
        assert!(!native_bf16("sm_75", (7, 5)));
        assert!(native_f16("sm_75", (7, 5)));
        assert!(!native_f16("sm_50", (5, 0)));
    }
}

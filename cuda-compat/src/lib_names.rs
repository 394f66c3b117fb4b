//! The file names cudarc tries when it loads a CUDA library, for the CUDA
//! release of this build's `cuda-*` feature.

/// The CUDA release of the newest `cuda-*` feature on (cudarc's
/// `CUDA_MAJOR_VERSION`/`CUDA_MINOR_VERSION`); 13.0 without one. Every
/// `cuda-NNNNN` feature of `Cargo.toml` is listed (a tier-1 test checks).
/// `cuda-version-from-build-system` names no release: 13.0.
const CUDA_RELEASE: (u32, u32) = {
    macro_rules! newest {
        ($($feature:literal => $v:expr,)*) => {
            $(if cfg!(feature = $feature) { $v } else)* { (13, 0) }
        };
    }
    newest! {
        "cuda-13040" => (13, 4),
        "cuda-13030" => (13, 3),
        "cuda-13020" => (13, 2),
        "cuda-13010" => (13, 1),
        "cuda-13000" => (13, 0),
        "cuda-12090" => (12, 9),
        "cuda-12080" => (12, 8),
        "cuda-12060" => (12, 6),
        "cuda-12050" => (12, 5),
        "cuda-12040" => (12, 4),
        "cuda-12030" => (12, 3),
        "cuda-12020" => (12, 2),
        "cuda-12010" => (12, 1),
        "cuda-12000" => (12, 0),
        "cuda-11080" => (11, 8),
        "cuda-11070" => (11, 7),
        "cuda-11060" => (11, 6),
        "cuda-11050" => (11, 5),
        "cuda-11040" => (11, 4),
    }
};

/// The file names cudarc tries, in order, when it loads CUDA library
/// `lib_name` (`"cublas"`, `"nvrtc"`, ...) at run time, for the CUDA
/// release of this build's `cuda-*` feature (13.0 by default): the bare
/// name, the Windows-style `{lib}64_{major}{minor}` forms and the
/// `.so.{major}` forms. cuda-compat itself loads HIP's libraries (or, on
/// NVIDIA, CUDA's through `hip-sys`'s search), not these; the list is for
/// programs that load a CUDA library of their own as cudarc does.
///
/// ```
/// let names = cuda_compat::get_lib_name_candidates("cublas");
/// if cfg!(target_os = "linux") {
///     assert!(names.contains(&"libcublas.so".to_string()));
///     assert!(names.contains(&"libcublas.so.13".to_string()));
/// }
/// ```
pub fn get_lib_name_candidates(lib_name: &str) -> Vec<String> {
    use std::env::consts::{DLL_PREFIX, DLL_SUFFIX};
    let (major, minor) = CUDA_RELEASE;
    let bits = if cfg!(target_pointer_width = "32") {
        "32"
    } else {
        "64"
    };
    let stem = format!("{DLL_PREFIX}{lib_name}");
    // `{stem}{bits}{tail}{DLL_SUFFIX}`: the Windows DLL names of the
    // releases cudarc knows, newest scheme first.
    let windows_tails = [
        String::new(),
        format!("_{major}"),
        format!("_{major}{minor}"),
        format!("_{major}{minor}_0"),
        format!("_{major}0_{minor}"),
        "_10".into(),
        "_11".into(),
        "_12".into(),
        format!("_{major}0_0"),
        "_9".into(),
    ];
    let mut names = vec![format!("{stem}{DLL_SUFFIX}")];
    names.extend(
        windows_tails
            .iter()
            .map(|t| format!("{stem}{bits}{t}{DLL_SUFFIX}")),
    );
    // `{stem}{DLL_SUFFIX}.{version}`: the Unix sonames.
    names.extend(
        [
            major.to_string(),
            "12".into(),
            "11".into(),
            "10".into(),
            "9".into(),
            "1".into(),
        ]
        .iter()
        .map(|v| format!("{stem}{DLL_SUFFIX}.{v}")),
    );
    names
}

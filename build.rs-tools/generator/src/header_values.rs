//! `cargo run -p hip-generator -- header-values`: the reference data that the
//! enum translation tests compare against, read straight from the C headers.
//!
//! The tests of hip-sys's NVIDIA backend (status and attribute translation)
//! and of cuda-compat's enums must not compare a table with another table
//! written by the same generator. So this module shares nothing with the
//! binding or cuda-compat emission: it reads the enumerators of a few C enums
//! with its own small parser (literal values, implicit increments and
//! references to earlier enumerators; anything else is an error, never a
//! guess) from the CUDA 12.9 and ROCm 6.4 headers, and the CUDA->HIP name
//! pairs from hipify-perl's `subst(..., "numeric_literal")` lines. It writes
//! them as plain text, one fact a line:
//!
//! ```text
//! enum <C enum> <enumerator> <value>
//! hipify <CUDA enumerator> <HIP enumerator>
//! ```
//!
//! and, for cuda-compat, a test file naming every status enumerator under
//! both path styles with the value HIP's header gives its hipify-perl
//! counterpart.

use anyhow::{bail, Context, Result};
use regex::Regex;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

/// Where an enum is in a header.
#[derive(Clone, Copy)]
pub(crate) enum Locate {
    /// `typedef enum [tag] { ... } NAME;`
    Typedef(&'static str),
    /// `enum <marker> { ... };`: the text before the brace.
    Tag(&'static str),
}

/// One C enum read from a header: the name it has in the data file, the
/// header (relative to the CUDA or ROCm include folder) and where it is.
struct EnumSource {
    name: &'static str,
    cuda: bool,
    header: &'static str,
    locate: Locate,
}

const CUDA_ERROR: EnumSource = EnumSource {
    name: "cudaError",
    cuda: true,
    header: "driver_types.h",
    locate: Locate::Tag("enum __device_builtin__ cudaError"),
};
const CU_RESULT: EnumSource = EnumSource {
    name: "cudaError_enum",
    cuda: true,
    header: "cuda.h",
    locate: Locate::Typedef("CUresult"),
};
const NVRTC_RESULT: EnumSource = EnumSource {
    name: "nvrtcResult",
    cuda: true,
    header: "nvrtc.h",
    locate: Locate::Typedef("nvrtcResult"),
};
const CUBLAS_STATUS: EnumSource = EnumSource {
    name: "cublasStatus_t",
    cuda: true,
    header: "cublas_api.h",
    locate: Locate::Typedef("cublasStatus_t"),
};
const CU_DEVICE_ATTRIBUTE: EnumSource = EnumSource {
    name: "CUdevice_attribute",
    cuda: true,
    header: "cuda.h",
    locate: Locate::Typedef("CUdevice_attribute"),
};
const HIP_ERROR: EnumSource = EnumSource {
    name: "hipError_t",
    cuda: false,
    header: "hip/hip_runtime_api.h",
    locate: Locate::Typedef("hipError_t"),
};
const HIPRTC_RESULT: EnumSource = EnumSource {
    name: "hiprtcResult",
    cuda: false,
    header: "hip/hiprtc.h",
    locate: Locate::Typedef("hiprtcResult"),
};
const HIPBLAS_STATUS: EnumSource = EnumSource {
    name: "hipblasStatus_t",
    cuda: false,
    header: "hipblas-common/hipblas-common.h",
    locate: Locate::Typedef("hipblasStatus_t"),
};
const HIP_DEVICE_ATTRIBUTE: EnumSource = EnumSource {
    name: "hipDeviceAttribute_t",
    cuda: false,
    header: "hip/hip_runtime_api.h",
    locate: Locate::Typedef("hipDeviceAttribute_t"),
};

/// NCCL's enums (nccl.h of the NVIDIA wheel, unpacked beside the merged CUDA
/// headers, not into them) and RCCL's (rccl.h), compared by name: rccl-sys's
/// NVIDIA backend passes RCCL's values to NCCL unchanged.
const NCCL_ENUMS: &[(&str, &str)] = &[
    ("ncclResult_t", "ncclResult_t"),
    ("ncclRedOp_t", "ncclRedOp_t"),
    ("ncclDataType_t", "ncclDataType_t"),
    ("ncclScalarResidence_t", "ncclScalarResidence_t"),
];
/// nccl.h, relative to the merged CUDA include folder.
const NCCL_HEADER: &str = "../nvidia/nccl/include/nccl.h";
const RCCL_HEADER: &str = "rccl/rccl.h";

/// cuda-compat's status enums, with the module that defines each and the HIP
/// enum whose values it takes.
const COMPAT_STATUS: &[(&str, &EnumSource, &EnumSource)] = &[
    ("runtime", &CUDA_ERROR, &HIP_ERROR),
    ("driver", &CU_RESULT, &HIP_ERROR),
    ("nvrtc", &NVRTC_RESULT, &HIPRTC_RESULT),
    ("cublas", &CUBLAS_STATUS, &HIPBLAS_STATUS),
];

/// The enumerators of the enum at `locate` in `text`, in order.
pub(crate) fn c_enum(text: &str, locate: Locate) -> Result<Vec<(String, i64)>> {
    c_enum_with(text, locate, &[])
}

/// [`c_enum`], where a value may also name one of `known` (another enum's
/// enumerators).
pub(crate) fn c_enum_with(
    text: &str,
    locate: Locate,
    known: &[(String, i64)],
) -> Result<Vec<(String, i64)>> {
    let body = match locate {
        Locate::Typedef(name) => {
            let end = Regex::new(&format!(r"\}}\s*{name}\s*;"))?;
            let close = end
                .find(text)
                .with_context(|| format!("no `}} {name};`"))?
                .start();
            let open = text[..close].rfind('{').context("no `{` before it")?;
            // The declaration before the brace (after the previous `;`, `}`
            // or comment) must be an enum's.
            let head = &text[..open];
            let head = &head[head.rfind([';', '}', '/']).map_or(0, |i| i + 1)..];
            if !head.split_whitespace().any(|w| w == "enum") {
                bail!("`{name}` is not a typedef of an enum");
            }
            &text[open + 1..close]
        }
        Locate::Tag(marker) => {
            let at = text
                .find(marker)
                .with_context(|| format!("no `{marker}`"))?;
            let rest = text[at + marker.len()..].trim_start();
            let Some(rest) = rest.strip_prefix('{') else {
                bail!("`{marker}` is not followed by `{{`");
            };
            &rest[..rest.find('}').context("unterminated enum")?]
        }
    };
    let comments = Regex::new(r"(?s)/\*.*?\*/|//[^\n]*")?;
    let body = comments.replace_all(body, " ");
    if body.lines().any(|l| l.trim_start().starts_with('#')) {
        bail!("preprocessor lines inside the enum: not handled");
    }
    let mut out: Vec<(String, i64)> = Vec::new();
    let mut next = 0i64;
    for item in body.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        let (name, value) = match item.split_once('=') {
            None => (item, next),
            Some((n, e)) => {
                let mut earlier = known.to_vec();
                earlier.extend(out.iter().cloned());
                (n.trim(), expression(e.trim(), &earlier)?)
            }
        };
        if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            bail!("enumerator `{item}` not understood");
        }
        out.push((name.to_owned(), value));
        next = value + 1;
    }
    if out.is_empty() {
        bail!("empty enum");
    }
    Ok(out)
}

/// An enumerator's value: an integer literal or an earlier enumerator, or
/// such values joined by `|` (cuBLASLt's `(CUBLASLT_EPILOGUE_RELU | 128)`),
/// in parentheses or not.
fn expression(e: &str, earlier: &[(String, i64)]) -> Result<i64> {
    let e = e.trim();
    if let Some(inner) = e.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
        if !inner.contains(['(', ')']) {
            return expression(inner, earlier);
        }
    }
    if e.contains('|') && !e.contains(['(', ')']) {
        let mut value = 0;
        for part in e.split('|') {
            value |= expression(part, earlier)?;
        }
        return Ok(value);
    }
    let (negative, digits) = match e.strip_prefix('-') {
        Some(d) => (true, d.trim()),
        None => (false, e),
    };
    let digits = digits.trim_end_matches(['u', 'U', 'l', 'L']);
    let magnitude = if let Some(hex) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        i64::from_str_radix(hex, 16).ok()
    } else {
        digits.parse::<i64>().ok()
    };
    if let Some(m) = magnitude {
        return Ok(if negative { -m } else { m });
    }
    // NCCL's `ncclMaxRedOp = 0x7fffffff>>(32-8*sizeof(ncclRedOp_dummy_t))`:
    // the largest int value of an enum as wide as `int`. A C enum whose
    // values fit in `int` has the size of `int` (4 bytes) on every ABI NCCL
    // and RCCL ship for, so the shift is by 0. Only this exact form is read.
    let compact: String = e.chars().filter(|c| !c.is_whitespace()).collect();
    if let Some(rest) = compact.strip_prefix("0x7fffffff>>(32-8*sizeof(") {
        if rest
            .strip_suffix("))")
            .is_some_and(|t| !t.is_empty() && t.chars().all(|c| c.is_alphanumeric() || c == '_'))
        {
            return Ok(0x7fff_ffff);
        }
    }
    match earlier.iter().find(|(n, _)| n == e) {
        Some((_, v)) if !negative => Ok(*v),
        _ => bail!("value `{e}` not understood"),
    }
}

/// rccl-sys's tier-1 test of its enum values against NCCL's header: one
/// `assert_eq!` per enumerator both headers have, with NCCL's value as a
/// literal. Fails (no file is written) when rccl.h gives a shared
/// enumerator another value than nccl.h, except `ncclNum*` counts, which
/// grow with each NCCL release and are never passed to or returned by the
/// library (they are listed in comments).
fn nccl_enumerators(cuda_include: &Path, rocm_include: &Path) -> Result<String> {
    let read = |path: &Path| {
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
    };
    let nccl_text = read(&cuda_include.join(NCCL_HEADER))?;
    let rccl_text = read(&rocm_include.join(RCCL_HEADER))?;
    let mut s = String::from(
        "// @generated by `cargo run -p hip-generator -- header-values`. Do not edit.\n\
         //! Tier 1: every enumerator that NCCL's `nccl.h` (the nvidia-nccl-cu12\n\
         //! 2.27.3 wheel) and RCCL's `rccl/rccl.h` both declare has NCCL's value in\n\
         //! rccl-sys, so the NVIDIA backend can pass RCCL's values to NCCL\n\
         //! unchanged. The values are literals read from nccl.h by the generator's\n\
         //! own parser, not from rccl-sys's generated code; the generator fails when\n\
         //! the two headers disagree on a value.\n\n\
         use rccl_sys::*;\n\n",
    );
    let mut mismatches = Vec::new();
    for (nccl_name, rccl_name) in NCCL_ENUMS {
        let nccl = c_enum(&nccl_text, Locate::Typedef(nccl_name))
            .with_context(|| format!("{nccl_name} in nccl.h"))?;
        let rccl = c_enum(&rccl_text, Locate::Typedef(rccl_name))
            .with_context(|| format!("{rccl_name} in rccl.h"))?;
        writeln!(
            s,
            "#[test]\nfn {}_has_nccls_values() {{",
            rccl_name.to_lowercase()
        )?;
        for (n, v) in &nccl {
            match rccl.iter().find(|(r, _)| r == n) {
                Some((_, rv)) if rv == v => writeln!(
                    s,
                    "    assert_eq!(i64::from({rccl_name}::{n}.0), {v}, \"{n}\");"
                )?,
                Some((_, rv)) if n.starts_with("ncclNum") => writeln!(
                    s,
                    "    // {n}: a count, {v} in NCCL, {rv} in RCCL (never passed or returned)."
                )?,
                Some((_, rv)) => mismatches.push(format!("{rccl_name}::{n}: NCCL {v}, RCCL {rv}")),
                None => writeln!(s, "    // {n} = {v}: NCCL only.")?,
            }
        }
        for (n, v) in &rccl {
            if !nccl.iter().any(|(m, _)| m == n) {
                writeln!(s, "    // {n} = {v}: RCCL only.")?;
            }
        }
        writeln!(s, "}}\n")?;
    }
    if !mismatches.is_empty() {
        bail!(
            "rccl.h and nccl.h give different values (rccl-sys's NVIDIA backend passes them unchanged):\n{}",
            mismatches.join("\n")
        );
    }
    Ok(s)
}

/// cuFFT's enums and hipFFT's, paired: (header under the merged CUDA include
/// folder, where, header under the ROCm include folder, where, CUDA prefix,
/// HIP prefix). An enumerator is paired with the one whose name is the same
/// after the prefix.
const CUFFT_ENUMS: &[(&str, Locate, &str, Locate, &str, &str)] = &[
    (
        "cufft.h",
        Locate::Typedef("cufftResult"),
        "hipfft/hipfft.h",
        Locate::Typedef("hipfftResult"),
        "CUFFT_",
        "HIPFFT_",
    ),
    (
        "cufft.h",
        Locate::Typedef("cufftType"),
        "hipfft/hipfft.h",
        Locate::Typedef("hipfftType"),
        "CUFFT_",
        "HIPFFT_",
    ),
    (
        "library_types.h",
        Locate::Typedef("libraryPropertyType"),
        "hipfft/hipfft.h",
        Locate::Typedef("hipfftLibraryPropertyType"),
        "",
        "HIPFFT_",
    ),
    (
        "cufftXt.h",
        Locate::Typedef("cufftXtCallbackType"),
        "hipfft/hipfftXt.h",
        Locate::Typedef("hipfftXtCallbackType"),
        "CUFFT_",
        "HIPFFT_",
    ),
    (
        "cufftXt.h",
        Locate::Typedef("cufftXtSubFormat"),
        "hipfft/hipfftXt.h",
        Locate::Typedef("hipfftXtSubFormat"),
        "CUFFT_",
        "HIPFFT_",
    ),
    (
        "cufftXt.h",
        Locate::Typedef("cufftXtCopyType"),
        "hipfft/hiplibxt.h",
        Locate::Typedef("hipfftXtCopyType"),
        "CUFFT_",
        "HIPFFT_",
    ),
    (
        "cudalibxt.h",
        Locate::Tag("enum libFormat_t"),
        "hipfft/hiplibxt.h",
        Locate::Typedef("hiplibFormat"),
        "LIB_",
        "HIPLIB_",
    ),
];

/// hipFFT enumerators whose cuFFT counterpart has another value: the
/// NVIDIA backend translates them (`convert.rs`), and the test checks that.
const CUFFT_TRANSLATED: &[&str] = &["HIPFFT_FORMAT_UNDEFINED"];

/// hipfft-sys's test of its enum values against cuFFT's headers (a unit
/// test, so it can call the backend's private translations): for every
/// enumerator both declare, the value cuFFT gives, as a literal. Fails (no
/// file is written) when a shared enumerator differs and is not one the
/// backend translates. (That each adapter line names a declared cuFFT
/// function is checked by `nvidia-tables`, which writes the lines.)
fn cufft_enumerators(cuda_include: &Path, rocm_include: &Path) -> Result<String> {
    let mut s = String::from(
        "// @generated by `cargo run -p hip-generator -- header-values`. Do not edit.\n\
         //! Every enumerator that cuFFT 11.4's headers (`cufft.h`, `cufftXt.h`,\n\
         //! `cudalibxt.h`, CUDA's `library_types.h`) and hipFFT 6.4.3's declare\n\
         //! under the same name (after the `CUFFT_`/`HIPFFT_` prefix) reaches cuFFT\n\
         //! with cuFFT's value: equal in hipfft-sys, or translated by the NVIDIA\n\
         //! backend. The values are literals read from the CUDA headers by the\n\
         //! generator's own parser, not from hipfft-sys's generated code.\n\n\
         use crate::*;\n\n",
    );
    let read = |path: &Path| {
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
    };
    let mut mismatches = Vec::new();
    for (cu_header, cu_at, hip_header, hip_at, cu_prefix, hip_prefix) in CUFFT_ENUMS {
        let cu = c_enum(&read(&cuda_include.join(cu_header))?, *cu_at)
            .with_context(|| format!("an enum of {cu_header}"))?;
        let hip = c_enum(&read(&rocm_include.join(hip_header))?, *hip_at)
            .with_context(|| format!("an enum of {hip_header}"))?;
        let hip_type = match hip_at {
            Locate::Typedef(t) | Locate::Tag(t) => *t,
        };
        writeln!(
            s,
            "#[test]\nfn {}_has_cuffts_values() {{",
            hip_type.to_lowercase()
        )?;
        for (cu_name, cu_value) in &cu {
            let Some(stem) = cu_name.strip_prefix(cu_prefix) else {
                continue;
            };
            let hip_name = format!("{hip_prefix}{stem}");
            let Some((_, hip_value)) = hip.iter().find(|(n, _)| *n == hip_name) else {
                continue;
            };
            if hip_value == cu_value {
                writeln!(
                    s,
                    "    assert_eq!(i64::from({hip_type}::{hip_name}.0), {cu_value}, \"{cu_name}\");"
                )?;
            } else if CUFFT_TRANSLATED.contains(&hip_name.as_str()) {
                writeln!(
                    s,
                    "    assert_eq!(i64::from(super::convert::to_cufft_{}({hip_type}::{hip_name})), {cu_value}, \"{cu_name}\");",
                    hip_type.to_lowercase()
                )?;
            } else {
                mismatches.push(format!("{hip_name}: cuFFT {cu_value}, hipFFT {hip_value}"));
            }
        }
        s.push_str("}\n\n");
    }
    if !mismatches.is_empty() {
        bail!(
            "hipFFT and cuFFT give different values that the NVIDIA backend does not translate:\n{}",
            mismatches.join("\n")
        );
    }
    Ok(s)
}

/// cuSPARSE's enums paired with hipSPARSE's; an enumerator is paired with the one whose name
/// is the same after `CUSPARSE_`/`HIPSPARSE_`.
const CUSPARSE_ENUMS: &[(&str, &str)] = &[
    ("cusparseStatus_t", "hipsparseStatus_t"),
    ("cusparsePointerMode_t", "hipsparsePointerMode_t"),
    ("cusparseAction_t", "hipsparseAction_t"),
    ("cusparseMatrixType_t", "hipsparseMatrixType_t"),
    ("cusparseFillMode_t", "hipsparseFillMode_t"),
    ("cusparseDiagType_t", "hipsparseDiagType_t"),
    ("cusparseIndexBase_t", "hipsparseIndexBase_t"),
    ("cusparseOperation_t", "hipsparseOperation_t"),
    ("cusparseDirection_t", "hipsparseDirection_t"),
    ("cusparseSolvePolicy_t", "hipsparseSolvePolicy_t"),
    ("cusparseFormat_t", "hipsparseFormat_t"),
    ("cusparseOrder_t", "hipsparseOrder_t"),
    ("cusparseIndexType_t", "hipsparseIndexType_t"),
    ("cusparseSpMatAttribute_t", "hipsparseSpMatAttribute_t"),
    ("cusparseSparseToDenseAlg_t", "hipsparseSparseToDenseAlg_t"),
    ("cusparseDenseToSparseAlg_t", "hipsparseDenseToSparseAlg_t"),
    ("cusparseSpMVAlg_t", "hipsparseSpMVAlg_t"),
    ("cusparseSpSVAlg_t", "hipsparseSpSVAlg_t"),
    ("cusparseSpSMAlg_t", "hipsparseSpSMAlg_t"),
    ("cusparseSpMMAlg_t", "hipsparseSpMMAlg_t"),
    ("cusparseSpGEMMAlg_t", "hipsparseSpGEMMAlg_t"),
    ("cusparseSDDMMAlg_t", "hipsparseSDDMMAlg_t"),
    ("cusparseCsr2CscAlg_t", "hipsparseCsr2CscAlg_t"),
];

/// hipSPARSE enumerators whose cuSPARSE namesake has another value: the
/// NVIDIA backend translates them (`convert.rs`), and the test checks that.
const CUSPARSE_TRANSLATED: &[&str] = &["HIPSPARSE_CSR2CSC_ALG_DEFAULT"];

/// hipsparse-sys's test of its enum values against cuSPARSE's header (a
/// unit test of the NVIDIA backend, which passes every value unchanged):
/// for every enumerator both declare, cuSPARSE's value as a literal, and a
/// check that the backend's conversion gives it. hipsparse.h is read where
/// bindgen reads it (its first declaration of each enum, the one for
/// builds without `CUDART_VERSION`). Fails (no file is written) when a
/// shared enumerator differs and is not translated. (The adapter lines'
/// functions are checked against cusparse.h by `nvidia-tables`.)
fn cusparse_enumerators(cuda_include: &Path, rocm_include: &Path) -> Result<String> {
    let mut s = String::from(
        "// @generated by `cargo run -p hip-generator -- header-values`. Do not edit.\n\
         //! Every enumerator that cuSPARSE 12.5's `cusparse.h` and hipSPARSE 6.4.3's\n\
         //! `hipsparse.h` declare under the same name (after the `CUSPARSE_`/\n\
         //! `HIPSPARSE_` prefix) reaches cuSPARSE with cuSPARSE's value: equal in hipsparse-sys and\n\
         //! passed on, or translated by the NVIDIA backend. The values are\n\
         //! literals read from cusparse.h by the generator's own parser, not from\n\
         //! hipsparse-sys's generated code.\n\n\
         use hip_sys::loader::adapter::ToCuda;\n\
         use crate::*;\n\n",
    );
    let read = |path: &Path| {
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
    };
    // The deprecation markers cusparse.h puts between `}` and a type's name.
    let cu_text =
        read(&cuda_include.join("cusparse.h"))?.replace(" CUSPARSE_DEPRECATED_TYPE;", ";");
    // hipSPARSE's deprecated enumerators carry an attribute before `=`.
    let marker = Regex::new(r#"HIPSPARSE_DEPRECATED_MSG\("[^"]*"\)"#)?;
    let hip_text = marker
        .replace_all(&read(&rocm_include.join("hipsparse/hipsparse.h"))?, "")
        .into_owned();
    let mut mismatches = Vec::new();
    let mut checked = 0;
    for &(cu_type, hip_type) in CUSPARSE_ENUMS {
        let cu = c_enum(&cu_text, Locate::Typedef(cu_type))
            .with_context(|| format!("{cu_type} in cusparse.h"))?;
        let hip = c_enum(&hip_text, Locate::Typedef(hip_type))
            .with_context(|| format!("{hip_type} in hipsparse.h"))?;
        writeln!(
            s,
            "#[test]\nfn {}_has_cusparses_values() {{",
            hip_type.to_lowercase()
        )?;
        for (cu_name, cu_value) in &cu {
            let Some(rest) = cu_name.strip_prefix("CUSPARSE_") else {
                continue;
            };
            let hip_name = format!("HIPSPARSE_{rest}");
            let Some((_, hip_value)) = hip.iter().find(|(n, _)| *n == hip_name) else {
                writeln!(s, "    // {cu_name} = {cu_value}: cuSPARSE only.")?;
                continue;
            };
            if hip_value != cu_value && CUSPARSE_TRANSLATED.contains(&hip_name.as_str()) {
                checked += 1;
                writeln!(
                    s,
                    "    // hipSPARSE {hip_value}, translated by the backend.\n    \
                     assert_eq!({hip_type}::{hip_name}.to_cuda().map(i64::from), Ok({cu_value}), \"{cu_name}\");"
                )?;
                continue;
            }
            if hip_value != cu_value {
                mismatches.push(format!(
                    "{hip_name}: cuSPARSE {cu_value}, hipSPARSE {hip_value}"
                ));
                continue;
            }
            checked += 1;
            writeln!(
                s,
                "    assert_eq!(i64::from({hip_type}::{hip_name}.0), {cu_value}, \"{cu_name}\");\n    \
                 assert_eq!({hip_type}::{hip_name}.to_cuda().map(i64::from), Ok({cu_value}), \"{cu_name}\");"
            )?;
        }
        for (n, v) in &hip {
            let stem = n.strip_prefix("HIPSPARSE_").unwrap_or(n);
            if !cu
                .iter()
                .any(|(c, _)| c.strip_prefix("CUSPARSE_") == Some(stem))
            {
                writeln!(s, "    // {n} = {v}: hipSPARSE only.")?;
            }
        }
        s.push_str("}\n\n");
    }
    if checked < 60 {
        bail!("only {checked} cuSPARSE enumerators paired: the header reading is broken");
    }
    if !mismatches.is_empty() {
        bail!(
            "hipSPARSE and cuSPARSE give different values (the NVIDIA backend passes them unchanged):\n{}",
            mismatches.join("\n")
        );
    }
    Ok(s)
}

/// cuSOLVER's enums (and the cuBLAS ones it takes) paired with hipSOLVER's:
/// (CUDA header, where, hipSOLVER header, where, CUDA prefix, HIP prefix,
/// translated by the NVIDIA backend). An enumerator is paired with the one
/// whose name is the same after the prefix.
const CUSOLVER_ENUMS: &[(&str, Locate, &str, Locate, &str, &str, bool)] = &[
    (
        "cublas_api.h",
        Locate::Typedef("cublasOperation_t"),
        "hipsolver/internal/hipsolver-types.h",
        Locate::Typedef("hipblasOperation_t"),
        "CUBLAS_",
        "HIPBLAS_",
        true,
    ),
    (
        "cublas_api.h",
        Locate::Typedef("cublasFillMode_t"),
        "hipsolver/internal/hipsolver-types.h",
        Locate::Typedef("hipblasFillMode_t"),
        "CUBLAS_",
        "HIPBLAS_",
        true,
    ),
    (
        "cublas_api.h",
        Locate::Typedef("cublasDiagType_t"),
        "hipsolver/internal/hipsolver-types.h",
        Locate::Typedef("hipblasDiagType_t"),
        "CUBLAS_",
        "HIPBLAS_",
        true,
    ),
    (
        "cublas_api.h",
        Locate::Typedef("cublasSideMode_t"),
        "hipsolver/internal/hipsolver-types.h",
        Locate::Typedef("hipblasSideMode_t"),
        "CUBLAS_",
        "HIPBLAS_",
        true,
    ),
    (
        "cusolver_common.h",
        Locate::Typedef("cusolverEigMode_t"),
        "hipsolver/internal/hipsolver-types.h",
        Locate::Typedef("hipsolverEigMode_t"),
        "CUSOLVER_",
        "HIPSOLVER_",
        true,
    ),
    (
        "cusolver_common.h",
        Locate::Typedef("cusolverEigType_t"),
        "hipsolver/internal/hipsolver-types.h",
        Locate::Typedef("hipsolverEigType_t"),
        "CUSOLVER_",
        "HIPSOLVER_",
        true,
    ),
    (
        "cusolver_common.h",
        Locate::Typedef("cusolverEigRange_t"),
        "hipsolver/internal/hipsolver-types.h",
        Locate::Typedef("hipsolverEigRange_t"),
        "CUSOLVER_",
        "HIPSOLVER_",
        true,
    ),
    (
        "cusolver_common.h",
        Locate::Typedef("cusolverAlgMode_t"),
        "hipsolver/internal/hipsolver-dense64.h",
        Locate::Typedef("hipsolverAlgMode_t"),
        "CUSOLVER_",
        "HIPSOLVER_",
        true,
    ),
    (
        "cusolverDn.h",
        Locate::Typedef("cusolverDeterministicMode_t"),
        "hipsolver/internal/hipsolver-types.h",
        Locate::Typedef("hipsolverDeterministicMode_t"),
        "CUSOLVER_",
        "HIPSOLVER_",
        true,
    ),
    (
        "cusolverDn.h",
        Locate::Typedef("cusolverDnFunction_t"),
        "hipsolver/internal/hipsolver-dense64.h",
        Locate::Typedef("hipsolverDnFunction_t"),
        "CUSOLVERDN_",
        "HIPSOLVERDN_",
        false,
    ),
    (
        "cusolverRf.h",
        Locate::Typedef("cusolverRfResetValuesFastMode_t"),
        "hipsolver/internal/hipsolver-refactor.h",
        Locate::Typedef("hipsolverRfResetValuesFastMode_t"),
        "CUSOLVERRF_",
        "HIPSOLVERRF_",
        false,
    ),
    (
        "cusolverRf.h",
        Locate::Typedef("cusolverRfMatrixFormat_t"),
        "hipsolver/internal/hipsolver-refactor.h",
        Locate::Typedef("hipsolverRfMatrixFormat_t"),
        "CUSOLVERRF_",
        "HIPSOLVERRF_",
        false,
    ),
    (
        "cusolverRf.h",
        Locate::Typedef("cusolverRfUnitDiagonal_t"),
        "hipsolver/internal/hipsolver-refactor.h",
        Locate::Typedef("hipsolverRfUnitDiagonal_t"),
        "CUSOLVERRF_",
        "HIPSOLVERRF_",
        false,
    ),
    (
        "cusolverRf.h",
        Locate::Typedef("cusolverRfFactorization_t"),
        "hipsolver/internal/hipsolver-refactor.h",
        Locate::Typedef("hipsolverRfFactorization_t"),
        "CUSOLVERRF_",
        "HIPSOLVERRF_",
        false,
    ),
    (
        "cusolverRf.h",
        Locate::Typedef("cusolverRfTriangularSolve_t"),
        "hipsolver/internal/hipsolver-refactor.h",
        Locate::Typedef("hipsolverRfTriangularSolve_t"),
        "CUSOLVERRF_",
        "HIPSOLVERRF_",
        false,
    ),
    (
        "cusolverRf.h",
        Locate::Typedef("cusolverRfNumericBoostReport_t"),
        "hipsolver/internal/hipsolver-refactor.h",
        Locate::Typedef("hipsolverRfNumericBoostReport_t"),
        "CUSOLVERRF_",
        "HIPSOLVERRF_",
        false,
    ),
];

/// hipsolver-sys's test of its enum values against cuSOLVER's headers (a
/// unit test, so it can call the backend's private translations): for every
/// enumerator both declare, the value cuSOLVER gives, as a literal, reached
/// through the backend's translation where hipSOLVER's values are
/// rocBLAS's, and every cuSOLVER status through the status translation.
/// Fails (no file is written) when an enum the backend passes unchanged
/// differs. (The adapter lines' functions are checked against the headers
/// by `nvidia-tables`.)
fn cusolver_enumerators(cuda_include: &Path, rocm_include: &Path) -> Result<String> {
    let mut s = String::from(
        "// @generated by `cargo run -p hip-generator -- header-values`. Do not edit.\n\
         //! Every enumerator that cuSOLVER 11.7's headers (`cusolver_common.h`,\n\
         //! `cusolverDn.h`, `cusolverRf.h`, and cuBLAS's `cublas_api.h` for the\n\
         //! operation, fill, diagonal and side enums) and hipSOLVER 6.4.1's declare\n\
         //! under the same name (after the prefix) reaches cuSOLVER with cuSOLVER's\n\
         //! value, through the NVIDIA backend's translation where hipSOLVER's values\n\
         //! differ; every cuSOLVER status hipSOLVER names comes back as that status.\n\
         //! The values are literals read from the CUDA headers by the generator's\n\
         //! own parser, not from hipsolver-sys's generated code.\n\n\
         use crate::*;\n\n",
    );
    let read = |path: &Path| {
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
    };
    let mut mismatches = Vec::new();
    // Statuses: cuSOLVER's value, translated back, is hipSOLVER's of the
    // same name.
    let cu = c_enum(
        &read(&cuda_include.join("cusolver_common.h"))?,
        Locate::Typedef("cusolverStatus_t"),
    )
    .context("cusolverStatus_t")?;
    let hip = c_enum(
        &read(&rocm_include.join("hipsolver/internal/hipsolver-types.h"))?,
        Locate::Typedef("hipsolverStatus_t"),
    )
    .context("hipsolverStatus_t")?;
    s.push_str("#[test]\nfn cusolver_statuses_become_hipsolvers() {\n");
    for (cu_name, cu_value) in &cu {
        let Some(stem) = cu_name.strip_prefix("CUSOLVER_STATUS_") else {
            continue;
        };
        let hip_name = format!("HIPSOLVER_STATUS_{stem}");
        if hip.iter().any(|(n, _)| *n == hip_name) {
            writeln!(
                s,
                "    assert_eq!(super::convert::from_cusolver({cu_value}), hipsolverStatus_t::{hip_name}, \"{cu_name}\");"
            )?;
        }
    }
    s.push_str("}\n\n");
    for (cu_header, cu_at, hip_header, hip_at, cu_prefix, hip_prefix, translated) in CUSOLVER_ENUMS
    {
        let cu = c_enum(&read(&cuda_include.join(cu_header))?, *cu_at)
            .with_context(|| format!("an enum of {cu_header}"))?;
        let hip = c_enum(&read(&rocm_include.join(hip_header))?, *hip_at)
            .with_context(|| format!("an enum of {hip_header}"))?;
        let hip_type = match hip_at {
            Locate::Typedef(t) | Locate::Tag(t) => *t,
        };
        writeln!(
            s,
            "#[test]\nfn {}_has_cusolvers_values() {{",
            hip_type.to_lowercase()
        )?;
        let mut paired = 0;
        for (cu_name, cu_value) in &cu {
            let Some(stem) = cu_name.strip_prefix(cu_prefix) else {
                continue;
            };
            let hip_name = format!("{hip_prefix}{stem}");
            let Some((_, hip_value)) = hip.iter().find(|(n, _)| *n == hip_name) else {
                continue;
            };
            paired += 1;
            if *translated {
                writeln!(
                    s,
                    "    assert_eq!(i64::from(super::convert::to_cu({hip_type}::{hip_name})), {cu_value}, \"{cu_name}\");"
                )?;
            } else if hip_value == cu_value {
                writeln!(
                    s,
                    "    assert_eq!(i64::from({hip_type}::{hip_name}.0), {cu_value}, \"{cu_name}\");"
                )?;
            } else {
                mismatches.push(format!(
                    "{hip_name}: cuSOLVER {cu_value}, hipSOLVER {hip_value}"
                ));
            }
        }
        if paired == 0 {
            mismatches.push(format!("{hip_type}: no enumerator paired with {cu_header}"));
        }
        s.push_str("}\n\n");
    }
    if !mismatches.is_empty() {
        bail!(
            "hipSOLVER and cuSOLVER differ where the NVIDIA backend does not translate:\n{}",
            mismatches.join("\n")
        );
    }
    Ok(s)
}

/// hipify-perl's numeric-literal pairs (CUDA name -> every HIP name it is
/// given, in any of hipify-perl's sections).
fn hipify_pairs(text: &str) -> Result<BTreeMap<String, BTreeSet<String>>> {
    let subst = Regex::new(r#"subst\("(\w+)", "(\w+)", "numeric_literal"\)"#)?;
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for c in subst.captures_iter(text) {
        out.entry(c[1].to_owned())
            .or_default()
            .insert(c[2].to_owned());
    }
    Ok(out)
}

/// Every enum the data files need, read once.
struct Headers {
    enums: BTreeMap<&'static str, Vec<(String, i64)>>,
    hipify: BTreeMap<String, BTreeSet<String>>,
}

impl Headers {
    fn read(cuda_include: &Path, rocm_include: &Path, hipify_perl: &Path) -> Result<Headers> {
        let mut enums = BTreeMap::new();
        for src in [
            &CUDA_ERROR,
            &CU_RESULT,
            &NVRTC_RESULT,
            &CUBLAS_STATUS,
            &CU_DEVICE_ATTRIBUTE,
            &HIP_ERROR,
            &HIPRTC_RESULT,
            &HIPBLAS_STATUS,
            &HIP_DEVICE_ATTRIBUTE,
        ] {
            let path = if src.cuda { cuda_include } else { rocm_include }.join(src.header);
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("reading {}", path.display()))?;
            let values = c_enum(&text, src.locate)
                .with_context(|| format!("{} in {}", src.name, path.display()))?;
            enums.insert(src.name, values);
        }
        let text = std::fs::read_to_string(hipify_perl)
            .with_context(|| format!("reading {}", hipify_perl.display()))?;
        Ok(Headers {
            enums,
            hipify: hipify_pairs(&text)?,
        })
    }

    /// The data file for the pairs `(CUDA enum, HIP enum)`: both enums'
    /// enumerators, and hipify-perl's pairs from the first to the second.
    fn data_file(&self, pairs: &[(&EnumSource, &EnumSource)], used_by: &str) -> Result<String> {
        let mut s = String::new();
        writeln!(
            s,
            "# @generated by `cargo run -p hip-generator -- header-values`. Do not edit.\n\
             # Read by {used_by}.\n\
             # Enumerators of C enums as the CUDA 12.9 and ROCm 6.4 headers define them\n\
             # (`enum <C enum> <enumerator> <value>`), and hipify-perl's CUDA -> HIP name\n\
             # pairs between them (`hipify <CUDA enumerator> <HIP enumerator>`; a CUDA\n\
             # enumerator with no line has no counterpart in the HIP enum)."
        )?;
        let mut written = BTreeSet::new();
        for (cuda, hip) in pairs {
            for src in [cuda, hip] {
                if written.insert(src.name) {
                    for (n, v) in &self.enums[src.name] {
                        writeln!(s, "enum {} {n} {v}", src.name)?;
                    }
                }
            }
        }
        for (cuda, hip) in pairs {
            for (n, _) in &self.enums[cuda.name] {
                if let Some(h) = self.counterpart(n, hip)? {
                    writeln!(s, "hipify {n} {h}")?;
                }
            }
        }
        Ok(s)
    }

    /// hipify-perl's counterpart of CUDA enumerator `cuda` among `hip`'s
    /// enumerators, if any; an error when hipify-perl names two.
    fn counterpart(&self, cuda: &str, hip: &EnumSource) -> Result<Option<&str>> {
        let Some(targets) = self.hipify.get(cuda) else {
            return Ok(None);
        };
        let in_enum: Vec<&str> = targets
            .iter()
            .map(String::as_str)
            .filter(|t| self.enums[hip.name].iter().any(|(n, _)| n == t))
            .collect();
        match in_enum.as_slice() {
            [] => Ok(None),
            [one] => Ok(Some(one)),
            many => bail!("hipify-perl maps {cuda} to several {}: {many:?}", hip.name),
        }
    }

    /// cuda-compat's test naming every status enumerator in both path
    /// styles, checking the value against HIP's header: one
    /// `both_paths!` call per enum, one line per enumerator.
    fn enumerator_paths(&self) -> Result<String> {
        let mut s = String::from(
            "// @generated by `cargo run -p hip-generator -- header-values`. Do not edit.\n\
             //! Every enumerator of CUDA 12.9's status enums, named under both path\n\
             //! styles (`Enum::NAME` and plain `NAME`): both must be the same value,\n\
             //! and for an enumerator HIP has, that value is the one ROCm 6.4's header\n\
             //! gives its hipify-perl counterpart (written here as a literal read from\n\
             //! the header, not from cuda-compat's generated code). Enumerators HIP\n\
             //! lacks exist only with the `synthesized-enums` feature, and must be\n\
             //! marked synthesized.\n\n\
             /// `both_paths! { m::Enum = hipEnum: NAME: (value, \"hipNAME\"), OTHER: synthesized, }`\n\
             /// checks each enumerator: `m::Enum::NAME == m::NAME`, and its value is\n\
             /// HIP's `value`; a `synthesized` one (only with the feature) is marked so.\n\
             macro_rules! both_paths {\n\
             \x20   ($m:ident::$e:ident = $hip:ident: $($n:ident: $what:tt,)*) => {\n\
             \x20       $(both_paths!(@one $m::$e $hip $n $what);)*\n\
             \x20   };\n\
             \x20   (@one $m:ident::$e:ident $hip:ident $n:ident ($v:literal, $h:literal)) => {\n\
             \x20       assert_eq!($m::$e::$n, $m::$n);\n\
             \x20       assert_eq!(\n\
             \x20           i64::from($m::$n.0),\n\
             \x20           $v,\n\
             \x20           concat!(stringify!($n), \": \", stringify!($hip), \" \", $h)\n\
             \x20       );\n\
             \x20   };\n\
             \x20   (@one $m:ident::$e:ident $hip:ident $n:ident synthesized) => {\n\
             \x20       #[cfg(feature = \"synthesized-enums\")]\n\
             \x20       {\n\
             \x20           assert_eq!($m::$e::$n, $m::$n);\n\
             \x20           assert!($m::$n.is_synthesized(), stringify!($n));\n\
             \x20       }\n\
             \x20   };\n\
             }\n\n",
        );
        for (module, cuda, hip) in COMPAT_STATUS {
            let hip_values: BTreeMap<&str, i64> = self.enums[hip.name]
                .iter()
                .map(|(n, v)| (n.as_str(), *v))
                .collect();
            let e = cuda.name;
            writeln!(
                s,
                "#[test]\nfn every_{}_enumerator_has_both_paths_and_hips_value() {{",
                e.to_lowercase()
            )?;
            writeln!(s, "    use cuda_compat::{module} as m;")?;
            writeln!(s, "    both_paths! {{ m::{e} = {}:", hip.name)?;
            let mut seen = BTreeSet::new();
            for (n, _) in &self.enums[cuda.name] {
                if !seen.insert(n) {
                    continue;
                }
                match self.counterpart(n, hip)? {
                    Some(h) => writeln!(s, "        {n}: ({}, \"{h}\"),", hip_values[h])?,
                    None => writeln!(s, "        {n}: synthesized,")?,
                }
            }
            writeln!(s, "    }}\n}}\n")?;
        }
        Ok(s)
    }
}

/// Writes hip-sys's and cuda-compat's reference data and cuda-compat's
/// enumerator path test.
pub(crate) fn generate(root: &Path) -> Result<()> {
    let cuda_include = root.join("build.rs-tools/cuda-headers/include");
    let rocm = root.join("build.rs-tools/rocm-headers/usr");
    if !cuda_include.join("cuda.h").exists() {
        bail!("no CUDA headers: run build.rs-tools/scripts/fetch-cuda-headers.sh");
    }
    if !rocm.join("include/hip/hip_runtime_api.h").exists() {
        bail!("no ROCm headers: run build.rs-tools/scripts/fetch-rocm-headers.sh");
    }
    let headers = Headers::read(
        &cuda_include,
        &rocm.join("include"),
        &rocm.join("bin/hipify-perl"),
    )?;

    let hip_sys = headers.data_file(
        &[
            (&CUDA_ERROR, &HIP_ERROR),
            (&CU_RESULT, &HIP_ERROR),
            (&NVRTC_RESULT, &HIPRTC_RESULT),
            (&CU_DEVICE_ATTRIBUTE, &HIP_DEVICE_ATTRIBUTE),
        ],
        "hip-sys/src/nvidia/tests.rs (the NVIDIA backend's translations)",
    )?;
    std::fs::write(
        root.join("hip-sys/src/generated/nvidia/header_enumerators.txt"),
        hip_sys,
    )?;

    let pairs: Vec<(&EnumSource, &EnumSource)> =
        COMPAT_STATUS.iter().map(|(_, c, h)| (*c, *h)).collect();
    let compat = headers.data_file(&pairs, "cuda-compat/tests/enumerators.rs")?;
    let data = root.join("cuda-compat/tests/data");
    std::fs::create_dir_all(&data)?;
    std::fs::write(data.join("header_enumerators.txt"), compat)?;

    let path = root.join("cuda-compat/tests/enumerator_paths.rs");
    std::fs::write(&path, headers.enumerator_paths()?)?;
    crate::rustfmt(&path)?;

    let path = root.join("hipfft-sys/src/generated/nvidia/cufft_enumerators.rs");
    std::fs::write(
        &path,
        cufft_enumerators(&cuda_include, &rocm.join("include"))?,
    )?;
    crate::rustfmt(&path)?;

    let path = root.join("hipsparse-sys/src/generated/nvidia/cusparse_enumerators.rs");
    std::fs::write(
        &path,
        cusparse_enumerators(&cuda_include, &rocm.join("include"))?,
    )?;
    crate::rustfmt(&path)?;

    let path = root.join("hipsolver-sys/src/generated/nvidia/cusolver_enumerators.rs");
    std::fs::write(
        &path,
        cusolver_enumerators(&cuda_include, &rocm.join("include"))?,
    )?;
    crate::rustfmt(&path)?;

    let path = root.join("rccl-sys/tests/tier1_nccl_enumerators.rs");
    std::fs::write(
        &path,
        nccl_enumerators(&cuda_include, &rocm.join("include"))?,
    )?;
    crate::rustfmt(&path)?;

    let path = root.join("hipblaslt-sys/src/generated/nvidia/cublaslt_enumerators.rs");
    std::fs::write(
        &path,
        cublaslt_enumerators(root, &cuda_include, &rocm.join("include"))?,
    )?;
    crate::rustfmt(&path)?;

    crate::header_enums::generate(root, &cuda_include)?;
    Ok(())
}

/// cuBLASLt's enums and hipBLASLt's, paired: (CUDA header, CUDA typedef,
/// ROCm header, hipBLASLt typedef, CUDA prefix, HIP prefix, the function of
/// hipblaslt-sys's `nvidia/convert.rs` that maps the HIP enum). An
/// enumerator is paired with the one whose name is the same after the
/// prefix.
const CUBLASLT_ENUMS: &[(&str, &str, &str, &str, &str, &str, &str)] = &[
    (
        "cublasLt.h",
        "cublasLtEpilogue_t",
        "hipblaslt/hipblaslt.h",
        "hipblasLtEpilogue_t",
        "CUBLASLT_EPILOGUE_",
        "HIPBLASLT_EPILOGUE_",
        "epilogue",
    ),
    (
        "cublasLt.h",
        "cublasLtMatrixLayoutAttribute_t",
        "hipblaslt/hipblaslt.h",
        "hipblasLtMatrixLayoutAttribute_t",
        "CUBLASLT_MATRIX_LAYOUT_",
        "HIPBLASLT_MATRIX_LAYOUT_",
        "layout_attribute",
    ),
    (
        "cublasLt.h",
        "cublasLtMatmulDescAttributes_t",
        "hipblaslt/hipblaslt.h",
        "hipblasLtMatmulDescAttributes_t",
        "CUBLASLT_MATMUL_DESC_",
        "HIPBLASLT_MATMUL_DESC_",
        "desc_attribute",
    ),
    (
        "cublasLt.h",
        "cublasLtMatmulPreferenceAttributes_t",
        "hipblaslt/hipblaslt.h",
        "hipblasLtMatmulPreferenceAttributes_t",
        "CUBLASLT_MATMUL_PREF_",
        "HIPBLASLT_MATMUL_PREF_",
        "preference_attribute",
    ),
    (
        "cublasLt.h",
        "cublasLtMatrixTransformDescAttributes_t",
        "hipblaslt/hipblaslt.h",
        "hipblasLtMatrixTransformDescAttributes_t",
        "CUBLASLT_MATRIX_TRANSFORM_DESC_",
        "HIPBLASLT_MATRIX_TRANSFORM_DESC_",
        "transform_attribute",
    ),
    (
        "cublasLt.h",
        "cublasLtOrder_t",
        "hipblaslt/hipblaslt.h",
        "hipblasLtOrder_t",
        "CUBLASLT_ORDER_",
        "HIPBLASLT_ORDER_",
        "order",
    ),
    (
        "cublasLt.h",
        "cublasLtPointerMode_t",
        "hipblaslt/hipblaslt.h",
        "hipblasLtPointerMode_t",
        "CUBLASLT_POINTER_MODE_",
        "HIPBLASLT_POINTER_MODE_",
        "pointer_mode",
    ),
    (
        "cublasLt.h",
        "cublasLtMatmulMatrixScale_t",
        "hipblaslt/hipblaslt.h",
        "hipblasLtMatmulMatrixScale_t",
        "CUBLASLT_MATMUL_MATRIX_SCALE_",
        "HIPBLASLT_MATMUL_MATRIX_SCALE_",
        "matrix_scale",
    ),
    (
        "cublas_api.h",
        "cublasComputeType_t",
        "hipblas-common/hipblas-common.h",
        "hipblasComputeType_t",
        "CUBLAS_COMPUTE_",
        "HIPBLAS_COMPUTE_",
        "compute_type",
    ),
    (
        "cublas_api.h",
        "cublasOperation_t",
        "hipblas-common/hipblas-common.h",
        "hipblasOperation_t",
        "CUBLAS_OP_",
        "HIPBLAS_OP_",
        "operation",
    ),
];

/// hipblaslt-sys's test of its NVIDIA backend's enum mappings against
/// cuBLASLt's headers (a unit test, so it can call the backend's private
/// `convert` functions): for every enumerator both declare, the value
/// cuBLASLt gives, as a literal; for every hipBLASLt enumerator cuBLASLt
/// lacks, `None` (the adapters refuse it). Fails (no file is written) when
/// an adapter of the backend names a cuBLASLt function cublasLt.h does not
/// declare.
fn cublaslt_enumerators(root: &Path, cuda_include: &Path, rocm_include: &Path) -> Result<String> {
    let mut s = String::from(
        "// @generated by `cargo run -p hip-generator -- header-values`. Do not edit.\n\
         //! Every enumerator of hipBLASLt 7.1.1's enums (and hipBLAS's operation\n\
         //! and compute types) reaches cuBLASLt with the value cublasLt.h (and\n\
         //! cublas_api.h) of the nvidia-cublas-cu12 wheel gives the enumerator of\n\
         //! the same name, through the NVIDIA backend's `convert` functions; one\n\
         //! cuBLASLt lacks maps to `None`, which the adapters refuse. The values\n\
         //! are literals read from the CUDA headers by the generator's own parser,\n\
         //! not from hipblaslt-sys's generated code.\n\n\
         use crate::*;\n\n",
    );
    let read = |path: &Path| {
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
    };
    // cublasLtPointerMode_t's first values are cuBLAS's pointer modes.
    let cublas_api = read(&cuda_include.join("cublas_api.h"))?;
    let known = c_enum(&cublas_api, Locate::Typedef("cublasPointerMode_t"))?;
    for (cu_header, cu_type, hip_header, hip_type, cu_prefix, hip_prefix, convert) in CUBLASLT_ENUMS
    {
        let cu = c_enum_with(
            &read(&cuda_include.join(cu_header))?,
            Locate::Typedef(cu_type),
            &known,
        )
        .with_context(|| format!("{cu_type} in {cu_header}"))?;
        let hip = c_enum(
            &read(&rocm_include.join(hip_header))?,
            Locate::Typedef(hip_type),
        )
        .with_context(|| format!("{hip_type} in {hip_header}"))?;
        writeln!(
            s,
            "#[test]\nfn {}_reaches_cublaslt_with_its_values() {{",
            hip_type.to_lowercase()
        )?;
        writeln!(s, "    use super::convert::{convert};")?;
        for (hip_name, _) in &hip {
            let Some(stem) = hip_name.strip_prefix(hip_prefix) else {
                continue;
            };
            let cu_name = format!("{cu_prefix}{stem}");
            match cu.iter().find(|(n, _)| *n == cu_name) {
                Some((_, v)) => writeln!(
                    s,
                    "    assert_eq!({convert}({hip_type}::{hip_name}).map(i64::from), Some({v}), \"{cu_name}\");"
                )?,
                None => writeln!(
                    s,
                    "    assert_eq!({convert}({hip_type}::{hip_name}), None, \"no {cu_name} in cuBLASLt\");"
                )?,
            }
        }
        s.push_str("}\n\n");
    }
    let declared = read(&cuda_include.join("cublasLt.h"))?;
    // The hand-written functions' symbols (the generated adapters were
    // checked against cublasLt.h when they were written).
    let adapters = read(&root.join("hipblaslt-sys/src/nvidia/hand_written.rs"))?;
    let named = Regex::new(r#"= "(cublasLt\w+)";"#)?;
    let mut missing = Vec::new();
    for c in named.captures_iter(&adapters) {
        if !Regex::new(&format!(r"\b{}\s*\(", &c[1]))?.is_match(&declared) {
            missing.push(c[1].to_owned());
        }
    }
    if !missing.is_empty() {
        bail!(
            "hipblaslt-sys's NVIDIA backend names functions cublasLt.h does not declare: {}",
            missing.join(", ")
        );
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_literals_increments_and_references() {
        let text = "typedef enum tag {\n  A = 0, /* a, b */\n  B, // c\n  C = 0x10,\n  D = A,\n  E = -1,\n  F = 7u\n} name_t;";
        let got = c_enum(text, Locate::Typedef("name_t")).unwrap();
        let want = [("A", 0), ("B", 1), ("C", 16), ("D", 0), ("E", -1), ("F", 7)];
        assert_eq!(got.len(), want.len());
        for ((n, v), (wn, wv)) in got.iter().zip(want) {
            assert_eq!((n.as_str(), *v), (wn, wv));
        }
        let tagged = c_enum(
            "enum __x cudaError\n{\n X = 3,\n Y\n};",
            Locate::Tag("enum __x cudaError"),
        )
        .unwrap();
        assert_eq!(tagged, [("X".to_owned(), 3), ("Y".to_owned(), 4)]);
    }

    #[test]
    fn reads_or_expressions_in_parentheses() {
        let text =
            "typedef enum {\n  R = 2,\n  RA = (R | 128),\n  D = 8 | 128,\n  DB = D | 16\n} e_t;";
        let got = c_enum(text, Locate::Typedef("e_t")).unwrap();
        let values: Vec<i64> = got.iter().map(|(_, v)| *v).collect();
        assert_eq!(values, [2, 130, 136, 152]);
        assert!(expression("(A | 1", &[]).is_err());
    }

    #[test]
    fn reads_nccls_max_red_op() {
        let text = "typedef enum { ncclSum = 0,\n ncclNumOps = 5,\n ncclMaxRedOp = 0x7fffffff>>(32-8*sizeof(ncclRedOp_dummy_t))\n } ncclRedOp_t;";
        let got = c_enum(text, Locate::Typedef("ncclRedOp_t")).unwrap();
        assert_eq!(got[2], ("ncclMaxRedOp".to_owned(), 0x7fff_ffff));
        assert!(expression("0x7fffffff>>(31-8*sizeof(x))", &[]).is_err());
        assert!(expression("0x7fffffff>>(32-8*sizeof(a+b))", &[]).is_err());
    }

    #[test]
    fn rejects_what_it_does_not_understand() {
        assert!(c_enum("typedef enum { A = 1 << 2 } t;", Locate::Typedef("t")).is_err());
        assert!(c_enum("typedef enum { A = B } t;", Locate::Typedef("t")).is_err());
        assert!(c_enum(
            "typedef enum {\n#if X\n A\n#endif\n} t;",
            Locate::Typedef("t")
        )
        .is_err());
        assert!(c_enum("typedef struct { int a; } t;", Locate::Typedef("t")).is_err());
    }
}

//! Tier 1: AMD code-object envelopes given as PTX (`Ptx::from_src`,
//! `Ptx::from_file`), checked for each platform without a device.

use cuda_compat::driver::{result::last_error_detail, sys::CUresult, DriverError};
use cuda_compat::nvrtc::Ptx;
use cuda_compat::Platform;
use test_kit::code_object::{envelope, tiny_bundle};

fn affine() -> String {
    envelope(
        &tiny_bundle(),
        Some("affine.cu"),
        &["gfx90a", "gfx1100"],
        &[("affine_f64", "needs fp64 atomics")],
    )
}

/// `text` written to a file of its own under cargo's test scratch folder.
fn file_with(name: &str, text: &str) -> std::path::PathBuf {
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn refusal(ptx: &Ptx, platform: Platform, status: CUresult) -> String {
    let e = ptx.loads_on(platform).unwrap_err();
    assert_eq!(e, DriverError(status));
    let (s, why) = last_error_detail().expect("a reason");
    assert_eq!(s, status);
    // The error's `Debug` carries the reason (quoted as a string).
    assert!(
        format!("{e:?}").contains(&format!("{why:?}")),
        "{e:?} lacks {why}"
    );
    why
}

#[test]
fn an_envelope_loads_on_amd_only() {
    let path = file_with("affine.ptx", &affine());
    for ptx in [Ptx::from_src(affine()), Ptx::from_file(&path)] {
        assert!(ptx.loads_on(Platform::Amd).is_ok());
        let why = refusal(&ptx, Platform::Nvidia, CUresult::CUDA_ERROR_INVALID_IMAGE);
        assert!(
            why.contains("were built for AMD GPUs (gfx90a gfx1100, from affine.cu)"),
            "{why}"
        );
        assert!(
            why.contains("On NVIDIA they must be built by nvcc"),
            "{why}"
        );
    }
    // From a file, the detail names it.
    let why = refusal(
        &Ptx::from_file(&path),
        Platform::Nvidia,
        CUresult::CUDA_ERROR_INVALID_IMAGE,
    );
    assert!(why.contains(&path.display().to_string()), "{why}");
    // CRLF line ends.
    assert!(Ptx::from_src(affine().replace('\n', "\r\n"))
        .loads_on(Platform::Amd)
        .is_ok());
}

#[test]
fn a_malformed_envelope_is_invalid_image_naming_the_line() {
    let text = affine();
    // The base64's first line is line 7 (magic, source, targets,
    // unavailable, sha256, begin).
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    lines[6].replace_range(3..4, "!");
    let broken = lines.join("\n") + "\n";
    let why = refusal(
        &Ptx::from_src(&broken),
        Platform::Amd,
        CUresult::CUDA_ERROR_INVALID_IMAGE,
    );
    assert!(
        why.contains("line 7, column 4: bad base64 character '!'"),
        "{why}"
    );
    // On NVIDIA it is still named as an AMD envelope.
    let why = refusal(
        &Ptx::from_src(&broken),
        Platform::Nvidia,
        CUresult::CUDA_ERROR_INVALID_IMAGE,
    );
    assert!(
        why.contains("AMD GPUs (an envelope that does not parse"),
        "{why}"
    );
    // Bytes that are not UTF-8 are named where they are.
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("latin1.ptx");
    let mut bytes = text.into_bytes();
    let at = bytes.iter().position(|&b| b == b'\n').unwrap() + 4; // line 2, column 4
    bytes[at] = 0xE9;
    std::fs::write(&path, &bytes).unwrap();
    let why = refusal(
        &Ptx::from_file(&path),
        Platform::Amd,
        CUresult::CUDA_ERROR_INVALID_IMAGE,
    );
    assert!(why.contains("line 2"), "{why}");
}

#[test]
fn ptx_text_and_missing_files_are_refused_as_before() {
    let ptx = Ptx::from_src(".version 8.0\n.target sm_90\n");
    assert!(ptx.loads_on(Platform::Nvidia).is_ok());
    let why = refusal(&ptx, Platform::Amd, CUresult::CUDA_ERROR_INVALID_PTX);
    assert!(why.contains("HIP_PLATFORM=nvidia"), "{why}");
    assert!(why.contains("code-object envelope"), "{why}");
    let missing = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("no-such.ptx");
    for platform in [Platform::Amd, Platform::Nvidia] {
        let why = refusal(
            &Ptx::from_file(&missing),
            platform,
            CUresult::CUDA_ERROR_FILE_NOT_FOUND,
        );
        assert!(
            why.contains("cannot read") && why.contains("no-such.ptx"),
            "{why}"
        );
    }
}

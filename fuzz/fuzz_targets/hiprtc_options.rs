//! The hiprtc option translations: cuda-compat's
//! `CompileOptions::to_hiprtc_flags` (cudarc's options as hiprtc flags) and
//! the NVIDIA backend's rewrite of hiprtc options for nvrtc, alone and
//! chained as they run on NVIDIA.
#![no_main]

use cuda_compat::nvrtc::CompileOptions;
use cuda_compat::Platform;
use hip_sys::fuzzing::rewrite_hiprtc_options;
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;

const ARCHES: [&str; 6] = ["gfx90a", "gfx1100", "sm_90", "compute_80", "sm_", ""];

#[derive(Arbitrary, Debug)]
struct Input {
    ftz: Option<bool>,
    prec_sqrt: Option<bool>,
    prec_div: Option<bool>,
    fmad: Option<bool>,
    use_fast_math: Option<bool>,
    maxrregcount: Option<usize>,
    include_paths: Vec<String>,
    arch: Option<u8>,
    options: Vec<String>,
    device: Option<(u8, u8)>,
}

/// Options only AMD's compiler knows, which nvrtc must never see.
fn amd_only(o: &str) -> bool {
    o.is_empty()
        || [
            "--offload-arch",
            "-offload-arch",
            "--amdgpu-target",
            "-mcumode",
        ]
        .iter()
        .any(|p| o.starts_with(p))
        || ["-fgpu-rdc", "-fno-gpu-rdc", "-ffast-math", "-g"].contains(&o)
        || (o.starts_with("-O") && o.len() <= 3)
}

fn has_arch(o: &str) -> bool {
    o.starts_with("--gpu-architecture") || o.starts_with("-arch")
}

fuzz_target!(|input: Input| {
    let arch = input.arch.map(|i| ARCHES[usize::from(i) % ARCHES.len()]);
    let opts = CompileOptions {
        ftz: input.ftz,
        prec_sqrt: input.prec_sqrt,
        prec_div: input.prec_div,
        fmad: input.fmad,
        use_fast_math: input.use_fast_math,
        maxrregcount: input.maxrregcount,
        include_paths: input.include_paths.clone(),
        arch,
        options: input.options.clone(),
        name: None,
    };
    let device = input.device.map(|(a, b)| (i32::from(a), i32::from(b)));
    for platform in [Platform::Amd, Platform::Nvidia] {
        let flags = opts.to_hiprtc_flags(platform);
        // The caller's own options come last, unchanged.
        assert!(flags.ends_with(&input.options));
        let typed = &flags[..flags.len() - input.options.len()];
        // Then the architecture (NVIDIA names only, on NVIDIA only)...
        let nvidia_arch = arch.filter(|a| a.starts_with("sm_") || a.starts_with("compute_"));
        let (typed_rest, arch_flag) = match nvidia_arch {
            Some(a) if platform == Platform::Nvidia => {
                let (last, rest) = typed.split_last().expect("an arch flag");
                assert_eq!(*last, format!("--gpu-architecture={a}"));
                (rest, 1)
            }
            _ => (typed, 0),
        };
        assert!(arch_flag <= 1);
        // ...after the include folders, in order.
        let start = typed_rest.len() - input.include_paths.len();
        let prefix = if platform == Platform::Amd {
            "-I"
        } else {
            "--include-path="
        };
        for (f, p) in typed_rest[start..].iter().zip(&input.include_paths) {
            assert_eq!(f.strip_prefix(prefix), Some(p.as_str()));
        }
        for f in &typed_rest[..start] {
            if platform == Platform::Amd {
                assert!(f.starts_with("-f"), "{f}");
            } else {
                assert!(f.starts_with("--"), "{f}");
            }
        }
        if platform == Platform::Nvidia {
            // On NVIDIA the flags go through the backend's rewrite: every
            // flag the typed fields made reaches nvrtc.
            let refs: Vec<&str> = flags.iter().map(String::as_str).collect();
            let out = rewrite_hiprtc_options(&refs, device);
            for f in typed {
                assert!(out.iter().any(|o| o == f.trim()), "{f:?} lost in {out:?}");
            }
        }
    }
    // The rewrite alone, on arbitrary options.
    let refs: Vec<&str> = input.options.iter().map(String::as_str).collect();
    let out = rewrite_hiprtc_options(&refs, device);
    for o in &out {
        assert!(!o.is_empty() && o.trim() == o, "{o:?}");
        assert!(!amd_only(o), "{o:?} reaches nvrtc");
    }
    let given = refs.iter().any(|o| has_arch(o.trim()));
    let added = out
        .last()
        .is_some_and(|o| o.starts_with("--gpu-architecture=sm_"))
        && !given;
    assert_eq!(added, device.is_some() && !given);
    assert!(out.len() <= refs.len() + usize::from(added));
    // Rewriting twice changes nothing more.
    let again: Vec<&str> = out.iter().map(String::as_str).collect();
    assert_eq!(rewrite_hiprtc_options(&again, device), out);
});

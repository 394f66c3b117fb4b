//! `hip-info`: explains what this machine offers HIP programs: the platform
//! chosen and why, every runtime library tried, runtime and driver
//! versions, the variables in effect, the devices (name, architecture,
//! memory, compute units, f16/bf16), rocBLAS kernel coverage, the
//! collectives library, and findings with severity. The report is
//! `hip_diagnostics::report()`.
//!
//! `hip-info kernels` reports what each kernel of AMD code objects uses:
//! target, VGPRs, SGPRs, AGPRs, spills, scratch and LDS bytes, the maximum
//! workgroup size, the waves per SIMD these allow and the VGPR cap of that
//! workgroup size (`hip_diagnostics::kernels`).
//!
//! ```text
//! cargo install hip-diagnostics
//! hip-info            # text
//! hip-info --json     # JSON (the `json` feature, on by default)
//! hip-info kernels [--json] [--spilling] PATH...
//! ```
//!
//! Exits with status 1 when no runtime or no device is found (`kernels`:
//! when a file cannot be read as code objects), 2 on a bad argument.

use hip_diagnostics::kernels::KernelReport;
use hip_diagnostics::Report;
use std::io::{ErrorKind, Write};
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str =
    "usage: hip-info [--json]\n       hip-info kernels [--json] [--spilling] PATH...";

fn main() -> ExitCode {
    let mut json = false;
    let mut args = std::env::args().skip(1).peekable();
    if args.peek().map(String::as_str) == Some("kernels") {
        args.next();
        return kernels(args.collect());
    }
    for arg in args {
        match arg.as_str() {
            "--json" if cfg!(feature = "json") => json = true,
            "--json" => {
                eprintln!("hip-info was built without the `json` feature; {USAGE}");
                return ExitCode::from(2);
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                println!("Explains what this machine offers HIP programs; exits with 1 when no runtime or no device is found.");
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!("unknown argument {other:?}; {USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let report = hip_diagnostics::report();
    let text = render(&report, json);
    if let Err(code) = print(&text) {
        return code;
    }
    if report.platform.is_none() || report.devices.is_empty() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// The report as text, or as JSON when asked.
#[cfg(feature = "json")]
fn render(report: &Report, json: bool) -> String {
    if json {
        report.to_json() + "\n"
    } else {
        report.to_string()
    }
}

/// The report as text (`--json` is refused without the `json` feature).
#[cfg(not(feature = "json"))]
fn render(report: &Report, _json: bool) -> String {
    report.to_string()
}

/// Writes `text` to stdout; a reader that stops early (`hip-info | head`)
/// is not an error.
fn print(text: &str) -> Result<(), ExitCode> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != ErrorKind::BrokenPipe => {
            eprintln!("hip-info: cannot write the report: {e}");
            Err(ExitCode::FAILURE)
        }
        _ => Ok(()),
    }
}

/// `hip-info kernels [--json] [--spilling] PATH...`.
fn kernels(args: Vec<String>) -> ExitCode {
    let (mut json, mut spilling, mut paths) = (false, false, Vec::new());
    let mut only_paths = false;
    for arg in args {
        match arg.as_str() {
            _ if only_paths => paths.push(PathBuf::from(arg)),
            "--" => only_paths = true,
            "--json" if cfg!(feature = "json") => json = true,
            "--json" => {
                eprintln!("hip-info was built without the `json` feature; {USAGE}");
                return ExitCode::from(2);
            }
            "--spilling" => spilling = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                println!(
                    "kernels: what each kernel of AMD code objects uses (code objects, clang offload \
                     bundles, hip-rs envelopes, ELF objects or libraries with .hip_fatbin, ar \
                     archives; a folder: the files in it). --spilling lists only kernels that spill."
                );
                return ExitCode::SUCCESS;
            }
            a if a.starts_with('-') => {
                eprintln!("unknown argument {a:?}; {USAGE}");
                return ExitCode::from(2);
            }
            _ => paths.push(PathBuf::from(arg)),
        }
    }
    if paths.is_empty() {
        eprintln!("hip-info kernels: no file given; {USAGE}");
        return ExitCode::from(2);
    }
    let report = KernelReport::read(&paths);
    for f in &report.files {
        if let Err(e) = &f.kernels {
            eprintln!("hip-info: {}: {e}", f.path.display());
        }
    }
    let text = if json {
        kernels_json(&report, spilling)
    } else {
        report.to_text(spilling)
    };
    if let Err(code) = print(&text) {
        return code;
    }
    if report.has_errors() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

#[cfg(feature = "json")]
fn kernels_json(report: &KernelReport, spilling: bool) -> String {
    report.to_json(spilling) + "\n"
}

#[cfg(not(feature = "json"))]
fn kernels_json(report: &KernelReport, spilling: bool) -> String {
    report.to_text(spilling)
}

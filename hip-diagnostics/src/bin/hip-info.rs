//! `hip-info`: explains what this machine offers HIP programs: the platform
//! chosen and why, every runtime library tried, runtime and driver
//! versions, the variables in effect, the devices (name, architecture,
//! memory, compute units, f16/bf16), rocBLAS kernel coverage, the
//! collectives library, and findings with severity. The report is
//! `hip_diagnostics::report()`.
//!
//! ```text
//! cargo install hip-diagnostics
//! hip-info            # text
//! hip-info --json     # JSON (the `json` feature, on by default)
//! ```
//!
//! Exits with status 1 when no runtime or no device is found, 2 on a bad
//! argument.

use hip_diagnostics::Report;
use std::io::{ErrorKind, Write};
use std::process::ExitCode;

const USAGE: &str = "usage: hip-info [--json]";

fn main() -> ExitCode {
    let mut json = false;
    for arg in std::env::args().skip(1) {
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
    // A reader that stops early (`hip-info | head`) is not an error.
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        if e.kind() != ErrorKind::BrokenPipe {
            eprintln!("hip-info: cannot write the report: {e}");
            return ExitCode::FAILURE;
        }
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

//! Explains what this machine offers HIP programs: the platform chosen and
//! why, every runtime library tried, runtime and driver versions, the
//! variables in effect, the devices (name, architecture, memory, compute
//! units, f16/bf16), rocBLAS kernel coverage, and findings with severity.
//! The report is `hip::diagnostics::report()`.
//!
//! ```text
//! cargo run --release -p hip-examples --example info
//! cargo run --release -p hip-examples --example info -- --json
//! ```
//!
//! Exits with status 1 when no runtime or no device is found, 2 on a bad
//! argument.

use std::process::ExitCode;

fn main() -> ExitCode {
    let mut json = false;
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--json" => json = true,
            "-h" | "--help" => {
                println!("usage: info [--json]");
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!("unknown argument {other:?}; usage: info [--json]");
                return ExitCode::from(2);
            }
        }
    }
    let report = hip::diagnostics::report();
    if json {
        println!("{}", report.to_json());
    } else {
        print!("{report}");
    }
    if report.platform.is_none() || report.devices.is_empty() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

//! The text form of the report.

use super::Report;
use std::fmt;

fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "HIP diagnostics")?;
        match &self.platform {
            Some(p) => writeln!(f, "platform: {p} ({})", self.platform_reason)?,
            None => writeln!(f, "platform: none ({})", self.platform_reason)?,
        }

        writeln!(f, "\nlibraries loaded:")?;
        if self.libraries.is_empty() {
            writeln!(f, "  none")?;
        }
        for l in &self.libraries {
            write!(f, "  {}: {}", l.role, l.path)?;
            if let Some(v) = &l.file_version {
                write!(f, " (file version {v})")?;
            }
            writeln!(f)?;
        }

        writeln!(f, "\nruntime library candidates, in search order:")?;
        for c in &self.candidates {
            writeln!(
                f,
                "  [{}] {} ({}): {}",
                c.role,
                c.path,
                c.source,
                c.result.describe()
            )?;
        }

        let v = &self.versions;
        writeln!(f, "\nversions:")?;
        let show = |s: &Option<String>, raw: Option<i32>| match (s, raw) {
            (Some(s), Some(raw)) => format!("{s} ({raw})"),
            _ => "unknown".to_owned(),
        };
        writeln!(f, "  runtime: {}", show(&v.runtime, v.runtime_raw))?;
        writeln!(f, "  driver:  {}", show(&v.driver, v.driver_raw))?;
        let verdict = match v.consistent {
            Some(true) => "consistent",
            Some(false) => "MISMATCH",
            None => "not compared",
        };
        writeln!(f, "  {verdict}: {}", v.assessment)?;
        if let Some(k) = &v.kernel_driver {
            writeln!(f, "  kernel driver: {k}")?;
        }
        for e in &v.errors {
            writeln!(f, "  {e}")?;
        }

        writeln!(f, "\nvariables:")?;
        for var in &self.variables {
            match (&var.value, &var.assessment) {
                (None, _) => writeln!(f, "  {}: not set", var.name)?,
                (Some(value), Some(a)) => writeln!(f, "  {}={value:?}: {a}", var.name)?,
                (Some(value), None) => writeln!(f, "  {}={value:?}", var.name)?,
            }
        }

        writeln!(f, "\ndevices:")?;
        if self.devices.is_empty() {
            writeln!(
                f,
                "  none ({})",
                self.device_error.as_deref().unwrap_or("0 devices")
            )?;
        }
        for d in &self.devices {
            if let Some(e) = &d.error {
                writeln!(f, "  [{}] properties unavailable: {e}", d.ordinal)?;
                continue;
            }
            write!(
                f,
                "  [{}] {}, arch {}, {:.1} GiB, {} compute units, compute capability {}, f16 {}, bf16 {}",
                d.ordinal,
                d.name,
                d.arch,
                d.total_memory_bytes as f64 / (1u64 << 30) as f64,
                d.compute_units,
                d.compute_capability,
                yes_no(d.f16),
                yes_no(d.bf16),
            )?;
            if let Some(k) = d.rocblas_kernels {
                write!(f, ", rocBLAS kernels {}", yes_no(k))?;
            }
            writeln!(f)?;
        }

        if let Some(r) = &self.rocblas {
            writeln!(f, "\nrocBLAS kernels:")?;
            writeln!(f, "  library: {}", r.library.as_deref().unwrap_or("none"))?;
            writeln!(
                f,
                "  folder:  {}",
                r.kernel_dir.as_deref().unwrap_or("none")
            )?;
            writeln!(
                f,
                "  architectures with kernels: {}",
                if r.processors_available.is_empty() {
                    "none".to_owned()
                } else {
                    r.processors_available.join(", ")
                }
            )?;
            for k in &r.per_processor {
                writeln!(f, "  {}: {} files", k.processor, k.files)?;
            }
        }

        writeln!(f, "\nBLAS libraries found:")?;
        if self.blas_libraries.is_empty() {
            writeln!(f, "  none")?;
        }
        for b in &self.blas_libraries {
            writeln!(
                f,
                "  {} {} at {} ({}{})",
                b.name,
                b.version.as_deref().unwrap_or("(unversioned)"),
                b.path,
                b.source,
                if b.first_in_search_order {
                    ", first in search order"
                } else {
                    ""
                }
            )?;
        }

        let c = &self.collectives;
        write!(f, "\ncollectives library: ")?;
        match &c.library {
            Some(l) => {
                write!(f, "{} at {}", l.role, l.path)?;
                if let Some(v) = &l.file_version {
                    write!(f, " (file version {v})")?;
                }
                match (&c.api_version, &c.problem) {
                    (Some(v), _) => writeln!(f, ", NCCL API {v}")?,
                    (None, Some(why)) => writeln!(f, ", version unknown: {why}")?,
                    (None, None) => writeln!(f)?,
                }
            }
            None => writeln!(
                f,
                "none ({})",
                c.problem.as_deref().unwrap_or("not looked for")
            )?,
        }

        writeln!(f, "\nfindings:")?;
        if self.warnings.is_empty() {
            writeln!(f, "  none")?;
        }
        for w in &self.warnings {
            writeln!(f, "  {}: {}", w.severity, w.message)?;
        }
        Ok(())
    }
}

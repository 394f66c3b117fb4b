//! Launch bounds for AMD builds: the largest block a source's kernels are
//! launched with, which the compiler turns into each kernel's register
//! budget.
//!
//! CUDA sources rarely declare `__launch_bounds__`, and without one AMD's
//! compiler must assume blocks of 1,024 threads: on a wave64 target (CDNA)
//! that is 16 waves over 4 SIMDs, so 128 VGPRs a lane, and kernels that
//! need more spill to scratch memory. NVIDIA's compiler gives any kernel up
//! to 255 registers whatever its block. A bound of 256 lifts the budget to
//! the whole register file (512 on CDNA, 256 on RDNA).
//!
//! A source's bound comes from, in order:
//! 1. `CUDAFORGE_LAUNCH_BOUNDS`: `PATTERN=THREADS` entries, comma-separated;
//!    `PATTERN` is the source's path below its folder, `*` matching any run
//!    of characters but `/` (`mmq_gguf/mmq_instance_*.cu=256`), `THREADS`
//!    1 to 1024, or `none` to leave the source unbounded;
//! 2. the table below, of crates whose launches were read from their
//!    callers' sources, for exactly the version read (candle-kernels
//!    0.11.1, launched by candle-core 0.11.1 and by its own launchers).
//!
//! A bound is passed as `--gpu-max-threads-per-block`, so it applies to the
//! kernels that declare no `__launch_bounds__` of their own; it is recorded
//! in each kernel's code-object metadata (`.max_flat_workgroup_size`), and
//! the HIP runtime refuses a larger launch (`hipErrorLaunchFailure`, which
//! cuda-compat reports as `CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES` naming the
//! kernel, the block and the bound). Never a silent wrong result.

use crate::error::{Error, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The variable of bounds given by hand.
pub const LAUNCH_BOUNDS_VAR: &str = "CUDAFORGE_LAUNCH_BOUNDS";

/// A source's bound and where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Bound {
    /// Threads per block, 1 to 1024.
    pub(crate) threads: u32,
    /// Where it came from, for the build's report.
    pub(crate) from: String,
}

/// One entry of the table of known crates.
struct Known {
    /// The crate whose build script compiles the sources.
    krate: &'static str,
    /// The version whose sources and callers were read: exactly it, since
    /// another version may launch differently.
    version: &'static str,
    /// The sources, as a pattern of their path below the source folder.
    pattern: &'static str,
    threads: u32,
    /// The launches that make the bound safe, as read in the callers.
    why: &'static str,
}

/// Crates whose launches are known. Only sources whose kernels spill
/// without a bound are listed: a bound is a promise about every launch.
const KNOWN: &[Known] = &[
    Known {
        krate: "candle-kernels",
        version: "0.11.1",
        pattern: "quantized.cu",
        threads: 256,
        why: "candle-core's quantized/cuda.rs launches these kernels with at most 256 threads: \
              CUDA_QUANTIZE_BLOCK_SIZE, CUDA_DEQUANTIZE_BLOCK_SIZE and CUDA_GET_ROWS_BLOCK_SIZE \
              (256), dequantize 32 or 64, mul_mat_vec 32 x 1, mul_mat_vec_q and mul_mat_q 32 x 4",
    },
    Known {
        krate: "candle-kernels",
        version: "0.11.1",
        pattern: "mmvq_gguf.cu",
        threads: 256,
        why: "its launchers use blocks of 32 x nwarps (nwarps at most 4) and \
              CUDA_QUANTIZE_BLOCK_SIZE (256)",
    },
    Known {
        krate: "candle-kernels",
        version: "0.11.1",
        pattern: "mmq_gguf/mmq_instance_*.cu",
        threads: 256,
        why: "mmq_gguf.cuh launches mul_mat_q with 32 x mmq_get_nwarps_host (256 / 32) threads",
    },
];

/// The bound of each of `sources` (paths below the source folder) that has
/// one, for the crate `krate` at `version`; `var` is the variable's value.
pub(crate) fn bounds(
    krate: &str,
    version: &str,
    sources: &[&Path],
    var: Option<&str>,
) -> Result<BTreeMap<PathBuf, Bound>> {
    let given = parse(var.unwrap_or_default())?;
    let mut out = BTreeMap::new();
    for &src in sources {
        let rel = src.to_string_lossy().replace('\\', "/");
        if let Some((pattern, threads)) = given.iter().rev().find(|(p, _)| matches(p, &rel)) {
            if let Some(threads) = threads {
                out.insert(
                    src.to_path_buf(),
                    Bound {
                        threads: *threads,
                        from: format!("{LAUNCH_BOUNDS_VAR} {pattern}={threads}"),
                    },
                );
            }
            continue;
        }
        if let Some(k) = KNOWN
            .iter()
            .find(|k| k.krate == krate && version == k.version && matches(k.pattern, &rel))
        {
            out.insert(
                src.to_path_buf(),
                Bound {
                    threads: k.threads,
                    from: format!("{} {} table: {}", k.krate, k.version, k.why),
                },
            );
        }
    }
    Ok(out)
}

/// `PATTERN=THREADS|none` entries.
fn parse(var: &str) -> Result<Vec<(String, Option<u32>)>> {
    let mut out = Vec::new();
    for entry in var.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let bad = |why: &str| {
            Error::InvalidConfig(format!(
                "{LAUNCH_BOUNDS_VAR}: `{entry}` {why} (expected PATTERN=THREADS, e.g. \
                 quantized.cu=256 or mmq/*.cu=128, THREADS 1 to 1024 or none)"
            ))
        };
        let (pattern, value) = entry.split_once('=').ok_or_else(|| bad("has no `=`"))?;
        let (pattern, value) = (pattern.trim(), value.trim());
        if pattern.is_empty() {
            return Err(bad("names no source"));
        }
        let threads = match value {
            "none" => None,
            v => match v.parse::<u32>() {
                Ok(t) if (1..=1024).contains(&t) => Some(t),
                _ => return Err(bad("is not a thread count from 1 to 1024")),
            },
        };
        out.push((pattern.to_owned(), threads));
    }
    Ok(out)
}

/// Whether `path` matches `pattern`, where `*` stands for any run of
/// characters other than `/`.
fn matches(pattern: &str, path: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == path,
        Some((head, rest)) => {
            let Some(tail) = path.strip_prefix(head) else {
                return false;
            };
            (0..=tail.len())
                .take_while(|&i| !tail[..i].contains('/'))
                .filter(|&i| tail.is_char_boundary(i))
                .any(|i| matches(rest, &tail[i..]))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CANDLE: &[&str] = &[
        "affine.cu",
        "quantized.cu",
        "reduce.cu",
        "mmvq_gguf.cu",
        "mmq_gguf/mmq_instance_q2_k.cu",
        "mmq_gguf/mmq_quantize.cu",
        "moe/moe_gguf.cu",
    ];

    fn candle(version: &str, var: Option<&str>) -> Result<BTreeMap<String, u32>> {
        let paths: Vec<&Path> = CANDLE.iter().map(Path::new).collect();
        Ok(bounds("candle-kernels", version, &paths, var)?
            .into_iter()
            .map(|(p, b)| (p.to_string_lossy().into_owned(), b.threads))
            .collect())
    }

    #[test]
    fn patterns_match_within_one_folder() {
        assert!(matches("quantized.cu", "quantized.cu"));
        assert!(!matches("quantized.cu", "sub/quantized.cu"));
        assert!(matches(
            "mmq_gguf/mmq_instance_*.cu",
            "mmq_gguf/mmq_instance_q2_k.cu"
        ));
        assert!(!matches(
            "mmq_gguf/mmq_instance_*.cu",
            "mmq_gguf/mmq_quantize.cu"
        ));
        assert!(matches("*.cu", "a.cu"));
        assert!(!matches("*.cu", "moe/a.cu"));
        assert!(matches("*/*.cu", "moe/a.cu"));
        assert!(matches("*", "anything.cu"));
    }

    #[test]
    fn candle_kernels_0_11_1_gets_its_table() {
        let b = candle("0.11.1", None).unwrap();
        assert_eq!(
            b.into_iter().collect::<Vec<_>>(),
            [
                ("mmq_gguf/mmq_instance_q2_k.cu".to_owned(), 256),
                ("mmvq_gguf.cu".to_owned(), 256),
                ("quantized.cu".to_owned(), 256),
            ]
        );
        // Another version's launches were never read: no bound.
        assert!(candle("0.11.2", None).unwrap().is_empty());
        assert!(candle("0.12.0", None).unwrap().is_empty());
        let other = bounds("other", "0.11.1", &[Path::new("quantized.cu")], None).unwrap();
        assert!(other.is_empty());
    }

    #[test]
    fn the_variable_comes_first_and_none_removes() {
        let b = candle("0.11.1", Some("quantized.cu=none, reduce.cu=512,*.cu=128")).unwrap();
        // The last matching entry wins: `*.cu=128` for every top-level
        // source, the table still for the folder's.
        assert_eq!(b.get("quantized.cu"), Some(&128));
        assert_eq!(b.get("reduce.cu"), Some(&128));
        assert_eq!(b.get("affine.cu"), Some(&128));
        assert_eq!(b.get("mmq_gguf/mmq_instance_q2_k.cu"), Some(&256));
        let b = candle("0.11.1", Some("quantized.cu=none")).unwrap();
        assert_eq!(b.get("quantized.cu"), None);
        let from = bounds("x", "1", &[Path::new("a.cu")], Some("a.cu=64")).unwrap();
        assert_eq!(
            from[Path::new("a.cu")].from,
            "CUDAFORGE_LAUNCH_BOUNDS a.cu=64"
        );
    }

    #[test]
    fn bad_entries_are_named() {
        for (var, why) in [
            ("quantized.cu", "has no `=`"),
            ("=64", "names no source"),
            ("a.cu=0", "is not a thread count"),
            ("a.cu=2048", "is not a thread count"),
            ("a.cu=many", "is not a thread count"),
        ] {
            let e = candle("0.11.1", Some(var)).unwrap_err().to_string();
            assert!(
                e.contains(why) && e.contains(LAUNCH_BOUNDS_VAR),
                "{var}: {e}"
            );
        }
    }
}

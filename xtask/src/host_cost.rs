//! `host-cost per-op|top COUNTS`: what `scripts/host-cost.sh` reads from
//! the stand-in driver's call counts (`benches/stub-cuda/stub_cuda.c`
//! writes `NAME COUNT` a line, `STUB_CUDA_COUNTS=FILE`). One op is one
//! launch, so a count over `cuLaunchKernel`'s is that call's count per op.
//!
//! - `per-op`: every call over the launches, `%.2f`.
//! - `top`: the calls made about once per op or more (at least half as
//!   often as the launches), `NAME PER_OP` with `%.1f`, most first, ties
//!   in reverse byte order of the line (`sort -k2 -rn` in the C locale),
//!   joined by `, `.
//!
//! A name counted twice keeps its last count (the total adds both). With
//! no launch both print `none` (the awk programs they replace printed
//! `inf` per call with mawk and stopped on the division with gawk).

use crate::Result;
use std::collections::BTreeMap;

/// The per-op call: one op, one launch.
const LAUNCH: &str = "cuLaunchKernel";

/// The counts file read: each name's last count, and the sum of every line.
#[derive(Debug, PartialEq)]
pub(crate) struct Counts {
    by_name: BTreeMap<String, u64>,
    total: u64,
}

/// Reads `NAME COUNT` lines (blank lines skipped).
pub(crate) fn parse(text: &str) -> Result<Counts> {
    let mut counts = Counts {
        by_name: BTreeMap::new(),
        total: 0,
    };
    for (i, line) in text.lines().enumerate() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        match fields[..] {
            [] => {}
            [name, count] => {
                let count: u64 = count
                    .parse()
                    .map_err(|_| format!("line {}: {count:?} is not a count", i + 1))?;
                counts.by_name.insert(name.to_owned(), count);
                counts.total += count;
            }
            _ => return Err(format!("line {}: not `NAME COUNT`: {line:?}", i + 1)),
        }
    }
    Ok(counts)
}

fn launches(counts: &Counts) -> Option<f64> {
    counts
        .by_name
        .get(LAUNCH)
        .filter(|&&n| n > 0)
        .map(|&n| n as f64)
}

/// Every call over the launches, or `none`.
pub(crate) fn per_op(counts: &Counts) -> String {
    match launches(counts) {
        Some(l) => format!("{:.2}", counts.total as f64 / l),
        None => "none".into(),
    }
}

/// The calls made at least half as often as the launches, per op, most
/// first; or `none`.
pub(crate) fn top(counts: &Counts) -> String {
    let Some(l) = launches(counts) else {
        return "none".into();
    };
    let mut lines: Vec<(f64, String)> = counts
        .by_name
        .iter()
        .filter(|&(_, &n)| n as f64 * 2.0 >= l)
        .map(|(name, &n)| {
            let per = format!("{:.1}", n as f64 / l);
            // `sort -n` compares the printed number.
            (per.parse().unwrap_or(0.0), format!("{name} {per}"))
        })
        .collect();
    lines.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| b.1.cmp(&a.1)));
    let lines: Vec<String> = lines.into_iter().map(|(_, l)| l).collect();
    lines.join(", ")
}

/// `host-cost per-op|top COUNTS`.
pub(crate) fn command(rest: &[String]) -> Result<std::process::ExitCode> {
    const USAGE: &str = "host-cost: per-op COUNTS | top COUNTS";
    let [what, path] = rest else {
        return Err(USAGE.into());
    };
    let read = || -> Result<Counts> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
        parse(&text).map_err(|e| format!("{path}: {e}"))
    };
    match what.as_str() {
        "per-op" => println!("{}", per_op(&read()?)),
        "top" => println!("{}", top(&read()?)),
        _ => return Err(USAGE.into()),
    }
    Ok(std::process::ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `scripts/host-cost.sh`'s counts: cudarc's per-op benchmark
    /// (`benches/cudarc/per_op.rs`, 24000 ops) on the per-thread stream,
    /// through cuda-compat and through real cudarc 0.19.
    const COMPAT: &str = "\
cuInit 1
cudaRuntimeGetVersion 1
cudaGetDeviceCount 2
cuDeviceGetAttribute 11
cuCtxGetCurrent 96234
cudaGetDevice 4
nvrtcCreateProgram 1
nvrtcCompileProgram 1
nvrtcGetProgramLogSize 1
nvrtcGetProgramLog 1
nvrtcGetCUBINSize 3
nvrtcGetCUBIN 1
nvrtcDestroyProgram 1
cudaFree 1
cuModuleLoadData 1
cuCtxGetDevice 1
cuDevicePrimaryCtxGetState 1
cuModuleGetFunction 1
cudaMallocAsync 24001
cuDevicePrimaryCtxRetain 1
cudaMemcpyAsync 2
cuLaunchKernel 24000
cudaFreeAsync 24001
cudaStreamSynchronize 223
cuModuleUnload 1
cuDevicePrimaryCtxRelease_v2 1
";
    const REAL: &str = "\
cuInit 1
cuDeviceGet 1
cuDevicePrimaryCtxRetain 1
cuDeviceGetAttribute 1
cuCtxGetCurrent 144233
cuCtxSetCurrent 1
nvrtcCreateProgram 1
nvrtcCompileProgram 1
nvrtcGetPTXSize 1
nvrtcGetPTX 1
nvrtcDestroyProgram 1
cuModuleLoadData 1
cuModuleGetFunction 1
cuMemAllocAsync 24001
cuEventCreate 48002
cuMemcpyHtoDAsync_v2 1
cuLaunchKernel 24000
cuMemFreeAsync 24001
cuEventDestroy_v2 48002
cuMemcpyDtoHAsync_v2 1
cuStreamSynchronize 222
cuModuleUnload 1
cuDevicePrimaryCtxRelease_v2 1
";

    #[test]
    fn calls_per_op_are_every_call_over_the_launches() {
        // What the awk programs printed for these files.
        let (compat, real) = (parse(COMPAT).unwrap(), parse(REAL).unwrap());
        assert_eq!(per_op(&compat), "7.02");
        assert_eq!(per_op(&real), "13.02");
        assert_eq!(
            top(&compat),
            "cuCtxGetCurrent 4.0, cudaMallocAsync 1.0, cudaFreeAsync 1.0, cuLaunchKernel 1.0"
        );
        assert_eq!(
            top(&real),
            "cuCtxGetCurrent 6.0, cuEventDestroy_v2 2.0, cuEventCreate 2.0, \
             cuMemFreeAsync 1.0, cuMemAllocAsync 1.0, cuLaunchKernel 1.0"
        );
    }

    #[test]
    fn half_as_often_as_the_launches_is_per_op_and_less_is_not() {
        let c = parse("cuLaunchKernel 10\ncuEventRecord 5\ncuEventQuery 4\ncuda 30\n").unwrap();
        assert_eq!(per_op(&c), "4.90");
        assert_eq!(top(&c), "cuda 3.0, cuLaunchKernel 1.0, cuEventRecord 0.5");
    }

    #[test]
    fn ties_in_the_printed_number_go_in_reverse_byte_order() {
        // 1.04 and 0.96 both print 1.0; `sort -rn` then compares the lines.
        let c = parse("cuLaunchKernel 100\ncudaMallocAsync 104\ncuMemAllocAsync 96\n").unwrap();
        assert_eq!(
            top(&c),
            "cudaMallocAsync 1.0, cuMemAllocAsync 1.0, cuLaunchKernel 1.0"
        );
    }

    #[test]
    fn without_a_launch_there_is_no_op() {
        for text in [
            "cuInit 1\ncuMemAlloc 3\n",
            "cuInit 1\ncuLaunchKernel 0\n",
            "",
        ] {
            let c = parse(text).unwrap();
            assert_eq!(per_op(&c), "none", "{text:?}");
            assert_eq!(top(&c), "none", "{text:?}");
        }
    }

    #[test]
    fn a_name_counted_twice_keeps_its_last_count_and_adds_to_the_total() {
        let c = parse("cuLaunchKernel 4\ncuMemAlloc 1\n\ncuMemAlloc 4\n").unwrap();
        assert_eq!(per_op(&c), "2.25");
        assert_eq!(top(&c), "cuMemAlloc 1.0, cuLaunchKernel 1.0");
    }

    #[test]
    fn numbers_round_as_printf_does() {
        // 1/8 = 0.125 and 3/8 = 0.375 are exact: round half to even.
        let c = parse("cuLaunchKernel 8\na 1\nb 4\n").unwrap();
        assert_eq!(per_op(&c), "1.62");
        assert_eq!(top(&c), "cuLaunchKernel 1.0, b 0.5");
        let c = parse("cuLaunchKernel 8\nb 4\nc 11\n").unwrap();
        assert_eq!(per_op(&c), "2.88");
        assert_eq!(top(&c), "c 1.4, cuLaunchKernel 1.0, b 0.5");
    }

    #[test]
    fn a_line_that_is_not_name_and_count_is_refused() {
        assert_eq!(
            parse("cuInit 1\ncuLaunchKernel x\n"),
            Err("line 2: \"x\" is not a count".into())
        );
        assert_eq!(
            parse("cuInit 1 2\n"),
            Err("line 1: not `NAME COUNT`: \"cuInit 1 2\"".into())
        );
    }
}

//! `cudarc-tests outcomes DIR [CRASHED...]`: the verdict of
//! `cudarc-tests.sh run` on the GPU machine, once every test binary of
//! both sides has run.
//!
//! `DIR/real.outcomes` and `DIR/ours.outcomes` hold `BINARY::TEST<TAB>OUTCOME`
//! lines (`ok`, `FAILED`, `ignored`); a test with no line on one side is
//! `missing` there. Each test is judged with the bundled reviewed lists
//! (`NAME<TAB>REASON` lines, `#` comments):
//!
//! - `cudarc-tests-explained.tsv`: tests that fail through the drop-in by
//!   design; one that does not (it passes there, or fails on real cudarc,
//!   or is not in the suite) is stale and fails the run;
//! - `cudarc-tests-residue.tsv`: tests not built through the drop-in; a
//!   test that passes on real cudarc with no outcome through the drop-in
//!   fails unless it is listed.
//!
//! CRASHED are the script's lines for test binaries that crashed, timed
//! out or printed no summary: each fails the run. The lines printed are
//! the script's before this command existed; the table of every test
//! (`NAME REAL OURS REASON`) is written to `DIR/both.tsv`, as it was.

use crate::Result;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// One test: its name, its outcome on each side, the explained list's
/// reason (empty when not listed).
#[derive(Debug, PartialEq)]
pub(crate) struct Row {
    name: String,
    real: String,
    ours: String,
    why: String,
}

/// Every test of either side, sorted by name (byte order), `missing`
/// where a side has no outcome (`join -a 1 -a 2 -e missing`).
pub(crate) fn rows(real: &str, ours: &str, explained: &BTreeMap<String, String>) -> Vec<Row> {
    let mut both: BTreeMap<&str, (Option<&str>, Option<&str>)> = BTreeMap::new();
    for (text, ours_side) in [(real, false), (ours, true)] {
        for line in text.lines().filter(|l| !l.is_empty()) {
            let mut fields = line.split('\t');
            let name = fields.next().unwrap_or_default();
            let outcome = fields.next().unwrap_or_default();
            let slot = both.entry(name).or_default();
            if ours_side {
                slot.1 = Some(outcome);
            } else {
                slot.0 = Some(outcome);
            }
        }
    }
    both.into_iter()
        .map(|(name, (real, ours))| Row {
            name: name.to_owned(),
            real: real.unwrap_or("missing").to_owned(),
            ours: ours.unwrap_or("missing").to_owned(),
            why: explained.get(name).cloned().unwrap_or_default(),
        })
        .collect()
}

/// A reviewed list: `NAME<TAB>REASON` for every line that is no comment
/// and has a tab (the last of a name counts).
pub(crate) fn reviewed_list(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let mut f = l.split('\t');
            let name = f.next()?;
            Some((name.to_owned(), f.next()?.to_owned()))
        })
        .collect()
}

/// The run's lines and whether it passed.
pub(crate) fn report(
    rows: &[Row],
    explained: &BTreeMap<String, String>,
    residue: &BTreeMap<String, String>,
    crashed: &[String],
) -> (Vec<String>, bool) {
    let count = |f: &dyn Fn(&Row) -> bool| rows.iter().filter(|r| f(r)).count();
    let mut out = vec![format!(
        "cudarc's unit tests on this GPU: real cudarc {} passed, the drop-in {} passed, of {}",
        count(&|r| r.real == "ok"),
        count(&|r| r.ours == "ok"),
        rows.len()
    )];
    for r in rows.iter().filter(|r| r.real != r.ours) {
        let why = if r.why.is_empty() {
            String::new()
        } else {
            format!("  (explained: {})", r.why)
        };
        out.push(format!(
            "  {:<70} real {:<8} drop-in {}{why}",
            r.name, r.real, r.ours
        ));
    }
    let passed = count(&|r| r.real == "ok" && r.ours == "ok" && r.why.is_empty());
    let mut failed =
        count(&|r| r.real == "ok" && r.ours != "ok" && r.ours != "missing" && r.why.is_empty());
    let n_explained = count(&|r| r.real == "ok" && r.ours == "FAILED" && !r.why.is_empty());
    let no_outcome = |r: &&Row| r.real == "ok" && r.ours == "missing";
    let missing = rows
        .iter()
        .filter(no_outcome)
        .filter(|r| residue.contains_key(&r.name))
        .count();
    let unlisted: Vec<&str> = rows
        .iter()
        .filter(no_outcome)
        .filter(|r| !residue.contains_key(&r.name))
        .map(|r| r.name.as_str())
        .collect();
    let not_run = count(&|r| r.real != "ok" && r.why.is_empty());
    // Listed as explained, but not failing through the drop-in alone
    // (in the suite's order), or not in the suite (by name).
    let in_suite: BTreeSet<&str> = rows.iter().map(|r| r.name.as_str()).collect();
    let fails_through_the_drop_in = |r: &Row| r.real == "ok" && r.ours == "FAILED";
    let mut stale: Vec<&str> = rows
        .iter()
        .filter(|r| !r.why.is_empty() && !fails_through_the_drop_in(r))
        .map(|r| r.name.as_str())
        .collect();
    stale.extend(
        explained
            .keys()
            .map(String::as_str)
            .filter(|n| !in_suite.contains(n)),
    );
    if !stale.is_empty() {
        out.push(
            "listed in cudarc-tests-explained.tsv, but not failing through the drop-in alone:"
                .into(),
        );
        out.extend(stale.iter().map(|n| format!("  {n}")));
    }
    out.push(format!(
        "{not_run} not run (failing or ignored on real cudarc too)"
    ));
    out.push(format!("{missing} differ: pass on real cudarc, not built through the drop-in (listed in cuda-compat/cudarc-tests-residue.tsv)"));
    out.push(format!("{n_explained} explained: pass on real cudarc, fail through the drop-in by design (listed in cuda-compat/cudarc-tests-explained.tsv)"));
    failed += stale.len();
    if !unlisted.is_empty() {
        out.push(
            "pass on real cudarc, no outcome through the drop-in, not in cudarc-tests-residue.tsv:"
                .into(),
        );
        out.extend(unlisted.iter().map(|n| format!("  {n}")));
        failed += unlisted.len();
    }
    if !crashed.is_empty() {
        out.push(
            "test binaries that crashed, timed out or printed no summary (each fails the run):"
                .into(),
        );
        out.extend(crashed.iter().map(|c| format!("  {c}")));
        failed += crashed.len();
    }
    out.push(format!("{passed} passed, {failed} failed"));
    (out, failed == 0)
}

/// `cudarc-tests outcomes DIR [CRASHED...]`: prints the report, writes
/// `DIR/both.tsv`; whether the run passed.
pub(crate) fn command(dir: &Path, crashed: &[String]) -> Result<bool> {
    let read = |name: &str| -> Result<String> {
        let path = dir.join(name);
        std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))
    };
    let explained = reviewed_list(&read("cudarc-tests-explained.tsv")?);
    let residue = reviewed_list(&read("cudarc-tests-residue.tsv")?);
    let rows = rows(&read("real.outcomes")?, &read("ours.outcomes")?, &explained);
    let table: String = rows
        .iter()
        .map(|r| format!("{}\t{}\t{}\t{}\n", r.name, r.real, r.ours, r.why))
        .collect();
    let both = dir.join("both.tsv");
    std::fs::write(&both, table).map_err(|e| format!("{}: {e}", both.display()))?;
    let (lines, ok) = report(&rows, &explained, &residue, crashed);
    crate::print_lines(&lines);
    Ok(ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    const REAL: &str = "\
one::a\tok
one::b\tok
one::c\tok
one::d\tok
one::e\tFAILED
one::f\tok
one::g\tignored
two::h\tok
";
    const OURS: &str = "\
one::a\tok
one::b\tFAILED
one::c\tFAILED
one::e\tFAILED
one::f\tFAILED
one::g\tignored
two::h\tok
two::new\tok
";

    fn report_of(explained: &str, residue: &str, crashed: &[&str]) -> (Vec<String>, bool) {
        let (explained, residue) = (reviewed_list(explained), reviewed_list(residue));
        let rows = rows(REAL, OURS, &explained);
        let crashed: Vec<String> = crashed.iter().map(|c| c.to_string()).collect();
        report(&rows, &explained, &residue, &crashed)
    }

    #[test]
    fn every_test_is_judged_against_real_cudarc_and_the_lists() {
        // What cudarc-tests.sh's awk and join printed for these files.
        let (lines, ok) = report_of(
            "# reviewed\none::c\tneeds a GPU feature HIP lacks\n",
            "# reviewed\none::d\tneeds a private item\n",
            &[],
        );
        assert_eq!(
            lines,
            [
                "cudarc's unit tests on this GPU: real cudarc 6 passed, the drop-in 3 passed, of 9",
                "  one::b                                                                 real ok       drop-in FAILED",
                "  one::c                                                                 real ok       drop-in FAILED  (explained: needs a GPU feature HIP lacks)",
                "  one::d                                                                 real ok       drop-in missing",
                "  one::f                                                                 real ok       drop-in FAILED",
                "  two::new                                                               real missing  drop-in ok",
                "3 not run (failing or ignored on real cudarc too)",
                "1 differ: pass on real cudarc, not built through the drop-in (listed in cuda-compat/cudarc-tests-residue.tsv)",
                "1 explained: pass on real cudarc, fail through the drop-in by design (listed in cuda-compat/cudarc-tests-explained.tsv)",
                "2 passed, 2 failed",
            ]
        );
        assert!(!ok);
    }

    #[test]
    fn stale_explanations_unlisted_missing_tests_and_crashes_fail() {
        // As cudarc-tests.sh printed it for the same outcomes.
        let (lines, ok) = report_of(
            "one::a\tpasses now\none::e\tfails on real cudarc\ngone::x\tnot in the suite\none::c\t\n",
            "# reviewed\n",
            &["ours two: exit 139; last line: Segmentation fault"],
        );
        assert_eq!(
            lines[6..],
            [
                "listed in cudarc-tests-explained.tsv, but not failing through the drop-in alone:",
                "  one::a",
                "  one::e",
                "  gone::x",
                "2 not run (failing or ignored on real cudarc too)",
                "0 differ: pass on real cudarc, not built through the drop-in (listed in cuda-compat/cudarc-tests-residue.tsv)",
                "0 explained: pass on real cudarc, fail through the drop-in by design (listed in cuda-compat/cudarc-tests-explained.tsv)",
                "pass on real cudarc, no outcome through the drop-in, not in cudarc-tests-residue.tsv:",
                "  one::d",
                "test binaries that crashed, timed out or printed no summary (each fails the run):",
                "  ours two: exit 139; last line: Segmentation fault",
                "1 passed, 8 failed",
            ]
        );
        assert!(!ok);
    }

    #[test]
    fn a_clean_run_passes() {
        let real = "one::a\tok\none::b\tFAILED\n";
        let explained = reviewed_list("# reviewed\n");
        let rows = rows(real, real, &explained);
        let (lines, ok) = report(&rows, &explained, &explained, &[]);
        assert_eq!(
            lines,
            [
                "cudarc's unit tests on this GPU: real cudarc 1 passed, the drop-in 1 passed, of 2",
                "1 not run (failing or ignored on real cudarc too)",
                "0 differ: pass on real cudarc, not built through the drop-in (listed in cuda-compat/cudarc-tests-residue.tsv)",
                "0 explained: pass on real cudarc, fail through the drop-in by design (listed in cuda-compat/cudarc-tests-explained.tsv)",
                "1 passed, 0 failed",
            ]
        );
        assert!(ok);
    }
}

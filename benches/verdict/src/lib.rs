//! The one rule by which the workspace judges ours against a baseline,
//! fixed before any data: the median of paired per-round ratios, with a
//! distribution-free 95% confidence interval (the sign test's).
//!
//! # The rule
//!
//! - **Paired rounds, in ABBA order.** Ours and the baseline (real cudarc,
//!   the raw call, one GPU, ...) run in rounds; in each round both run
//!   once, one right after the other, and the order alternates: round 1
//!   ours first, round 2 the baseline first, and so on (ABBA), so that
//!   neither always runs first. The runner that decides the order prints
//!   it. Each round gives one ratio, oriented so that above 1 means ours
//!   is better (a speed: the baseline's time over ours, or our rate over
//!   the baseline's). Pairing cancels what drifts between rounds (clocks,
//!   other load, a slow process) instead of letting one lucky process
//!   decide.
//! - **The statistic** is the median of the ratios, each rounded to the 3
//!   decimals printed (so a verdict can be checked from what is printed).
//! - **The interval** is `[r(j), r(n+1-j)]` of the sorted ratios, with `j`
//!   from the binomial distribution ([`median_ci_ranks`]): the number of
//!   ratios below the true median is Binomial(n, 1/2) whatever the
//!   distribution of the noise, so the interval covers the median with
//!   probability at least 95%. It assumes only that the rounds are
//!   independent; no shape of timing noise is assumed (no normality, no
//!   bootstrap resampling).
//! - **The verdict**: `met` when the interval's lower end is at least the
//!   target; `NOT met` when its upper end is below the target; otherwise
//!   `undecided`, which counts as failed. The lower end `r(j)` clears the
//!   target exactly when fewer than `j` ratios lie below it: this is the
//!   sign test of "the median is below the target" at 2.5% on one side.
//! - **Too few rounds**: with fewer than 6 rounds no interval reaches 95%
//!   (even the smallest and largest of 5 cover only 1 - 2/32 = 93.75%); the
//!   verdict is then `undecided`, and says so.
//! - The fastest process and the quartiles are printed as information; they
//!   never decide. (The fastest process's ratio let one undisturbed process
//!   pass a build that was slower in most rounds.)
//!
//! # How many more rounds would decide it
//!
//! An `undecided` verdict prints an estimate from the current spread: of
//! the `n` ratios, `k` lie on the far side of the target from the median
//! (below it when the median is at or above the target, else at or above
//! it). Assuming later rounds fall there as often (`k/n`), `m` rounds would
//! hold about `ceil(k m / n)` such ratios, and the verdict is decided once
//! that is below `j(m)`, the rank of the 95% interval for `m` rounds. The
//! estimate is the smallest such `m`; there is none when `k >= n/2` (the
//! rounds fall on both sides of the target as often), and none is searched
//! past [`MAX_ROUNDS`].
//!
//! This crate is the only place the rule is written: xtask (the GPU
//! runner's reader of results) and the benchmarks both call it.

use std::fmt;

/// The confidence level of every interval.
pub const LEVEL: f64 = 0.95;

/// Rounds past which no estimate of the rounds needed is searched.
pub const MAX_ROUNDS: usize = 1000;

/// The fewest rounds that can give a 95% interval.
pub const MIN_ROUNDS: usize = 6;

/// The end of a verdict line: met, NOT met or undecided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The interval's lower end is at least the target.
    Met,
    /// The interval's upper end is below the target.
    NotMet,
    /// Neither (or no interval): counts as failed.
    Undecided,
}

impl Outcome {
    /// The word each verdict line ends with: `met`, `NOT met`, `undecided`.
    pub fn word(self) -> &'static str {
        match self {
            Outcome::Met => "met",
            Outcome::NotMet => "NOT met",
            Outcome::Undecided => "undecided",
        }
    }

    /// Only `met` passes.
    pub fn passed(self) -> bool {
        self == Outcome::Met
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

/// The verdict of one value that is not a paired comparison (a lowest
/// ratio over shapes against a baseline file measured beforehand, a
/// bandwidth fraction): `met` when `value >= target`, else `NOT met`.
///
/// ```
/// use bench_verdict::{single_value, Outcome};
/// assert_eq!(single_value(0.94, 0.95), Outcome::NotMet);
/// assert_eq!(single_value(0.95, 0.95).word(), "met");
/// assert_eq!(single_value(f64::NAN, 0.95), Outcome::NotMet);
/// ```
pub fn single_value(value: f64, target: f64) -> Outcome {
    if value >= target {
        Outcome::Met
    } else {
        Outcome::NotMet
    }
}

/// A ratio rounded to the 3 decimals printed.
pub fn round_ratio(r: f64) -> f64 {
    (r * 1000.0).round() / 1000.0
}

/// The 1-based ranks `(j, n + 1 - j)` of the order statistics that bound a
/// distribution-free confidence interval for the median of `n` values with
/// coverage at least `level`, and that coverage.
///
/// For continuous data, the interval `[x_(j), x_(n+1-j)]` misses the median
/// only when fewer than `j` or more than `n - j` values lie below it; the
/// count below the median is Binomial(n, 1/2), so the coverage is
/// `1 - 2 P(B <= j - 1)`. The largest `j` whose coverage is still at least
/// `level` gives the narrowest such interval. `None` when even `j = 1` (the
/// sample's minimum and maximum) falls short, e.g. fewer than 6 values for
/// 95%.
pub fn median_ci_ranks(n: usize, level: f64) -> Option<(usize, usize, f64)> {
    if n == 0 || !(0.0..1.0).contains(&level) {
        return None;
    }
    // P(B = m) in log space: C(n, m) overflows f64 beyond n of about 1000.
    let ln_half_n = -(n as f64) * std::f64::consts::LN_2;
    let mut ln_pmf = ln_half_n; // m = 0
    let mut cdf = 0.0; // P(B <= m - 1) at the top of the loop
    let mut best = None;
    for m in 0..n.div_ceil(2) {
        // Coverage of j = m + 1: 1 - 2 P(B <= m).
        cdf += ln_pmf.exp();
        let coverage = 1.0 - 2.0 * cdf;
        if coverage < level {
            break;
        }
        best = Some((m + 1, n - m, coverage));
        ln_pmf += ((n - m) as f64).ln() - ((m + 1) as f64).ln();
    }
    best
}

/// The median of sorted values (the mean of the middle two for an even
/// count).
fn median_of_sorted(s: &[f64]) -> f64 {
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

/// The 95% interval of the median of the ratios.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    /// Its lower end, the `ranks.0`-th smallest ratio.
    pub low: f64,
    /// Its upper end, the `ranks.1`-th smallest ratio.
    pub high: f64,
    /// The 1-based ranks of the two ends.
    pub ranks: (usize, usize),
    /// The exact coverage (at least 95%).
    pub coverage: f64,
}

/// How many rounds would decide an undecided verdict (see the crate's
/// docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoreRounds {
    /// `total` rounds in all (`total - n` more) would decide it, if later
    /// rounds fall on the far side as often as the `far` of these did.
    Rounds { total: usize, far: usize },
    /// The rounds fall on both sides of the target as often (`far` of `n`,
    /// at least half): no number of rounds decides it.
    Never { far: usize },
    /// More than [`MAX_ROUNDS`].
    Beyond { far: usize },
}

/// A paired comparison judged: the ratios, the statistic, the interval and
/// the verdict.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    /// The per-round ratios, rounded, in round order (above 1: ours is
    /// better).
    pub ratios: Vec<f64>,
    /// The median of the ratios.
    pub median: f64,
    /// The lower and upper quartiles (nearest rank: the `ceil(n/4)`-th
    /// smallest and largest ratio); information only.
    pub quartiles: (f64, f64),
    /// The smallest and largest ratio; information only.
    pub range: (f64, f64),
    /// The 95% interval of the median; `None` with too few rounds.
    pub interval: Option<Interval>,
    /// What ours must reach.
    pub target: f64,
    /// The verdict.
    pub outcome: Outcome,
}

impl Verdict {
    /// Judges per-round ratios (above 1: ours is better) against `target`.
    /// Fails on no ratios, a non-finite or non-positive ratio or target.
    pub fn of_ratios(ratios: &[f64], target: f64) -> Result<Verdict, String> {
        if ratios.is_empty() {
            return Err("no rounds to judge".into());
        }
        if !(target.is_finite() && target > 0.0) {
            return Err(format!("target {target} is not a positive number"));
        }
        if let Some(bad) = ratios.iter().find(|r| !(r.is_finite() && **r > 0.0)) {
            return Err(format!("a round's ratio is {bad}, not a positive number"));
        }
        let ratios: Vec<f64> = ratios.iter().map(|&r| round_ratio(r)).collect();
        let mut s = ratios.clone();
        s.sort_by(f64::total_cmp);
        let n = s.len();
        let q = n.div_ceil(4);
        let interval = median_ci_ranks(n, LEVEL).map(|(j, k, coverage)| Interval {
            low: s[j - 1],
            high: s[k - 1],
            ranks: (j, k),
            coverage,
        });
        let outcome = match interval {
            Some(i) if i.low >= target => Outcome::Met,
            Some(i) if i.high < target => Outcome::NotMet,
            _ => Outcome::Undecided,
        };
        Ok(Verdict {
            median: round_ratio(median_of_sorted(&s)),
            quartiles: (s[q - 1], s[n - q]),
            range: (s[0], s[n - 1]),
            interval,
            target,
            outcome,
            ratios,
        })
    }

    /// Judges times (lower is better) paired by round: the ratios are
    /// `baseline[i] / ours[i]`, ours' speed relative to the baseline.
    pub fn of_times(ours: &[f64], baseline: &[f64], target: f64) -> Result<Verdict, String> {
        if ours.len() != baseline.len() {
            return Err(format!(
                "{} times of ours against {} of the baseline: the rounds do not pair",
                ours.len(),
                baseline.len()
            ));
        }
        if let Some(bad) = ours
            .iter()
            .chain(baseline)
            .find(|t| !(t.is_finite() && **t > 0.0))
        {
            return Err(format!("a time is {bad}, not a positive number"));
        }
        let ratios: Vec<f64> = ours.iter().zip(baseline).map(|(o, b)| b / o).collect();
        Verdict::of_ratios(&ratios, target)
    }

    /// The number of paired rounds.
    pub fn rounds(&self) -> usize {
        self.ratios.len()
    }

    /// `median M [95% interval L, H] of N paired rounds; quartiles Q1, Q3;
    /// range A..B`, or `no 95% interval` in its place.
    pub fn statistic(&self) -> String {
        let interval = match self.interval {
            Some(i) => format!("[95% interval {:.3}, {:.3}]", i.low, i.high),
            None => format!("[no 95% interval: fewer than {MIN_ROUNDS} rounds]"),
        };
        format!(
            "median {:.3} {interval} of {} paired rounds; quartiles {:.3}, {:.3}; range {:.3}..{:.3}",
            self.median,
            self.rounds(),
            self.quartiles.0,
            self.quartiles.1,
            self.range.0,
            self.range.1
        )
    }

    /// The end of a verdict line: `target >= T: met|NOT met|undecided`.
    pub fn tail(&self) -> String {
        format!("target >= {}: {}", self.target, self.outcome)
    }

    /// For an undecided verdict, how many rounds would decide it.
    pub fn more_rounds(&self) -> Option<MoreRounds> {
        if self.outcome != Outcome::Undecided {
            return None;
        }
        let n = self.rounds();
        let t = self.target;
        let far = if self.median >= t {
            self.ratios.iter().filter(|&&r| r < t).count()
        } else {
            self.ratios.iter().filter(|&&r| r >= t).count()
        };
        if 2 * far >= n {
            return Some(MoreRounds::Never { far });
        }
        for m in n + 1..=MAX_ROUNDS {
            if let Some((j, _, _)) = median_ci_ranks(m, LEVEL) {
                if (far * m).div_ceil(n) < j {
                    return Some(MoreRounds::Rounds { total: m, far });
                }
            }
        }
        Some(MoreRounds::Beyond { far })
    }

    /// Why it is undecided and what would decide it (for the line after
    /// the verdict line), or `None` when it is decided.
    pub fn explanation(&self) -> Option<String> {
        let more = self.more_rounds()?;
        let n = self.rounds();
        let side = if self.median >= self.target {
            "below"
        } else {
            "at or above"
        };
        let why = match self.interval {
            None => format!("{n} rounds give no 95% interval (at least {MIN_ROUNDS} are needed)"),
            Some(i) => format!(
                "the 95% interval {:.3}..{:.3} holds the target {}",
                i.low, i.high, self.target
            ),
        };
        let what = match more {
            MoreRounds::Rounds { total, far } => format!(
                "about {} more rounds ({total} in all) would decide it, if later rounds fall \
                 {side} the target as often as these ({far} of {n})",
                total - n
            ),
            MoreRounds::Never { far } => format!(
                "no number of rounds would decide it: {far} of {n} rounds fall {side} the target, \
                 as many as on the median's side"
            ),
            MoreRounds::Beyond { far } => format!(
                "more than {MAX_ROUNDS} rounds would be needed ({far} of {n} rounds fall {side} \
                 the target)"
            ),
        };
        Some(format!("undecided (counts as failed): {why}; {what}"))
    }

    /// The verdict's lines: `LABEL: WHAT STATISTIC[; EXTRA]; target >= T:
    /// WORD`, then, when undecided, an indented line saying why and how many
    /// more rounds would decide it. Only the first line ends with the word.
    pub fn lines(&self, label: &str, what: &str, extra: &str) -> Vec<String> {
        let extra = if extra.is_empty() {
            String::new()
        } else {
            format!("; {extra}")
        };
        let mut out = vec![format!(
            "{label}: {what} {}{extra}; {}",
            self.statistic(),
            self.tail()
        )];
        out.extend(self.explanation().map(|e| format!("  {e}")));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn times(v: &[f64]) -> Vec<f64> {
        v.to_vec()
    }

    #[test]
    fn ranks_match_the_binomial_tables() {
        // Textbook ranks for a 95% interval of the median (e.g. Conover,
        // Practical Nonparametric Statistics, table A3), with the exact
        // coverage 1 - 2 P(Binomial(n, 1/2) <= j - 1).
        let expected = [
            (6, 1, 6, 1.0 - 2.0 / 64.0),
            (7, 1, 7, 1.0 - 2.0 / 128.0),
            (9, 2, 8, 1.0 - 2.0 * 10.0 / 512.0),
            (10, 2, 9, 1.0 - 2.0 * 11.0 / 1024.0),
            (20, 6, 15, 1.0 - 2.0 * 21700.0 / 1_048_576.0),
        ];
        for (n, j, k, coverage) in expected {
            let (rj, rk, rc) = median_ci_ranks(n, LEVEL).unwrap();
            assert_eq!((rj, rk), (j, k), "n = {n}");
            assert!((rc - coverage).abs() < 1e-12, "n = {n}: {rc} vs {coverage}");
        }
        // Too few values for 95%: min and max of 5 cover only 1 - 2/32.
        assert_eq!(median_ci_ranks(5, LEVEL), None);
        assert_eq!(median_ci_ranks(0, LEVEL), None);
        // Large n stays finite (log-space binomial) and near the normal
        // approximation n/2 -/+ 1.96 sqrt(n)/2 (ranks 470 and 531 for 1000).
        let (j, k, c) = median_ci_ranks(1000, LEVEL).unwrap();
        assert!((468..=472).contains(&j) && k == 1001 - j, "{j} {k}");
        assert!((0.95..0.96).contains(&c), "{c}");
    }

    /// The case the fastest-process rule passed (xtask's old unit test):
    /// ours 100, 96, 110 us against real 97, 96, 99 us. The fastest of each
    /// is 96, "speed 1.000, met"; but ours is slower in 2 of the 3 paired
    /// rounds, and 3 rounds give no 95% interval: undecided, failed.
    #[test]
    fn the_fastest_process_no_longer_passes_a_slower_build() {
        let v = Verdict::of_times(
            &times(&[100.0, 96.0, 110.0]),
            &times(&[97.0, 96.0, 99.0]),
            0.97,
        )
        .unwrap();
        assert_eq!(v.ratios, [0.97, 1.0, 0.9]);
        assert_eq!(v.outcome, Outcome::Undecided);
        assert!(!v.outcome.passed());
        assert_eq!(v.interval, None);
        let lines = v.lines("llama step f32", "ours/real speed", "");
        assert_eq!(
            lines[0],
            "llama step f32: ours/real speed median 0.970 [no 95% interval: fewer than 6 rounds] \
             of 3 paired rounds; quartiles 0.900, 1.000; range 0.900..1.000; target >= 0.97: undecided"
        );
        assert!(lines[1].starts_with("  undecided (counts as failed): 3 rounds give no 95% interval (at least 6 are needed); about "),
            "{}", lines[1]);
        // Nine rounds of the same kind: one undisturbed process of ours
        // (96 us) beats real's fastest (100 us), "speed 1.042, met" by the
        // fastest; ours is slower in 8 of the 9 rounds: NOT met.
        let v = Verdict::of_times(
            &times(&[96.0, 105.0, 106.0, 105.0, 106.0, 105.0, 107.0, 105.0, 106.0]),
            &times(&[100.0; 9]),
            0.97,
        )
        .unwrap();
        assert_eq!(v.outcome, Outcome::NotMet, "{}", v.statistic());
        let i = v.interval.unwrap();
        assert_eq!((i.low, i.high, i.ranks), (0.943, 0.952, (2, 8)));
        assert_eq!(v.median, 0.952);
        assert_eq!(v.range, (0.935, 1.042));
        assert_eq!(v.explanation(), None);
        // mistral.rs prefill's shape: the fastest processes' ratio 1.11,
        // the paired median below 1; with a 0.97 target and rounds on both
        // sides it stays undecided and fails.
        let v = Verdict::of_ratios(&[1.11, 0.96, 0.98, 0.95, 0.99, 0.97, 0.98], 0.97).unwrap();
        assert_eq!(v.median, 0.98);
        assert_eq!(v.outcome, Outcome::Undecided);
    }

    #[test]
    fn met_not_met_and_undecided_at_their_boundaries() {
        // 6 rounds: the interval is min..max (ranks 1 and 6).
        let at = |r: &[f64], t: f64| Verdict::of_ratios(r, t).unwrap().outcome;
        let six = [0.97, 0.98, 0.99, 1.0, 1.01, 1.02];
        // The lower end equal to the target: met.
        assert_eq!(at(&six, 0.97), Outcome::Met);
        // One thousandth above it: the lower end is below, undecided.
        assert_eq!(at(&six, 0.971), Outcome::Undecided);
        // The upper end equal to the target: not below it, undecided.
        assert_eq!(at(&six, 1.02), Outcome::Undecided);
        // Just above the upper end: NOT met.
        assert_eq!(at(&six, 1.021), Outcome::NotMet);
        // Rounding to the 3 decimals printed: 0.9695 prints (and counts)
        // as 0.970.
        assert_eq!(
            at(&[0.9695, 0.98, 0.99, 1.0, 1.01, 1.02], 0.97),
            Outcome::Met
        );
        // 9 rounds: ranks 2 and 8, so one outlier on either side does not
        // decide.
        let nine = [0.5, 0.98, 0.98, 0.99, 0.99, 1.0, 1.0, 1.01, 3.0];
        let v = Verdict::of_ratios(&nine, 0.97).unwrap();
        assert_eq!(v.outcome, Outcome::Met);
        assert_eq!(v.tail(), "target >= 0.97: met");
        assert_eq!(
            v.statistic(),
            "median 0.990 [95% interval 0.980, 1.010] of 9 paired rounds; quartiles 0.980, 1.000; range 0.500..3.000"
        );
        assert_eq!(v.lines("x", "speed", "fastest 1 us").len(), 1);
        assert!(v.lines("x", "speed", "fastest 1 us")[0]
            .ends_with("range 0.500..3.000; fastest 1 us; target >= 0.97: met"));
        // Two below the target: the lower end (rank 2) is below it.
        let mut two_below = nine;
        two_below[1] = 0.96;
        assert_eq!(at(&two_below, 0.97), Outcome::Undecided);
        assert_eq!(at(&[0.9; 9], 0.97), Outcome::NotMet);
        assert_eq!(
            at(&[0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 2.0], 0.97),
            Outcome::NotMet
        );
        let mut one_above = [0.9; 9];
        one_above[3] = 0.97;
        one_above[5] = 0.98;
        assert_eq!(at(&one_above, 0.97), Outcome::Undecided);
    }

    #[test]
    fn too_few_rounds_are_undecided_and_say_so() {
        for n in 1..MIN_ROUNDS {
            let v = Verdict::of_ratios(&vec![2.0; n], 0.97).unwrap();
            assert_eq!(v.outcome, Outcome::Undecided, "{n} rounds");
            assert_eq!(v.interval, None);
            // All rounds far above the target: the rounds missing to 6.
            assert_eq!(
                v.more_rounds(),
                Some(MoreRounds::Rounds {
                    total: MIN_ROUNDS,
                    far: 0
                })
            );
            let e = v.explanation().unwrap();
            assert!(
                e.contains(&format!(
                    "{n} rounds give no 95% interval (at least 6 are needed); about {} more rounds (6 in all)",
                    MIN_ROUNDS - n
                )),
                "{e}"
            );
        }
        // The sixth round decides.
        assert_eq!(
            Verdict::of_ratios(&[2.0; 6], 0.97).unwrap().outcome,
            Outcome::Met
        );
    }

    #[test]
    fn more_rounds_from_the_current_spread() {
        // 9 rounds, 2 below the target, median above: k/n = 2/9. With m
        // rounds about ceil(2m/9) fall below; decided once that is below
        // j(m).
        let v = Verdict::of_ratios(&[0.96, 0.96, 0.98, 0.99, 0.99, 1.0, 1.0, 1.01, 1.02], 0.97)
            .unwrap();
        assert_eq!(v.outcome, Outcome::Undecided);
        let Some(MoreRounds::Rounds { total, far }) = v.more_rounds() else {
            panic!("{:?}", v.more_rounds());
        };
        assert_eq!(far, 2);
        // The estimate is the first m that decides, and it does decide.
        let (j, _, _) = median_ci_ranks(total, LEVEL).unwrap();
        assert!((2 * total).div_ceil(9) < j, "{total}");
        for m in 10..total {
            let decided =
                median_ci_ranks(m, LEVEL).is_some_and(|(j, _, _)| (2 * m).div_ceil(9) < j);
            assert!(!decided, "{m} rounds would already decide it");
        }
        // That many rounds with the projected share below the target
        // (ceil(2m/9) of them) are met.
        let below = (2 * total).div_ceil(9);
        let more: Vec<f64> = (0..total)
            .map(|i| if i < below { 0.96 } else { 1.0 })
            .collect();
        assert_eq!(
            Verdict::of_ratios(&more, 0.97).unwrap().outcome,
            Outcome::Met
        );
        assert!(v.explanation().unwrap().contains(&format!(
            "about {} more rounds ({total} in all) would decide it, if later rounds fall below the target as often as these (2 of 9)",
            total - 9
        )));
        // The median below the target: the rounds at or above it count.
        let v =
            Verdict::of_ratios(&[0.9, 0.9, 0.9, 0.91, 0.92, 0.93, 0.95, 0.98, 0.99], 0.97).unwrap();
        assert_eq!(v.outcome, Outcome::Undecided);
        assert!(v
            .explanation()
            .unwrap()
            .contains("fall at or above the target as often as these (2 of 9)"));
        // Half on each side: never.
        let v = Verdict::of_ratios(&[0.9, 0.9, 0.9, 1.0, 1.0, 1.0], 0.97).unwrap();
        assert_eq!(v.more_rounds(), Some(MoreRounds::Never { far: 3 }));
        assert!(v
            .explanation()
            .unwrap()
            .contains("no number of rounds would decide it"));
        // Nearly half: beyond the search.
        let mut r = vec![1.0; 201];
        r[..100].iter_mut().for_each(|x| *x = 0.9);
        let v = Verdict::of_ratios(&r, 0.97).unwrap();
        assert_eq!(v.more_rounds(), Some(MoreRounds::Beyond { far: 100 }));
        // Decided verdicts need nothing.
        assert_eq!(
            Verdict::of_ratios(&[1.0; 9], 0.97).unwrap().more_rounds(),
            None
        );
    }

    #[test]
    fn bad_inputs_are_refused() {
        assert!(Verdict::of_ratios(&[], 0.97).is_err());
        assert!(Verdict::of_ratios(&[1.0, f64::NAN], 0.97).is_err());
        assert!(Verdict::of_ratios(&[1.0, 0.0], 0.97).is_err());
        assert!(Verdict::of_ratios(&[1.0], 0.0).is_err());
        assert!(Verdict::of_times(&[1.0, 2.0], &[1.0], 0.97)
            .unwrap_err()
            .contains("do not pair"));
        assert!(Verdict::of_times(&[1.0, 0.0], &[1.0, 1.0], 0.97).is_err());
        // Times: the baseline's over ours.
        let v = Verdict::of_times(&[50.0; 6], &[100.0; 6], 1.5).unwrap();
        assert_eq!(v.median, 2.0);
        assert_eq!(v.outcome, Outcome::Met);
    }
}

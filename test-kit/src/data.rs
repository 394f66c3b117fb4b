//! Seeded random data. Each test thread draws from its own generator,
//! seeded at its first draw from `HIP_TEST_SEED` when set, else at random,
//! and the seed is printed (libtest shows it with a failing test's output),
//! so a failure can be replayed with the same data.

use rand::distributions::uniform::SampleUniform;
use rand::rngs::StdRng;
use rand::{Rng, RngCore, SeedableRng};
use std::cell::RefCell;
use std::ops::Range;

/// The variable that fixes the seed: `HIP_TEST_SEED=1234 cargo test ...`.
pub const SEED_VAR: &str = "HIP_TEST_SEED";

/// The seed a new generator starts from: `HIP_TEST_SEED` when set (a
/// malformed value fails the test rather than silently picking another),
/// else a fresh random one.
pub fn seed_for_replay() -> u64 {
    match std::env::var(SEED_VAR) {
        Ok(s) => s
            .trim()
            .parse()
            .unwrap_or_else(|e| panic!("{SEED_VAR}={s:?} is not a u64 seed: {e}")),
        Err(_) => rand::random(),
    }
}

struct ThreadRng {
    /// The thread the generator was seeded for (libtest runs each test on a
    /// thread named after it): a new name means a new test, so a new,
    /// printed seed.
    thread: Option<String>,
    rng: StdRng,
}

thread_local! {
    static RNG: RefCell<Option<ThreadRng>> = const { RefCell::new(None) };
}

fn with_rng<R>(f: impl FnOnce(&mut StdRng) -> R) -> R {
    RNG.with(|cell| {
        let mut state = cell.borrow_mut();
        let name = std::thread::current().name().map(str::to_owned);
        let stale = state.as_ref().map_or(true, |s| s.thread != name);
        if stale {
            let seed = seed_for_replay();
            println!(
                "random data of thread {}: seed {seed} (replay with {SEED_VAR}={seed})",
                name.as_deref().unwrap_or("<unnamed>")
            );
            *state = Some(ThreadRng {
                thread: name,
                rng: StdRng::seed_from_u64(seed),
            });
        }
        f(&mut state.as_mut().expect("seeded above").rng)
    })
}

/// The calling test's generator (seeded and printed at its first use), a
/// drop-in for `rand::thread_rng()`.
///
/// Replaying a failure with `HIP_TEST_SEED` gives a test the same numbers
/// when it draws them on its own thread in the same order, as every test
/// here does; threads a test spawns print seeds of their own.
pub fn rng() -> TestRng {
    TestRng(())
}

/// A handle to the calling thread's seeded generator (see [`rng`]).
#[derive(Debug, Clone, Copy)]
pub struct TestRng(());

impl RngCore for TestRng {
    fn next_u32(&mut self) -> u32 {
        with_rng(|r| r.next_u32())
    }
    fn next_u64(&mut self) -> u64 {
        with_rng(|r| r.next_u64())
    }
    fn fill_bytes(&mut self, dest: &mut [u8]) {
        with_rng(|r| r.fill_bytes(dest))
    }
    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), rand::Error> {
        with_rng(|r| r.try_fill_bytes(dest))
    }
}

/// `n` values drawn uniformly from `range`, none equal to zero
/// (`T::default()`), so data left untouched or zeroed never passes for a
/// result. The range must hold non-zero values.
pub fn random_nonzero<T>(n: usize, range: Range<T>) -> Vec<T>
where
    T: SampleUniform + PartialOrd + Default + Copy + std::fmt::Debug,
{
    assert!(range.start < range.end, "empty range {range:?}");
    let zero = T::default();
    let mut r = rng();
    (0..n)
        .map(|_| {
            // A zero draw has probability ~0 for float ranges and 1/len for
            // integer ones: draw again (at most a few times in practice).
            for _ in 0..1000 {
                let v = r.gen_range(range.start..range.end);
                if v != zero {
                    return v;
                }
            }
            panic!("the range {range:?} gives only zeros")
        })
        .collect()
}

/// `n` random bytes (zeros allowed, as real data has them), never all
/// zero for `n > 0`.
pub fn random_bytes(n: usize) -> Vec<u8> {
    let mut v = vec![0u8; n];
    let mut r = rng();
    loop {
        r.fill_bytes(&mut v);
        if n == 0 || v.iter().any(|b| *b != 0) {
            return v;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nonzero_data_has_no_zero_and_stays_in_range() {
        let v = random_nonzero(10_000, -2i32..3);
        assert!(v.iter().all(|x| *x != 0 && (-2..3).contains(x)));
        let f = random_nonzero(1000, -1.0f32..1.0);
        assert!(f.iter().all(|x| *x != 0.0 && (-1.0..1.0).contains(x)));
        assert!(random_bytes(64).iter().any(|b| *b != 0));
    }

    #[test]
    fn a_thread_draws_one_reproducible_sequence() {
        // Same seed, same numbers: what replaying relies on.
        let mut a = StdRng::seed_from_u64(7);
        let mut b = StdRng::seed_from_u64(7);
        assert_eq!(a.next_u64(), b.next_u64());
        // A new thread (a new test) gets its own generator.
        let first: Vec<u64> = (0..4).map(|_| rng().next_u64()).collect();
        let other = std::thread::Builder::new()
            .name("another test".into())
            .spawn(|| (0..4).map(|_| rng().next_u64()).collect::<Vec<u64>>())
            .unwrap()
            .join()
            .unwrap();
        if std::env::var(SEED_VAR).is_err() {
            assert_ne!(first, other, "two tests drew the same data");
        } else {
            assert_eq!(
                first, other,
                "{SEED_VAR} must give every test the same data"
            );
        }
    }
}

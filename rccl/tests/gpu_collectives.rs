//! Tier 3, two GPUs or more (`#[ignore = "needs two GPUs"]`, names start
//! with `two_gpus_`; run with `--ignored --test-threads=1`, on NVIDIA with
//! `HIP_PLATFORM=nvidia` and NCCL's `libnccl.so.2` where the loader finds
//! it). Every visible GPU takes part: the code is for any number; two is
//! what the GPU machine has.
//!
//! - One process, [`Comm::from_devices`] over every GPU: each collective,
//!   in and out of place, for each element type (sum; prod, min, max and
//!   avg for f32 and i32) against a CPU reference. Integers are exact
//!   (wrapping as the GPU's arithmetic does); floats within
//!   `4 x world size x epsilon` of the type, relative to the reference's
//!   magnitude (epsilon: 2^-52 f64, 2^-23 f32, 2^-10 f16, 2^-7 bf16; the
//!   inputs are exactly representable, so only the reduction rounds).
//! - Send/recv around a ring inside a group; bad input (memory or stream
//!   on the wrong device, lengths that do not fit, ranks past the world)
//!   rejected before the library.
//! - Two processes with one GPU each through the rendezvous: the test
//!   binary runs itself again as rank 1 (`RCCL_TEST_CHILD` marks it) with
//!   `torchrun`'s variables, both call `Comm::from_job` and all-reduce.
//! - A rank that exits after joining: the other's all-reduce and
//!   `Comm::wait(10 s)` return an error within the timeout, not a hang.

use hip::{Device, DeviceBuffer, Stream};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rccl::{group, Comm, Element, Error, Job, ReduceOp};
use std::collections::HashMap;
use std::fmt::Debug;
use std::process::{Child, Command};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Elements per rank and buffer (a multiple of any world size up to 8
/// times itself: every collective's part is whole).
const PER_RANK: usize = 3 * 1024;

/// An element type with what the CPU reference needs.
trait TestElem: Element + Copy + PartialEq + Debug {
    /// The type's epsilon; 0 for integers, which compare exactly.
    const EPS: f64;
    /// The value of a small integer or a float (exactly representable
    /// inputs are drawn as such).
    fn from_f64(v: f64) -> Self;
    fn to_f64(self) -> f64;
}

macro_rules! int_elems {
    ($($t:ty),*) => {$(
        impl TestElem for $t {
            const EPS: f64 = 0.0;
            fn from_f64(v: f64) -> Self {
                // Wrapping, as the GPU's integer arithmetic.
                (v as i64) as $t
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
        }
    )*};
}
int_elems!(i8, u8, i32, u32, i64, u64);

impl TestElem for f32 {
    const EPS: f64 = f32::EPSILON as f64;
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
}
impl TestElem for f64 {
    const EPS: f64 = f64::EPSILON;
    fn from_f64(v: f64) -> Self {
        v
    }
    fn to_f64(self) -> f64 {
        self
    }
}
impl TestElem for half::f16 {
    const EPS: f64 = 0.0009765625;
    fn from_f64(v: f64) -> Self {
        half::f16::from_f64(v)
    }
    fn to_f64(self) -> f64 {
        half::f16::to_f64(self)
    }
}
impl TestElem for half::bf16 {
    const EPS: f64 = 0.0078125;
    fn from_f64(v: f64) -> Self {
        half::bf16::from_f64(v)
    }
    fn to_f64(self) -> f64 {
        half::bf16::to_f64(self)
    }
}

/// `n` random non-zero values: integers 1..=3 (so that products of a few
/// ranks stay small), floats in [0.5, 2) rounded to the type.
fn random<T: TestElem>(rng: &mut impl Rng, n: usize) -> Vec<T> {
    (0..n)
        .map(|_| {
            if T::EPS == 0.0 {
                T::from_f64(rng.gen_range(1..=3) as f64)
            } else {
                T::from_f64(rng.gen_range(0.5..2.0))
            }
        })
        .collect()
}

/// The reduction of `values` (one per rank) as the library computes it:
/// integers in i64 with wrapping, then wrapped to `T`; floats in f64.
fn reduce_ref<T: TestElem>(values: &[T], op: ReduceOp) -> T {
    if T::EPS == 0.0 {
        let v: Vec<i64> = values.iter().map(|x| x.to_f64() as i64).collect();
        let sum = v.iter().fold(0i64, |a, b| a.wrapping_add(*b));
        let r = match op {
            ReduceOp::Sum => sum,
            ReduceOp::Prod => v.iter().fold(1i64, |a, b| a.wrapping_mul(*b)),
            ReduceOp::Min => *v.iter().min().unwrap(),
            ReduceOp::Max => *v.iter().max().unwrap(),
            ReduceOp::Avg => sum / v.len() as i64,
        };
        return T::from_f64(r as f64);
    }
    let v: Vec<f64> = values.iter().map(|x| x.to_f64()).collect();
    let r = match op {
        ReduceOp::Sum => v.iter().sum(),
        ReduceOp::Prod => v.iter().product(),
        ReduceOp::Min => v.iter().cloned().fold(f64::INFINITY, f64::min),
        ReduceOp::Max => v.iter().cloned().fold(f64::NEG_INFINITY, f64::max),
        ReduceOp::Avg => v.iter().sum::<f64>() / v.len() as f64,
    };
    T::from_f64(r)
}

/// Element-wise reduction over ranks: `inputs[rank][i]`.
fn reduce_all<T: TestElem>(inputs: &[Vec<T>], op: ReduceOp) -> Vec<T> {
    (0..inputs[0].len())
        .map(|i| {
            let column: Vec<T> = inputs.iter().map(|v| v[i]).collect();
            reduce_ref(&column, op)
        })
        .collect()
}

/// Exact for integers; within `4 x world x EPS` relative for floats.
fn assert_matches<T: TestElem>(got: &[T], want: &[T], world: usize, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    let tol = 4.0 * world as f64 * T::EPS;
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let (g, w) = (g.to_f64(), w.to_f64());
        let ok = if T::EPS == 0.0 {
            g == w
        } else {
            (g - w).abs() <= tol * w.abs().max(f64::MIN_POSITIVE)
        };
        assert!(
            ok,
            "{what} ({}): element {i} is {g}, the reference {w} (tolerance {tol:e} relative)",
            T::NAME
        );
    }
}

/// Every visible GPU (at least two), one communicator and stream each.
struct World {
    comms: Vec<Comm>,
    streams: Vec<Stream>,
}

fn world() -> World {
    let _ = test_kit::device(); // the platform check, and a GPU at all
    let devices = Device::all().expect("Device::all");
    assert!(
        devices.len() >= 2,
        "needs two GPUs, {} found",
        devices.len()
    );
    let comms = Comm::from_devices(&devices).expect("Comm::from_devices");
    for (i, c) in comms.iter().enumerate() {
        assert_eq!(
            (c.rank(), c.world_size(), c.device().ordinal()),
            (i, devices.len(), i)
        );
    }
    let streams = devices.iter().map(test_kit::stream).collect();
    World { comms, streams }
}

impl World {
    fn size(&self) -> usize {
        self.comms.len()
    }

    /// One random buffer of `n` elements per rank: host copies and device
    /// buffers.
    fn inputs<T: TestElem>(&self, n: usize) -> (Vec<Vec<T>>, Vec<DeviceBuffer<T>>) {
        let mut rng = test_kit::rng();
        let host: Vec<Vec<T>> = (0..self.size()).map(|_| random(&mut rng, n)).collect();
        let dev = self
            .comms
            .iter()
            .zip(&host)
            .map(|(c, h)| test_kit::upload(c.device(), h))
            .collect();
        (host, dev)
    }

    /// A zeroed buffer of `n` elements per rank.
    fn outputs<T: TestElem>(&self, n: usize) -> Vec<DeviceBuffer<T>> {
        self.comms
            .iter()
            .map(|c| {
                let zero = vec![T::from_f64(0.0); n];
                test_kit::upload(c.device(), &zero)
            })
            .collect()
    }

    /// Each rank's buffer after its stream's work.
    fn download<T: TestElem>(&self, bufs: &[DeviceBuffer<T>]) -> Vec<Vec<T>> {
        bufs.iter()
            .zip(&self.streams)
            .map(|(b, s)| test_kit::download(s, b))
            .collect()
    }

    /// Runs `f(rank, comm, stream)` for every rank inside one group.
    fn each(&self, mut f: impl FnMut(usize, &Comm, &Stream) -> rccl::Result<()>) {
        group(|| {
            for (i, (c, s)) in self.comms.iter().zip(&self.streams).enumerate() {
                f(i, c, s)?;
            }
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
    }
}

fn all_reduce_case<T: TestElem>(w: &World, op: ReduceOp) {
    let n = PER_RANK;
    let (host, send) = w.inputs::<T>(n);
    let mut recv = w.outputs::<T>(n);
    w.each(|i, c, s| c.all_reduce(&send[i], &mut recv[i], op, s));
    let want = reduce_all(&host, op);
    for (rank, got) in w.download(&recv).iter().enumerate() {
        assert_matches(
            got,
            &want,
            w.size(),
            &format!("all_reduce {op:?} rank {rank}"),
        );
    }
    // In place, on the inputs.
    let mut bufs = send;
    w.each(|i, c, s| c.all_reduce_in_place(&mut bufs[i], op, s));
    for (rank, got) in w.download(&bufs).iter().enumerate() {
        assert_matches(
            got,
            &want,
            w.size(),
            &format!("all_reduce_in_place {op:?} rank {rank}"),
        );
    }
}

fn rooted_case<T: TestElem>(w: &World) {
    let n = PER_RANK;
    let root = w.size() - 1;
    // Broadcast, out of place and in place.
    let (host, send) = w.inputs::<T>(n);
    let mut recv = w.outputs::<T>(n);
    w.each(|i, c, s| c.broadcast(&send[i], &mut recv[i], root, s));
    for (rank, got) in w.download(&recv).iter().enumerate() {
        assert_matches(
            got,
            &host[root],
            w.size(),
            &format!("broadcast rank {rank}"),
        );
    }
    let mut bufs = send;
    w.each(|i, c, s| c.broadcast_in_place(&mut bufs[i], root, s));
    for (rank, got) in w.download(&bufs).iter().enumerate() {
        assert_matches(
            got,
            &host[root],
            w.size(),
            &format!("broadcast_in_place rank {rank}"),
        );
    }
    // Reduce: the root gets the sum; the others' receive buffers stay zero.
    let (host, send) = w.inputs::<T>(n);
    let mut recv = w.outputs::<T>(n);
    w.each(|i, c, s| c.reduce(&send[i], &mut recv[i], ReduceOp::Sum, root, s));
    let want = reduce_all(&host, ReduceOp::Sum);
    let zero = vec![T::from_f64(0.0); n];
    for (rank, got) in w.download(&recv).iter().enumerate() {
        let expected = if rank == root { &want } else { &zero };
        assert_matches(got, expected, w.size(), &format!("reduce rank {rank}"));
    }
    let mut bufs = send;
    w.each(|i, c, s| c.reduce_in_place(&mut bufs[i], ReduceOp::Sum, root, s));
    let got = w.download(&bufs);
    assert_matches(&got[root], &want, w.size(), "reduce_in_place at the root");
}

fn spread_case<T: TestElem>(w: &World) {
    let n = PER_RANK;
    let size = w.size();
    // All-gather: every rank gets every rank's part, in rank order.
    let (host, send) = w.inputs::<T>(n);
    let mut recv = w.outputs::<T>(n * size);
    w.each(|i, c, s| c.all_gather(&send[i], &mut recv[i], s));
    let want: Vec<T> = host.concat();
    for (rank, got) in w.download(&recv).iter().enumerate() {
        assert_matches(got, &want, size, &format!("all_gather rank {rank}"));
    }
    // Reduce-scatter: rank r gets the sum of every rank's r-th part.
    let (host, send) = w.inputs::<T>(n * size);
    let mut recv = w.outputs::<T>(n);
    w.each(|i, c, s| c.reduce_scatter(&send[i], &mut recv[i], ReduceOp::Sum, s));
    let sum = reduce_all(&host, ReduceOp::Sum);
    for (rank, got) in w.download(&recv).iter().enumerate() {
        let want = &sum[rank * n..(rank + 1) * n];
        assert_matches(got, want, size, &format!("reduce_scatter rank {rank}"));
    }
    // All-to-all: rank r's part j is rank j's part r.
    let (host, send) = w.inputs::<T>(n * size);
    let mut recv = w.outputs::<T>(n * size);
    w.each(|i, c, s| c.all_to_all(&send[i], &mut recv[i], s));
    let part = n;
    for (rank, got) in w.download(&recv).iter().enumerate() {
        let want: Vec<T> = (0..size)
            .flat_map(|j| host[j][rank * part..(rank + 1) * part].to_vec())
            .collect();
        assert_matches(got, &want, size, &format!("all_to_all rank {rank}"));
    }
}

macro_rules! for_every_type {
    ($f:ident, $w:expr $(, $arg:expr)*) => {{
        $f::<f32>($w $(, $arg)*);
        $f::<f64>($w $(, $arg)*);
        $f::<half::f16>($w $(, $arg)*);
        $f::<half::bf16>($w $(, $arg)*);
        $f::<i8>($w $(, $arg)*);
        $f::<u8>($w $(, $arg)*);
        $f::<i32>($w $(, $arg)*);
        $f::<u32>($w $(, $arg)*);
        $f::<i64>($w $(, $arg)*);
        $f::<u64>($w $(, $arg)*);
    }};
}

#[test]
#[ignore = "needs two GPUs"]
fn two_gpus_all_reduce_every_type_and_op() {
    let w = world();
    for_every_type!(all_reduce_case, &w, ReduceOp::Sum);
    for op in [ReduceOp::Prod, ReduceOp::Min, ReduceOp::Max, ReduceOp::Avg] {
        all_reduce_case::<f32>(&w, op);
        all_reduce_case::<i32>(&w, op);
    }
    assert!(rccl::take_drop_errors().is_empty());
}

#[test]
#[ignore = "needs two GPUs"]
fn two_gpus_broadcast_and_reduce_every_type() {
    let w = world();
    for_every_type!(rooted_case, &w);
}

#[test]
#[ignore = "needs two GPUs"]
fn two_gpus_all_gather_reduce_scatter_all_to_all_every_type() {
    let w = world();
    for_every_type!(spread_case, &w);
}

#[test]
#[ignore = "needs two GPUs"]
fn two_gpus_send_recv_around_a_ring_in_a_group() {
    let w = world();
    let size = w.size();
    let (host, send) = w.inputs::<f32>(PER_RANK);
    let mut recv = w.outputs::<f32>(PER_RANK);
    // Every rank sends to the next and receives from the previous: one
    // group, or the first send would wait for a receive not yet made.
    w.each(|i, c, s| {
        c.send(&send[i], (i + 1) % size, s)?;
        c.recv(&mut recv[i], (i + size - 1) % size, s)
    });
    for (rank, got) in w.download(&recv).iter().enumerate() {
        let from = (rank + size - 1) % size;
        assert_matches(got, &host[from], size, &format!("recv at rank {rank}"));
    }
    // The same with an explicit guard.
    let mut back = w.outputs::<f32>(PER_RANK);
    let g = rccl::Group::start().unwrap();
    for (i, (c, s)) in w.comms.iter().zip(&w.streams).enumerate() {
        c.send(&recv[i], (i + size - 1) % size, s).unwrap();
        c.recv(&mut back[i], (i + 1) % size, s).unwrap();
    }
    g.end().unwrap();
    for (rank, got) in w.download(&back).iter().enumerate() {
        assert_matches(
            got,
            &host[rank],
            size,
            &format!("round trip at rank {rank}"),
        );
    }
}

/// Every split communicator of `split`, which must exist (each rank had a
/// color).
fn every_rank_joined(split: Vec<Option<Comm>>, what: &str) -> Vec<Comm> {
    split
        .into_iter()
        .enumerate()
        .map(|(i, c)| c.unwrap_or_else(|| panic!("{what}: rank {i} got no communicator")))
        .collect()
}

/// Sum all-reduce of `send[i]` into a fresh buffer on `comms[i]`, all ranks
/// in one group; each rank's result.
fn split_sums(w: &World, comms: &[Comm], send: &[DeviceBuffer<f32>]) -> Vec<Vec<f32>> {
    let mut recv = w.outputs::<f32>(PER_RANK);
    group(|| {
        for (i, c) in comms.iter().enumerate() {
            c.all_reduce(&send[i], &mut recv[i], ReduceOp::Sum, &w.streams[i])?;
        }
        Ok(())
    })
    .unwrap_or_else(|e| panic!("{e}"));
    // One result per communicator: device `i`'s buffer for `comms[i]` (a
    // split that left the last ranks out has fewer communicators than
    // devices, and their buffers were never written).
    let mut got = w.download(&recv);
    got.truncate(comms.len());
    got
}

/// `ncclCommSplit` (NCCL 2.18 on): every rank alone (color = rank, world
/// size 1, so an all-reduce is a copy of its own input), all ranks together
/// in reverse order (color 0, key = reversed rank: rank `i` becomes
/// `n - 1 - i`, and the all-reduce is the sum over ranks), and the last
/// rank left out (no color: it gets `None`, the others sum without it).
/// Each all-reduce is compared with the CPU on random f32 data; then
/// every split communicator is finalized (`ncclCommFinalize` in one
/// group, then `ncclCommDestroy`).
#[test]
#[ignore = "needs two GPUs"]
fn two_gpus_split_alone_reversed_and_left_out_then_finalize() {
    let w = world();
    let n = w.size();
    let (host, send) = w.inputs::<f32>(PER_RANK);

    let colors: Vec<Option<u32>> = (0..n as u32).map(Some).collect();
    let alone = Comm::split_all(&w.comms, &colors, &vec![0; n]).expect("split: each alone");
    let alone = every_rank_joined(alone, "each alone");
    for (i, c) in alone.iter().enumerate() {
        assert_eq!((c.rank(), c.world_size(), c.device().ordinal()), (0, 1, i));
    }
    for (rank, got) in split_sums(&w, &alone, &send).iter().enumerate() {
        assert_matches(got, &host[rank], 1, &format!("alone: rank {rank} copies"));
    }

    let keys: Vec<usize> = (0..n).map(|r| n - 1 - r).collect();
    let reversed = Comm::split_all(&w.comms, &vec![Some(0); n], &keys).expect("split: reversed");
    let reversed = every_rank_joined(reversed, "reversed");
    for (i, c) in reversed.iter().enumerate() {
        assert_eq!(
            (c.rank(), c.world_size(), c.device().ordinal()),
            (n - 1 - i, n, i)
        );
    }
    let want = reduce_all(&host, ReduceOp::Sum);
    for (i, got) in split_sums(&w, &reversed, &send).iter().enumerate() {
        assert_matches(got, &want, n, &format!("reversed: device {i}"));
    }

    let mut some_colors = vec![Some(7); n];
    some_colors[n - 1] = None;
    let left_out = Comm::split_all(&w.comms, &some_colors, &vec![0; n]).expect("split: last out");
    assert!(
        left_out[n - 1].is_none(),
        "the rank without a color got a communicator"
    );
    let rest: Vec<Comm> = left_out.into_iter().flatten().collect();
    assert_eq!(rest.len(), n - 1);
    for (i, c) in rest.iter().enumerate() {
        assert_eq!((c.rank(), c.world_size()), (i, n - 1));
    }
    let want_rest = reduce_all(&host[..n - 1], ReduceOp::Sum);
    for (i, got) in split_sums(&w, &rest, &send).iter().enumerate() {
        assert_matches(got, &want_rest, n - 1, &format!("last out: rank {i}"));
    }

    for (what, comms) in [("alone", alone), ("reversed", reversed), ("rest", rest)] {
        Comm::finalize_all(comms).unwrap_or_else(|e| panic!("finalize {what}: {e}"));
    }
    // The parents still work after their children are gone.
    for (i, got) in split_sums(&w, &w.comms, &send).iter().enumerate() {
        assert_matches(got, &want, n, &format!("parent after the splits: rank {i}"));
    }
}

/// Asserts `r` is an error of a checking kind, which never reaches the
/// library, and returns its message.
fn rejected(r: rccl::Result<()>, what: &str) -> String {
    let e = r.expect_err(what);
    assert!(!e.reached_library(), "{what}: {e:?}");
    assert!(
        !matches!(e, Error::Load(_)),
        "{what}: the library is loaded here: {e:?}"
    );
    e.to_string()
}

#[test]
#[ignore = "needs two GPUs"]
fn two_gpus_bad_input_is_rejected_before_the_library() {
    let w = world();
    let (c0, s0, s1) = (&w.comms[0], &w.streams[0], &w.streams[1]);
    let size = w.size();
    let (d0, d1) = (c0.device().clone(), w.comms[1].device().clone());
    let mut rng = test_kit::rng();
    let a0 = test_kit::upload(&d0, &random::<f32>(&mut rng, 8 * size));
    let mut b0 = test_kit::upload(&d0, &random::<f32>(&mut rng, 8 * size));
    let mut short0 = test_kit::upload(&d0, &random::<f32>(&mut rng, 8 * size - 1));
    let mut a1 = test_kit::upload(&d1, &random::<f32>(&mut rng, 8 * size));
    let before = test_kit::download(s0, &b0);

    // Memory or stream of another device.
    let m = rejected(
        c0.all_reduce(&a1, &mut b0, ReduceOp::Sum, s0),
        "send on device 1",
    );
    assert!(
        m.contains("send is on device 1, the communicator on device 0"),
        "{m}"
    );
    let m = rejected(
        c0.all_reduce(&a0, &mut a1, ReduceOp::Sum, s0),
        "recv on device 1",
    );
    assert!(m.contains("recv is on device 1"), "{m}");
    let m = rejected(
        c0.all_reduce(&a0, &mut b0, ReduceOp::Sum, s1),
        "stream of device 1",
    );
    assert!(m.contains("the stream is on device 1"), "{m}");
    rejected(c0.send(&a1, 1, s0), "send buffer on device 1");
    // Lengths.
    let m = rejected(
        c0.all_reduce(&a0, &mut short0, ReduceOp::Sum, s0),
        "lengths",
    );
    assert!(m.contains("must be equal"), "{m}");
    rejected(
        c0.all_gather(&a0, &mut b0, s0),
        "all_gather recv not world x send",
    );
    rejected(
        c0.reduce_scatter(&a0, &mut b0, ReduceOp::Sum, s0),
        "reduce_scatter",
    );
    let short_send = test_kit::upload(&d0, &random::<f32>(&mut rng, 8 * size - 1));
    let m = rejected(
        c0.all_to_all(&short_send, &mut short0, s0),
        "all_to_all not divisible",
    );
    assert!(m.contains("not a multiple of the world size"), "{m}");
    // Ranks.
    let m = rejected(
        c0.broadcast_in_place(&mut b0, size, s0),
        "root = world size",
    );
    assert!(
        m.contains(&format!("root {size} is not below the world size {size}")),
        "{m}"
    );
    rejected(
        c0.reduce(&a0, &mut b0, ReduceOp::Sum, usize::MAX, s0),
        "root",
    );
    rejected(c0.recv(&mut b0, size + 3, s0), "peer");
    // Devices and world sizes of new communicators.
    let dup = [d0.clone(), d1.clone(), d0.clone()];
    let e = Comm::from_devices(&dup).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Invalid {
                operation: "Comm::from_devices",
                ..
            }
        ),
        "{e:?}"
    );
    let id = rccl::UniqueId::new().unwrap();
    let e = Comm::from_rank(&d0, &id, 0, 0).unwrap_err();
    assert!(
        matches!(&e, Error::Invalid { reason, .. } if reason.starts_with("world size 0")),
        "{e:?}"
    );
    let e = Comm::from_rank(&d0, &id, 2, 2).unwrap_err();
    assert!(
        matches!(&e, Error::Invalid { reason, .. } if reason.starts_with("rank 2 ")),
        "{e:?}"
    );

    // Nothing was enqueued: the buffer written by none of the rejected
    // calls is as it was.
    assert_eq!(test_kit::download(s0, &b0), before, "a rejected call wrote");
    // The communicators still work afterwards.
    all_reduce_case::<f32>(&w, ReduceOp::Sum);
}

// ---- Two processes through the rendezvous ----

/// Marks the re-executed test binary as rank 1, with its role.
const CHILD_VAR: &str = "RCCL_TEST_CHILD";
/// The seed both processes derive every rank's data from.
const DATA_SEED_VAR: &str = "RCCL_TEST_DATA_SEED";
const TWO_PROCESS_TEST: &str = "two_gpus_two_processes_all_reduce_through_the_rendezvous";
const FAULT_TEST: &str = "two_gpus_a_rank_that_exits_gives_an_error_not_a_hang";

/// Rank `rank`'s input: the same in both processes.
fn rank_data(seed: u64, rank: usize) -> Vec<f32> {
    let mut rng =
        StdRng::seed_from_u64(seed ^ (rank as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    random(&mut rng, PER_RANK)
}

/// A port free on the loopback now (the OS's pick, released for rank 0
/// to listen on).
fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind an ephemeral port");
    l.local_addr().unwrap().port()
}

/// torchrun's variables for `rank` of 2 on `port`.
fn vars(rank: usize, port: u16, job_id: &str) -> HashMap<String, String> {
    [
        ("RANK", rank.to_string()),
        ("WORLD_SIZE", "2".to_string()),
        ("LOCAL_RANK", rank.to_string()),
        ("MASTER_ADDR", "127.0.0.1".to_string()),
        ("MASTER_PORT", port.to_string()),
        ("HIP_RENDEZVOUS_JOB_ID", job_id.to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// Starts this test binary again as rank 1, running only `test` with the
/// child marker `role`.
fn spawn_rank_one(test: &str, role: &str, port: u16, job_id: &str, seed: u64) -> Child {
    let exe = std::env::current_exe().expect("current_exe");
    Command::new(exe)
        .args([
            test,
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .envs(vars(1, port, job_id))
        .env(CHILD_VAR, role)
        .env(DATA_SEED_VAR, seed.to_string())
        .spawn()
        .expect("starting rank 1")
}

/// Waits at most `limit` for the child; kills it past that.
fn wait_child(mut child: Child, limit: Duration) -> std::process::ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("rank 1 did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// This process's job: from the environment in the child, from `vars`
/// in the parent (its own environment stays untouched).
fn job(vars: Option<&HashMap<String, String>>) -> Job {
    match vars {
        Some(v) => Job::from_vars(|k| v.get(k).cloned()),
        None => Job::from_env(),
    }
    .expect("reading the job")
}

/// Joins the job and all-reduces both ranks' data; returns the comm,
/// stream and result.
fn join_and_all_reduce(job: &Job, seed: u64) -> Vec<f32> {
    let device: Arc<Device> = Device::get(job.local_rank).expect("this rank's GPU");
    let comm = Comm::from_job(job, &device, Duration::from_secs(60)).expect("Comm::from_job");
    assert_eq!((comm.rank(), comm.world_size()), (job.rank, 2));
    let stream = test_kit::stream(&device);
    let send = test_kit::upload(&device, &rank_data(seed, job.rank));
    let mut recv = test_kit::upload(&device, &vec![0f32; PER_RANK]);
    comm.all_reduce(&send, &mut recv, ReduceOp::Sum, &stream)
        .expect("all_reduce");
    comm.wait(&stream, Duration::from_secs(60)).expect("wait");
    stream.clone_dtoh(&recv).expect("download")
}

fn two_process_want(seed: u64) -> Vec<f32> {
    reduce_all(&[rank_data(seed, 0), rank_data(seed, 1)], ReduceOp::Sum)
}

#[test]
#[ignore = "needs two GPUs"]
fn two_gpus_two_processes_all_reduce_through_the_rendezvous() {
    if let Ok(role) = std::env::var(CHILD_VAR) {
        assert_eq!(role, "all_reduce");
        let seed: u64 = std::env::var(DATA_SEED_VAR).unwrap().parse().unwrap();
        let got = join_and_all_reduce(&job(None), seed);
        assert_matches(&got, &two_process_want(seed), 2, "rank 1's all_reduce");
        println!("rank 1: all_reduce matches");
        return;
    }
    let _ = test_kit::device();
    assert!(Device::count().unwrap() >= 2, "needs two GPUs");
    let seed: u64 = test_kit::rng().gen();
    let port = free_port();
    let job_id = format!("rccl-test-{}-{port}", std::process::id());
    let child = spawn_rank_one(TWO_PROCESS_TEST, "all_reduce", port, &job_id, seed);
    let mine = vars(0, port, &job_id);
    let got = join_and_all_reduce(&job(Some(&mine)), seed);
    let status = wait_child(child, Duration::from_secs(120));
    assert!(status.success(), "rank 1 failed: {status}");
    assert_matches(&got, &two_process_want(seed), 2, "rank 0's all_reduce");
}

#[test]
#[ignore = "needs two GPUs"]
fn two_gpus_a_rank_that_exits_gives_an_error_not_a_hang() {
    if let Ok(role) = std::env::var(CHILD_VAR) {
        assert_eq!(role, "exit");
        let j = job(None);
        let device = Device::get(j.local_rank).expect("this rank's GPU");
        let comm = Comm::from_job(&j, &device, Duration::from_secs(60)).expect("Comm::from_job");
        // One all-reduce with rank 0, which connects the two ranks (NCCL
        // connects peers at their first collective, a handshake on the
        // host that both ranks must join).
        let stream = test_kit::stream(&device);
        let mut warm = test_kit::upload(&device, &rank_data(1, 1));
        comm.all_reduce_in_place(&mut warm, ReduceOp::Sum, &stream)
            .expect("rank 1's first all-reduce");
        comm.wait(&stream, Duration::from_secs(60))
            .expect("rank 1's first all-reduce finishes");
        // Let rank 0 enqueue its second all-reduce, then die without
        // joining it (and without destroying anything).
        std::thread::sleep(Duration::from_secs(1));
        println!(
            "rank 1 (rank {} of {}): exiting",
            comm.rank(),
            comm.world_size()
        );
        std::process::exit(0);
    }
    let _ = test_kit::device();
    assert!(Device::count().unwrap() >= 2, "needs two GPUs");
    let port = free_port();
    let job_id = format!("rccl-fault-{}-{port}", std::process::id());
    let child = spawn_rank_one(FAULT_TEST, "exit", port, &job_id, 0);
    let j = job(Some(&vars(0, port, &job_id)));
    let device = Device::get(0).unwrap();
    let comm = Comm::from_job(&j, &device, Duration::from_secs(60)).expect("Comm::from_job");
    let stream = test_kit::stream(&device);
    let progress = |what: &str| {
        // Straight to stderr, past libtest's capture: if this test hangs
        // and is killed, the log still says where.
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), "rank 0: {what}");
    };
    progress("joined");
    // The first all-reduce, with rank 1: it connects the ranks. A peer
    // that dies before its first collective leaves this host-side
    // handshake waiting inside the library (see Comm::wait's docs).
    let mut warm = test_kit::upload(&device, &rank_data(1, 0));
    comm.all_reduce_in_place(&mut warm, ReduceOp::Sum, &stream)
        .expect("the first all-reduce");
    comm.wait(&stream, Duration::from_secs(60))
        .expect("the first all-reduce finishes");
    progress("first all-reduce done; rank 1 now exits");
    let mut buf = test_kit::upload(&device, &rank_data(1, 0));
    comm.all_reduce_in_place(&mut buf, ReduceOp::Sum, &stream)
        .expect("enqueueing the all-reduce");
    progress("second all-reduce enqueued");
    let timeout = Duration::from_secs(10);
    let start = Instant::now();
    let r = comm.wait(&stream, timeout);
    let elapsed = start.elapsed();
    progress(&format!("wait returned after {elapsed:?}: {r:?}"));
    let e = r.expect_err("a collective whose peer died cannot succeed");
    assert!(
        matches!(e, Error::Timeout { .. } | Error::Nccl { .. }),
        "{e:?}"
    );
    // The timeout, plus the abort's own time.
    let margin = Duration::from_secs(20);
    assert!(elapsed < timeout + margin, "took {elapsed:?}");
    // The communicator is aborted: it refuses work instead of hanging.
    let again = comm.all_reduce_in_place(&mut buf, ReduceOp::Sum, &stream);
    assert!(again.is_err(), "an aborted communicator must refuse work");
    let status = wait_child(child, Duration::from_secs(60));
    assert!(status.success(), "rank 1: {status}");
    // The stream is free again (the abort stopped the kernel), unless the
    // stream itself failed.
    if !matches!(e, Error::Runtime(_)) {
        stream
            .synchronize()
            .expect("the aborted collective stopped");
    }
}

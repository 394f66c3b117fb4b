//! Tier 3: copies from and to pageable host memory staged through pinned
//! buffers (`Stream::copy_htod`, `Stream::copy_dtoh`),
//! on a real GPU. Run with
//! `cargo test -p hip --test gpu_staging -- --ignored --test-threads=1`
//! (`HIP_PLATFORM=nvidia` on NVIDIA).
//!
//! Copies move bits, so every check is exact (tolerance zero) against the
//! random source data. Destinations are filled with other random data
//! first, so a chunk that was skipped or landed at the wrong offset shows.

use hip::staging::{CHUNK_BYTES, MIN_BYTES};
use hip::{Device, Stream};
use rand::Rng;
use std::sync::Arc;
use test_kit::first_difference;

fn dev() -> Arc<Device> {
    test_kit::device()
}

/// Random values, never zero, so an untouched zeroed destination differs.
/// `n` random values, none zero, drawn as one fill of the buffer: a draw
/// per element is an instrumented call under ThreadSanitizer, which made
/// these tests take many minutes there.
fn random_filled<T: Copy + Default + PartialEq + From<u8>>(n: usize) -> Vec<T>
where
    [T]: rand::Fill,
{
    let mut v = vec![T::default(); n];
    test_kit::rng().fill(&mut v[..]);
    v.iter_mut()
        .filter(|x| **x == T::default())
        .for_each(|x| *x = T::from(1));
    v
}

fn random_u32(n: usize) -> Vec<u32> {
    random_filled(n)
}

fn random_u8(n: usize) -> Vec<u8> {
    random_filled(n)
}

/// Elements of u32 in one staging chunk.
const CHUNK: usize = CHUNK_BYTES / 4;

/// Host -> device with staging, checked by a direct copy back; then
/// device -> host with staging into a host buffer of other random data.
fn round_trip_u32(stream: &Stream, n: usize) {
    let d = stream.device().clone();
    let src = random_u32(n);
    let mut buf = test_kit::upload(&d, &random_u32(n));
    stream.copy_htod(&src, &mut buf).unwrap();
    let direct = stream.clone_dtoh(&buf).unwrap();
    if let Some(i) = first_difference(&direct, &src) {
        panic!(
            "htod of {n} elements: element {i} is {:#x}, expected {:#x}",
            direct[i], src[i]
        );
    }

    let other = random_u32(n);
    let mut buf2 = test_kit::upload(&d, &other);
    let mut out = random_u32(n);
    stream.copy_dtoh(&buf2, &mut out).unwrap();
    if let Some(i) = first_difference(&out, &other) {
        panic!(
            "dtoh of {n} elements: element {i} is {:#x}, expected {:#x}",
            out[i], other[i]
        );
    }
    // And the staged pair alone: device data written by a staged copy,
    // read back by a staged copy.
    stream.copy_htod(&src, &mut buf2).unwrap();
    let mut back = random_u32(n);
    stream.copy_dtoh(&buf2, &mut back).unwrap();
    assert!(
        first_difference(&back, &src).is_none(),
        "staged round trip of {n} elements differs"
    );
}

/// u32 elements from which copies are staged (smaller ones go directly).
const STAGED_FROM: usize = MIN_BYTES / 4;

/// Sizes around the threshold, around chunk boundaries of staged copies,
/// and many chunks. The threshold is two chunks or more, so a single
/// chunk's boundaries are only seen as the last chunk of a longer copy.
fn sizes() -> Vec<usize> {
    const { assert!(STAGED_FROM >= CHUNK, "the threshold is at least one chunk") };
    let staged_chunks = STAGED_FROM.div_ceil(CHUNK) + 1;
    vec![
        0,
        1,
        STAGED_FROM - 1,
        STAGED_FROM,
        STAGED_FROM + 1,
        CHUNK * staged_chunks - 1,
        CHUNK * staged_chunks,
        CHUNK * staged_chunks + 1,
        CHUNK * (2 * staged_chunks + 1) / 2,
        // More chunks than staging threads, two buffers each: every
        // buffer is reused several times.
        CHUNK * 37 + 3,
    ]
}

#[test]
#[ignore = "needs a GPU"]
fn staged_copies_match_the_source_around_chunk_boundaries() {
    let d = dev();
    let stream = Stream::new(&d).unwrap();
    for n in sizes() {
        round_trip_u32(&stream, n);
    }
}

#[test]
#[ignore = "needs a GPU"]
fn staged_copies_on_the_null_stream() {
    let d = dev();
    let stream = Stream::default_for(&d);
    for n in [STAGED_FROM + 1, CHUNK * 7 + CHUNK / 2] {
        round_trip_u32(&stream, n);
    }
}

#[test]
#[ignore = "needs a GPU"]
fn staged_copies_of_byte_counts_that_are_not_chunk_multiples() {
    let d = dev();
    let stream = Stream::new(&d).unwrap();
    for n in [
        MIN_BYTES + 1,
        MIN_BYTES + CHUNK_BYTES * 3 + 7,
        MIN_BYTES + CHUNK_BYTES * 5 - 1,
    ] {
        let src = random_u8(n);
        let mut buf = test_kit::upload(&d, &random_u8(n));
        stream.copy_htod(&src, &mut buf).unwrap();
        let direct = stream.clone_dtoh(&buf).unwrap();
        assert!(
            first_difference(&direct, &src).is_none(),
            "htod of {n} bytes"
        );
        let mut out = random_u8(n);
        stream.copy_dtoh(&buf, &mut out).unwrap();
        assert!(first_difference(&out, &src).is_none(), "dtoh of {n} bytes");
    }
}

/// Large copies start (and device-to-host ones end) with smaller chunks
/// than the rest, from a length of a few chunks on: byte counts from 6 to
/// 12.4 MiB, in odd steps, cross both directions' thresholds and put every
/// chunk boundary somewhere new.
#[test]
#[ignore = "needs a GPU"]
fn staged_copies_across_the_ramped_chunk_threshold() {
    let d = dev();
    let stream = Stream::new(&d).unwrap();
    let start = std::time::Instant::now();
    for k in 0..17 {
        let n = (6 << 20) + k * ((384 << 10) + 1);
        let src = random_u8(n);
        let mut buf = test_kit::upload(&d, &random_u8(n));
        stream.copy_htod(&src, &mut buf).unwrap();
        let direct = stream.clone_dtoh(&buf).unwrap();
        if let Some(i) = first_difference(&direct, &src) {
            panic!("htod of {n} bytes: byte {i} differs");
        }
        let mut out = random_u8(n);
        stream.copy_dtoh(&buf, &mut out).unwrap();
        if let Some(i) = first_difference(&out, &src) {
            panic!("dtoh of {n} bytes: byte {i} differs");
        }
        // Progress, so that a slow run (ThreadSanitizer) tells from a hang.
        eprintln!("{n} bytes both ways: done at {:?}", start.elapsed());
    }
}

#[test]
#[ignore = "needs a GPU"]
fn staged_device_to_host_waits_for_earlier_work_on_the_stream() {
    let d = dev();
    let stream = Stream::new(&d).unwrap();
    let n = STAGED_FROM + CHUNK * 5 + 11;
    let mut buf = test_kit::upload(&d, &random_u32(n));
    // Enqueued, not waited for: the staged copy must come after it.
    stream.memset_bytes(&mut buf, 0x5a).unwrap();
    let mut out = random_u32(n);
    stream.copy_dtoh(&buf, &mut out).unwrap();
    assert!(
        out.iter().all(|&v| v == 0x5a5a_5a5a),
        "element {:?} is not 0x5a5a5a5a",
        out.iter().position(|&v| v != 0x5a5a_5a5a)
    );
}

#[test]
#[ignore = "needs a GPU"]
fn reused_staging_buffers_carry_no_old_data() {
    let d = dev();
    let stream = Stream::new(&d).unwrap();
    let n = STAGED_FROM + CHUNK * 9 + 5;
    let mut buf = test_kit::upload(&d, &random_u32(n));
    for round in 0..4 {
        let src = random_u32(n);
        stream.copy_htod(&src, &mut buf).unwrap();
        let mut out = random_u32(n);
        stream.copy_dtoh(&buf, &mut out).unwrap();
        assert!(
            first_difference(&out, &src).is_none(),
            "round {round}: staged round trip differs"
        );
    }
}

#[test]
#[ignore = "needs a GPU"]
fn concurrent_staged_copies_from_several_threads() {
    let d = dev();
    std::thread::scope(|s| {
        for t in 0..3 {
            let d = d.clone();
            s.spawn(move || {
                let stream = Stream::new(&d).unwrap();
                for _ in 0..3 {
                    round_trip_u32(&stream, STAGED_FROM + CHUNK * (4 + t) + t);
                }
            });
        }
    });
}

#[test]
#[ignore = "needs a GPU"]
fn staged_copies_reject_mismatched_lengths_before_copying() {
    let d = dev();
    let stream = Stream::new(&d).unwrap();
    let n = STAGED_FROM * 2;
    let original = random_u32(n);
    let mut buf = test_kit::upload(&d, &original);
    let err = stream.copy_htod(&random_u32(n + 1), &mut buf).unwrap_err();
    assert!(err.to_string().contains("copy_htod"), "{err}");
    let mut short = random_u32(n - 1);
    let before = short.clone();
    let err = stream.copy_dtoh(&buf, &mut short).unwrap_err();
    assert!(err.to_string().contains("copy_dtoh"), "{err}");
    assert_eq!(short, before, "a rejected copy wrote the host buffer");
    assert_eq!(
        stream.clone_dtoh(&buf).unwrap(),
        original,
        "a rejected copy wrote the device buffer"
    );
}

#[test]
#[ignore = "needs a GPU"]
fn staged_copies_fall_back_to_direct_copies_when_pinned_memory_runs_out() {
    let d = dev();
    let stream = Stream::new(&d).unwrap();
    let n = 3 * CHUNK + 5;
    // Warm: the pool holds a ring, which the armed failures bypass.
    round_trip_u32(&stream, n);
    hip::staging::fail_next_pinned_allocations(2);
    let src = random_u32(n);
    let mut buf = test_kit::upload(&d, &random_u32(n));
    stream.copy_htod(&src, &mut buf).unwrap();
    let mut out = random_u32(n);
    stream.copy_dtoh(&buf, &mut out).unwrap();
    let left = hip::staging::pinned_failures_armed();
    hip::staging::fail_next_pinned_allocations(0);
    assert_eq!(left, 0, "both copies tried to allocate a ring");
    assert_eq!(first_difference(&out, &src), None);
    // Staged again afterwards, with nothing recorded on the way.
    round_trip_u32(&stream, n);
    assert!(hip::take_drop_errors().is_empty());
}

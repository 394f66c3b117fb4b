//! How a copy is cut: chunks (one DMA each), host pieces, and which stores
//! fill a chunk.

use super::stores::Stores;
use std::ops::Range;

/// The chunks of a host-to-device copy that fewer than this many bytes of
/// the copy follow (its tail) are written into the ring so that their
/// lines are not left in the writing cores' private caches
/// ([`Stores::Demoted`], else [`Stores::Streaming`]). A DMA reads lines
/// that are modified in a core's private cache slowly. Mid-copy that does
/// not happen: the fills of the next chunks push a chunk's lines out to
/// the shared cache before its DMA. The tail has no such fills after it.
/// (Measured choices: `benches/NOTES.md`, "`TAIL_BYTES`".)
pub(super) const TAIL_BYTES: usize = 16 << 20;

/// How the host pieces of a host-to-device chunk that `after` bytes of
/// the copy follow are written: as the strategy's `stores` say, except
/// that cached stores become `tail` in the last [`TAIL_BYTES`].
pub(super) fn fill_stores(stores: Stores, after: usize, tail: Stores) -> Stores {
    if stores == Stores::Cached && after < TAIL_BYTES {
        tail
    } else {
        stores
    }
}

/// The byte ranges of a copy of `total` bytes cut into chunks of `chunk`
/// bytes (the last one shorter), in order. `chunk` must be non-zero.
fn chunk_ranges(total: usize, chunk: usize) -> impl Iterator<Item = Range<usize>> {
    debug_assert!(chunk > 0);
    (0..total.div_ceil(chunk)).map(move |i| {
        let start = i * chunk;
        start..total.min(start + chunk)
    })
}

/// Sizes of the first chunks of a large copy, smallest first: its first
/// DMA (host-to-device) or first host drain (device-to-host) starts after
/// a small chunk, not a whole [`CHUNK_BYTES`](super::CHUNK_BYTES).
pub(super) const RAMP_UP_BYTES: [usize; 2] = [1 << 20, 2 << 20];

/// Sizes of the last chunks of a large copy, in both directions: a
/// device-to-host copy ends with the host drain of a small chunk, a
/// host-to-device copy with the DMA of one (measured: `benches/NOTES.md`,
/// "`RAMP_DOWN_BYTES`").
pub(super) const RAMP_DOWN_BYTES: [usize; 2] = [2 << 20, 1 << 20];

/// The byte ranges of a copy of `total` bytes, in order: the `head` sizes
/// first, then chunks of `chunk` bytes (the last of them shorter), then
/// the `tail` sizes; only chunks of `chunk` when `total` is shorter than
/// head, tail and one chunk together. `chunk` must be non-zero.
pub(super) fn ramped_chunk_ranges(
    total: usize,
    chunk: usize,
    head: &[usize],
    tail: &[usize],
) -> Vec<Range<usize>> {
    let ramps: usize = head.iter().chain(tail).sum();
    if total < ramps + chunk {
        return chunk_ranges(total, chunk).collect();
    }
    let sizes = head
        .iter()
        .copied()
        .chain(chunk_ranges(total - ramps, chunk).map(|r| r.len()))
        .chain(tail.iter().copied());
    let mut start = 0;
    sizes
        .map(|len| {
            let range = start..start + len;
            start += len;
            range
        })
        .collect()
}

/// How many pieces a chunk of `len` bytes is cut into for `threads` host
/// threads: one per thread, but none under `min_piece` bytes (and at least
/// one piece).
pub(super) fn piece_count(len: usize, threads: usize, min_piece: usize) -> usize {
    (len / min_piece.max(1)).clamp(1, threads.max(1))
}

/// The byte ranges of `range` cut into `pieces` nearly equal parts, in
/// order (sizes differ by at most one byte). `pieces` must be non-zero.
pub(super) fn piece_ranges(
    range: Range<usize>,
    pieces: usize,
) -> impl Iterator<Item = Range<usize>> {
    debug_assert!(pieces > 0);
    let (start, len) = (range.start, range.len());
    (0..pieces).map(move |p| start + len * p / pieces..start + len * (p + 1) / pieces)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn covered(ranges: impl Iterator<Item = Range<usize>>, total: usize) -> Vec<u32> {
        let mut hits = vec![0u32; total];
        for r in ranges {
            for h in &mut hits[r] {
                *h += 1;
            }
        }
        hits
    }

    #[test]
    fn chunks_cover_every_byte_once_in_order() {
        let chunk = 16;
        for total in [0, 1, 15, 16, 17, 31, 32, 33, 56, 160] {
            let ranges: Vec<_> = chunk_ranges(total, chunk).collect();
            assert_eq!(ranges.len(), total.div_ceil(chunk), "total {total}");
            assert!(ranges.iter().all(|r| !r.is_empty() && r.len() <= chunk));
            assert!(ranges.windows(2).all(|w| w[0].end == w[1].start));
            assert!(covered(ranges.into_iter(), total).iter().all(|&h| h == 1));
        }
    }

    #[test]
    fn last_chunk_is_the_remainder() {
        let ranges: Vec<_> = chunk_ranges(56, 16).collect();
        assert_eq!(ranges, vec![0..16, 16..32, 32..48, 48..56]);
        assert_eq!(chunk_ranges(16, 16).collect::<Vec<_>>(), vec![0..16]);
        assert_eq!(
            chunk_ranges(17, 16).collect::<Vec<_>>(),
            vec![0..16, 16..17]
        );
    }

    #[test]
    fn ramped_chunks_cover_every_byte_once_in_order() {
        let (chunk, ramp) = (16, [2, 4]);
        for total in [0, 1, 15, 16, 17, 27, 28, 29, 43, 44, 45, 100, 1000] {
            let ranges = ramped_chunk_ranges(total, chunk, &ramp, &[4, 2]);
            assert!(ranges.iter().all(|r| !r.is_empty() && r.len() <= chunk));
            assert!(covered(ranges.into_iter(), total).iter().all(|&h| h == 1));
            let ranges = ramped_chunk_ranges(total, chunk, &ramp, &[]);
            assert!(ranges.iter().all(|r| !r.is_empty() && r.len() <= chunk));
            assert_eq!(ranges.first().map_or(0, |r| r.start), 0);
            assert_eq!(ranges.last().map_or(0, |r| r.end), total);
            assert!(ranges.windows(2).all(|w| w[0].end == w[1].start));
            assert!(covered(ranges.into_iter(), total).iter().all(|&h| h == 1));
        }
    }

    #[test]
    fn large_copies_ramp_up_and_down() {
        let lens = |total| -> Vec<usize> {
            ramped_chunk_ranges(total, 16, &[2, 4], &[4, 2])
                .iter()
                .map(|r| r.len())
                .collect()
        };
        // Shorter than both ramps and a chunk: plain chunks.
        assert_eq!(lens(27), vec![16, 11]);
        assert_eq!(lens(28), vec![2, 4, 16, 4, 2]);
        assert_eq!(lens(45), vec![2, 4, 16, 16, 1, 4, 2]);
        assert_eq!(lens(60), vec![2, 4, 16, 16, 16, 4, 2]);
        // A ramp at the start only.
        let head_only = |total| -> Vec<usize> {
            ramped_chunk_ranges(total, 16, &[2, 4], &[])
                .iter()
                .map(|r| r.len())
                .collect()
        };
        assert_eq!(head_only(21), vec![16, 5]);
        assert_eq!(head_only(22), vec![2, 4, 16]);
        assert_eq!(head_only(45), vec![2, 4, 16, 16, 7]);
    }

    #[test]
    fn pieces_cover_the_range_once_in_order() {
        for (range, pieces) in [(0..1, 1), (5..6, 1), (3..103, 7), (0..1000, 8), (10..17, 7)] {
            let parts: Vec<_> = piece_ranges(range.clone(), pieces).collect();
            assert_eq!(parts.len(), pieces);
            assert_eq!(parts.first().map(|r| r.start), Some(range.start));
            assert_eq!(parts.last().map(|r| r.end), Some(range.end));
            assert!(parts.windows(2).all(|w| w[0].end == w[1].start));
            let (lo, hi) = (
                parts.iter().map(|r| r.len()).min().unwrap(),
                parts.iter().map(|r| r.len()).max().unwrap(),
            );
            assert!(hi - lo <= 1, "{parts:?}");
        }
    }

    #[test]
    fn piece_count_bounds() {
        // One piece per thread when the chunk is large enough.
        assert_eq!(piece_count(4 << 20, 8, 256 << 10), 8);
        // Never a piece under the minimum (except a lone short one).
        assert_eq!(piece_count(600 << 10, 8, 256 << 10), 2);
        assert_eq!(piece_count(100, 8, 256 << 10), 1);
        assert_eq!(piece_count(0, 8, 256 << 10), 1);
        // Degenerate arguments still give one piece.
        assert_eq!(piece_count(4 << 20, 0, 256 << 10), 1);
        assert_eq!(piece_count(4 << 20, 3, 0), 3);
    }

    #[test]
    fn only_the_tail_of_a_copy_is_demoted_and_ring_nt_streams_everything() {
        let cached = Stores::Cached;
        for tail in [Stores::Demoted, Stores::Streaming] {
            assert_eq!(fill_stores(cached, TAIL_BYTES, tail), Stores::Cached);
            assert_eq!(fill_stores(cached, 1 << 30, tail), Stores::Cached);
            assert_eq!(fill_stores(cached, TAIL_BYTES - 1, tail), tail);
            assert_eq!(fill_stores(cached, 0, tail), tail);
            for after in [0, TAIL_BYTES - 1, TAIL_BYTES, 1 << 30] {
                assert_eq!(
                    fill_stores(Stores::Streaming, after, tail),
                    Stores::Streaming
                );
            }
        }
    }
}

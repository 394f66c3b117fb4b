//! How a host piece writes its destination: ordinary, demoted (`cldemote`)
//! or streaming stores.

/// Copies `len` bytes from `from` to `to` with non-temporal (streaming)
/// stores on x86-64 (SSE2, always there), so that the destination is not
/// read into the cache before it is overwritten; an ordinary copy
/// elsewhere. Ends with a store fence: streaming stores are weakly
/// ordered, and whoever is told that the copy is done (a latch's release)
/// must see them.
///
/// # Safety
///
/// As `std::ptr::copy_nonoverlapping`: both ranges valid for `len` bytes,
/// disjoint.
pub(super) unsafe fn copy_streaming(from: *const u8, to: *mut u8, len: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{__m128i, _mm_loadu_si128};
        // Bytes until `to` is 16-byte aligned, as streaming stores need.
        let head = (to as usize).wrapping_neg() & 15;
        if len < head + 64 {
            // SAFETY: the caller's promise.
            unsafe { std::ptr::copy_nonoverlapping(from, to, len) };
            return;
        }
        // SAFETY: every access below lies within the caller's `len` bytes
        // (`head + 64 * blocks + tail == len`); the stores are to 16-byte
        // aligned addresses (after `head`); SSE2 is part of x86-64.
        unsafe {
            std::ptr::copy_nonoverlapping(from, to, head);
            let (mut src, mut dst) = (from.add(head), to.add(head));
            let mut left = len - head;
            while left >= 64 {
                let a = _mm_loadu_si128(src.cast::<__m128i>());
                let b = _mm_loadu_si128(src.add(16).cast::<__m128i>());
                let c = _mm_loadu_si128(src.add(32).cast::<__m128i>());
                let d = _mm_loadu_si128(src.add(48).cast::<__m128i>());
                stream_store(dst.cast::<__m128i>(), a);
                stream_store(dst.add(16).cast::<__m128i>(), b);
                stream_store(dst.add(32).cast::<__m128i>(), c);
                stream_store(dst.add(48).cast::<__m128i>(), d);
                src = src.add(64);
                dst = dst.add(64);
                left -= 64;
            }
            std::ptr::copy_nonoverlapping(src, dst, left);
            store_fence();
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    // SAFETY: the caller's promise.
    unsafe {
        std::ptr::copy_nonoverlapping(from, to, len)
    };
}

/// `_mm_stream_si128`; under Miri, which cannot run its inline assembly,
/// an ordinary store, which Miri checks for the same 16-byte alignment and
/// bounds.
///
/// # Safety
///
/// `to` is valid for 16 bytes of writes and 16-byte aligned.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn stream_store(to: *mut std::arch::x86_64::__m128i, value: std::arch::x86_64::__m128i) {
    // SAFETY: the caller's promise; SSE2 is part of x86-64.
    #[cfg(not(miri))]
    unsafe {
        std::arch::x86_64::_mm_stream_si128(to, value)
    };
    // SAFETY: the caller's promise.
    #[cfg(miri)]
    unsafe {
        to.write(value)
    };
}

/// `_mm_sfence`; under Miri (inline assembly again) a sequentially
/// consistent fence.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn store_fence() {
    // SAFETY: SSE is part of x86-64. (Safe to call from Rust 1.87 on.)
    #[cfg(not(miri))]
    #[allow(unused_unsafe)]
    unsafe {
        std::arch::x86_64::_mm_sfence()
    };
    #[cfg(miri)]
    std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
}

/// How a host piece writes its destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stores {
    /// Ordinary stores (`memcpy`): the lines stay in the writing core's
    /// caches.
    Cached,
    /// Ordinary stores, then each written line demoted from the writing
    /// core's private caches to the shared last-level cache (`cldemote`,
    /// where [`cldemote_available`]): a DMA then reads it at full speed.
    Demoted,
    /// Non-temporal stores ([`copy_streaming`]): the lines go to memory.
    Streaming,
}

/// Whether this processor has `cldemote` (CPUID leaf 7, ECX bit 25: Intel
/// from Sapphire Rapids and Tremont on). Elsewhere the instruction's
/// encoding is a no-op hint, so demoting would silently do nothing.
pub(super) fn cldemote_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        // `__cpuid_count` is safe from Rust 1.89 on; unsafe before.
        #[allow(unused_unsafe)]
        // SAFETY: CPUID exists on every x86-64 processor, and leaf 7 is
        // answered (with zeros where not implemented) on all of them.
        let leaf7 = unsafe { std::arch::x86_64::__cpuid_count(7, 0) };
        leaf7.ecx & (1 << 25) != 0
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// Moves the cache lines of `[at, at + len)` that this core's private
/// caches hold out to the shared cache (`cldemote` per line, a hint: no
/// data changes, nothing faults). Does nothing off x86-64.
///
/// # Safety
///
/// The range must be mapped memory (it is only named, never read or
/// written).
pub(super) unsafe fn demote_lines(at: *const u8, len: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        let end = at as usize + len;
        let mut line = at as usize & !63;
        while line < end {
            // SAFETY: `line` lies within a mapped range (the caller's
            // promise, rounded down to its cache line); cldemote reads and
            // writes no data, and is a no-op hint on processors without it.
            unsafe {
                std::arch::asm!(
                    "cldemote byte ptr [{0}]",
                    in(reg) line,
                    options(nostack, preserves_flags, readonly)
                )
            };
            line += 64;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (at, len);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streaming_copies_every_byte_at_any_alignment_and_length() {
        let src: Vec<u8> = (0..4096u32).map(|i| (i * 7 + 3) as u8 | 1).collect();
        for offset in [0usize, 1, 7, 15, 16, 33] {
            for len in [0usize, 1, 63, 64, 79, 80, 81, 1000, 4000] {
                let mut dst = vec![0u8; 4096 + 64];
                let end = offset + len;
                // SAFETY: both ranges lie within their vectors and are
                // disjoint (two allocations).
                unsafe { copy_streaming(src.as_ptr(), dst.as_mut_ptr().add(offset), len) };
                assert_eq!(&dst[offset..end], &src[..len], "offset {offset}, len {len}");
                // Slice comparisons (memcmp), not byte loops: quick under Miri.
                let zeros = [0u8; 4096 + 64];
                assert!(dst[..offset] == zeros[..offset], "before, {offset}/{len}");
                assert!(dst[end..] == zeros[end..], "after, {offset}/{len}");
            }
        }
    }

    #[test]
    #[cfg_attr(miri, ignore = "cldemote is inline assembly, which Miri cannot run")]
    fn demoting_changes_no_byte_at_any_alignment() {
        let src: Vec<u8> = (0..8192u32).map(|i| (i * 13 + 5) as u8).collect();
        let copy = src.clone();
        for (offset, len) in [(0, 0), (0, 1), (1, 63), (63, 2), (5, 4000), (0, 8192)] {
            // SAFETY: the range lies within `copy`.
            unsafe { demote_lines(copy.as_ptr().add(offset), len) };
            assert_eq!(copy, src, "offset {offset}, len {len}");
        }
    }

    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    #[test]
    #[cfg_attr(miri, ignore = "reads /proc and runs CPUID, which Miri cannot")]
    fn cldemote_detection_agrees_with_the_kernel() {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").expect("/proc/cpuinfo");
        let flags = cpuinfo
            .lines()
            .find(|l| l.starts_with("flags"))
            .expect("a flags line");
        let kernel = flags.split_whitespace().any(|f| f == "cldemote");
        assert_eq!(cldemote_available(), kernel, "{flags}");
    }
}

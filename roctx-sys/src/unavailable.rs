//! What a raw roctx function returns when it cannot call into a library.
//!
//! roctx has no status type, so each return type gets a value that reads as
//! "nothing happened" to a caller that follows roctx's own conventions.

use core::ffi::c_int;

/// The value a raw wrapper returns instead of calling the C function, for
/// each return type of roctx's functions (the generated wrappers name this
/// trait; it has hip-sys's `Unavailable`'s two functions).
pub trait Unavailable {
    /// Returned when no roctx or NVTX library is loaded.
    fn library_missing() -> Self;
    /// Returned when the loaded library lacks the symbol.
    fn symbol_missing() -> Self;
}

/// `roctxMarkA` and `roctxRangeStop`: nothing is marked or stopped.
impl Unavailable for () {
    fn library_missing() -> Self {}
    fn symbol_missing() -> Self {}
}

/// `roctxRangePushA`/`roctxRangePop` return the nesting level, negative on
/// failure: `-1`, as roctx returns when it cannot push or pop. (NVTX
/// returns `-2` when no tool is attached; see the crate docs.)
impl Unavailable for c_int {
    fn library_missing() -> Self {
        -1
    }
    fn symbol_missing() -> Self {
        -1
    }
}

/// `roctxRangeStartA`: range id 0, which no library hands out for a range
/// it tracks (roctx counts from 1; NVTX returns 0 when no tool is attached),
/// and which `roctxRangeStop` ignores.
impl Unavailable for u64 {
    fn library_missing() -> Self {
        0
    }
    fn symbol_missing() -> Self {
        0
    }
}

/// `roctx_version_major`/`roctx_version_minor`: 0, no version.
impl Unavailable for u32 {
    fn library_missing() -> Self {
        0
    }
    fn symbol_missing() -> Self {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_return_type_reads_as_nothing_happened() {
        assert_eq!(<c_int as Unavailable>::library_missing(), -1);
        assert_eq!(<c_int as Unavailable>::symbol_missing(), -1);
        assert_eq!(<u64 as Unavailable>::library_missing(), 0);
        assert_eq!(<u64 as Unavailable>::symbol_missing(), 0);
        assert_eq!(<u32 as Unavailable>::library_missing(), 0);
        assert_eq!(<u32 as Unavailable>::symbol_missing(), 0);
    }
}

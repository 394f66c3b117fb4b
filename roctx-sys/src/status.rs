//! roctx has no status: no roctx function returns one.
//!
//! `roctx.h` declares no status type, and its functions return nothing
//! (`roctxMarkA`, `roctxRangeStop`), a nesting level (`roctxRangePushA`,
//! `roctxRangePop`: negative when there was no nested range to pop), a range
//! id (`roctxRangeStartA`) or a version number. So this crate has no status
//! type, and no `is_success`/`ok`/`Display`: a caller reads these values as
//! roctx documents them. What plays a status's part when no call can be
//! made is in `src/unavailable.rs`: the value each of these return types
//! takes without a library or symbol (nothing, level `-1`, range id `0`,
//! version `0`), and [`crate::loader::roctx`] says why nothing was loaded.

#[cfg(test)]
mod tests {
    /// Every binding returns one of the types above, none a status: a
    /// function that returns something else fails here.
    #[test]
    fn no_function_returns_a_status() {
        let functions = include_str!("generated/functions.rs");
        let mut count = 0;
        for line in functions
            .lines()
            .filter(|l| l.trim_start().starts_with("pub unsafe fn "))
        {
            let returns = line
                .rsplit_once(") -> ")
                .map(|(_, r)| r.trim_end_matches(';'))
                .unwrap_or_else(|| panic!("no return type in {line}"));
            assert!(
                ["()", "::std::os::raw::c_int", "roctx_range_id_t", "u32"].contains(&returns),
                "{line}"
            );
            count += 1;
        }
        assert_eq!(count, crate::FUNCTION_NAMES.len());
    }
}

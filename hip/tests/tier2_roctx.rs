//! Tier 2: `hip::roctx` with whatever annotation library this machine has.
//! CI has none, so every call must be a no-op (level -1, id 0); with
//! Debian's libroctx64-4 in a folder named by `HIP_SYS_LIBRARY_PATH` (with
//! the HIP runtime), levels nest from 0 and ids count from 1.

#[path = "roctx_checks/mod.rs"]
mod roctx_checks;

use roctx_checks::*;

#[test]
fn ranges_nest_and_guards_pop_whatever_is_loaded() {
    let backend = backend();
    ranges_nest(backend);
    guards_pop_on_drop_and_on_panic(backend);
    marks_and_process_ranges(backend);
}

//! The checks of `hip::roctx` that the tier-2 and GPU tests share: each
//! asserts what holds for the library that loaded (roctx, NVTX or none) and
//! prints what it compared.

use hip::roctx;
use hip::sys::loader::common::Platform;

/// Which annotation library loaded, as the checks need it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Backend {
    /// roctx: levels from 0, pop returns the popped level, ids from 1.
    Roctx,
    /// NVTX: without a profiler push/pop return -2 and ids are 0; under
    /// one, levels as roctx's.
    Nvtx,
    /// Nothing loaded: every call does nothing (-1, id 0).
    None,
}

/// The loaded backend, printed with the library's record or the paths tried.
pub(crate) fn backend() -> Backend {
    match roctx::library() {
        Ok(lib) => {
            println!(
                "roctx library: {:?} {:?}, {} of 7 functions, version {:?}",
                lib.platform,
                lib.libraries,
                lib.available_count(),
                roctx::version()
            );
            match lib.platform {
                Platform::Amd => Backend::Roctx,
                Platform::Nvidia => Backend::Nvtx,
            }
        }
        Err(e) => {
            println!("no roctx library, every call is a no-op:\n{e}");
            assert!(!roctx::is_available());
            Backend::None
        }
    }
}

/// Pushes three nested ranges and pops them, checking the levels the
/// library returns and this crate's depth.
pub(crate) fn ranges_nest(backend: Backend) {
    let start = roctx::depth();
    let pushes: Vec<i32> = (0..3)
        .map(|i| roctx::range_push(&format!("nest {i}")).unwrap())
        .collect();
    assert_eq!(roctx::depth(), start + 3);
    let pops: Vec<i32> = (0..3).map(|_| roctx::range_pop()).collect();
    assert_eq!(roctx::depth(), start);
    println!("{backend:?}: push levels {pushes:?}, pop levels {pops:?}");
    match backend {
        Backend::None => {
            assert_eq!(pushes, [-1, -1, -1]);
            assert_eq!(pops, [-1, -1, -1]);
        }
        Backend::Nvtx if pushes[0] == -2 => {
            // No profiler attached: NVTX tracks nothing.
            assert_eq!(pushes, [-2, -2, -2]);
            assert_eq!(pops, [-2, -2, -2]);
        }
        Backend::Roctx | Backend::Nvtx => {
            let l = pushes[0];
            assert!(l >= 0, "a negative level {l} from a loaded library");
            assert_eq!(pushes, [l, l + 1, l + 2], "levels nest");
            assert_eq!(pops, [l + 2, l + 1, l], "pops return the popped level");
        }
    }
}

/// The message of the panic the guard test raises on purpose.
const EXPECTED_PANIC: &str = "inside a range (expected by the test)";

/// Keeps the deliberate panic's message and backtrace out of the log, so
/// that a reader of the GPU session's output sees only real failures;
/// every other panic goes to the hook that was installed before.
fn quiet_expected_panic() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if info.payload().downcast_ref::<&str>() != Some(&EXPECTED_PANIC) {
                previous(info);
            }
        }));
    });
}

/// A guard pops at the end of its scope and while a panic unwinds: the
/// level of a push after it equals the level of one before it.
pub(crate) fn guards_pop_on_drop_and_on_panic(backend: Backend) {
    quiet_expected_panic();
    let start = roctx::depth();
    let before = roctx::range("probe before").unwrap().level();
    {
        let outer = roctx::range("outer").unwrap();
        let inner = roctx::range("inner").unwrap();
        assert_eq!(roctx::depth(), start + 2);
        if backend == Backend::Roctx {
            assert_eq!((outer.level(), inner.level()), (before, before + 1));
        }
    }
    assert_eq!(
        roctx::depth(),
        start,
        "both guards popped at the end of the scope"
    );
    let unwound = std::panic::catch_unwind(|| {
        let _r = roctx::range("panics").unwrap();
        std::panic::panic_any(EXPECTED_PANIC);
    });
    assert!(unwound.is_err());
    assert_eq!(roctx::depth(), start, "the guard popped while unwinding");
    let after = roctx::range("probe after").unwrap().level();
    println!("{backend:?}: level before {before}, after a dropped and a panicked guard {after}");
    assert_eq!(after, before, "the library saw every pop");
}

/// Marks, start/stop ranges (stopped on another thread), and NUL bytes
/// rejected before any call.
pub(crate) fn marks_and_process_ranges(backend: Backend) {
    roctx::mark("gpu_roctx: mark").unwrap();
    let a = roctx::range_start("process range a").unwrap();
    let b = roctx::range_start("process range b").unwrap();
    println!("{backend:?}: range ids {a:?} {b:?}");
    match backend {
        Backend::Roctx => {
            assert!(
                a.0 >= 1 && b.0 > a.0,
                "roctx hands out increasing ids from 1"
            );
        }
        Backend::None => assert_eq!((a.0, b.0), (0, 0)),
        Backend::Nvtx => {}
    }
    std::thread::spawn(move || roctx::range_stop(b))
        .join()
        .unwrap();
    roctx::range_stop(a);
    let e = roctx::mark("bad\0message").unwrap_err();
    assert!(e.to_string().contains("NUL byte at byte 3"), "{e}");
}

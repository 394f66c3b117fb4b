//! `hip::code_object::Envelope::parse` on arbitrary text: never panics;
//! whatever it accepts claims to be an envelope, carries a bundle the AMD
//! loader can read, and is consistent with itself; whatever it refuses is
//! refused at a line the text has (or the one after its last).
#![no_main]

use hip::code_object::{validate, Envelope};
use hip_sys::loader::Platform;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match Envelope::parse(&text) {
        Ok(e) => {
            assert!(Envelope::is_envelope(&text));
            assert!(text.starts_with(Envelope::MAGIC));
            assert!(validate(e.image(), Platform::Amd).is_ok());
            assert!(!e.targets().is_empty());
            // A device that reports exactly a target's name runs it.
            for t in e.targets() {
                assert!(e.runs_on(t), "target {t} does not run on {t}");
            }
            for u in e.unavailable() {
                assert!(!u.kernel.is_empty() && !u.reason.is_empty());
                assert!(e.unavailable_reason(&u.kernel).is_some());
            }
        }
        Err(err) => {
            let lines = text.strip_suffix('\n').unwrap_or(&text).split('\n').count();
            assert!(
                (1..=lines + 1).contains(&err.line),
                "line {} of a {lines}-line text: {err}",
                err.line
            );
            assert!(!err.reason.is_empty());
        }
    }
});

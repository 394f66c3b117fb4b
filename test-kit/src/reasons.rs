//! cuda-compat's errors keep the reason of the layer that refused a call:
//! each module's error type prints this thread's reason
//! (`<module>::result::last_error_detail`) when the status matches.

use std::fmt::{Debug, Display};

/// Asserts that `e`, an error of status `status` just returned, kept its
/// reason: `detail` (the module's `last_error_detail()`, read right after
/// the error) holds that status and a message, `Debug` of `e` prints the
/// message's first line, and `Display` prints what `Debug` does. Returns
/// the message, for the caller's own checks of its words.
///
/// ```
/// #[derive(Debug, Clone, Copy, PartialEq)]
/// struct Status(i32);
/// #[derive(Debug)]
/// struct Error(Status, &'static str);
/// impl std::fmt::Display for Error {
///     fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
///         write!(f, "{self:?}")
///     }
/// }
/// let e = Error(Status(3), "no device");
/// let why = test_kit::assert_reason_kept(&e, e.0, Some((Status(3), "no device".into())));
/// assert_eq!(why, "no device");
/// ```
#[track_caller]
pub fn assert_reason_kept<S, E>(e: &E, status: S, detail: Option<(S, String)>) -> String
where
    S: PartialEq + Debug,
    E: Debug + Display,
{
    let (kept, why) = detail.expect("the error's reason is kept (last_error_detail)");
    assert_eq!(kept, status, "the reason kept is another status's");
    let first = why.lines().next().expect("a reason of at least a line");
    assert!(!first.is_empty(), "an empty reason: {why:?}");
    let shown = format!("{e:?}");
    assert!(
        shown.contains(first),
        "Debug leaves out the reason {first:?}: {shown}"
    );
    assert_eq!(e.to_string(), shown, "Display differs from Debug");
    why
}

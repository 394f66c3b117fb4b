// Choosing a code object for a device. This file is compiled into hip-build
// and also copied, as text, into every generated kernel file, so the two
// cannot disagree; it must stay self-contained.

/// Whether a code object compiled for `target` (`gfx90a`, `gfx90a:xnack+`)
/// runs on a device whose architecture string is `device` (as the runtime
/// reports it in `gcnArchName`, e.g. `gfx90a:sramecc+:xnack-`).
///
/// The processors must be equal; every feature the target fixes must be set
/// the same way on the device. A target that leaves a feature open (no
/// `xnack` in `gfx90a`) runs either way.
pub(super) fn target_runs_on(target: &str, device: &str) -> bool {
    let mut target_parts = target.trim().split(':');
    let mut device_parts = device.trim().split(':');
    if target_parts.next() != device_parts.next() {
        return false;
    }
    let device_features: Vec<&str> = device_parts.collect();
    target_parts.all(|feature| device_features.contains(&feature))
}

/// The code object in `table` for `device`: among the targets that run on
/// it, the one that fixes the most features (the most specific build).
pub(super) fn best_match<'a>(table: &[(&str, &'a [u8])], device: &str) -> Option<&'a [u8]> {
    table
        .iter()
        .filter(|(target, _)| target_runs_on(target, device))
        .max_by_key(|(target, _)| target.matches(':').count())
        .map(|(_, bytes)| *bytes)
}

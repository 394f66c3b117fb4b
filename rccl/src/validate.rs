//! The argument checks every call makes before reaching the library: pure
//! functions of lengths, ranks and device ordinals, so that each is tested
//! without a GPU.

use crate::error::{Error, Result};
use std::ffi::c_int;

/// A world size: at least 1 and within the C API's `int`.
pub(crate) fn world_size(operation: &'static str, world_size: usize) -> Result<c_int> {
    if world_size == 0 {
        return Err(Error::invalid(
            operation,
            "world size 0: a communicator has at least one rank",
        ));
    }
    c_int::try_from(world_size).map_err(|_| {
        Error::invalid(
            operation,
            format!("world size {world_size}: more ranks than the C API's int holds"),
        )
    })
}

/// A rank argument (`what`: `"root"`, `"peer"`, `"rank"`) below
/// `world_size`, as the C API's `int`.
pub(crate) fn rank(
    operation: &'static str,
    what: &'static str,
    rank: usize,
    world_size: usize,
) -> Result<c_int> {
    if rank < world_size {
        if let Ok(r) = c_int::try_from(rank) {
            return Ok(r);
        }
    }
    Err(Error::invalid(
        operation,
        format!("{what} {rank} is not below the world size {world_size}"),
    ))
}

/// Equal lengths of two buffers, named in the message.
pub(crate) fn same_len(
    operation: &'static str,
    (a_name, a): (&str, usize),
    (b_name, b): (&str, usize),
) -> Result<()> {
    if a == b {
        return Ok(());
    }
    Err(Error::Invalid {
        operation,
        reason: format!("{a_name} holds {a} elements and {b_name} {b}: they must be equal"),
    })
}

/// `whole` holds exactly `world_size` times `part` (all-gather's receive
/// buffer, reduce-scatter's send buffer).
pub(crate) fn world_multiple(
    operation: &'static str,
    (whole_name, whole): (&str, usize),
    (part_name, part): (&str, usize),
    world_size: usize,
) -> Result<()> {
    if part.checked_mul(world_size) == Some(whole) {
        return Ok(());
    }
    Err(Error::Invalid {
        operation,
        reason: format!(
            "{whole_name} holds {whole} elements and {part_name} {part}: {whole_name} must hold world size ({world_size}) x {part_name}"
        ),
    })
}

/// `len` is a multiple of `world_size`; returns the share of one rank
/// (all-to-all).
pub(crate) fn divisible(
    operation: &'static str,
    name: &str,
    len: usize,
    world_size: usize,
) -> Result<usize> {
    if world_size > 0 && len % world_size == 0 {
        return Ok(len / world_size);
    }
    Err(Error::Invalid {
        operation,
        reason: format!(
            "{name} holds {len} elements, not a multiple of the world size {world_size}"
        ),
    })
}

/// Memory or a stream (`what`) on the communicator's device.
pub(crate) fn same_device(
    operation: &'static str,
    what: &str,
    ordinal: usize,
    comm_ordinal: usize,
) -> Result<()> {
    if ordinal == comm_ordinal {
        return Ok(());
    }
    Err(Error::Invalid {
        operation,
        reason: format!("{what} is on device {ordinal}, the communicator on device {comm_ordinal}"),
    })
}

/// A device list for `ncclCommInitAll`: not empty, no device twice, and
/// as many as the C API's `int` holds.
pub(crate) fn device_list(operation: &'static str, ordinals: &[usize]) -> Result<Vec<c_int>> {
    if ordinals.is_empty() {
        return Err(Error::Invalid {
            operation,
            reason: "the device list is empty: a communicator needs at least one device"
                .to_string(),
        });
    }
    world_size(operation, ordinals.len())?;
    for (i, a) in ordinals.iter().enumerate() {
        if let Some(j) = ordinals[..i].iter().position(|b| b == a) {
            return Err(Error::Invalid {
                operation,
                reason: format!("device {a} is listed twice (at {j} and {i}): one rank per device"),
            });
        }
    }
    ordinals
        .iter()
        .map(|&o| {
            c_int::try_from(o).map_err(|_| Error::Invalid {
                operation,
                reason: format!("device ordinal {o} does not fit the C API's int"),
            })
        })
        .collect()
}

/// An element count for the C API (`size_t`, so any `usize`), with its
/// bytes within `isize` as every allocation's are: a guard against a
/// count computed wrongly from lengths, not a limit users meet.
pub(crate) fn count<T>(operation: &'static str, len: usize) -> Result<usize> {
    match len.checked_mul(size_of::<T>()) {
        Some(bytes) if bytes <= isize::MAX as usize => Ok(len),
        _ => Err(Error::Invalid {
            operation,
            reason: format!("{len} elements exceed the address space"),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_invalid(e: &Error) -> bool {
        matches!(e, Error::Invalid { .. }) && !e.reached_library()
    }

    #[test]
    fn world_sizes() {
        assert_eq!(world_size("t", 1).unwrap(), 1);
        assert_eq!(world_size("t", 8).unwrap(), 8);
        let e = world_size("Comm::from_rank", 0).unwrap_err();
        assert!(is_invalid(&e), "{e}");
        assert!(
            e.to_string()
                .contains("invalid argument to Comm::from_rank: world size 0"),
            "{e}"
        );
        let big = c_int::MAX as usize + 1;
        assert!(is_invalid(&world_size("t", big).unwrap_err()));
    }

    #[test]
    fn ranks() {
        assert_eq!(rank("t", "root", 0, 1).unwrap(), 0);
        assert_eq!(rank("t", "root", 3, 4).unwrap(), 3);
        let e = rank("Comm::broadcast", "root", 4, 4).unwrap_err();
        assert!(
            matches!(
                &e,
                Error::Invalid {
                    operation: "Comm::broadcast",
                    ..
                }
            ),
            "{e}"
        );
        assert_eq!(
            e.to_string(),
            "invalid argument to Comm::broadcast: root 4 is not below the world size 4"
        );
        assert!(rank("t", "peer", usize::MAX, usize::MAX).is_err());
        assert!(rank("t", "peer", 0, 0).is_err());
    }

    #[test]
    fn lengths() {
        same_len("t", ("send", 5), ("recv", 5)).unwrap();
        let e = same_len("Comm::all_reduce", ("send", 5), ("recv", 4)).unwrap_err();
        assert!(is_invalid(&e));
        assert!(
            e.to_string().contains("send holds 5 elements and recv 4"),
            "{e}"
        );

        world_multiple("t", ("recv", 12), ("send", 4), 3).unwrap();
        world_multiple("t", ("recv", 0), ("send", 0), 3).unwrap();
        let e = world_multiple("Comm::all_gather", ("recv", 11), ("send", 4), 3).unwrap_err();
        assert!(is_invalid(&e));
        assert!(e.to_string().contains("world size (3) x send"), "{e}");
        // An overflowing product is a mismatch, not a panic.
        assert!(world_multiple("t", ("recv", 0), ("send", usize::MAX), 2).is_err());

        assert_eq!(divisible("t", "send", 12, 4).unwrap(), 3);
        assert_eq!(divisible("t", "send", 0, 4).unwrap(), 0);
        let e = divisible("Comm::all_to_all", "send", 10, 4).unwrap_err();
        assert!(is_invalid(&e));
        assert!(divisible("t", "send", 10, 0).is_err());

        assert_eq!(count::<f32>("t", 10).unwrap(), 10);
        assert!(count::<f64>("t", usize::MAX / 4).is_err());
    }

    #[test]
    fn devices() {
        same_device("t", "the stream", 1, 1).unwrap();
        let e = same_device("Comm::all_reduce", "recv", 1, 0).unwrap_err();
        assert!(is_invalid(&e));
        assert_eq!(
            e.to_string(),
            "invalid argument to Comm::all_reduce: recv is on device 1, the communicator on device 0"
        );

        assert_eq!(device_list("t", &[1, 0, 3]).unwrap(), vec![1, 0, 3]);
        let e = device_list("Comm::from_devices", &[]).unwrap_err();
        assert!(e.to_string().contains("empty"), "{e}");
        let e = device_list("Comm::from_devices", &[0, 1, 0]).unwrap_err();
        assert!(
            e.to_string()
                .contains("device 0 is listed twice (at 0 and 2)"),
            "{e}"
        );
        assert!(device_list("t", &[usize::MAX]).is_err());
    }
}

//! Tier 1: what the safe API rejects without a GPU or a library, and the
//! names it exposes. The checks of lengths, ranks, world sizes and devices
//! are unit-tested beside the code (`src/checks.rs`); the GPU tests
//! (`gpu_collectives.rs`) reach each through the public methods.

use rccl::{Comm, Element, Error, ReduceOp};
use std::time::Duration;

#[test]
fn an_empty_device_list_is_rejected_before_loading() {
    let e = Comm::from_devices(&[]).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Invalid {
                operation: "Comm::from_devices",
                ..
            }
        ),
        "{e:?}"
    );
    assert!(!e.reached_library());
    assert!(e.to_string().contains("the device list is empty"), "{e}");
}

#[test]
fn element_types_and_reductions() {
    fn name<T: Element>() -> &'static str {
        T::NAME
    }
    assert_eq!(name::<f32>(), "f32");
    assert_eq!(name::<half::bf16>(), "bf16");
    assert_eq!(
        <half::f16 as Element>::DATA_TYPE,
        rccl::sys::ncclDataType_t::ncclFloat16
    );
    assert_eq!(ReduceOp::Avg.raw(), rccl::sys::ncclRedOp_t::ncclAvg);
}

#[test]
fn error_messages_name_what_was_wrong() {
    let e = Error::Timeout {
        operation: "Comm::wait",
        timeout: Duration::from_secs(10),
        abort_error: None,
    };
    assert_eq!(
        e.to_string(),
        "Comm::wait: the stream's work did not finish within 10s; the communicator was aborted"
    );
    assert!(e.reached_library());
    let e = Error::Nccl {
        call: "ncclAllReduce",
        status: rccl::sys::ncclResult_t::ncclRemoteError,
        message: "remote process exited".into(),
    };
    assert!(
        e.to_string()
            .starts_with("ncclAllReduce failed with ncclRemoteError (6)"),
        "{e}"
    );
    assert_eq!(e.status(), Some(rccl::sys::ncclResult_t::ncclRemoteError));
}

/// `Comm::split_all` checks its lists before loading anything: one color
/// and one key per communicator, at least one communicator.
#[test]
fn a_split_without_communicators_or_with_unequal_lists_is_rejected_before_loading() {
    let e = Comm::split_all(&[], &[], &[]).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Invalid {
                operation: "Comm::split",
                ..
            }
        ),
        "{e:?}"
    );
    assert!(!e.reached_library());
    assert!(
        e.to_string()
            .contains("0 communicators, 0 colors and 0 keys"),
        "{e}"
    );
    let e = Comm::split_all(&[], &[Some(0)], &[]).unwrap_err();
    assert!(e.to_string().contains("1 colors"), "{e}");
}

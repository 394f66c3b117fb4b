//! Tier 3 (two GPUs): RCCL/NCCL collectives in one process, one
//! communicator per GPU from `ncclCommInitAll`, memory and streams from
//! hip-sys's raw calls. Run with `--ignored` on a machine with two GPUs
//! (on NVIDIA: `HIP_PLATFORM=nvidia` and NCCL's `libnccl.so.2` where the
//! system loader finds it).

use hip_sys::{
    hipFree, hipGetDeviceCount, hipMalloc, hipMemcpy, hipMemcpyKind, hipSetDevice, hipStreamCreate,
    hipStreamDestroy, hipStreamSynchronize,
};
use rccl_sys::*;
use std::ffi::{c_int, c_void};

/// Floats per device: 4 MiB.
const COUNT: usize = 1 << 20;
const DEVICES: c_int = 2;

/// One GPU's part: its communicator, stream and two buffers of `COUNT`
/// floats.
struct Rank {
    device: c_int,
    comm: ncclComm_t,
    stream: hipStream_t,
    send: *mut c_void,
    recv: *mut c_void,
}

fn check_hip(status: hip_sys::hipError_t, what: &str) {
    if let Err(e) = status.ok() {
        panic!("{what}: {e}");
    }
}

fn check_nccl(status: ncclResult_t, what: &str) {
    if let Err(e) = status.ok() {
        panic!("{what}: {e}");
    }
}

/// Copies `data` to `dst` on `device`.
fn upload(device: c_int, dst: *mut c_void, data: &[f32]) {
    // SAFETY: `dst` is a device allocation of `COUNT` floats on `device`,
    // and `data` holds `COUNT` floats.
    unsafe {
        check_hip(hipSetDevice(device), "hipSetDevice");
        assert_eq!(data.len(), COUNT);
        check_hip(
            hipMemcpy(
                dst,
                data.as_ptr().cast(),
                COUNT * 4,
                hipMemcpyKind::hipMemcpyHostToDevice,
            ),
            "hipMemcpy to the device",
        );
    }
}

/// Waits for `rank`'s stream and reads its receive buffer.
fn download(rank: &Rank) -> Vec<f32> {
    let mut out = vec![0f32; COUNT];
    // SAFETY: `recv` is a device allocation of `COUNT` floats on the rank's
    // device and `out` has room for `COUNT` floats; the stream is the rank's.
    unsafe {
        check_hip(hipSetDevice(rank.device), "hipSetDevice");
        check_hip(hipStreamSynchronize(rank.stream), "hipStreamSynchronize");
        check_hip(
            hipMemcpy(
                out.as_mut_ptr().cast(),
                rank.recv,
                COUNT * 4,
                hipMemcpyKind::hipMemcpyDeviceToHost,
            ),
            "hipMemcpy to the host",
        );
    }
    out
}

#[test]
#[ignore = "needs two GPUs"]
fn two_gpus_all_reduce_sum_f32_and_broadcast_match_the_cpu() {
    if let Ok(p) = std::env::var("HIP_PLATFORM") {
        test_kit::require_platform(p.trim());
    }
    let mut devices = 0;
    // SAFETY: `devices` is a valid place to write an int.
    check_hip(
        unsafe { hipGetDeviceCount(&mut devices) },
        "hipGetDeviceCount",
    );
    assert!(devices >= DEVICES, "needs two GPUs, {devices} found");
    if let Err(e) = loader::rccl() {
        panic!("needs RCCL (or NCCL on NVIDIA): {e}");
    }

    let mut comms: Vec<ncclComm_t> = vec![std::ptr::null_mut(); DEVICES as usize];
    let device_list: Vec<c_int> = (0..DEVICES).collect();
    // SAFETY: `comms` has room for `DEVICES` communicators and `device_list`
    // names `DEVICES` devices.
    check_nccl(
        unsafe { ncclCommInitAll(comms.as_mut_ptr(), DEVICES, device_list.as_ptr()) },
        "ncclCommInitAll",
    );
    let mut ranks = Vec::new();
    for (i, &comm) in comms.iter().enumerate() {
        let device = i as c_int;
        assert!(!comm.is_null(), "communicator {i} is null");
        let (mut count, mut rank, mut dev) = (0, -1, -1);
        let mut stream: hipStream_t = std::ptr::null_mut();
        let mut send: *mut c_void = std::ptr::null_mut();
        let mut recv: *mut c_void = std::ptr::null_mut();
        // SAFETY: `comm` is a live communicator; every out-pointer is a valid
        // place to write; the allocations are `COUNT` floats each.
        unsafe {
            check_nccl(ncclCommCount(comm, &mut count), "ncclCommCount");
            check_nccl(ncclCommUserRank(comm, &mut rank), "ncclCommUserRank");
            check_nccl(ncclCommCuDevice(comm, &mut dev), "ncclCommCuDevice");
            check_hip(hipSetDevice(device), "hipSetDevice");
            check_hip(hipStreamCreate(&mut stream), "hipStreamCreate");
            check_hip(hipMalloc(&mut send, COUNT * 4), "hipMalloc");
            check_hip(hipMalloc(&mut recv, COUNT * 4), "hipMalloc");
        }
        assert_eq!(
            (count, rank, dev),
            (DEVICES, device, device),
            "communicator {i}"
        );
        ranks.push(Rank {
            device,
            comm,
            stream,
            send,
            recv,
        });
    }

    // All-reduce (sum, f32) of fresh random non-zero data, one call per
    // rank inside one group (one thread drives both GPUs).
    let inputs: Vec<Vec<f32>> = ranks
        .iter()
        .map(|_| test_kit::random_nonzero(COUNT, 0.5f32..1.5))
        .collect();
    for (rank, data) in ranks.iter().zip(&inputs) {
        upload(rank.device, rank.send, data);
    }
    // SAFETY: the buffers hold `COUNT` floats on each rank's device, and the
    // communicators and streams are live; the group makes the two calls
    // one collective.
    unsafe {
        check_nccl(ncclGroupStart(), "ncclGroupStart");
        for r in &ranks {
            check_nccl(
                ncclAllReduce(
                    r.send,
                    r.recv,
                    COUNT,
                    ncclDataType_t::ncclFloat32,
                    ncclRedOp_t::ncclSum,
                    r.comm,
                    r.stream,
                ),
                "ncclAllReduce",
            );
        }
        check_nccl(ncclGroupEnd(), "ncclGroupEnd");
    }
    let want: Vec<f32> = (0..COUNT).map(|j| inputs[0][j] + inputs[1][j]).collect();
    for r in &ranks {
        let got = download(r);
        // With two ranks each element is one f32 addition, exactly what the
        // CPU does; 1e-6 relative leaves room for nothing else.
        test_kit::assert_close(
            &got,
            &want,
            1e-6,
            &format!("all-reduce on device {}", r.device),
        );
    }

    // Broadcast from rank 1 into every receive buffer (which now holds the
    // sums, so a broadcast that did nothing fails).
    let root: c_int = 1;
    // SAFETY: as for the all-reduce.
    unsafe {
        check_nccl(ncclGroupStart(), "ncclGroupStart");
        for r in &ranks {
            check_nccl(
                ncclBroadcast(
                    r.send,
                    r.recv,
                    COUNT,
                    ncclDataType_t::ncclFloat32,
                    root,
                    r.comm,
                    r.stream,
                ),
                "ncclBroadcast",
            );
        }
        check_nccl(ncclGroupEnd(), "ncclGroupEnd");
    }
    for r in &ranks {
        let got = download(r);
        // A broadcast copies bits: exact.
        assert_eq!(
            test_kit::first_difference(&got, &inputs[root as usize]),
            None,
            "broadcast from rank {root} on device {}",
            r.device
        );
    }

    for r in ranks {
        // SAFETY: each handle and allocation is live and used by nothing
        // queued (the streams were synchronized by `download`).
        unsafe {
            check_nccl(ncclCommDestroy(r.comm), "ncclCommDestroy");
            check_hip(hipSetDevice(r.device), "hipSetDevice");
            check_hip(hipFree(r.send), "hipFree");
            check_hip(hipFree(r.recv), "hipFree");
            check_hip(hipStreamDestroy(r.stream), "hipStreamDestroy");
        }
    }
}

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

/// Floats per rank and collective: 4 MiB.
const COUNT: usize = 1 << 20;
const DEVICES: c_int = 2;
/// Floats in each buffer: room for every rank's `COUNT` (gather, scatter).
const CAPACITY: usize = DEVICES as usize * COUNT;

/// One GPU's part: its communicator, stream and two buffers of `CAPACITY`
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

/// Copies `data` to the start of `dst` on `device`.
fn upload(device: c_int, dst: *mut c_void, data: &[f32]) {
    assert!(data.len() <= CAPACITY);
    // SAFETY: `dst` is a device allocation of `CAPACITY` floats on
    // `device`, and `data` holds at most that many.
    unsafe {
        check_hip(hipSetDevice(device), "hipSetDevice");
        check_hip(
            hipMemcpy(
                dst,
                data.as_ptr().cast(),
                size_of_val(data),
                hipMemcpyKind::hipMemcpyHostToDevice,
            ),
            "hipMemcpy to the device",
        );
    }
}

/// Waits for `rank`'s stream and reads the first `count` floats of its
/// receive buffer.
fn download(rank: &Rank, count: usize) -> Vec<f32> {
    assert!(count <= CAPACITY);
    let mut out = vec![0f32; count];
    // SAFETY: `recv` is a device allocation of `CAPACITY` floats on the
    // rank's device and `out` has room for `count`; the stream is the rank's.
    unsafe {
        check_hip(hipSetDevice(rank.device), "hipSetDevice");
        check_hip(hipStreamSynchronize(rank.stream), "hipStreamSynchronize");
        check_hip(
            hipMemcpy(
                out.as_mut_ptr().cast(),
                rank.recv,
                count * 4,
                hipMemcpyKind::hipMemcpyDeviceToHost,
            ),
            "hipMemcpy to the host",
        );
    }
    out
}

/// One communicator per GPU from `ncclCommInitAll`, each checked (size,
/// rank, device), with a stream and two buffers on its GPU.
fn setup() -> Vec<Rank> {
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
        // place to write; the allocations are `CAPACITY` floats each.
        unsafe {
            check_nccl(ncclCommCount(comm, &mut count), "ncclCommCount");
            check_nccl(ncclCommUserRank(comm, &mut rank), "ncclCommUserRank");
            check_nccl(ncclCommCuDevice(comm, &mut dev), "ncclCommCuDevice");
            check_hip(hipSetDevice(device), "hipSetDevice");
            check_hip(hipStreamCreate(&mut stream), "hipStreamCreate");
            check_hip(hipMalloc(&mut send, CAPACITY * 4), "hipMalloc");
            check_hip(hipMalloc(&mut recv, CAPACITY * 4), "hipMalloc");
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
    ranks
}

#[test]
#[ignore = "needs two GPUs"]
fn two_gpus_all_reduce_sum_f32_and_broadcast_match_the_cpu() {
    let ranks = setup();
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
        let got = download(r, COUNT);
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
        let got = download(r, COUNT);
        // A broadcast copies bits: exact.
        assert_eq!(
            test_kit::first_difference(&got, &inputs[root as usize]),
            None,
            "broadcast from rank {root} on device {}",
            r.device
        );
    }

    teardown(ranks);
}

/// Destroys the communicators, buffers and streams.
fn teardown(ranks: Vec<Rank>) {
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

/// Runs `call` for every rank inside one NCCL group (one thread drives both
/// GPUs, so the calls must be one group), then checks each status.
fn grouped(ranks: &[Rank], what: &str, call: impl Fn(&Rank) -> ncclResult_t) {
    // SAFETY: ncclGroupStart/End bracket calls the closure makes with each
    // rank's live handles and buffers.
    unsafe { check_nccl(ncclGroupStart(), "ncclGroupStart") };
    for r in ranks {
        check_nccl(call(r), what);
    }
    // SAFETY: as above.
    unsafe { check_nccl(ncclGroupEnd(), "ncclGroupEnd") };
}

/// Zeroes the first `count` floats of every rank's receive buffer, so a
/// collective that wrote nothing cannot match the (non-zero) reference.
fn clear_recv(ranks: &[Rank], count: usize) {
    for r in ranks {
        upload(r.device, r.recv, &vec![0f32; count]);
    }
}

/// Elements rank `from` sends to rank `to` in the all-to-all-v: uneven, so
/// a displacement or count read the wrong way round fails.
fn a2av_count(from: usize, to: usize) -> usize {
    1000 * (1 + from + 2 * to) + 17
}

/// Exclusive prefix sums.
fn displacements(counts: &[usize]) -> Vec<usize> {
    counts
        .iter()
        .scan(0, |sum, c| {
            let at = *sum;
            *sum += c;
            Some(at)
        })
        .collect()
}

/// RCCL's own calls (on NVIDIA, this crate's adapters over NCCL's grouped
/// send/recv), compared exactly with the CPU: they only move data.
#[test]
#[ignore = "needs two GPUs"]
fn two_gpus_gather_scatter_and_all_to_all_v_match_the_cpu() {
    let ranks = setup();
    let n = DEVICES as usize;
    let lib = loader::rccl().expect("set up above");
    for name in ["ncclGather", "ncclScatter", "ncclAllToAllv"] {
        assert!(lib.is_available(name), "{name} on {:?}", lib.platform);
    }

    // Gather to rank 1: its receive buffer is rank 0's data, then rank 1's.
    let root: c_int = 1;
    let inputs: Vec<Vec<f32>> = ranks
        .iter()
        .map(|_| test_kit::random_nonzero(COUNT, -2.0f32..2.0))
        .collect();
    for (r, data) in ranks.iter().zip(&inputs) {
        upload(r.device, r.send, data);
    }
    clear_recv(&ranks, CAPACITY);
    // SAFETY: send buffers hold `COUNT` floats, root's receive buffer
    // `DEVICES * COUNT`; handles are live.
    grouped(&ranks, "ncclGather", |r| unsafe {
        ncclGather(
            r.send,
            r.recv,
            COUNT,
            ncclDataType_t::ncclFloat32,
            root,
            r.comm,
            r.stream,
        )
    });
    let want: Vec<f32> = inputs.concat();
    let got = download(&ranks[root as usize], CAPACITY);
    assert_eq!(
        test_kit::first_difference(&got, &want),
        None,
        "gather to rank {root}"
    );

    // Scatter from rank 0: rank r receives elements r*COUNT.. of its buffer.
    let root: c_int = 0;
    let whole = test_kit::random_nonzero(CAPACITY, -2.0f32..2.0);
    upload(ranks[0].device, ranks[0].send, &whole);
    clear_recv(&ranks, COUNT);
    // SAFETY: root's send buffer holds `DEVICES * COUNT` floats, every
    // receive buffer `COUNT`; handles are live.
    grouped(&ranks, "ncclScatter", |r| unsafe {
        ncclScatter(
            r.send,
            r.recv,
            COUNT,
            ncclDataType_t::ncclFloat32,
            root,
            r.comm,
            r.stream,
        )
    });
    for (i, r) in ranks.iter().enumerate() {
        let got = download(r, COUNT);
        let want = &whole[i * COUNT..(i + 1) * COUNT];
        assert_eq!(
            test_kit::first_difference(&got, want),
            None,
            "scatter to rank {i}"
        );
    }

    // All-to-all-v with uneven counts: rank `to` receives rank `from`'s
    // block for it at its displacement for `from`.
    let sendcounts: Vec<Vec<usize>> = (0..n)
        .map(|from| (0..n).map(|to| a2av_count(from, to)).collect())
        .collect();
    let recvcounts: Vec<Vec<usize>> = (0..n)
        .map(|to| (0..n).map(|from| a2av_count(from, to)).collect())
        .collect();
    let sdispls: Vec<Vec<usize>> = sendcounts.iter().map(|c| displacements(c)).collect();
    let rdispls: Vec<Vec<usize>> = recvcounts.iter().map(|c| displacements(c)).collect();
    let sends: Vec<Vec<f32>> = sendcounts
        .iter()
        .map(|c| test_kit::random_nonzero(c.iter().sum(), -2.0f32..2.0))
        .collect();
    for (r, data) in ranks.iter().zip(&sends) {
        upload(r.device, r.send, data);
    }
    let received: Vec<usize> = recvcounts.iter().map(|c| c.iter().sum()).collect();
    clear_recv(&ranks, *received.iter().max().unwrap());
    // SAFETY: each rank's arrays hold `DEVICES` values and its buffers the
    // elements they name (at most 6034 floats, within `CAPACITY`);
    // handles are live.
    grouped(&ranks, "ncclAllToAllv", |r| unsafe {
        let i = r.device as usize;
        ncclAllToAllv(
            r.send,
            sendcounts[i].as_ptr(),
            sdispls[i].as_ptr(),
            r.recv,
            recvcounts[i].as_ptr(),
            rdispls[i].as_ptr(),
            ncclDataType_t::ncclFloat32,
            r.comm,
            r.stream,
        )
    });
    for (to, r) in ranks.iter().enumerate() {
        let got = download(r, received[to]);
        for from in 0..n {
            let len = a2av_count(from, to);
            let sent = &sends[from][sdispls[from][to]..][..len];
            let landed = &got[rdispls[to][from]..][..len];
            assert_eq!(
                test_kit::first_difference(landed, sent),
                None,
                "all-to-all-v: rank {from}'s block at rank {to}"
            );
        }
    }

    teardown(ranks);
}

//! Tier 3, two GPUs or more (`two_gpus_*`, `#[ignore = "needs two
//! GPUs"]`): cudarc's `nccl::Comm` over every visible GPU, on
//! `CudaStream`s and `CudaSlice`s, against a CPU reference. f32 sums of
//! inputs in [0.5, 2) are within `4 x GPUs x f32::EPSILON` relative of
//! the f64 reference. One GPU (`gpu_*`, `#[ignore = "needs a GPU"]`):
//! cudarc's `nccl::result` functions on one-rank communicators, checked
//! on the host.

use cuda_compat::driver::CudaContext;
use cuda_compat::nccl::{group_end, group_start, Comm, ReduceOp};

const N: usize = 1 << 16;

#[test]
#[ignore = "needs two GPUs"]
fn two_gpus_cudarc_comm_from_devices_all_reduce() {
    println!("{}", cuda_compat::backend_summary());
    let count = CudaContext::device_count().expect("device count") as usize;
    assert!(count >= 2, "needs two GPUs, {count} found");
    let streams: Vec<_> = (0..count)
        .map(|i| CudaContext::new(i).unwrap().new_stream().unwrap())
        .collect();
    let comms = Comm::from_devices(streams).expect("Comm::from_devices");
    let inputs: Vec<Vec<f32>> = (0..count)
        .map(|_| test_kit::random_nonzero(N, 0.5f32..2.0))
        .collect();
    let mut sends = Vec::new();
    let mut recvs = Vec::new();
    for (c, input) in comms.iter().zip(&inputs) {
        assert_eq!((c.world_size(), c.ordinal()), (count, c.rank()));
        let s = c.stream();
        sends.push(s.clone_htod(input).unwrap());
        recvs.push(s.alloc_zeros::<f32>(N).unwrap());
    }
    group_start().unwrap();
    for ((c, send), recv) in comms.iter().zip(&sends).zip(&mut recvs) {
        c.all_reduce(send, recv, &ReduceOp::Sum).unwrap();
    }
    group_end().unwrap();
    // In place, on the inputs: the same sums.
    group_start().unwrap();
    for (c, send) in comms.iter().zip(&mut sends) {
        c.all_reduce_in_place(send, &ReduceOp::Sum).unwrap();
    }
    group_end().unwrap();

    let want: Vec<f64> = (0..N)
        .map(|i| inputs.iter().map(|v| v[i] as f64).sum())
        .collect();
    let tol = 4.0 * count as f64 * f32::EPSILON as f64;
    for (rank, c) in comms.iter().enumerate() {
        let s = c.stream();
        for (what, buf) in [
            ("all_reduce", &recvs[rank]),
            ("all_reduce_in_place", &sends[rank]),
        ] {
            let got = s.clone_dtoh(buf).unwrap();
            s.synchronize().unwrap();
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                let err = (*g as f64 - w).abs() / w.abs();
                assert!(
                    err <= tol,
                    "{what} rank {rank} element {i}: {g} vs {w} (tolerance {tol:e})"
                );
            }
        }
    }
    // A receive buffer shorter than the send buffer is refused before the
    // library, as an invalid argument.
    let mut short = comms[0].stream().alloc_zeros::<f32>(N - 1).unwrap();
    let e = comms[0]
        .all_reduce(&sends[0], &mut short, &ReduceOp::Sum)
        .unwrap_err();
    assert_eq!(
        e.0,
        cuda_compat::nccl::sys::ncclResult_t::ncclInvalidArgument
    );
}

#[test]
#[ignore = "needs a GPU"]
fn gpu_raw_result_functions_reduce_and_keep_rccls_message() {
    use cuda_compat::driver::{DevicePtr, DevicePtrMut};
    use cuda_compat::nccl::result::{self, last_error_detail, NcclStatus};
    use cuda_compat::nccl::sys;
    use std::ffi::c_void;
    let _ = test_kit::device();
    let ctx = CudaContext::new(0).unwrap();
    ctx.bind_to_thread().unwrap();
    let stream = ctx.default_stream();
    assert!(result::get_nccl_version().unwrap() > 0);

    // One rank through `ncclCommInitAll`, one through a unique id.
    let mut all: sys::ncclComm_t = std::ptr::null_mut();
    let devices = [0];
    // SAFETY: room for one communicator, one ordinal.
    let s = unsafe { result::comm_init_all(&mut all, 1, devices.as_ptr()) }.unwrap();
    assert_eq!(s, NcclStatus::Success);
    let id = result::get_uniqueid().unwrap();
    let mut by_id: sys::ncclComm_t = std::ptr::null_mut();
    // SAFETY: a valid place; device 0 is current.
    unsafe { result::comm_init_rank(&mut by_id, 1, id, 0) }.unwrap();
    for comm in [all, by_id] {
        // SAFETY: live communicators made above.
        unsafe {
            assert_eq!(result::comm_count(comm).unwrap(), 1);
            assert_eq!(result::comm_user_rank(comm).unwrap(), 0);
            assert_eq!(result::comm_cu_device(comm).unwrap(), 0);
        }
    }

    // A pre-multiplied sum over one rank: `recv` = 2.5 x `send`.
    let input = test_kit::random_nonzero(N, 0.5f32..2.0);
    let send = stream.clone_htod(&input).unwrap();
    let mut recv = stream.alloc_zeros::<f32>(N).unwrap();
    let mut op = sys::ncclRedOp_t::ncclSum;
    let mut scale = 2.5f32;
    // SAFETY: `op` is a valid place, `scale` one host f32 read during the
    // call; the communicator is live.
    unsafe {
        result::reduce_op_create_pre_mul_sum(
            &mut op,
            (&mut scale as *mut f32).cast::<c_void>(),
            sys::ncclDataType_t::ncclFloat32,
            sys::ncclScalarResidence_t::ncclScalarHostImmediate,
            by_id,
        )
    }
    .unwrap();
    assert_ne!(op, sys::ncclRedOp_t::ncclSum);
    {
        let (sp, _r) = send.device_ptr(&stream);
        let (rp, _w) = recv.device_ptr_mut(&stream);
        // SAFETY: both buffers hold `N` f32 on device 0, the
        // communicator's, and are read back after the stream's work.
        let s = unsafe {
            result::all_reduce(
                sp as usize as *const c_void,
                rp as usize as *mut c_void,
                N,
                sys::ncclDataType_t::ncclFloat32,
                op,
                by_id,
                stream.cu_stream().cast(),
            )
        }
        .unwrap();
        assert_eq!(s, NcclStatus::Success);
    }
    let got = stream.clone_dtoh(&recv).unwrap();
    stream.synchronize().unwrap();
    for (i, (g, x)) in got.iter().zip(&input).enumerate() {
        let want = 2.5 * f64::from(*x);
        let err = (f64::from(*g) - want).abs() / want;
        assert!(err <= 4.0 * f64::from(f32::EPSILON), "{i}: {g} vs {want}");
    }
    // SAFETY: made on `by_id`; its collective is done (synchronized).
    unsafe { result::reduce_op_destroy(op, by_id) }.unwrap();

    // An element type NCCL does not have is refused by the library; the
    // error keeps RCCL's words, naming the call.
    let e = {
        let (sp, _r) = send.device_ptr(&stream);
        let (rp, _w) = recv.device_ptr_mut(&stream);
        // SAFETY: as above; the library refuses the type before any work.
        unsafe {
            result::all_reduce(
                sp as usize as *const c_void,
                rp as usize as *mut c_void,
                N,
                sys::ncclDataType_t(99),
                sys::ncclRedOp_t::ncclSum,
                all,
                stream.cu_stream().cast(),
            )
        }
        .unwrap_err()
    };
    assert_eq!(e.0, sys::ncclResult_t::ncclInvalidArgument);
    let (status, why) = last_error_detail().expect("a reason");
    assert_eq!(status, e.0);
    assert!(why.contains("ncclAllReduce"), "{why}");
    assert!(format!("{e:?}").contains("ncclAllReduce"), "{e:?}");

    // SAFETY: made above, destroyed once, not used after.
    unsafe {
        result::comm_destroy(all).unwrap();
        result::comm_destroy(by_id).unwrap();
    }
}

//! Tier 3, two GPUs or more (`two_gpus_*`, `#[ignore = "needs two
//! GPUs"]`): cudarc's `nccl::Comm` over every visible GPU, on
//! `CudaStream`s and `CudaSlice`s, against a CPU reference. f32 sums of
//! inputs in [0.5, 2) are within `4 x GPUs x f32::EPSILON` relative of
//! the f64 reference.

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

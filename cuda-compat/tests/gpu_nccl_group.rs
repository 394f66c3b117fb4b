//! Tier 3: cudarc's `nccl::Group` (`Comm::group`) over every visible GPU
//! (one or more: one rank per GPU, one thread, one group per communicator,
//! nested), on views made before the groups, against a CPU reference on
//! fresh random data in [0.5, 2): f32 sums within `4 x ranks x
//! f32::EPSILON` relative of the f64 reference; copies (gather, broadcast,
//! send/recv) exact. Results are read on each communicator's own stream.
//! Run with `--ignored` (`HIP_PLATFORM=nvidia` on an NVIDIA GPU).

#![cfg(feature = "nccl")]

use cuda_compat::driver::{CudaContext, CudaSlice, CudaView, CudaViewMut};
use cuda_compat::nccl::{Comm, Group, ReduceOp};

const N: usize = 1 << 14;

fn comms() -> Vec<Comm> {
    let _ = test_kit::device();
    let count = CudaContext::device_count().expect("device count") as usize;
    assert!(count >= 1);
    let streams: Vec<_> = (0..count)
        .map(|i| CudaContext::new(i).unwrap().new_stream().unwrap())
        .collect();
    let comms = Comm::from_devices(streams).expect("Comm::from_devices");
    println!("{count} ranks");
    comms
}

fn inputs(ranks: usize, n: usize) -> Vec<Vec<f32>> {
    (0..ranks)
        .map(|_| test_kit::random_nonzero(n, 0.5f32..2.0))
        .collect()
}

fn upload(comms: &[Comm], data: &[Vec<f32>]) -> Vec<CudaSlice<f32>> {
    comms
        .iter()
        .zip(data)
        .map(|(c, d)| c.stream().clone_htod(d).unwrap())
        .collect()
}

fn zeros(comms: &[Comm], n: usize) -> Vec<CudaSlice<f32>> {
    comms
        .iter()
        .map(|c| c.stream().alloc_zeros::<f32>(n).unwrap())
        .collect()
}

fn download(comms: &[Comm], bufs: &[CudaSlice<f32>]) -> Vec<Vec<f32>> {
    comms
        .iter()
        .zip(bufs)
        .map(|(c, b)| c.stream().clone_dtoh(b).unwrap())
        .collect()
}

fn sum(data: &[Vec<f32>], range: std::ops::Range<usize>) -> Vec<f32> {
    range
        .map(|i| data.iter().map(|d| f64::from(d[i])).sum::<f64>() as f32)
        .collect()
}

fn tol(ranks: usize) -> f32 {
    4.0 * ranks as f32 * f32::EPSILON
}

#[test]
#[ignore = "needs a GPU"]
fn grouped_all_reduce_all_gather_broadcast_and_ring() {
    let comms = comms();
    let ranks = comms.len();
    let data = inputs(ranks, N);
    let sends = upload(&comms, &data);
    let mut reduced = zeros(&comms, N);
    let mut gathered = zeros(&comms, N * ranks);
    let mut broadcast = zeros(&comms, N);
    let mut ring = zeros(&comms, N);
    {
        let views: Vec<CudaView<'_, f32>> = sends.iter().map(|s| s.slice(..)).collect();
        let reduced_v: Vec<CudaViewMut<'_, f32>> =
            reduced.iter_mut().map(|r| r.slice_mut(..)).collect();
        let gathered_v: Vec<_> = gathered.iter_mut().map(|r| r.slice_mut(..)).collect();
        let broadcast_v: Vec<_> = broadcast.iter_mut().map(|r| r.slice_mut(..)).collect();
        let ring_v: Vec<_> = ring.iter_mut().map(|r| r.slice_mut(..)).collect();
        let mut groups: Vec<Group<'_>> = comms.iter().map(|c| c.group()).collect();
        let parts = groups
            .iter_mut()
            .zip(reduced_v)
            .zip(gathered_v)
            .zip(broadcast_v)
            .zip(ring_v)
            .enumerate();
        for (rank, ((((g, red), gat), bro), rin)) in parts {
            assert_eq!(g.comm().rank(), rank);
            let send = views[rank].clone();
            g.all_reduce(send.clone(), red, &ReduceOp::Sum).unwrap();
            g.all_gather(send.clone(), gat).unwrap();
            let root_send = (rank == 0).then(|| send.clone());
            g.broadcast(root_send, bro, 0).unwrap();
            g.send(send, ((rank + 1) % ranks) as i32).unwrap();
            g.recv(rin, ((rank + ranks - 1) % ranks) as i32).unwrap();
        }
        drop(groups);
    }
    let want_sum = sum(&data, 0..N);
    for (rank, got) in download(&comms, &reduced).iter().enumerate() {
        test_kit::assert_close(
            got,
            &want_sum,
            tol(ranks),
            &format!("all_reduce rank {rank}"),
        );
    }
    let whole: Vec<f32> = data.concat();
    for got in download(&comms, &gathered) {
        assert!(got == whole, "all_gather");
    }
    for got in download(&comms, &broadcast) {
        assert!(got == data[0], "broadcast");
    }
    for (rank, got) in download(&comms, &ring).iter().enumerate() {
        assert!(
            *got == data[(rank + ranks - 1) % ranks],
            "ring recv at {rank}"
        );
    }
}

#[test]
#[ignore = "needs a GPU"]
fn grouped_reduce_reduce_scatter_and_in_place() {
    let comms = comms();
    let ranks = comms.len();
    let data = inputs(ranks, N * ranks);
    let sends = upload(&comms, &data);
    let mut in_place = upload(&comms, &data);
    let mut rooted = upload(&comms, &data);
    let mut root_out = zeros(&comms[..1], N * ranks);
    let mut scattered = zeros(&comms, N);
    {
        let views: Vec<CudaView<'_, f32>> = sends.iter().map(|s| s.slice(..)).collect();
        let mut in_place_v: Vec<_> = in_place.iter_mut().map(|r| r.slice_mut(..)).collect();
        let mut rooted_v: Vec<_> = rooted.iter_mut().map(|r| r.slice_mut(..)).collect();
        let mut root_out_v = Some(root_out[0].slice_mut(..));
        let mut scattered_v: Vec<_> = scattered.iter_mut().map(|r| r.slice_mut(..)).collect();
        let mut groups: Vec<Group<'_>> = comms.iter().map(|c| c.group()).collect();
        for (rank, g) in groups.iter_mut().enumerate().rev() {
            let send = views[rank].clone();
            let out = if rank == 0 { root_out_v.take() } else { None };
            g.reduce(send.clone(), out, &ReduceOp::Sum, 0).unwrap();
            g.reduce_scatter(send, scattered_v.pop().unwrap(), &ReduceOp::Sum)
                .unwrap();
            g.all_reduce_in_place(in_place_v.pop().unwrap(), &ReduceOp::Max)
                .unwrap();
            g.reduce_in_place(rooted_v.pop().unwrap(), &ReduceOp::Sum, 0)
                .unwrap();
        }
        drop(groups);
    }
    let want_sum = sum(&data, 0..N * ranks);
    let got_root = download(&comms[..1], &root_out);
    test_kit::assert_close(&got_root[0], &want_sum, tol(ranks), "reduce to root");
    let got_rooted = download(&comms[..1], &rooted[..1]);
    test_kit::assert_close(&got_rooted[0], &want_sum, tol(ranks), "reduce_in_place");
    for (rank, got) in download(&comms, &scattered).iter().enumerate() {
        let want = &want_sum[rank * N..(rank + 1) * N];
        test_kit::assert_close(got, want, tol(ranks), &format!("reduce_scatter {rank}"));
    }
    let want_max: Vec<f32> = (0..N * ranks)
        .map(|i| data.iter().map(|d| d[i]).fold(f32::MIN, f32::max))
        .collect();
    for got in download(&comms, &in_place) {
        assert!(got == want_max, "all_reduce_in_place max");
    }
}

/// A view shorter than the call needs is `ncclInvalidArgument` before
/// RCCL, and the group still ends cleanly.
#[test]
#[ignore = "needs a GPU"]
fn a_short_view_is_refused_inside_a_group() {
    let comms = comms();
    let c = &comms[0];
    let send = c.stream().clone_htod(&[1.0f32; 8]).unwrap();
    let mut recv = c.stream().alloc_zeros::<f32>(8 * comms.len() - 1).unwrap();
    {
        let (s, r) = (send.slice(..), recv.slice_mut(..));
        let mut g = c.group();
        let e = g.all_gather(s, r).unwrap_err();
        assert_eq!(
            e.0,
            cuda_compat::nccl::sys::ncclResult_t::ncclInvalidArgument
        );
    }
    assert!(rccl::take_drop_errors().is_empty());
    assert!(c
        .stream()
        .clone_dtoh(&recv)
        .unwrap()
        .iter()
        .all(|x| *x == 0.0));
}

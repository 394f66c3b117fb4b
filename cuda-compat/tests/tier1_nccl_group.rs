//! Tier 1: cudarc's `nccl::Group`, `Comm::group` and `group!` are here
//! with cudarc's shapes: views made before the group are passed by value
//! and outlive it (this file compiles only if that code does); no GPU or
//! RCCL is needed, nothing is called.

#![cfg(feature = "nccl")]
#![allow(dead_code)]

use cuda_compat::driver::{CudaSlice, CudaView, CudaViewMut};
use cuda_compat::nccl::result::{NcclError, NcclStatus};
use cuda_compat::nccl::safe::Group as SafeGroup;
use cuda_compat::nccl::{Comm, Group, ReduceOp};

/// Every method of `Group`, as cudarc's docs use them.
fn every_call(comm: &Comm, a: &CudaSlice<f32>, b: &mut CudaSlice<f32>, c: &mut CudaSlice<f32>) {
    let send: CudaView<'_, f32> = a.slice(..);
    let recv: CudaViewMut<'_, f32> = b.slice_mut(..);
    let other: CudaViewMut<'_, f32> = c.slice_mut(..);
    let mut group: Group<'_> = comm.group();
    let _: &Comm = group.comm();
    let _: Result<(), NcclError> = group.send(send.clone(), 0);
    let _: Result<NcclStatus, NcclError> = group.all_reduce(send.clone(), recv, &ReduceOp::Sum);
    let _: Result<NcclStatus, NcclError> = group.all_gather(send.clone(), other);
    drop(group);

    let mut group: SafeGroup<'_> = comm.group();
    let _: Result<NcclStatus, NcclError> = group.recv(b.slice_mut(..), 0);
    let _ = group.broadcast(Some(send.clone()), c.slice_mut(..), 0);
    drop(group);
    let mut group = comm.group();
    let _ = group.broadcast_in_place(b.slice_mut(..), 0);
    let _ = group.all_reduce_in_place(c.slice_mut(..), &ReduceOp::Max);
    drop(group);
    let mut group = comm.group();
    let _ = group.reduce(
        send.clone(),
        None::<CudaViewMut<'_, f32>>,
        &ReduceOp::Sum,
        0,
    );
    let _ = group.reduce_in_place(b.slice_mut(..), &ReduceOp::Sum, 0);
    let _ = group.reduce_scatter(send, c.slice_mut(..), &ReduceOp::Sum);
}

/// cudarc's `group!` at the crate root.
fn the_macro(comm: &Comm, a: &mut CudaSlice<f32>) {
    cuda_compat::group!({
        comm.all_reduce_in_place(a, &ReduceOp::Sum).unwrap();
    });
}

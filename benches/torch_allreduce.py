#!/usr/bin/env python3
"""torch.distributed all-reduce baseline for the allreduce_bench example:
the same message sizes (8 MiB to 1 GiB, powers of two), float32, sum, on
every visible GPU, one process per GPU (torch.multiprocessing spawn, NCCL
backend), timed as nccl-tests' all_reduce_perf times: 5 warm-up
all-reduces, then 20 back to back between two CUDA events on the current
stream; time per op = elapsed / 20, the slowest rank's.
algbw = bytes / time, busbw = algbw * 2 (n - 1) / n.

torch's all_reduce works in place only, so this is the in-place figure.

Prints (stdout) `world_size N`, then one line per size:
`allreduce BYTES TIME_US ALGBW_GBPS BUSBW_GBPS` (GB = 1e9 bytes);
comments start with `#`. Run: python3 benches/torch_allreduce.py > file.
"""
import os
import socket
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

WARMUP, ITERS = 5, 20
SIZES = [(8 << 20) << i for i in range(8)]  # 8 MiB .. 1 GiB


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def worker(rank, world, port):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.cuda.set_device(rank)
    dev = torch.device("cuda", rank)
    dist.init_process_group("nccl", rank=rank, world_size=world, device_id=dev)
    if rank == 0:
        print(f"# torch {torch.__version__}, NCCL {torch.cuda.nccl.version()}, "
              f"{world} x {torch.cuda.get_device_name(0)}", flush=True)
        print(f"world_size {world}", flush=True)
    for size in SIZES:
        x = torch.rand(size // 4, device=dev, dtype=torch.float32)
        for _ in range(WARMUP):
            dist.all_reduce(x)
        torch.cuda.synchronize()
        dist.barrier()
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(ITERS):
            dist.all_reduce(x)
        end.record()
        torch.cuda.synchronize()
        us = torch.tensor([start.elapsed_time(end) * 1e3 / ITERS], device=dev)
        dist.all_reduce(us, op=dist.ReduceOp.MAX)
        t = us.item()
        algbw = size / (t * 1e-6) / 1e9
        busbw = algbw * 2 * (world - 1) / world
        if rank == 0:
            print(f"allreduce {size} {t:.2f} {algbw:.2f} {busbw:.2f}", flush=True)
        del x
    dist.destroy_process_group()


def main():
    world = torch.cuda.device_count()
    if world < 2:
        print(f"torch_allreduce.py: needs two or more GPUs, torch sees {world}", file=sys.stderr)
        sys.exit(1)
    mp.spawn(worker, args=(world, free_port()), nprocs=world, join=True)


if __name__ == "__main__":
    main()

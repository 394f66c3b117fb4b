#!/usr/bin/env python3
"""torch.randn baseline for rand_bench: normal f32 generation of 10**8
values with `torch.randn(10**8, device='cuda')` (torch's own Philox kernel;
the caching allocator reuses the block after the first call), 3 warm-up
calls, then 20 timed calls, each between a pair of CUDA events.

Prints one line: `randn_f32 N median_values_per_s best_values_per_s`.
"""
import sys

import torch

N, WARMUP, REPEATS = 10**8, 3, 20


def main():
    dev = torch.device("cuda")
    print(f"# torch {torch.__version__}, {torch.cuda.get_device_name(0)}", file=sys.stderr)
    for _ in range(WARMUP):
        x = torch.randn(N, device=dev)
        del x
    torch.cuda.synchronize()
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
          for _ in range(REPEATS)]
    for s, e in ev:
        s.record()
        x = torch.randn(N, device=dev)
        e.record()
        del x
    torch.cuda.synchronize()
    t = sorted(s.elapsed_time(e) for s, e in ev)
    median = (t[REPEATS // 2 - 1] + t[REPEATS // 2]) / 2
    print(f"randn_f32 {N} {N / (median * 1e-3):.6e} {N / (t[0] * 1e-3):.6e}", flush=True)


main()

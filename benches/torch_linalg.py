#!/usr/bin/env python3
"""torch.linalg baseline for solver_bench: the same f32 matrices and timing
as solver_bench.rs (2 warm-up calls, then the median of 10 timed calls,
each between a pair of CUDA events on the current stream).

The matrices are the bench's, entry for entry: a(i, j) =
(h(i * n + j) mod 2001 - 1000) / 1000 with h the 32-bit integer hash below;
the Cholesky input is (a + aT) / 2 with n added to the diagonal (diagonally
dominant, so positive definite). Each timed call factors the same input
(torch's calls do not overwrite it; solver_bench copies it into the
routine's buffer inside the timed region, as torch copies into its
output). Prints one line per case: `case milliseconds` (the names
solver_bench.rs looks up); what ran goes to stderr.
"""
import sys

import torch

WARMUP, REPEATS = 2, 10


MASK = 0xFFFFFFFF


def hash32(x):
    """solver_bench's `hash32` on int64 tensors holding 32-bit values (a
    product of two 32-bit values fits in 63 bits: no overflow)."""
    x = x ^ (x >> 16)
    x = (x * 0x45D9F3B) & MASK
    x = x ^ (x >> 16)
    x = (x * 0x45D9F3B) & MASK
    return x ^ (x >> 16)


def matrix(n):
    """a[i, j] as solver_bench's `entry(n, i, j)` (row-major here), f64."""
    idx = torch.arange(n * n, dtype=torch.int64).reshape(n, n)
    return ((hash32(idx) % 2001).to(torch.float64) - 1000.0) / 1000.0


def spd(n):
    a = matrix(n)
    s = (a + a.T) * 0.5
    s += n * torch.eye(n, dtype=torch.float64)
    return s


# name: (matrix maker, size, the call)
CASES = {
    "cholesky_f32_4096": (spd, 4096, lambda a: torch.linalg.cholesky(a)),
    "qr_f32_4096": (matrix, 4096, lambda a: torch.linalg.qr(a, mode="reduced")),
    "svd_gesvdj_f32_1024": (matrix, 1024,
                            lambda a: torch.linalg.svd(a, full_matrices=False, driver="gesvdj")),
    "svd_gesvd_f32_1024": (matrix, 1024,
                           lambda a: torch.linalg.svd(a, full_matrices=False, driver="gesvd")),
}


def median(v):
    s = sorted(v)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def main():
    dev = torch.device("cuda")
    print(f"# torch {torch.__version__} (CUDA {torch.version.cuda}), "
          f"{torch.cuda.get_device_name(0)}", file=sys.stderr)
    for name, (make, n, call) in CASES.items():
        a = make(n).to(device=dev, dtype=torch.float32)
        for _ in range(WARMUP):
            out = call(a)
        torch.cuda.synchronize()
        first = out[0] if isinstance(out, tuple) else out
        if not torch.isfinite(first).all():
            sys.exit(f"torch_linalg: {name} gave a non-finite output")
        ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
              for _ in range(REPEATS)]
        for s, e in ev:
            s.record()
            call(a)
            e.record()
        torch.cuda.synchronize()
        ms = median([s.elapsed_time(e) for s, e in ev])
        print(f"{name} {ms:.6f}", flush=True)
        print(f"# {name}: {n} x {n} float32, median {ms:.3f} ms", file=sys.stderr)
        del a, out, first
        torch.cuda.empty_cache()


main()

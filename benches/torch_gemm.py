#!/usr/bin/env python3
"""torch.matmul baseline for gemm_bench: same shapes, dtypes and timing
(5 warm-up calls, then the median of 20 timed repeats, each a pair of CUDA
events around back-to-back calls: as many as make the work of one 8192^3
GEMM, at most 64; divided by the number of calls).

Prints one line per case: `dtype m n k tflops`. The fp32 matmul keeps
torch's default `torch.backends.cuda.matmul.allow_tf32 = False` (set
explicitly here), so it is compared with hipBLAS SGEMM in the default
(non-TF32) math mode. torch's column/row-major layout does not matter for
square timing: C(m x n) = A(m x k) @ B(k x n) is the same GEMM size.
"""
import sys

import torch

WARMUP, REPEATS = 5, 20


def calls_per_repeat(m, n, k):
    """Same rule as gemm_bench.rs."""
    return max(1, min(64, 8192 ** 3 // (m * n * k)))

SHAPES = [(1024, 1024, 1024), (2048, 2048, 2048), (4096, 4096, 4096),
          (8192, 8192, 8192), (4096, 11008, 4096), (4096, 4096, 14336)]
DTYPES = {"float32": torch.float32, "float64": torch.float64,
          "float16": torch.float16, "bfloat16": torch.bfloat16}


def main():
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = torch.device("cuda")
    print(f"# torch {torch.__version__}, {torch.cuda.get_device_name(0)}, "
          f"allow_tf32={torch.backends.cuda.matmul.allow_tf32}", file=sys.stderr)
    for name, dt in DTYPES.items():
        for (m, n, k) in SHAPES:
            a = torch.rand(m, k, device=dev, dtype=dt) * 2 - 1
            b = torch.rand(k, n, device=dev, dtype=dt) * 2 - 1
            c = torch.empty(m, n, device=dev, dtype=dt)
            for _ in range(WARMUP):
                torch.matmul(a, b, out=c)
            torch.cuda.synchronize()
            ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                  for _ in range(REPEATS)]
            calls = calls_per_repeat(m, n, k)
            for s, e in ev:
                s.record()
                for _ in range(calls):
                    torch.matmul(a, b, out=c)
                e.record()
            torch.cuda.synchronize()
            t = sorted(s.elapsed_time(e) / calls for s, e in ev)
            ms = (t[REPEATS // 2 - 1] + t[REPEATS // 2]) / 2
            print(f"{name} {m} {n} {k} {2 * m * n * k / (ms * 1e-3) / 1e12:.3f}", flush=True)
            del a, b, c
    torch.cuda.empty_cache()


main()

#!/usr/bin/env python3
"""torch baseline for lt_bench: `F.gelu(F.linear(x, w, b), approximate="tanh")`
on the same shapes and timing as lt_bench (5 warm-up calls, then the median
of 50 timed calls, each between a pair of CUDA events on the current
stream). `x` is tokens x in, `w` out x in, `b` out, row-major; f32 runs
without TF32 (torch's default for matmuls, and what lt_bench computes).

Prints one line per case: `case milliseconds` (the names lt_bench.rs looks
up); what ran goes to stderr.
"""
import sys

import torch
import torch.nn.functional as F

WARMUP, REPEATS = 5, 50

# name: (dtype, tokens, out features, in features)
CASES = {
    "linear_gelu_f16_8192x4096x4096": (torch.float16, 8192, 4096, 4096),
    "linear_gelu_bf16_8192x4096x4096": (torch.bfloat16, 8192, 4096, 4096),
    "linear_gelu_bf16_16384x4096x1024": (torch.bfloat16, 16384, 4096, 1024),
    "linear_gelu_f32_4096x4096x1024": (torch.float32, 4096, 4096, 1024),
}


def median(v):
    s = sorted(v)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def main():
    torch.backends.cuda.matmul.allow_tf32 = False
    dev = torch.device("cuda")
    print(f"# torch {torch.__version__} (CUDA {torch.version.cuda}), "
          f"{torch.cuda.get_device_name(0)}", file=sys.stderr)
    for name, (dtype, m, n, k) in CASES.items():
        x = torch.rand((m, k), device=dev, dtype=torch.float32).mul_(2).sub_(1).to(dtype)
        w = torch.rand((n, k), device=dev, dtype=torch.float32).mul_(2).sub_(1).to(dtype)
        b = torch.rand((n,), device=dev, dtype=torch.float32).mul_(2).sub_(1).to(dtype)

        def step():
            return F.gelu(F.linear(x, w, b), approximate="tanh")

        for _ in range(WARMUP):
            y = step()
        torch.cuda.synchronize()
        if not torch.isfinite(y).all():
            sys.exit(f"torch_lt: {name} gave a non-finite output")
        ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
              for _ in range(REPEATS)]
        for s, e in ev:
            s.record()
            step()
            e.record()
        torch.cuda.synchronize()
        ms = median([s.elapsed_time(e) for s, e in ev])
        print(f"{name} {ms:.6f}", flush=True)
        print(f"# {name}: x {m}x{k}, w {n}x{k}, {dtype}, median {ms:.3f} ms", file=sys.stderr)
        del x, w, b, y
        torch.cuda.empty_cache()


main()

#!/usr/bin/env python3
"""torch.fft baseline for fft_bench: the same C2C complex64 cases and timing
(5 warm-up calls, which also fill cuFFT's plan cache, then the median of 50
timed calls, each between a pair of CUDA events on the current stream).

Input and output tensors are allocated once; the call writes into the
output with `out=`, so no allocation is timed. Prints one line per case:
`case milliseconds` (the names fft_bench.rs looks up); what ran goes to
stderr.
"""
import sys

import torch

WARMUP, REPEATS = 5, 50

# name: (shape of the tensor, the transform over it)
CASES = {
    "c2c_f32_1d_1048576_batch64": ((64, 1 << 20), lambda x, y: torch.fft.fft(x, out=y)),
    "c2c_f32_2d_4096x4096": ((4096, 4096), lambda x, y: torch.fft.fft2(x, out=y)),
}


def median(v):
    s = sorted(v)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def main():
    dev = torch.device("cuda")
    print(f"# torch {torch.__version__} (CUDA {torch.version.cuda}), "
          f"{torch.cuda.get_device_name(0)}", file=sys.stderr)
    for name, (shape, fft) in CASES.items():
        x = torch.randn(shape, device=dev, dtype=torch.complex64)
        y = torch.empty_like(x)
        for _ in range(WARMUP):
            fft(x, y)
        torch.cuda.synchronize()
        if not torch.isfinite(torch.view_as_real(y)).all():
            sys.exit(f"torch_fft: {name} gave a non-finite output")
        ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
              for _ in range(REPEATS)]
        for s, e in ev:
            s.record()
            fft(x, y)
            e.record()
        torch.cuda.synchronize()
        ms = median([s.elapsed_time(e) for s, e in ev])
        print(f"{name} {ms:.6f}", flush=True)
        print(f"# {name}: {list(shape)} complex64, median {ms:.3f} ms", file=sys.stderr)
        del x, y
        torch.cuda.empty_cache()


main()

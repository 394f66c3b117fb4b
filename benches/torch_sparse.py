#!/usr/bin/env python3
"""torch.sparse CSR baseline for sparse_bench: the same matrices (built from
the formula in sparse_bench.rs's docs, 32-bit indices), the same cases and
timing (5 warm-up calls, then the median of 50 timed calls, each between a
pair of CUDA events on the current stream).

- spmv_csr_f32_4194304_nnz16: torch.mv(A, x, out=y)
- spmm_csr_f32_1048576_nnz16_n64: torch.mm(A, B, out=C), B and C row-major

Outputs are allocated once (`out=`; a torch that refuses `out=` for sparse
CSR is timed on the allocating call, and says so on stderr). Prints one line per case: `case milliseconds`
(the names sparse_bench.rs looks up); what ran goes to stderr.
"""
import sys

import torch

WARMUP, REPEATS = 5, 50
PER_ROW = 16


def median(v):
    s = sorted(v)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def matrix(n, dev):
    # int64 arithmetic: i * 2654435761 < 2^54 for i < 2^22.
    block = n // PER_ROW
    i = torch.arange(n, dtype=torch.int64, device=dev)[:, None]
    k = torch.arange(PER_ROW, dtype=torch.int64, device=dev)[None, :]
    jitter = (i * 2654435761 + k * 40503) % block
    cols = (k * block + jitter).to(torch.int32).reshape(-1)
    vals = (((7 * i + 13 * k) % 19 + 1).to(torch.float32) / 16.0).reshape(-1)
    offsets = (torch.arange(n + 1, dtype=torch.int64, device=dev) * PER_ROW).to(torch.int32)
    return torch.sparse_csr_tensor(offsets, cols, vals, size=(n, n), dtype=torch.float32,
                                   device=dev)


def dense(shape, dev):
    count = 1
    for s in shape:
        count *= s
    j = torch.arange(count, dtype=torch.int64, device=dev)
    return ((j % 13 + 1).to(torch.float32) / 8.0).reshape(shape)


def time_it(call):
    for _ in range(WARMUP):
        call()
    torch.cuda.synchronize()
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
          for _ in range(REPEATS)]
    for s, e in ev:
        s.record()
        call()
        e.record()
    torch.cuda.synchronize()
    return median([s.elapsed_time(e) for s, e in ev])


def check(name, a, d, out):
    # Sampled rows against a float64 computation, as sparse_bench does.
    n = a.shape[0]
    crow = a.crow_indices().cpu()
    col = a.col_indices().cpu().long()
    val = a.values().cpu().double()
    dh = d.cpu().double()
    oh = out.cpu().double()
    for r in [0, 1, n // 3, n - 1]:
        s, e = int(crow[r]), int(crow[r + 1])
        want = val[s:e] @ dh[col[s:e]]
        if not torch.allclose(oh[r], want, rtol=1e-5, atol=1e-5):
            sys.exit(f"torch_sparse: {name}: row {r} is {oh[r]}, the CPU gives {want}")


def with_out(name, call_out, call_new):
    """The `out=` form when this torch supports it for sparse CSR, else the
    allocating form (its output comes from the caching allocator)."""
    try:
        call_out()
        return call_out
    except (RuntimeError, NotImplementedError) as e:
        print(f"# {name}: out= not supported ({e}); timing the allocating call",
              file=sys.stderr)
        return call_new


def main():
    dev = torch.device("cuda")
    print(f"# torch {torch.__version__} (CUDA {torch.version.cuda}), "
          f"{torch.cuda.get_device_name(0)}", file=sys.stderr)

    n = 1 << 22
    a = matrix(n, dev)
    x = dense((n,), dev)
    y = torch.empty(n, device=dev)
    call = with_out("spmv", lambda: torch.mv(a, x, out=y), lambda: torch.mv(a, x))
    check("spmv", a, x, torch.mv(a, x))
    ms = time_it(call)
    print(f"spmv_csr_f32_4194304_nnz16 {ms:.6f}", flush=True)
    print(f"# spmv: {n} rows, {PER_ROW * n} entries, median {ms:.3f} ms", file=sys.stderr)
    del a, x, y
    torch.cuda.empty_cache()

    n, width = 1 << 20, 64
    a = matrix(n, dev)
    b = dense((n, width), dev)
    c = torch.empty(n, width, device=dev)
    call = with_out("spmm", lambda: torch.mm(a, b, out=c), lambda: torch.mm(a, b))
    check("spmm", a, b, torch.mm(a, b))
    ms = time_it(call)
    print(f"spmm_csr_f32_1048576_nnz16_n64 {ms:.6f}", flush=True)
    print(f"# spmm: {n} rows, {PER_ROW * n} entries, B {n}x{width} row-major, "
          f"median {ms:.3f} ms", file=sys.stderr)


main()

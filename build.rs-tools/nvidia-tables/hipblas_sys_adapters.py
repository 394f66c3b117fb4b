#!/usr/bin/env python3
"""Generates hipblas-sys/src/nvidia/adapters.rs and hipblas-sys/NVIDIA_COVERAGE.md.

Each adapter has the exact signature of a hipblas-sys binding (read from
src/generated/functions.rs), converts every enum argument to cuBLAS's value
(trait `ToCu` in convert.rs) and calls the cuBLAS symbol named in MAPPING.
The CUDA 12.9 cuBLAS header (build.rs-tools/cuda-headers, unpacked by
fetch-cuda-headers.sh) is required: a mapping whose cuBLAS function it does
not declare is dropped, and each cuBLAS declaration's argument count must
equal the hipBLAS one.

Run from the workspace root:  python3 build.rs-tools/nvidia-tables/hipblas_sys_adapters.py
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FUNCS = os.path.join(ROOT, "hipblas-sys/src/generated/functions.rs")
OUT = os.path.join(ROOT, "hipblas-sys/src/nvidia/adapters.rs")
COVERAGE = os.path.join(ROOT, "hipblas-sys/NVIDIA_COVERAGE.md")
CUBLAS_H = [
    os.path.join(ROOT, "build.rs-tools/cuda-headers/nvidia/cublas/include/cublas_api.h"),
    os.path.join(ROOT, "build.rs-tools/cuda-headers/include/cublas_api.h"),
]


def mapping():
    """hipBLAS binding -> cuBLAS symbol (same argument order)."""
    m = {}
    cplx = {"C": "C", "Z": "Z"}

    def both(hip, cu, complex_twin=False):
        m[hip] = cu
        m[hip + "_64"] = cu + "_64"
        if complex_twin:
            m[hip + "_v2"] = cu
            m[hip + "_v2_64"] = cu + "_64"

    # Context.
    m["hipblasCreate"] = "cublasCreate_v2"
    m["hipblasDestroy"] = "cublasDestroy_v2"
    m["hipblasSetStream"] = "cublasSetStream_v2"
    m["hipblasGetStream"] = "cublasGetStream_v2"
    m["hipblasSetPointerMode"] = "cublasSetPointerMode_v2"
    m["hipblasGetPointerMode"] = "cublasGetPointerMode_v2"
    m["hipblasSetMathMode"] = "cublasSetMathMode"
    # hipblasGetMathMode maps the value back: hand-written in mod.rs.
    m["hipblasSetAtomicsMode"] = "cublasSetAtomicsMode"
    m["hipblasGetAtomicsMode"] = "cublasGetAtomicsMode"
    # GEMM family.
    for t in "SDCZ":
        c = t in cplx
        both(f"hipblas{t}gemm", f"cublas{t}gemm_v2", c)
        both(f"hipblas{t}gemmBatched", f"cublas{t}gemmBatched", c)
        both(f"hipblas{t}gemmStridedBatched", f"cublas{t}gemmStridedBatched", c)
    both("hipblasHgemm", "cublasHgemm")
    both("hipblasHgemmBatched", "cublasHgemmBatched")
    both("hipblasHgemmStridedBatched", "cublasHgemmStridedBatched")
    for v in ["", "_v2"]:
        for s in ["", "_64"]:
            m[f"hipblasGemmEx{v}{s}"] = f"cublasGemmEx{s}"
            m[f"hipblasGemmExWithFlags{v}{s}"] = f"cublasGemmEx{s}"
            m[f"hipblasGemmBatchedEx{v}{s}"] = f"cublasGemmBatchedEx{s}"
            m[f"hipblasGemmBatchedExWithFlags{v}{s}"] = f"cublasGemmBatchedEx{s}"
            m[f"hipblasGemmStridedBatchedEx{v}{s}"] = f"cublasGemmStridedBatchedEx{s}"
            m[f"hipblasGemmStridedBatchedExWithFlags{v}{s}"] = f"cublasGemmStridedBatchedEx{s}"
    # Level 2.
    for t in "SDCZ":
        c = t in cplx
        both(f"hipblas{t}gemv", f"cublas{t}gemv_v2", c)
        both(f"hipblas{t}gemvBatched", f"cublas{t}gemvBatched", c)
        both(f"hipblas{t}gemvStridedBatched", f"cublas{t}gemvStridedBatched", c)
    # Level 1.
    for t in "SDCZ":
        c = t in cplx
        both(f"hipblas{t}axpy", f"cublas{t}axpy_v2", c)
        both(f"hipblas{t}copy", f"cublas{t}copy_v2", c)
        both(f"hipblas{t}swap", f"cublas{t}swap_v2", c)
        both(f"hipblas{t}scal", f"cublas{t}scal_v2", c)
        both(f"hipblasI{t.lower()}amax", f"cublasI{t.lower()}amax_v2", c)
        both(f"hipblasI{t.lower()}amin", f"cublasI{t.lower()}amin_v2", c)
    both("hipblasCsscal", "cublasCsscal_v2", True)
    both("hipblasZdscal", "cublasZdscal_v2", True)
    for hip, cu, c in [
        ("Sdot", "Sdot_v2", False), ("Ddot", "Ddot_v2", False),
        ("Cdotu", "Cdotu_v2", True), ("Cdotc", "Cdotc_v2", True),
        ("Zdotu", "Zdotu_v2", True), ("Zdotc", "Zdotc_v2", True),
        ("Snrm2", "Snrm2_v2", False), ("Dnrm2", "Dnrm2_v2", False),
        ("Scnrm2", "Scnrm2_v2", True), ("Dznrm2", "Dznrm2_v2", True),
        ("Sasum", "Sasum_v2", False), ("Dasum", "Dasum_v2", False),
        ("Scasum", "Scasum_v2", True), ("Dzasum", "Dzasum_v2", True),
    ]:
        both(f"hipblas{hip}", f"cublas{cu}", c)
    # More level 2 and 3: the same argument order in both libraries
    # (hipBLAS mirrors cuBLAS here); counts are checked against the header.
    for t in "SDCZ":
        c = t in cplx
        for r in ["symv", "syr", "syr2", "trmv", "trsv", "gbmv", "symm", "syrk", "syr2k", "trmm"]:
            both(f"hipblas{t}{r}", f"cublas{t}{r}_v2", c)
        both(f"hipblas{t}geam", f"cublas{t}geam", c)
        both(f"hipblas{t}dgmm", f"cublas{t}dgmm", c)
        both(f"hipblas{t}rot", f"cublas{t}rot_v2", c)
    for t in "SD":
        both(f"hipblas{t}ger", f"cublas{t}ger_v2")
    for t in "CZ":
        for r in ["hemv", "her", "her2", "hemm", "herk", "her2k"]:
            both(f"hipblas{t}{r}", f"cublas{t}{r}_v2", True)
        both(f"hipblas{t}geru", f"cublas{t}geru_v2", True)
        both(f"hipblas{t}gerc", f"cublas{t}gerc_v2", True)
    both("hipblasCsrot", "cublasCsrot_v2", True)
    both("hipblasZdrot", "cublasZdrot_v2", True)
    # Level 3: trsm.
    for t in "SDCZ":
        c = t in cplx
        both(f"hipblas{t}trsm", f"cublas{t}trsm_v2", c)
        both(f"hipblas{t}trsmBatched", f"cublas{t}trsmBatched", c)
    return m


# The functions a GPU test reaches, derived from the test sources by
# `cargo run -p hip-generator -- gpu-tested` (run before this script), not
# kept by hand; the rule is in build.rs-tools/generator/src/gpu_tested.rs.
GPU_TESTED = set(
    line.split()[0]
    for line in open(os.path.join(ROOT, "hipblas-sys/src/nvidia/gpu_tested.txt"))
    if line.strip() and not line.startswith("#")
)


# Double-complex scalars: passed through a 16-byte aligned slot when they are
# misaligned host pointers (see convert::aligned_in).
Z_IN = ("*const hipDoubleComplex", "*const hipblasDoubleComplex")
Z_OUT = ("*mut hipDoubleComplex", "*mut hipblasDoubleComplex")


def parse_bindings():
    text = open(FUNCS).read()
    out = {}
    for mt in re.finditer(r"pub unsafe fn (hipblas\w+)\(([^()]*)\) -> (\w+);", text, re.S):
        name, params, ret = mt.group(1), mt.group(2), mt.group(3)
        ps = []
        for p in params.split(","):
            p = p.strip()
            if not p:
                continue
            pn, pt = p.split(":", 1)
            ps.append((pn.strip(), " ".join(pt.split())))
        out[name] = (ps, ret)
    return out


def cublas_arg_counts():
    path = next((p for p in CUBLAS_H if os.path.exists(p)), None)
    if path is None:
        return None
    text = open(path).read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    counts = {}
    for mt in re.finditer(r"CUBLASWINAPI\s+(\w+)\s*\((.*?)\)\s*;", text, re.S):
        args = [a for a in mt.group(2).split(",") if a.strip() and a.strip() != "void"]
        counts[mt.group(1)] = len(args)
    return counts


def main():
    bindings = parse_bindings()
    m = mapping()
    counts = cublas_arg_counts()
    if counts is None:
        sys.exit("cublas_api.h not found: run build.rs-tools/scripts/fetch-cuda-headers.sh "
                 "(it unpacks the cuBLAS wheel into build.rs-tools/cuda-headers)")
    missing = sorted(h for h in m if h not in bindings)
    if missing:
        print(f"skipped (no such hipBLAS binding): {missing}")
        for h in missing:
            del m[h]
    if counts is not None:
        absent = sorted(h for h in m if m[h] not in counts)
        if absent:
            print(f"skipped (no such cuBLAS function): {[(h, m[h]) for h in absent]}")
            for h in absent:
                del m[h]
    adapters = []
    for hip in sorted(m):
        params, ret = bindings[hip]
        assert ret == "hipblasStatus_t", hip
        cu = m[hip]
        passed = [p for p in params if p[0] != "flags"]
        if counts is not None:
            if counts[cu] != len(passed):
                sys.exit(f"{hip} -> {cu}: {len(passed)} arguments vs {counts[cu]}")
        adapters.append((hip, cu, params, passed))

    rs = []
    rs.append("// @generated by build.rs-tools/nvidia-tables/hipblas_sys_adapters.py. Do not edit.\n")
    rs.append("//! hipBLAS functions over cuBLAS: one adapter per binding, with the\n")
    rs.append("//! binding's exact signature, converting enums with [`ToCu`].\n")
    rs.append("#![allow(non_snake_case, clippy::too_many_arguments, clippy::type_complexity)]\n\n")
    rs.append("#[allow(unused_imports)]\nuse super::convert::{aligned_in, aligned_out, aligned_out_finish, Slot16};\n")
    rs.append("use super::convert::{from_cublas, v1_compute_type, CublasStatus, ToCu};\n")
    rs.append("use crate::generated::functions::HipblasFunctions;\n")
    rs.append("#[allow(unused_imports)]\nuse crate::*;\n#[allow(unused_imports)]\nuse hip_sys::*;\n")
    rs.append("use core::ffi::c_void;\n")
    rs.append("use core::sync::atomic::{AtomicPtr, Ordering};\n\n")
    n = len(adapters)
    rs.append(f"/// (hipBLAS binding, cuBLAS symbol) for every adapter.\npub(crate) const ADAPTERS: [(&str, &str); {n}] = [\n")
    for hip, cu, _, _ in adapters:
        rs.append(f'    ("{hip}", "{cu}"),\n')
    rs.append("];\n\n")
    rs.append(f"/// The resolved cuBLAS symbol of each adapter, in the order of [`ADAPTERS`].\n")
    rs.append(f"static SYMBOLS: [AtomicPtr<c_void>; {n}] = [const {{ AtomicPtr::new(core::ptr::null_mut()) }}; {n}];\n\n")
    for i, (hip, cu, params, passed) in enumerate(adapters):
        sig = ", ".join(f"{pn}: {pt}" for pn, pt in params)
        rs.append(f"/// `{hip}` over `{cu}`.\n")
        rs.append(f"unsafe extern \"C\" fn {hip}({sig}) -> hipblasStatus_t {{\n")
        rs.append(f"    let f = SYMBOLS[{i}].load(Ordering::Acquire);\n")
        rs.append("    if f.is_null() {\n        return hipblasStatus_t::HIPBLAS_STATUS_NOT_SUPPORTED;\n    }\n")
        for pn, pt in params:
            if pn == "flags":
                rs.append("    // cuBLAS has no GEMM flags: they steer rocBLAS's kernels only.\n")
                rs.append("    let _ = flags;\n")
            elif pn == "computeType" and pt == "hipblasDatatype_t":
                rs.append(f"    let {pn} = match v1_compute_type(handle, {pn}) {{\n        Ok(v) => v,\n        Err(e) => return e,\n    }};\n")
            elif pn in ("alpha", "beta", "s") and pt in Z_IN:
                rs.append(f"    // cuBLAS reads cuDoubleComplex host scalars with 16-byte aligned loads.\n")
                rs.append(f"    let mut {pn}_slot = Slot16::new();\n")
                rs.append(f"    // SAFETY: a host scalar has 16 readable bytes (the caller's contract).\n")
                rs.append(f"    let {pn} = match unsafe {{ aligned_in(handle, {pn}, &mut {pn}_slot) }} {{\n        Ok(v) => v,\n        Err(e) => return e,\n    }};\n")
            elif pn == "result" and pt in Z_OUT:
                rs.append("    let mut result_slot = Slot16::new();\n")
                rs.append("    let result_caller = result;\n")
                rs.append("    // SAFETY: a host result has 16 writable bytes (the caller's contract).\n")
                rs.append("    let (result, redirected) = match unsafe { aligned_out(handle, result, &mut result_slot) } {\n        Ok(v) => v,\n        Err(e) => return e,\n    };\n")
            else:
                rs.append(f"    let {pn} = match ToCu::to_cu({pn}) {{\n        Ok(v) => v,\n        Err(e) => return e,\n    }};\n")
        cu_types = []
        for pn, pt in passed:
            if pn == "computeType" and pt == "hipblasDatatype_t":
                cu_types.append("i32")
            else:
                cu_types.append(f"<{pt} as ToCu>::Cu")
        rs.append(f"    // SAFETY: `f` is the address of `{cu}`, whose C declaration takes\n")
        rs.append("    // these arguments once converted to cuBLAS's types (checked against\n")
        rs.append("    // cublas_api.h by the generator).\n")
        rs.append(f"    let f: unsafe extern \"C\" fn({', '.join(cu_types)}) -> CublasStatus = unsafe {{ core::mem::transmute::<*mut c_void, _>(f) }};\n")
        args = ", ".join(pn for pn, _ in passed)
        rs.append(f"    // SAFETY: the caller upholds `{hip}`'s contract, which is `{cu}`'s.\n")
        if any(pn == "result" and pt in Z_OUT for pn, pt in params):
            rs.append(f"    let status = from_cublas(unsafe {{ f({args}) }});\n")
            rs.append("    // SAFETY: as for `aligned_out`.\n")
            # A failed call leaves the caller's result untouched.
            rs.append("    unsafe { aligned_out_finish(result_caller, &result_slot, redirected && status == hipblasStatus_t::HIPBLAS_STATUS_SUCCESS) };\n")
            rs.append("    status\n}\n\n")
        else:
            rs.append(f"    from_cublas(unsafe {{ f({args}) }})\n}}\n\n")
    rs.append("/// Fills `table` with the adapters whose cuBLAS symbol `lookup` finds.\n")
    rs.append("pub(crate) fn install(table: &mut HipblasFunctions, lookup: &mut dyn FnMut(&str) -> *mut c_void) {\n")
    for i, (hip, cu, _, _) in enumerate(adapters):
        rs.append(f"    let p = lookup(\"{cu}\");\n    if !p.is_null() {{\n        SYMBOLS[{i}].store(p, Ordering::Release);\n        table.{hip} = Some({hip});\n    }}\n")
    rs.append("}\n")
    open(OUT, "w").write("".join(rs))
    subprocess.run(["rustfmt", "--edition", "2021", OUT], check=True)

    total = len(re.findall(r"pub unsafe fn hipblas\w+\(", open(FUNCS).read()))
    md = []
    md.append("<!-- @generated by build.rs-tools/nvidia-tables/hipblas_sys_adapters.py. Do not edit. -->\n")
    md.append("# hipBLAS on the NVIDIA platform: coverage\n\n")
    md.append("With `HIP_PLATFORM=nvidia`, hipblas-sys opens cuBLAS (`libcublas.so.13` or `.12`)\n")
    md.append("and fills its function table with adapters that have the hipBLAS signatures,\n")
    md.append("convert every enum and status (values from hipBLAS's own NVIDIA backend:\n")
    md.append("`HIPBLAS_OP_N` 111 -> `CUBLAS_OP_N` 0, fill 121/122/123 -> 1/0/2, diag 131/132 -> 0/1,\n")
    md.append("side 141/142 -> 0/1, `hipblasDatatype_t` 150.. -> `cudaDataType`, `hipDataType` unchanged,\n")
    md.append("`hipblasComputeType_t` 0..10 -> `CUBLAS_COMPUTE_*` 64..77, `HIPBLAS_GEMM_DEFAULT` 160 ->\n")
    md.append("`CUBLAS_GEMM_DEFAULT` -1) and call cuBLAS. Every other function returns\n")
    md.append("`HIPBLAS_STATUS_NOT_SUPPORTED`.\n\n")
    hand_written = ["hipblasGetMathMode", "hipblasStatusToString"]
    tested = sum(1 for a in adapters if a[0] in GPU_TESTED) + sum(1 for h in hand_written if h in GPU_TESTED)
    md.append(f"- bindings: {total}\n- implemented over cuBLAS: {n + 2} ({100.0 * (n + 2) / total:.1f}%): "
              f"{n} generated adapters, plus `hipblasGetMathMode` (maps the mode back) and "
              f"`hipblasStatusToString`, hand-written in `src/nvidia/mod.rs`\n"
              f"- of those, GPU-tested: {tested}\n\n")
    md.append("**GPU-tested** is derived from the test sources by `cargo run -p hip-generator -- gpu-tested`\n"
              "(list with the test that reaches each: `src/nvidia/gpu_tested.txt`), not kept by hand: a\n"
              "function is GPU-tested when a test marked `#[ignore = \"needs a GPU\"]` in a `tests/*.rs` file\n"
              "(or a helper of that file it calls) names it, or calls a function of `hip`, `hipblas` or\n"
              "`cuda-compat` that names it, directly or through other functions of that crate. Calls are\n"
              "followed only where the name is unambiguous (`Type::f`, `module::f`, a free `f`, a method\n"
              "name only one type has), and generic calls (`T::gemm`, through the element type's trait\n"
              "impl) are not resolved per type, so the column misses functions that `hipblas`'s generic\n"
              "routines reach. A `yes` says that the code of a GPU test reaches a call to the function,\n"
              "not which branches that test takes nor which arguments it tries. The hand-written\n"
              f"functions: {', '.join(f'`{h}` ' + ('yes' if h in GPU_TESTED else 'no') for h in hand_written)}.\n\n")
    md.append("| hipBLAS | cuBLAS | GPU-tested |\n| --- | --- | --- |\n")
    for hip, cu, _, _ in adapters:
        md.append(f"| `{hip}` | `{cu}` | {'yes' if hip in GPU_TESTED else ''} |\n")
    open(COVERAGE, "w").write("".join(md))
    print(f"{n} adapters of {total} bindings -> {OUT}")


main()

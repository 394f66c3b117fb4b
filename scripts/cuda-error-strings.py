#!/usr/bin/env python3
"""Writes CUDA's own error names and texts, as the driver's cuGetErrorString
and the runtime's cudaGetErrorString give them, one line per status:

    driver|runtime <TAB> value <TAB> name <TAB> text

Run on a machine with the CUDA driver and runtime (the GPU machine):
    python3 scripts/cuda-error-strings.py > cuda-compat/src/cuda_error_strings.tsv
cuda-compat shows these texts for its DriverError and RuntimeError, as
cudarc does, whatever GPU platform runs underneath. The first line names
the versions read.
"""
import ctypes
import glob
import sys


def open_first(patterns):
    for pattern in patterns:
        # A bare soname goes to the system loader (the driver lives there).
        for path in sorted(glob.glob(pattern), reverse=True) if "/" in pattern else [pattern]:
            try:
                return ctypes.CDLL(path), path
            except OSError:
                pass
    sys.exit(f"none of {patterns} loads")


def main():
    drv, _ = open_first(["libcuda.so.1"])
    rt, _ = open_first(["/usr/local/cuda/lib64/libcudart.so.1[0-9]", "/usr/local/cuda/lib64/libcudart.so"])
    rt.cudaGetErrorName.restype = ctypes.c_char_p
    rt.cudaGetErrorString.restype = ctypes.c_char_p
    dv, rv = ctypes.c_int(), ctypes.c_int()
    if drv.cuDriverGetVersion(ctypes.byref(dv)) != 0:
        sys.exit("cuDriverGetVersion failed: not the real driver")
    rt.cudaRuntimeGetVersion(ctypes.byref(rv))
    print(f"# CUDA driver {dv.value}, runtime {rv.value}: scripts/cuda-error-strings.py")
    for value in range(0, 1100):
        name, text = ctypes.c_char_p(), ctypes.c_char_p()
        if drv.cuGetErrorName(value, ctypes.byref(name)) == 0 and drv.cuGetErrorString(value, ctypes.byref(text)) == 0:
            print(f"driver\t{value}\t{name.value.decode()}\t{text.value.decode()}")
    for value in range(0, 1100):
        name = rt.cudaGetErrorName(value).decode()
        if name.startswith("cuda"):
            print(f"runtime\t{value}\t{name}\t{rt.cudaGetErrorString(value).decode()}")


main()

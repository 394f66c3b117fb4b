//! CUDA's inline header helpers (`cuComplex.h`, `make_cudaExtent`...).
//!
//! HIP's counterparts (`hipCaddf`, `make_hipExtent`) are inline functions
//! of its C headers, not library symbols, so no binding can call them: they
//! are written here, following CUDA's definitions, and re-exported by the
//! generated modules (listed in the generator's `libraries/cuda-compat.toml`).

use hip_sys::{double2, float2, hipExtent, hipPitchedPtr, hipPos};
use std::ffi::c_void;

/// `make_cuFloatComplex`: a single-precision complex from its parts.
#[inline]
pub const fn make_cuFloatComplex(r: f32, i: f32) -> float2 {
    float2 { x: r, y: i }
}

/// `make_cuComplex`: same as [`make_cuFloatComplex`].
#[inline]
pub const fn make_cuComplex(r: f32, i: f32) -> float2 {
    make_cuFloatComplex(r, i)
}

/// `make_cuDoubleComplex`: a double-precision complex from its parts.
#[inline]
pub const fn make_cuDoubleComplex(r: f64, i: f64) -> double2 {
    double2 { x: r, y: i }
}

/// `cuCrealf`: the real part.
#[inline]
pub const fn cuCrealf(x: float2) -> f32 {
    x.x
}

/// `cuCimagf`: the imaginary part.
#[inline]
pub const fn cuCimagf(x: float2) -> f32 {
    x.y
}

/// `cuCreal`: the real part.
#[inline]
pub const fn cuCreal(x: double2) -> f64 {
    x.x
}

/// `cuCimag`: the imaginary part.
#[inline]
pub const fn cuCimag(x: double2) -> f64 {
    x.y
}

/// `cuConjf`: the complex conjugate.
#[inline]
pub fn cuConjf(x: float2) -> float2 {
    float2 { x: x.x, y: -x.y }
}

/// `cuConj`: the complex conjugate.
#[inline]
pub fn cuConj(x: double2) -> double2 {
    double2 { x: x.x, y: -x.y }
}

/// `cuCaddf`: `x + y`.
#[inline]
pub fn cuCaddf(x: float2, y: float2) -> float2 {
    float2 {
        x: x.x + y.x,
        y: x.y + y.y,
    }
}

/// `cuCadd`: `x + y`.
#[inline]
pub fn cuCadd(x: double2, y: double2) -> double2 {
    double2 {
        x: x.x + y.x,
        y: x.y + y.y,
    }
}

/// `cuCsubf`: `x - y`.
#[inline]
pub fn cuCsubf(x: float2, y: float2) -> float2 {
    float2 {
        x: x.x - y.x,
        y: x.y - y.y,
    }
}

/// `cuCsub`: `x - y`.
#[inline]
pub fn cuCsub(x: double2, y: double2) -> double2 {
    double2 {
        x: x.x - y.x,
        y: x.y - y.y,
    }
}

/// `cuCmulf`: `x * y` (no special handling of infinities, as in CUDA).
#[inline]
pub fn cuCmulf(x: float2, y: float2) -> float2 {
    float2 {
        x: x.x * y.x - x.y * y.y,
        y: x.x * y.y + x.y * y.x,
    }
}

/// `cuCmul`: `x * y`.
#[inline]
pub fn cuCmul(x: double2, y: double2) -> double2 {
    double2 {
        x: x.x * y.x - x.y * y.y,
        y: x.x * y.y + x.y * y.x,
    }
}

/// `cuCdivf`: `x / y`, scaled by `|y.x| + |y.y|` against overflow, as
/// CUDA's `cuComplex.h` does.
#[inline]
pub fn cuCdivf(x: float2, y: float2) -> float2 {
    let s = y.x.abs() + y.y.abs();
    let oos = 1.0 / s;
    let (ars, ais) = (x.x * oos, x.y * oos);
    let (brs, bis) = (y.x * oos, y.y * oos);
    let oos = 1.0 / (brs * brs + bis * bis);
    float2 {
        x: (ars * brs + ais * bis) * oos,
        y: (ais * brs - ars * bis) * oos,
    }
}

/// `cuCdiv`: `x / y`, scaled as [`cuCdivf`].
#[inline]
pub fn cuCdiv(x: double2, y: double2) -> double2 {
    let s = y.x.abs() + y.y.abs();
    let oos = 1.0 / s;
    let (ars, ais) = (x.x * oos, x.y * oos);
    let (brs, bis) = (y.x * oos, y.y * oos);
    let oos = 1.0 / (brs * brs + bis * bis);
    double2 {
        x: (ars * brs + ais * bis) * oos,
        y: (ais * brs - ars * bis) * oos,
    }
}

/// `cuCabsf`: `|x|`, without intermediate overflow.
#[inline]
pub fn cuCabsf(x: float2) -> f32 {
    x.x.hypot(x.y)
}

/// `cuCabs`: `|x|`, without intermediate overflow.
#[inline]
pub fn cuCabs(x: double2) -> f64 {
    x.x.hypot(x.y)
}

/// `cuCfmaf`: `x * y + d`, in CUDA's order of operations.
#[inline]
pub fn cuCfmaf(x: float2, y: float2, d: float2) -> float2 {
    let real = -(x.y * y.y) + (x.x * y.x + d.x);
    let imag = x.y * y.x + (x.x * y.y + d.y);
    float2 { x: real, y: imag }
}

/// `cuCfma`: `x * y + d`, in CUDA's order of operations.
#[inline]
pub fn cuCfma(x: double2, y: double2, d: double2) -> double2 {
    let real = -(x.y * y.y) + (x.x * y.x + d.x);
    let imag = x.y * y.x + (x.x * y.y + d.y);
    double2 { x: real, y: imag }
}

/// `cuComplexFloatToDouble`: widens both parts.
#[inline]
pub fn cuComplexFloatToDouble(c: float2) -> double2 {
    double2 {
        x: c.x as f64,
        y: c.y as f64,
    }
}

/// `cuComplexDoubleToFloat`: narrows both parts (rounding).
#[inline]
pub fn cuComplexDoubleToFloat(c: double2) -> float2 {
    float2 {
        x: c.x as f32,
        y: c.y as f32,
    }
}

/// `make_cudaExtent`: an extent from width (bytes or elements), height, depth.
#[inline]
pub const fn make_cudaExtent(w: usize, h: usize, d: usize) -> hipExtent {
    hipExtent {
        width: w,
        height: h,
        depth: d,
    }
}

/// `make_cudaPitchedPtr`: a pitched pointer from its parts.
#[inline]
pub const fn make_cudaPitchedPtr(
    d: *mut c_void,
    p: usize,
    xsz: usize,
    ysz: usize,
) -> hipPitchedPtr {
    hipPitchedPtr {
        ptr: d,
        pitch: p,
        xsize: xsz,
        ysize: ysz,
    }
}

/// `make_cudaPos`: a position from its coordinates.
#[inline]
pub const fn make_cudaPos(x: usize, y: usize, z: usize) -> hipPos {
    hipPos { x, y, z }
}

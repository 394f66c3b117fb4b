//! Tier 1: the hand-written `cuComplex.h` / `make_cuda*` helpers against
//! an f64 reference on seeded random inputs (fresh seed per run, printed).

use cuda_compat::cublas::*;
use cuda_compat::runtime::*;

struct Lcg(u64);

impl Lcg {
    fn f32(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        // Magnitudes in [0.5, 4) with either sign: no zero divisors.
        let u = (self.0 >> 40) as f32 / (1u64 << 24) as f32;
        let sign = if self.0 & (1 << 20) == 0 { 1.0 } else { -1.0 };
        sign * (0.5 + 3.5 * u)
    }

    fn c(&mut self) -> cuFloatComplex {
        make_cuFloatComplex(self.f32(), self.f32())
    }
}

/// `got` within a few f32 roundings of `want`, relative to `scale` (the
/// magnitude of the terms summed, so cancellation is allowed for).
fn close_to(got: f32, want: f64, scale: f64, what: &str) {
    let tol = 8.0 * f32::EPSILON as f64 * scale.max(want.abs()).max(1.0);
    assert!(
        (got as f64 - want).abs() <= tol,
        "{what}: {got} vs {want} (tolerance {tol:e})"
    );
}

fn close(got: f32, want: f64, what: &str) {
    close_to(got, want, want.abs(), what);
}

#[test]
fn complex_arithmetic_matches_an_f64_reference() {
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    println!("seed {seed}");
    let mut rng = Lcg(seed);
    for _ in 0..1000 {
        let (x, y, d) = (rng.c(), rng.c(), rng.c());
        let (a, b, c, e) = (x.x as f64, x.y as f64, y.x as f64, y.y as f64);
        let s = cuCaddf(x, y);
        close(s.x, a + c, "add re");
        close(s.y, b + e, "add im");
        let s = cuCsubf(x, y);
        close(s.x, a - c, "sub re");
        close(s.y, b - e, "sub im");
        let p = cuCmulf(x, y);
        let terms = (a * c).abs() + (b * e).abs() + (a * e).abs() + (b * c).abs();
        close_to(p.x, a * c - b * e, terms, "mul re");
        close_to(p.y, a * e + b * c, terms, "mul im");
        let q = cuCdivf(x, y);
        let den = c * c + e * e;
        close_to(q.x, (a * c + b * e) / den, terms / den, "div re");
        close_to(q.y, (b * c - a * e) / den, terms / den, "div im");
        let f = cuCfmaf(x, y, d);
        let fterms = terms + (d.x as f64).abs() + (d.y as f64).abs();
        close_to(f.x, a * c - b * e + d.x as f64, fterms, "fma re");
        close_to(f.y, a * e + b * c + d.y as f64, fterms, "fma im");
        close(cuCabsf(x), (a * a + b * b).sqrt(), "abs");
        assert_eq!(cuConjf(x).y, -x.y);
        assert_eq!((cuCrealf(x), cuCimagf(x)), (x.x, x.y));
        let w = cuComplexFloatToDouble(x);
        assert_eq!((w.x, w.y), (a, b));
        let back = cuComplexDoubleToFloat(cuCmul(w, cuComplexFloatToDouble(y)));
        close_to(back.x, a * c - b * e, terms, "double mul re");
    }
    // Division does not overflow where the naive formula would.
    let big = make_cuFloatComplex(3e30, 4e30);
    let q = cuCdivf(big, big);
    close(q.x, 1.0, "scaled div re");
    close(q.y, 0.0, "scaled div im");
}

#[test]
fn make_helpers_fill_cudas_fields() {
    let e = make_cudaExtent(640, 480, 3);
    assert_eq!((e.width, e.height, e.depth), (640, 480, 3));
    let p = make_cudaPos(1, 2, 3);
    assert_eq!((p.x, p.y, p.z), (1, 2, 3));
    let mut v = [0u8; 4];
    let pp = make_cudaPitchedPtr(v.as_mut_ptr().cast(), 256, 64, 8);
    assert_eq!((pp.pitch, pp.xsize, pp.ysize), (256, 64, 8));
    assert_eq!(pp.ptr, v.as_mut_ptr().cast());
    let z: cuDoubleComplex = make_cuDoubleComplex(1.5, -2.0);
    assert_eq!((cuCreal(z), cuCimag(z)), (1.5, -2.0));
}

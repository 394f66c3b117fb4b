//! cudarc 0.19.10's example kernels (`examples/*.cu` and the kernel
//! strings of `examples/*.rs`), one spec each, launched as the examples
//! launch them and on larger inputs.

use super::check::{a, Ctx, Rng};
use super::Spec;
use hip_emu::isa::LaunchError;

type R = Result<(), LaunchError>;

/// Every kernel of cudarc's examples, by program then kernel.
pub(crate) const SPECS: &[Spec] = &[
    Spec {
        program: "06-threading.rs",
        kernel: "hello_world",
        run: hello_world,
    },
    Spec {
        program: "05-device-repr.rs",
        kernel: "my_custom_kernel",
        run: my_custom_kernel,
    },
    Spec {
        program: "constant_memory.cu",
        kernel: "polynomial_kernel",
        run: polynomial_kernel,
    },
    Spec {
        program: "matmul-kernel.rs",
        kernel: "matmul",
        run: matmul,
    },
    Spec {
        program: "nvrtc-compile.rs",
        kernel: "sin_kernel",
        run: sin_kernel,
    },
    Spec {
        program: "sin.cu",
        kernel: "sin_kernel",
        run: sin_kernel,
    },
];

/// printf through the hostcall service: every thread of a block and a
/// half (a partial wave on both targets) prints its line, with the
/// argument. Exact text.
fn hello_world(cx: &mut Ctx<'_>) -> R {
    let threads = 96u32;
    let i = 12345i32;
    let printed = cx.launch1_printing(1, threads, &[a(i)])?;
    let want = format!("Hello from the cuda kernel in thread {i}\n");
    cx.exact("printf lines", 0, printed.len(), threads as usize);
    for (k, (stderr, text)) in printed.iter().enumerate() {
        cx.exact("stderr", k, *stderr, false);
        cx.exact("line", k, text.as_str(), want.as_str());
    }
    Ok(())
}

/// c0 + c1 x + c2 x^2 + c3 x^3 with the coefficients in __constant__
/// memory: x a multiple of 1/8 below 4 and the coefficients multiples of
/// 1/4 below 2 make every product and sum exact, fused or not. Exact.
fn polynomial_kernel(cx: &mut Ctx<'_>) -> R {
    let mut rng = Rng::new(100);
    let c = rng.dyadics(4, -2, 2, 4);
    cx.l.write_global("coefficients", &crate::common::launch::bytes(&c));
    let n = 1000usize;
    let x = rng.dyadics(n, -4, 4, 8);
    let (od, xd) = (cx.buf(&vec![f32::NAN; n]), cx.buf(&x));
    cx.launch1(n.div_ceil(128) as u32, 128, &[a(od), a(xd), a(n as i32)])?;
    for (i, got) in cx.get::<f32>(od, n).into_iter().enumerate() {
        let v = f64::from(x[i]);
        let want = c
            .iter()
            .enumerate()
            .map(|(k, &ck)| f64::from(ck) * v.powi(k as i32))
            .sum::<f64>();
        cx.f32_exact("out", i, got, want as f32);
    }
    Ok(())
}

/// sin(float) (OCML's sinf, within 2 ulp over the whole range; its large
/// arguments take the Payne-Hanek reduction) against the exact sine of
/// the f32 argument: 2 ulp. NaN and infinities give NaN.
fn sin_kernel(cx: &mut Ctx<'_>) -> R {
    let n = 1000usize;
    let mut x = Rng::new(101).f32s(n, -10.0, 10.0);
    let special = [
        0.0,
        -0.0,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        std::f32::consts::PI,
        1e4,
        -1e5,
        3.0e7,
        1e30,
        f32::MAX,
        1e-30,
        f32::from_bits(1),
    ];
    x[..special.len()].copy_from_slice(&special);
    // Past the first reduction's range, on every wave.
    for i in (100..n).step_by(37) {
        x[i] *= 1e6;
    }
    let (od, xd) = (cx.buf(&vec![0f32; n]), cx.buf(&x));
    cx.launch1(n.div_ceil(128) as u32, 128, &[a(od), a(xd), a(n as i32)])?;
    for (i, got) in cx.get::<f32>(od, n).into_iter().enumerate() {
        cx.f32_ulps("out", i, got, f64::from(x[i]).sin(), 2.0);
    }
    Ok(())
}

/// Square matrices of integers in [-8, 8]: exact. The kernel stores C for
/// every thread, also past N, so the grid must cover N exactly (N a
/// multiple of the block, as in the example): the example's own launch
/// (N = 2 on one 2 x 2 block, its [1, 2, 3, 4] inputs), then N = 48 on
/// 3 x 3 blocks of 16 x 16.
fn matmul(cx: &mut Ctx<'_>) -> R {
    let mut rng = Rng::new(102);
    for (n, block) in [(2usize, 2u32), (48, 16)] {
        let (m_a, m_b) = if n == 2 {
            (vec![1f32, 2.0, 3.0, 4.0], vec![1f32, 2.0, 3.0, 4.0])
        } else {
            (rng.dyadics(n * n, -8, 9, 1), rng.dyadics(n * n, -8, 9, 1))
        };
        let (ad, bd, cd) = (cx.buf(&m_a), cx.buf(&m_b), cx.buf(&vec![f32::NAN; n * n]));
        let grid = n as u32 / block;
        cx.launch(
            [grid, grid, 1],
            [block, block, 1],
            0,
            &[a(ad), a(bd), a(cd), a(n as i32)],
        )?;
        for (i, got) in cx.get::<f32>(cd, n * n).into_iter().enumerate() {
            let (r, c) = (i / n, i % n);
            let want: f32 = (0..n).map(|k| m_a[r * n + k] * m_b[k * n + c]).sum();
            cx.f32_exact(if n == 2 { "C (example)" } else { "C" }, i, got, want);
        }
    }
    Ok(())
}

/// The struct by value ({float; double; unsigned; size_t}, 32 bytes with
/// C's padding) whose fields the kernel asserts: the example's values
/// must run to the end, and each field changed must stop the kernel (the
/// failed assert does not return: a trap, or a fault on the hostcall
/// buffer its message goes to, which the emulator does not provide).
fn my_custom_kernel(cx: &mut Ctx<'_>) -> R {
    let thing = |a: f32, b: f64, c: u32, d: u64| {
        let mut s = vec![0u8; 32];
        s[0..4].copy_from_slice(&a.to_le_bytes());
        s[8..16].copy_from_slice(&b.to_le_bytes());
        s[16..20].copy_from_slice(&c.to_le_bytes());
        s[24..32].copy_from_slice(&d.to_le_bytes());
        s
    };
    cx.launch1(1, 1, &[thing(1.0, 2.34, 57, 420)])?;
    cx.exact("the example's struct passes every assert", 0, true, true);
    let wrong = [
        ("a", thing(1.5, 2.34, 57, 420)),
        ("b", thing(1.0, 2.35, 57, 420)),
        ("c", thing(1.0, 2.34, 58, 420)),
        ("d", thing(1.0, 2.34, 57, 1 << 40)),
    ];
    for (i, (field, s)) in wrong.into_iter().enumerate() {
        let stopped = cx.launch1(1, 1, &[s]).is_err();
        cx.exact(
            &format!("a wrong `{field}` stops the kernel"),
            i,
            stopped,
            true,
        );
    }
    Ok(())
}

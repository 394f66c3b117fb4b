//! Tier 1 (no GPU): the rules its public API checks before hipBLASLt is
//! reached. (The layering is checked for every crate by
//! test-kit/tests/tier1_skeleton.rs.)

use hipblaslt::{Activation, Epilogue, MatmulConfig, Order};

#[test]
fn configs_start_tight_and_epilogues_describe_themselves() {
    let cfg = MatmulConfig::new(7, 5, 3, Order::RowMajor);
    assert_eq!((cfg.lda, cfg.ldb, cfg.ldc, cfg.batch), (0, 0, 0, 1));
    assert_eq!((cfg.alpha, cfg.beta), (1.0, 0.0));
    let e = Epilogue::<f32>::activation(Activation::Gelu);
    let text = format!("{e:?}");
    assert!(
        text.contains("Gelu") && text.contains("bias_len: None"),
        "{text}"
    );
}

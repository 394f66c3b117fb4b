//! Tier 1 (no GPU): the crate's layering and the rules its public API
//! checks before hipBLASLt is reached.

use hipblaslt::{Activation, Epilogue, MatmulConfig, Order};

/// The layering: only `src/result.rs` calls hipblaslt-sys's functions.
#[test]
fn only_the_result_layer_calls_the_raw_functions() {
    test_kit::assert_raw_calls_only_in_result(env!("CARGO_MANIFEST_DIR"), "hipblaslt-sys");
}

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

//! Tier 3: the `cuda_swap` flow on a real GPU (`HIP_PLATFORM=nvidia` on an
//! NVIDIA GPU, or an AMD GPU). Run with `--ignored`.

#[test]
#[ignore = "needs a GPU"]
fn cuda_swap_flow_matches_the_cpu() {
    let report = cuda_swap::run(None).unwrap_or_else(|e| panic!("cuda_swap failed: {e}"));
    for line in &report {
        println!("{line}");
    }
    assert!(report
        .iter()
        .any(|l| l.starts_with("saxpy") && l.ends_with("ok")));
    assert!(report
        .iter()
        .any(|l| l.starts_with("cublasSgemm_v2") && l.ends_with("ok")));
}

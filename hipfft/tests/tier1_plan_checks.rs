//! Tier 1: every geometry a plan refuses is refused by the checks `build`
//! makes before any hipFFT call. On this machine (no hipFFT installed) a
//! call would fail with `Error::Load`; these give `Error::Invalid` from
//! `PlanBuilder::build`, which proves no library was needed to reject
//! them.

use hipfft::{Error, Layout, PlanBuilder, Transform};

fn rejected(b: PlanBuilder<f32>, name: &str) {
    match b.validate() {
        Err(Error::Invalid {
            operation: "PlanBuilder::build",
            reason,
        }) => {
            assert!(reason.starts_with(&format!("{name}: ")), "{reason}");
        }
        other => panic!("expected Invalid({name}), got {other:?}"),
    }
}

#[test]
fn bad_sizes_and_batches_are_refused() {
    rejected(PlanBuilder::new(Transform::C2C, &[]), "dims");
    rejected(PlanBuilder::new(Transform::C2C, &[2, 2, 2, 2]), "dims");
    rejected(PlanBuilder::new(Transform::R2C, &[16, 0]), "dims");
    rejected(PlanBuilder::new(Transform::C2C, &[16]).batch(0), "batch");
    rejected(
        PlanBuilder::new(Transform::C2C, &[usize::MAX / 2, 4]),
        "dims",
    );
}

#[test]
fn bad_layouts_are_refused() {
    // embed of the wrong rank
    rejected(
        PlanBuilder::new(Transform::C2C, &[8, 8]).input_layout(Layout::new(&[64], 1, 64)),
        "input layout",
    );
    // an inner extent smaller than the size
    rejected(
        PlanBuilder::new(Transform::C2C, &[8, 8]).output_layout(Layout::new(&[8, 7], 1, 64)),
        "output layout",
    );
    // R2C: the complex side's rows are n/2 + 1 = 9 long, not 8
    rejected(
        PlanBuilder::new(Transform::R2C, &[4, 16]).output_layout(Layout::new(&[4, 8], 1, 32)),
        "output layout",
    );
    rejected(
        PlanBuilder::new(Transform::C2C, &[8]).input_layout(Layout::new(&[8], 0, 8)),
        "input layout",
    );
    rejected(
        PlanBuilder::new(Transform::C2C, &[8])
            .batch(2)
            .input_layout(Layout::new(&[8], 1, 0)),
        "input layout",
    );
    rejected(
        PlanBuilder::new(Transform::C2C, &[8]).input_layout(Layout::new(&[8], usize::MAX / 4, 8)),
        "input layout",
    );
    // in place, the two layouts of a C2C must be one
    rejected(
        PlanBuilder::new(Transform::C2C, &[8])
            .in_place()
            .output_layout(Layout::new(&[8], 2, 16)),
        "output layout",
    );
}

#[test]
fn good_geometries_report_buffer_lengths() {
    let (i, o) = PlanBuilder::<f32>::new(Transform::R2C, &[6, 10])
        .batch(3)
        .validate()
        .unwrap();
    assert_eq!((i, o), (3 * 60, 3 * 6 * 6));
    let (i, o) = PlanBuilder::<f64>::new(Transform::C2R, &[7])
        .validate()
        .unwrap();
    assert_eq!((i, o), (4, 7));
    // strided: every other element, transforms 20 apart
    let (i, _) = PlanBuilder::<f32>::new(Transform::C2C, &[8])
        .batch(5)
        .input_layout(Layout::new(&[8], 2, 20))
        .validate()
        .unwrap();
    assert_eq!(i, 4 * 20 + 14 + 1);
}

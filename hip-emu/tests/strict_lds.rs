//! `HIP_EMU_STRICT_LDS=1`: an LDS access past the workgroup's allocation
//! stops the launch, naming the allocation, instead of reading 0 as the
//! hardware does. Its own test binary: the variable is the process's.

mod common;

use common::code_object;
use common::launch::{bytes, Loaded};
use hip_emu::code_object::LaunchDims;
use hip_emu::isa::{LaunchError, Target, STRICT_LDS_VAR};

#[test]
fn strict_lds_stops_a_launch_with_too_little_lds() {
    // SAFETY: this binary's only test sets it before any launch reads it.
    unsafe { std::env::set_var(STRICT_LDS_VAR, "1") };
    for target in Target::ALL {
        let l = Loaded::new(
            &code_object("dynamic_shared", target).expect("a test kernel"),
            target,
        );
        let threads = 128u32;
        let x: Vec<f32> = (0..threads).map(|i| i as f32).collect();
        let xd = l.mem.alloc(&bytes(&x));
        let od = l.mem.alloc(&vec![0u8; threads as usize * 4]);
        let dims = LaunchDims {
            grid: [1, 1, 1],
            block: [threads, 1, 1],
            dynamic_lds: 16,
        };
        let err = l
            .launch_dims(
                "reverse_block",
                &dims,
                &[&xd.to_le_bytes(), &od.to_le_bytes()],
            )
            .unwrap_err();
        assert!(
            matches!(err, LaunchError::LdsOutOfRange { size: 32, .. }),
            "{target}: {err}"
        );
        assert!(err.to_string().contains("32 bytes"), "{target}: {err}");
    }
}

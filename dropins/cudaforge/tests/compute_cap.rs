//! `KernelBuilder::get_compute_cap` answers as cudaforge's does: the
//! explicit value, else `CUDA_COMPUTE_CAP` (a bad value: `None`), else
//! `nvidia-smi`'s `compute_cap` of the first GPU (here a stand-in script
//! on `PATH`), else `None`. One test: it changes the process environment.

use cudaforge::KernelBuilder;
use std::path::Path;

#[test]
fn explicit_then_the_variable_then_nvidia_smi() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cudaforge-compute-cap");
    let _ = std::fs::remove_dir_all(&dir);
    let empty = dir.join("empty");
    let smi = dir.join("smi");
    std::fs::create_dir_all(&empty).unwrap();
    std::fs::create_dir_all(&smi).unwrap();
    std::env::set_var("PATH", &empty);
    std::env::remove_var("CUDA_COMPUTE_CAP");

    // Nothing to ask: no value, no variable, no nvidia-smi.
    assert_eq!(KernelBuilder::new().get_compute_cap(), None);
    // The explicit value wins over everything.
    std::env::set_var("CUDA_COMPUTE_CAP", "75");
    assert_eq!(
        KernelBuilder::new().compute_cap(90).get_compute_cap(),
        Some(90)
    );
    assert_eq!(
        KernelBuilder::new()
            .compute_cap_arch("sm_100a")
            .get_compute_cap(),
        Some(100)
    );
    // The variable, in its spellings.
    assert_eq!(KernelBuilder::new().get_compute_cap(), Some(75));
    std::env::set_var("CUDA_COMPUTE_CAP", "8.6");
    assert_eq!(KernelBuilder::new().get_compute_cap(), Some(86));
    std::env::set_var("CUDA_COMPUTE_CAP", "90a");
    assert_eq!(KernelBuilder::new().get_compute_cap(), Some(90));

    // nvidia-smi: the first GPU's line.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let script = smi.join("nvidia-smi");
        std::fs::write(
            &script,
            "#!/bin/sh\ncase \"$*\" in *--query-gpu=compute_cap*) printf '8.9\\n9.0\\n' ;; *) exit 9 ;; esac\n",
        )
        .unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::env::set_var("PATH", &smi);
        // A bad variable is None, as cudaforge's parse error is: nvidia-smi
        // is not asked.
        std::env::set_var("CUDA_COMPUTE_CAP", "sm_x");
        assert_eq!(KernelBuilder::new().get_compute_cap(), None);
        std::env::remove_var("CUDA_COMPUTE_CAP");
        assert_eq!(KernelBuilder::new().get_compute_cap(), Some(89));
        assert_eq!(
            KernelBuilder::new().compute_cap(80).get_compute_cap(),
            Some(80)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

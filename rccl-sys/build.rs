//! Publishes the RCCL header version the bindings were generated from to
//! dependent build scripts (`DEP_RCCL_HEADERS_VERSION`,
//! `DEP_RCCL_NCCL_API_VERSION`), as git2's libgit2-sys does. Nothing is
//! compiled or linked: RCCL (or NCCL on the NVIDIA platform) is opened at
//! run time.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:headers_version=5.4.3");
    println!("cargo:nccl_api_version=2.13.4");
}

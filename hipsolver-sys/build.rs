//! Publishes the hipSOLVER header version the bindings were generated from
//! to dependent build scripts (`DEP_HIPSOLVER_HEADERS_VERSION`), as git2's
//! libgit2-sys does. Nothing is compiled or linked: hipSOLVER (or cuSOLVER
//! on the NVIDIA platform) is opened at run time.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:headers_version=6.4.1");
}

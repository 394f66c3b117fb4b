//! Publishes the hipSPARSE header version the bindings were generated from
//! to dependent build scripts (`DEP_HIPSPARSE_HEADERS_VERSION`). Nothing is
//! compiled or linked: hipSPARSE (or cuSPARSE on the NVIDIA platform) is
//! opened at run time.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:headers_version=6.4.3");
}

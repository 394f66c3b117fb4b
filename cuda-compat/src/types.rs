//! [`CudaTypeName`]: the CUDA C++ name of a Rust element type, for kernel
//! source generated at run time (cudarc's `types`).
//!
//! The names are CUDA's (`__nv_bfloat16`, not HIP's `__hip_bfloat16`):
//! they go into CUDA source, which the nvrtc layer compiles on either
//! platform.
//!
//! ```
//! use cuda_compat::types::CudaTypeName;
//! fn kernel<T: CudaTypeName>() -> String {
//!     format!("extern \"C\" __global__ void fill({}* out) {{ }}", T::NAME)
//! }
//! assert!(kernel::<f32>().contains("fill(float* out)"));
//! ```

/// The CUDA C++ type a Rust type stands for in kernel source.
pub trait CudaTypeName {
    /// The type's name in CUDA C++ (`float` for `f32`).
    const NAME: &'static str;
}

macro_rules! cuda_type_names {
    ($($(#[$cfg:meta])* $rust:ty => $cuda:literal,)*) => {$(
        $(#[$cfg])*
        impl CudaTypeName for $rust {
            const NAME: &'static str = $cuda;
        }
    )*};
}

cuda_type_names! {
    bool => "bool",
    i8 => "char",
    i16 => "short",
    i32 => "int",
    i64 => "long",
    isize => "intptr_t",
    u8 => "unsigned char",
    u16 => "unsigned short",
    u32 => "unsigned int",
    u64 => "unsigned long",
    usize => "size_t",
    f32 => "float",
    f64 => "double",
    #[cfg(feature = "f16")]
    half::f16 => "__half",
    #[cfg(feature = "f16")]
    half::bf16 => "__nv_bfloat16",
    #[cfg(feature = "f8")]
    float8::F8E4M3 => "__nv_fp8_e4m3",
    #[cfg(feature = "f8")]
    float8::F8E5M2 => "__nv_fp8_e5m2",
}

#[cfg(test)]
mod tests {
    use super::CudaTypeName;

    #[test]
    fn names_are_cudas() {
        assert_eq!(<u32 as CudaTypeName>::NAME, "unsigned int");
        assert_eq!(<usize as CudaTypeName>::NAME, "size_t");
        assert_eq!(<f64 as CudaTypeName>::NAME, "double");
        #[cfg(feature = "f16")]
        assert_eq!(<half::bf16 as CudaTypeName>::NAME, "__nv_bfloat16");
    }
}

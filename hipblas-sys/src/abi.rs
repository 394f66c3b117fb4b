//! The two `GemmEx` ABIs of hipBLAS: which library symbol serves which
//! binding, decided from the loaded library's major version (the loader's
//! module docs explain the two ABIs).

use crate::generated::functions::FUNCTION_NAMES;

/// Which signature the plain-named `...Ex` symbols of the loaded library
/// have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DatatypeAbi {
    /// hipBLAS before 2.0: only the v1 form (`hipblasDatatype_t`); the `_v2`
    /// bindings are unavailable.
    V1Only,
    /// hipBLAS 2.x: plain names are v1, `_v2` names are v2: both bound.
    Both,
    /// hipBLAS 3.x and later: the plain names have the v2 signature; they
    /// serve the `_v2` bindings, and the v1 bindings are unavailable.
    V2Only,
    /// The version could not be told and the library has no `_v2` symbols:
    /// neither form of the `...Ex` functions is bound.
    Unknown,
    /// The cuBLAS backend: both forms are implemented by adapters.
    Adapters,
}

impl DatatypeAbi {
    /// The ABI of a hipBLAS library of this major version; `has_v2_symbols`
    /// says whether it exports `hipblasGemmEx_v2`.
    pub fn for_library(major: Option<u32>, has_v2_symbols: bool) -> DatatypeAbi {
        match major {
            Some(m) if m >= 3 => DatatypeAbi::V2Only,
            Some(2) => DatatypeAbi::Both,
            Some(_) if has_v2_symbols => DatatypeAbi::Both,
            Some(_) => DatatypeAbi::V1Only,
            None if has_v2_symbols => DatatypeAbi::Both,
            None => DatatypeAbi::Unknown,
        }
    }
}

/// Whether a binding is one of the `...Ex` functions whose v1 form takes
/// `hipblasDatatype_t` (and whose `_v2` form takes `hipDataType`).
pub fn is_datatype_function(binding: &str) -> bool {
    binding.contains("Ex") && binding.starts_with("hipblas")
}

/// The `_v2` binding of a plain name (`hipblasGemmEx_64` ->
/// `hipblasGemmEx_v2_64`), when the bindings have one.
pub fn v2_binding_of(plain: &str) -> Option<String> {
    let v2 = match plain.strip_suffix("_64") {
        Some(base) => format!("{base}_v2_64"),
        None => format!("{plain}_v2"),
    };
    FUNCTION_NAMES.contains(&v2.as_str()).then_some(v2)
}

/// The plain name a `_v2` binding replaces (`hipblasGemmEx_v2_64` ->
/// `hipblasGemmEx_64`).
pub fn plain_of_v2(binding: &str) -> Option<String> {
    if let Some(base) = binding.strip_suffix("_v2_64") {
        return Some(format!("{base}_64"));
    }
    binding.strip_suffix("_v2").map(str::to_owned)
}

/// The symbol that serves `binding` in a library of this ABI, or `None`
/// when the binding must stay unavailable.
pub fn symbol_for(binding: &str, abi: DatatypeAbi) -> Option<String> {
    let datatype = is_datatype_function(binding);
    match abi {
        DatatypeAbi::Both | DatatypeAbi::Adapters => Some(binding.to_owned()),
        DatatypeAbi::V1Only => {
            // No `_v2` symbols exist; a v2 binding stays unavailable.
            if plain_of_v2(binding).is_some() {
                None
            } else {
                Some(binding.to_owned())
            }
        }
        DatatypeAbi::V2Only => match plain_of_v2(binding) {
            // 3.x: the plain symbol has the v2 signature.
            Some(plain) => Some(plain),
            // The plain binding: v1 ABI for `...Ex` functions, which 3.x no
            // longer has; other plain functions (complex ones, whose two
            // spellings have the same layout) are the same symbol.
            None if datatype && v2_binding_of(binding).is_some() => None,
            None => Some(binding.to_owned()),
        },
        DatatypeAbi::Unknown => {
            if datatype && (plain_of_v2(binding).is_some() || v2_binding_of(binding).is_some()) {
                None
            } else {
                Some(binding.to_owned())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rule `is_datatype_function` must agree with the generated
    /// signatures: a plain binding that has a `_v2` twin takes
    /// `hipblasDatatype_t` exactly when the rule says so.
    #[test]
    fn datatype_rule_matches_the_signatures() {
        let text = include_str!("generated/functions.rs");
        let mut checked = 0;
        for name in FUNCTION_NAMES {
            if v2_binding_of(name).is_none() {
                continue;
            }
            let start = text
                .find(&format!(" fn {name}("))
                .unwrap_or_else(|| panic!("wrapper of {name}"));
            let sig = &text[start..start + text[start..].find(") -> ").unwrap()];
            assert_eq!(
                sig.contains("hipblasDatatype_t"),
                is_datatype_function(name),
                "{name}: {sig}"
            );
            checked += 1;
        }
        assert!(checked > 300, "only {checked} v1/v2 pairs found");
    }

    #[test]
    fn abi_from_version() {
        assert_eq!(
            DatatypeAbi::for_library(Some(3), false),
            DatatypeAbi::V2Only
        );
        assert_eq!(DatatypeAbi::for_library(Some(2), true), DatatypeAbi::Both);
        assert_eq!(
            DatatypeAbi::for_library(Some(0), false),
            DatatypeAbi::V1Only
        );
        assert_eq!(DatatypeAbi::for_library(None, false), DatatypeAbi::Unknown);
        assert_eq!(DatatypeAbi::for_library(None, true), DatatypeAbi::Both);
    }

    #[test]
    fn symbols_per_abi() {
        use DatatypeAbi::*;
        // hipBLAS 2.x: each binding its own symbol.
        assert_eq!(
            symbol_for("hipblasGemmEx", Both).as_deref(),
            Some("hipblasGemmEx")
        );
        assert_eq!(
            symbol_for("hipblasGemmEx_v2", Both).as_deref(),
            Some("hipblasGemmEx_v2")
        );
        // 3.x: the plain symbol serves the v2 binding; v1 is unavailable.
        assert_eq!(symbol_for("hipblasGemmEx", V2Only), None);
        assert_eq!(symbol_for("hipblasGemmEx_64", V2Only), None);
        assert_eq!(
            symbol_for("hipblasGemmEx_v2", V2Only).as_deref(),
            Some("hipblasGemmEx")
        );
        assert_eq!(
            symbol_for("hipblasGemmEx_v2_64", V2Only).as_deref(),
            Some("hipblasGemmEx_64")
        );
        // Complex twins have one layout: the plain symbol serves both.
        assert_eq!(
            symbol_for("hipblasCaxpy", V2Only).as_deref(),
            Some("hipblasCaxpy")
        );
        assert_eq!(
            symbol_for("hipblasCaxpy_v2", V2Only).as_deref(),
            Some("hipblasCaxpy")
        );
        // Before 2.0: no v2 bindings.
        assert_eq!(symbol_for("hipblasGemmEx_v2", V1Only), None);
        assert_eq!(
            symbol_for("hipblasGemmEx", V1Only).as_deref(),
            Some("hipblasGemmEx")
        );
        // Unknown version: neither form of an Ex function.
        assert_eq!(symbol_for("hipblasGemmEx", Unknown), None);
        assert_eq!(symbol_for("hipblasGemmEx_v2", Unknown), None);
        assert_eq!(
            symbol_for("hipblasSgemm", Unknown).as_deref(),
            Some("hipblasSgemm")
        );
    }
}

//! The library's rules for a fill, checked before any call: what hipRAND
//! (and cuRAND, on the NVIDIA platform) would refuse with a status, or
//! worse, misuse. Every [`crate::Generator`] fill and setter calls these
//! first; they are public so that the rules can be tested without a GPU and
//! reused by other layers.

use crate::{Error, Ordering, Result, RngType};

/// The most dimensions a Sobol generator takes (the Joe–Kuo direction
/// vectors both libraries ship cover 20,000).
pub const MAX_SOBOL_DIMENSIONS: u32 = 20_000;

/// What a fill produces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Distribution {
    /// Raw 32-bit integers (`hiprandGenerate`).
    Bits,
    /// Uniform in (0, 1].
    Uniform,
    /// Normal (Gaussian), made in pairs by pseudo-random generators.
    Normal,
    /// Log-normal, made in pairs by pseudo-random generators.
    LogNormal,
    /// Poisson-distributed 32-bit integers.
    Poisson,
}

/// A fill of `len` elements of `element_size` bytes at device address
/// `address` by a generator of type `kind` with `dimensions` (quasi-random
/// generators only; ignored otherwise):
///
/// - quasi-random generators: `len` must be a multiple of the dimensions
///   (every dimension gets the same count; `HIPRAND_STATUS_LENGTH_NOT_MULTIPLE`);
/// - normal and log-normal from pseudo-random generators: `len` must be
///   even and the address aligned to two elements (values are made in
///   Box–Muller pairs, written as one two-element store; the same status).
pub fn check_fill(
    kind: RngType,
    dimensions: u32,
    distribution: Distribution,
    len: usize,
    address: usize,
    element_size: usize,
) -> Result<()> {
    if kind.is_quasi() {
        let dims = dimensions as usize;
        if dims == 0 || len % dims != 0 {
            return Err(Error::invalid_argument(
                "validate::check_fill",
                "length",
                format!(
                    "a {kind:?} fill must be a multiple of its {dimensions} dimensions; it is {len}"
                ),
            ));
        }
    } else if matches!(distribution, Distribution::Normal | Distribution::LogNormal) {
        if len % 2 != 0 {
            return Err(Error::invalid_argument(
                "validate::check_fill",
                "length",
                format!(
                    "{kind:?} makes {distribution:?} values in pairs: the length must be even; it is {len}"
                ),
            ));
        }
        let pair = 2 * element_size;
        if address % pair != 0 {
            return Err(Error::invalid_argument(
                "validate::check_fill",
                "buffer",
                format!(
                    "{kind:?} writes {distribution:?} values in pairs: the buffer must be aligned to {pair} bytes; it is at {address:#x}"
                ),
            ));
        }
    }
    Ok(())
}

/// The parameters of a normal or log-normal fill: a finite mean and a
/// finite, non-negative standard deviation.
pub fn check_normal(mean: f64, stddev: f64) -> Result<()> {
    if !mean.is_finite() {
        return Err(Error::invalid_argument(
            "validate::check_normal",
            "mean",
            format!("must be finite; it is {mean}"),
        ));
    }
    if !(stddev.is_finite() && stddev >= 0.0) {
        return Err(Error::invalid_argument(
            "validate::check_normal",
            "stddev",
            format!("must be finite and non-negative; it is {stddev}"),
        ));
    }
    Ok(())
}

/// A Poisson fill's mean: finite and positive.
pub fn check_poisson(lambda: f64) -> Result<()> {
    if !(lambda.is_finite() && lambda > 0.0) {
        return Err(Error::invalid_argument(
            "validate::check_poisson",
            "lambda",
            format!("must be finite and positive; it is {lambda}"),
        ));
    }
    Ok(())
}

/// The buffer's device must be the generator's.
pub fn check_device(generator: usize, buffer: usize) -> Result<()> {
    if generator != buffer {
        return Err(Error::invalid_argument(
            "validate::check_device",
            "device",
            format!("the buffer is on device {buffer} but the generator's stream is on device {generator}"),
        ));
    }
    Ok(())
}

/// Dimensions are for quasi-random generators, from 1 to
/// [`MAX_SOBOL_DIMENSIONS`].
pub fn check_dimensions(kind: RngType, dimensions: u32) -> Result<()> {
    if !kind.is_quasi() {
        return Err(Error::invalid_argument(
            "validate::check_dimensions",
            "dimensions",
            format!("{kind:?} is pseudo-random: only quasi-random generators have dimensions"),
        ));
    }
    if !(1..=MAX_SOBOL_DIMENSIONS).contains(&dimensions) {
        return Err(Error::invalid_argument(
            "validate::check_dimensions",
            "dimensions",
            format!("must be from 1 to {MAX_SOBOL_DIMENSIONS}; it is {dimensions}"),
        ));
    }
    Ok(())
}

/// A seed is for pseudo-random generators (quasi-random sequences have
/// none; the library answers `HIPRAND_STATUS_TYPE_ERROR`).
pub fn check_seed(kind: RngType) -> Result<()> {
    if kind.is_quasi() {
        return Err(Error::invalid_argument(
            "validate::check_seed",
            "seed",
            format!("{kind:?} is quasi-random and has no seed (use set_offset to skip ahead)"),
        ));
    }
    Ok(())
}

/// An offset cannot be set on MTGP32 or MT19937 (both libraries answer
/// `HIPRAND_STATUS_TYPE_ERROR`).
pub fn check_offset(kind: RngType) -> Result<()> {
    if !kind.takes_offset() {
        return Err(Error::invalid_argument(
            "validate::check_offset",
            "offset",
            format!("{kind:?} cannot skip ahead: its offset cannot be set"),
        ));
    }
    Ok(())
}

/// The ordering must be of the generator's family (pseudo or quasi).
pub fn check_ordering(kind: RngType, ordering: Ordering) -> Result<()> {
    if kind.is_quasi() != ordering.is_quasi() {
        return Err(Error::invalid_argument(
            "validate::check_ordering",
            "ordering",
            format!("{ordering:?} is not an ordering for {kind:?}"),
        ));
    }
    Ok(())
}

//! CUDA's own names and descriptions of its statuses, as the driver's
//! `cuGetErrorName`/`cuGetErrorString` and the runtime's
//! `cudaGetErrorName`/`cudaGetErrorString` give them: cudarc's errors print
//! these, and a program switched to this crate prints the same words on
//! AMD as on NVIDIA (HIP's own texts differ: "Not found" for CUDA's "named
//! symbol not found").
//!
//! The table, `src/cuda_error_strings.tsv`, is what CUDA's libraries said
//! when asked for every status (`scripts/cuda-error-strings.py`, run on a
//! machine with CUDA; its first line names the versions).

use super::sys::CUresult;
use std::ffi::{CStr, CString};
use std::sync::OnceLock;

const TABLE: &str = include_str!("../cuda_error_strings.tsv");

/// Which API a row is of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Api {
    Driver,
    Runtime,
}

#[derive(Debug)]
struct Row {
    api: Api,
    name: CString,
    text: CString,
}

/// The table's rows, read once; a malformed row is skipped (the unit tests
/// check that there is none).
fn rows() -> &'static [Row] {
    static ROWS: OnceLock<Vec<Row>> = OnceLock::new();
    ROWS.get_or_init(|| TABLE.lines().filter_map(parse).collect())
}

fn parse(line: &str) -> Option<Row> {
    if line.starts_with('#') {
        return None;
    }
    let mut f = line.splitn(4, '\t');
    let api = match f.next()? {
        "driver" => Api::Driver,
        "runtime" => Api::Runtime,
        _ => return None,
    };
    // The value column is checked, not kept: rows are found by name.
    f.next()?.parse::<i64>().ok()?;
    Some(Row {
        api,
        name: CString::new(f.next()?).ok()?,
        text: CString::new(f.next()?).ok()?,
    })
}

/// CUDA's name and description of a driver status, found by its CUDA name
/// (the value is HIP's underneath); `None` for a value no CUDA name has.
pub(crate) fn driver(status: CUresult) -> Option<(&'static CStr, &'static CStr)> {
    let name = status.name()?;
    rows()
        .iter()
        .find(|r| r.api == Api::Driver && r.name.to_bytes() == name.as_bytes())
        .map(|r| (r.name.as_c_str(), r.text.as_c_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_parses_and_names_are_unique() {
        let data: Vec<&str> = TABLE.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(rows().len(), data.len(), "a row does not parse");
        assert!(rows().iter().filter(|r| r.api == Api::Driver).count() > 100);
        assert!(rows().iter().filter(|r| r.api == Api::Runtime).count() > 100);
        let mut names: Vec<_> = rows()
            .iter()
            .map(|r| (r.api == Api::Driver, &r.name))
            .collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), rows().len(), "a name appears twice");
    }

    #[test]
    fn every_cuda_named_driver_status_has_cudas_words() {
        let mut missing = Vec::new();
        for &(name, value) in CUresult::VARIANTS {
            if value.is_synthesized() {
                continue;
            }
            match driver(value) {
                // Several CUDA names may share a HIP value: the first names it.
                Some((n, text)) => {
                    assert_eq!(Some(n.to_str().unwrap()), value.name(), "{name}");
                    assert!(!text.to_bytes().is_empty(), "{name}");
                }
                None => missing.push(name),
            }
        }
        assert!(missing.is_empty(), "no CUDA text for {missing:?}");
    }

    #[test]
    fn known_texts() {
        let text = |s| driver(s).map(|(_, t)| t.to_str().unwrap());
        assert_eq!(
            text(CUresult::CUDA_ERROR_NOT_FOUND),
            Some("named symbol not found")
        );
        assert_eq!(
            text(CUresult::CUDA_ERROR_INVALID_VALUE),
            Some("invalid argument")
        );
        assert_eq!(
            text(CUresult::CUDA_ERROR_OUT_OF_MEMORY),
            Some("out of memory")
        );
        // The runtime's rows, kept for cudarc's `RuntimeError`.
        let runtime = rows()
            .iter()
            .find(|r| r.api == Api::Runtime && r.name.as_bytes() == b"cudaErrorMemoryAllocation")
            .map(|r| r.text.to_str().unwrap());
        assert_eq!(runtime, Some("out of memory"));
    }
}

//! `hip-emu`: the software AMD GPU from the command line.
//!
//! `hip-emu scan PATH...` decodes every instruction of the AMD code objects
//! it is given (plain ELF, clang offload bundles, hip-rs envelopes, or
//! folders searched for them) and says which the interpreter would not
//! execute: the static answer to "can this kernel run on the emulator?",
//! without loading or launching anything.

use hip_emu::code_object::{self, CodeObject};
use hip_emu::isa::{self, Target};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const HELP: &str = "\
hip-emu: the software AMD GPU of hip-rs

USAGE:
    hip-emu scan [--json] PATH...
    hip-emu --help

SUBCOMMANDS:
    scan    Decode every instruction of AMD code objects and list the ones
            the interpreter does not execute, with the reason for each.

            Each PATH is a file or a folder. A file is a plain AMDGPU ELF
            code object, a clang offload bundle of them, or a hip-rs code
            object envelope (the `.ptx` files the cudaforge drop-in writes
            for AMD). A folder is searched recursively; files in it that
            are none of these are skipped, counted and listed with the
            reason. Symbolic links to folders are not followed.

            Code objects for processors the interpreter does not run
            (it runs gfx942 and gfx1100) are listed as such and not
            decoded; that alone is not a failure.

OPTIONS:
    --json        Print one JSON document (for programs) instead of text.
    -h, --help    Print this help.

EXIT STATUS:
    0    every instruction found is executed by the interpreter
    1    some instruction is not executed, or some word is no instruction
    2    usage error, or a file could not be read or parsed
";

/// What a run asks for.
struct Options {
    json: bool,
    paths: Vec<PathBuf>,
}

/// A usage error: the message, shown with a pointer to `--help`.
struct Usage(String);

fn parse_args(args: Vec<String>) -> Result<Option<Options>, Usage> {
    let mut args = args.into_iter();
    let Some(command) = args.next() else {
        return Err(Usage("no subcommand given".into()));
    };
    match command.as_str() {
        "-h" | "--help" | "help" => return Ok(None),
        "scan" => {}
        other => return Err(Usage(format!("unknown subcommand `{other}`"))),
    }
    let mut options = Options {
        json: false,
        paths: Vec::new(),
    };
    let mut only_paths = false;
    for arg in args {
        if only_paths || !arg.starts_with('-') || arg == "-" {
            options.paths.push(PathBuf::from(arg));
            continue;
        }
        match arg.as_str() {
            "--" => only_paths = true,
            "--json" => options.json = true,
            "-h" | "--help" => return Ok(None),
            other => return Err(Usage(format!("unknown option `{other}` for scan"))),
        }
    }
    if options.paths.is_empty() {
        return Err(Usage("scan needs at least one file or folder".into()));
    }
    Ok(Some(options))
}

fn main() -> ExitCode {
    let options = match parse_args(std::env::args().skip(1).collect()) {
        Ok(Some(options)) => options,
        Ok(None) => {
            print!("{HELP}");
            return ExitCode::SUCCESS;
        }
        Err(Usage(message)) => {
            eprintln!("hip-emu: {message}\nRun `hip-emu --help` for usage.");
            return ExitCode::from(2);
        }
    };
    let mut report = Report::default();
    for path in &options.paths {
        report.add_path(path);
    }
    let status = report.status();
    for e in &report.errors {
        eprintln!("hip-emu: {}: {}", e.file.display(), e.message);
    }
    let out = if options.json {
        report.json()
    } else {
        report.text()
    };
    print!("{out}");
    ExitCode::from(status)
}

/// How a file holding code objects is laid out.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Elf,
    /// A host object or library: its `.hip_fatbin` section.
    HostElf,
    /// An `ar` archive (a static library) of host objects.
    Archive,
    Bundle,
    CompressedBundle,
    Envelope,
}

impl Format {
    fn name(self) -> &'static str {
        match self {
            Format::Elf => "ELF",
            Format::HostElf => "host object's .hip_fatbin",
            Format::Archive => "archive",
            Format::Bundle => "offload bundle",
            Format::CompressedBundle => "compressed offload bundle",
            Format::Envelope => "envelope",
        }
    }
}

/// The bytes every format starts with; the longest is the envelope's.
const ELF_MAGIC: &[u8] = b"\x7fELF";
const BUNDLE_MAGIC: &[u8] = b"__CLANG_OFFLOAD_BUNDLE__";
const COMPRESSED_BUNDLE_MAGIC: &[u8] = b"CCOB";
const ENVELOPE_MAGIC: &[u8] = b"// hip-rs amdgpu code object envelope v";
/// `e_machine` of AMD GPU code (the ELF's bytes 18 and 19).
const EM_AMDGPU: u16 = 224;

/// The format the first bytes of a file announce; `Err` with the reason
/// it is none of them.
fn sniff(head: &[u8]) -> Result<Format, String> {
    if head.starts_with(ELF_MAGIC) {
        return match head.get(18..20) {
            Some(&[lo, hi]) if u16::from_le_bytes([lo, hi]) == EM_AMDGPU => Ok(Format::Elf),
            // A host file may carry kernels in `.hip_fatbin`.
            Some(&[_, _]) => Ok(Format::HostElf),
            _ => Err("a truncated ELF file".into()),
        };
    }
    if head.starts_with(BUNDLE_MAGIC) {
        return Ok(Format::Bundle);
    }
    if head.starts_with(b"!<arch>\n") {
        return Ok(Format::Archive);
    }
    if head.starts_with(COMPRESSED_BUNDLE_MAGIC) {
        return Ok(Format::CompressedBundle);
    }
    if head.starts_with(ENVELOPE_MAGIC) {
        return Ok(Format::Envelope);
    }
    Err("not a code object, offload bundle or code-object envelope".into())
}

/// One code object found, and what the scan made of it.
struct Object {
    file: PathBuf,
    format: Format,
    /// Its place among the code objects of its file (from 1) and their
    /// number.
    entry: (usize, usize),
    target_id: String,
    /// `None` when the interpreter does not run its processor; it is then
    /// not decoded.
    scan: Option<(Target, isa::Scan)>,
}

struct Skipped {
    file: PathBuf,
    reason: String,
}

struct Failure {
    file: PathBuf,
    message: String,
}

#[derive(Default)]
struct Report {
    objects: Vec<Object>,
    skipped: Vec<Skipped>,
    errors: Vec<Failure>,
}

impl Report {
    /// Scans a path named on the command line.
    fn add_path(&mut self, path: &Path) {
        match std::fs::metadata(path) {
            Ok(m) if m.is_dir() => self.add_folder(path),
            Ok(_) => self.add_file(path, true),
            Err(e) => self.error(path, format!("cannot read it: {e}")),
        }
    }

    fn add_folder(&mut self, folder: &Path) {
        let entries = match std::fs::read_dir(folder) {
            Ok(entries) => entries,
            Err(e) => return self.error(folder, format!("cannot list the folder: {e}")),
        };
        let mut paths = Vec::new();
        for entry in entries {
            match entry {
                Ok(entry) => paths.push(entry.path()),
                Err(e) => return self.error(folder, format!("cannot list the folder: {e}")),
            }
        }
        paths.sort();
        for path in paths {
            let link = std::fs::symlink_metadata(&path).map(|m| m.file_type().is_symlink());
            match (std::fs::metadata(&path), link) {
                (Ok(m), Ok(true)) if m.is_dir() => {
                    self.skip(&path, "a link to a folder (not followed)")
                }
                (Ok(m), _) if m.is_dir() => self.add_folder(&path),
                (Ok(m), _) if m.is_file() => self.add_file(&path, false),
                (Ok(_), _) => self.skip(&path, "not a regular file"),
                (Err(e), _) => self.error(&path, format!("cannot read it: {e}")),
            }
        }
    }

    /// Scans one file; `named` when the command line names it, where a
    /// file that holds no code object is an error rather than a skip.
    fn add_file(&mut self, path: &Path, named: bool) {
        let mut head = Vec::with_capacity(64);
        let opened = std::fs::File::open(path)
            .and_then(|f| f.take(ENVELOPE_MAGIC.len() as u64).read_to_end(&mut head));
        if let Err(e) = opened {
            return self.error(path, format!("cannot read it: {e}"));
        }
        let format = match sniff(&head) {
            Ok(format) => format,
            Err(reason) if named => return self.error(path, reason),
            Err(reason) => return self.skip(path, &reason),
        };
        let image = match std::fs::read(path) {
            Ok(image) => image,
            Err(e) => return self.error(path, format!("cannot read it: {e}")),
        };
        let entries = match code_object::code_objects(&image) {
            Ok(entries) => entries,
            // A host ELF without `.hip_fatbin`: no kernels, another machine's file.
            Err(_) if format == Format::HostElf => {
                let machine = u16::from_le_bytes([head[18], head[19]]);
                let reason = format!(
                    "an ELF file for another machine (e_machine {machine}) without .hip_fatbin"
                );
                return if named {
                    self.error(path, reason)
                } else {
                    self.skip(path, &reason)
                };
            }
            Err(e) => return self.error(path, format!("cannot read the {}: {e}", format.name())),
        };
        if entries.is_empty() {
            let reason = format!("a {} that holds no AMD GPU code object", format.name());
            return if named {
                self.error(path, reason)
            } else {
                self.skip(path, &reason)
            };
        }
        let n = entries.len();
        for (i, (target_id, elf)) in entries.into_iter().enumerate() {
            let scan = match Target::from_name(&target_id) {
                None => None,
                Some(target) => match CodeObject::parse(&elf) {
                    Ok(co) => Some((target, isa::scan(target, &co.code()))),
                    Err(e) => {
                        let where_ = if n > 1 {
                            format!(" (code object {} of {n}, {target_id})", i + 1)
                        } else {
                            String::new()
                        };
                        self.error(path, format!("cannot parse the code object{where_}: {e}"));
                        continue;
                    }
                },
            };
            self.objects.push(Object {
                file: path.to_path_buf(),
                format,
                entry: (i + 1, n),
                target_id,
                scan,
            });
        }
    }

    fn skip(&mut self, path: &Path, reason: &str) {
        self.skipped.push(Skipped {
            file: path.to_path_buf(),
            reason: reason.to_owned(),
        });
    }

    fn error(&mut self, path: &Path, message: String) {
        self.errors.push(Failure {
            file: path.to_path_buf(),
            message,
        });
    }

    /// The exit status: 2 for errors, else 1 when anything is not
    /// executed or not decodable, else 0.
    fn status(&self) -> u8 {
        if !self.errors.is_empty() {
            return 2;
        }
        let incomplete = self
            .objects
            .iter()
            .filter_map(|o| o.scan.as_ref())
            .any(|(_, s)| !s.undecoded.is_empty() || s.unsupported().next().is_some());
        u8::from(incomplete)
    }

    /// Per processor, in order of first appearance: the totals.
    fn summary(&self) -> Vec<Summary> {
        let mut out: Vec<Summary> = Vec::new();
        for o in &self.objects {
            let processor = o.target_id.split(':').next().unwrap_or(&o.target_id);
            let at = match out.iter().position(|s| s.processor == processor) {
                Some(at) => at,
                None => {
                    out.push(Summary {
                        processor: processor.to_owned(),
                        runs: o.scan.is_some(),
                        objects: 0,
                        total: 0,
                        instructions: BTreeMap::new(),
                        undecoded: 0,
                    });
                    out.len() - 1
                }
            };
            let s = &mut out[at];
            s.objects += 1;
            if let Some((_, scan)) = &o.scan {
                s.undecoded += scan.undecoded.len() as u64;
                for e in &scan.instructions {
                    s.total += e.count;
                    let t = s
                        .instructions
                        .entry(e.mnemonic.clone())
                        .or_insert_with(|| Tally {
                            count: 0,
                            objects: 0,
                            reason: e.unsupported.clone(),
                        });
                    t.count += e.count;
                    t.objects += 1;
                }
            }
        }
        out
    }

    fn text(&self) -> String {
        let mut out = String::new();
        for o in &self.objects {
            let _ = write!(out, "{}", o.file.display());
            if o.entry.1 > 1 {
                let _ = write!(out, " [{} {} of {}]", o.format.name(), o.entry.0, o.entry.1);
            } else if o.format != Format::Elf {
                let _ = write!(out, " [{}]", o.format.name());
            }
            let _ = writeln!(out, ": {}", o.target_id);
            let Some((_, scan)) = &o.scan else {
                let _ = writeln!(out, "  not scanned: {}", not_run(&o.target_id));
                continue;
            };
            let total: u64 = scan.instructions.iter().map(|e| e.count).sum();
            let missing: Vec<&isa::ScanEntry> = scan.unsupported().collect();
            let _ = writeln!(
                out,
                "  {} distinct instructions, {total} in all; {} not executed, {} undecodable words",
                scan.instructions.len(),
                missing.len(),
                scan.undecoded.len()
            );
            let rows: Vec<(&str, u64, Option<usize>, &str)> = missing
                .iter()
                .map(|e| {
                    let reason = e.unsupported.as_deref().unwrap_or_default();
                    (e.mnemonic.as_str(), e.count, None, reason)
                })
                .collect();
            table(&mut out, &rows);
            undecoded(&mut out, scan);
        }

        let _ = writeln!(out, "\nsummary:");
        if self.objects.is_empty() {
            let _ = writeln!(out, "  no code objects found");
        }
        for s in self.summary() {
            if !s.runs {
                let _ = writeln!(
                    out,
                    "  {}: {} code objects, not scanned ({})",
                    s.processor,
                    s.objects,
                    not_run(&s.processor)
                );
                continue;
            }
            let missing: Vec<(&String, &Tally)> = s.unsupported().collect();
            let _ = writeln!(
                out,
                "  {}: {} code objects, {} distinct instructions ({} in all), {} not executed, \
                 {} undecodable words",
                s.processor,
                s.objects,
                s.instructions.len(),
                s.total,
                missing.len(),
                s.undecoded
            );
            let rows: Vec<(&str, u64, Option<usize>, &str)> = missing
                .iter()
                .map(|(m, t)| {
                    let reason = t.reason.as_deref().unwrap_or_default();
                    (m.as_str(), t.count, Some(t.objects), reason)
                })
                .collect();
            table(&mut out, &rows);
        }
        if !self.skipped.is_empty() {
            let _ = writeln!(out, "  skipped {} files:", self.skipped.len());
            let mut by_reason: BTreeMap<&str, Vec<&Path>> = BTreeMap::new();
            for s in &self.skipped {
                by_reason.entry(&s.reason).or_default().push(&s.file);
            }
            // A folder of sources skips thousands: a few of each are
            // named here, every one in the JSON.
            const NAMED: usize = 5;
            for (reason, files) in by_reason {
                let _ = writeln!(out, "    {} {reason}:", files.len());
                for f in files.iter().take(NAMED) {
                    let _ = writeln!(out, "      {}", f.display());
                }
                if files.len() > NAMED {
                    let _ = writeln!(out, "      ... and {} more", files.len() - NAMED);
                }
            }
        }
        if !self.errors.is_empty() {
            let _ = writeln!(out, "  {} errors:", self.errors.len());
            for e in &self.errors {
                let _ = writeln!(out, "    {}: {}", e.file.display(), e.message);
            }
        }
        let verdict = match self.status() {
            0 => "every instruction found is executed by the interpreter",
            1 => "some instructions are not executed by the interpreter",
            _ => "some files could not be read",
        };
        let _ = writeln!(out, "  {verdict}");
        out
    }

    fn json(&self) -> String {
        let mut j = String::from("{\n  \"objects\": [");
        for (i, o) in self.objects.iter().enumerate() {
            j.push_str(if i == 0 { "\n    {" } else { ",\n    {" });
            let _ = write!(
                j,
                "\"file\": {}, \"format\": {}, \"entry\": {}, \"entries\": {}, \"target_id\": {}, ",
                string(&o.file.display().to_string()),
                string(o.format.name()),
                o.entry.0,
                o.entry.1,
                string(&o.target_id)
            );
            match &o.scan {
                None => {
                    let _ = write!(
                        j,
                        "\"scanned\": false, \"why_not\": {}}}",
                        string(&not_run(&o.target_id))
                    );
                }
                Some((target, scan)) => {
                    let total: u64 = scan.instructions.iter().map(|e| e.count).sum();
                    let _ = write!(
                        j,
                        "\"scanned\": true, \"target\": {}, \"distinct\": {}, \"total\": {total}, \
                         \"instructions\": [",
                        string(target.name()),
                        scan.instructions.len()
                    );
                    for (k, e) in scan.instructions.iter().enumerate() {
                        let reason = e.unsupported.as_deref().map_or("null".into(), string);
                        let _ = write!(
                            j,
                            "{}{{\"mnemonic\": {}, \"count\": {}, \"unsupported\": {reason}}}",
                            if k == 0 { "" } else { ", " },
                            string(&e.mnemonic),
                            e.count
                        );
                    }
                    j.push_str("], \"undecodable\": [");
                    for (k, (offset, word)) in scan.undecoded.iter().enumerate() {
                        let _ = write!(
                            j,
                            "{}{{\"offset\": {offset}, \"word\": {word}}}",
                            if k == 0 { "" } else { ", " }
                        );
                    }
                    j.push_str("]}");
                }
            }
        }
        j.push_str("\n  ],\n  \"summary\": [");
        for (i, s) in self.summary().iter().enumerate() {
            j.push_str(if i == 0 { "\n    {" } else { ",\n    {" });
            let _ = write!(
                j,
                "\"processor\": {}, \"scanned\": {}, \"objects\": {}",
                string(&s.processor),
                s.runs,
                s.objects
            );
            if s.runs {
                let _ = write!(
                    j,
                    ", \"distinct\": {}, \"total\": {}, \"undecodable\": {}, \"unsupported\": [",
                    s.instructions.len(),
                    s.total,
                    s.undecoded
                );
                for (k, (m, t)) in s.unsupported().enumerate() {
                    let _ = write!(
                        j,
                        "{}{{\"mnemonic\": {}, \"count\": {}, \"objects\": {}, \"reason\": {}}}",
                        if k == 0 { "" } else { ", " },
                        string(m),
                        t.count,
                        t.objects,
                        string(t.reason.as_deref().unwrap_or_default())
                    );
                }
                j.push(']');
            }
            j.push('}');
        }
        j.push_str("\n  ],\n  \"skipped\": [");
        for (i, s) in self.skipped.iter().enumerate() {
            let _ = write!(
                j,
                "{}\n    {{\"file\": {}, \"reason\": {}}}",
                if i == 0 { "" } else { "," },
                string(&s.file.display().to_string()),
                string(&s.reason)
            );
        }
        j.push_str("\n  ],\n  \"errors\": [");
        for (i, e) in self.errors.iter().enumerate() {
            let _ = write!(
                j,
                "{}\n    {{\"file\": {}, \"message\": {}}}",
                if i == 0 { "" } else { "," },
                string(&e.file.display().to_string()),
                string(&e.message)
            );
        }
        let _ = writeln!(j, "\n  ],\n  \"status\": {}\n}}", self.status());
        j
    }
}

/// One processor's totals over the code objects found.
struct Summary {
    processor: String,
    runs: bool,
    objects: usize,
    total: u64,
    instructions: BTreeMap<String, Tally>,
    undecoded: u64,
}

impl Summary {
    fn unsupported(&self) -> impl Iterator<Item = (&String, &Tally)> {
        self.instructions.iter().filter(|(_, t)| t.reason.is_some())
    }
}

/// One instruction over several code objects.
struct Tally {
    count: u64,
    objects: usize,
    reason: Option<String>,
}

/// Why a target id is not scanned.
fn not_run(target_id: &str) -> String {
    let runs: Vec<&str> = Target::ALL.iter().map(|t| t.name()).collect();
    let processor = target_id.split(':').next().unwrap_or(target_id);
    format!(
        "the interpreter runs {}, not {processor}",
        runs.join(" and ")
    )
}

/// Rows of (mnemonic, count, objects, reason), aligned.
fn table(out: &mut String, rows: &[(&str, u64, Option<usize>, &str)]) {
    let width = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
    let count_width = rows
        .iter()
        .map(|r| r.1.to_string().len())
        .max()
        .unwrap_or(0);
    for (mnemonic, count, objects, reason) in rows {
        let _ = write!(out, "    {mnemonic:<width$}  {count:>count_width$}");
        if let Some(objects) = objects {
            let _ = write!(out, "  in {objects:>3} objects");
        }
        let _ = writeln!(out, "  {reason}");
    }
}

/// The first few undecodable words of a scan.
fn undecoded(out: &mut String, scan: &isa::Scan) {
    const SHOWN: usize = 8;
    for (offset, word) in scan.undecoded.iter().take(SHOWN) {
        let _ = writeln!(
            out,
            "    undecodable word {word:#010x} at offset {offset:#x}"
        );
    }
    if scan.undecoded.len() > SHOWN {
        let _ = writeln!(out, "    ... and {} more", scan.undecoded.len() - SHOWN);
    }
}

/// `s` as a JSON string.
fn string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

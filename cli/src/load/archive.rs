//! Archives: jars (and wars, ears, zips), jmods, and archives nested inside them, all read from
//! memory. Entries are inflated in parallel, each rayon task with its own clone of the archive
//! over the shared buffer; every entry is read through `Read::take` so that the size limits hold
//! on the bytes actually inflated, whatever the archive declares.

use std::collections::BTreeMap;
use std::io::{self, Cursor, Read};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use rayon::prelude::*;
use zip::result::ZipError;
use zip::ZipArchive;

use super::entries::{classify, EntryKind, Format};
use super::files::io_reason;
use super::{size_limit, Found, Limits, Loaded};
use crate::diag::InputProblem;

/// The header in front of the zip in a `.jmod` file.
const JMOD_MAGIC: &[u8] = b"JM\x01\x00";

type Archive<'a> = ZipArchive<Cursor<&'a [u8]>>;

/// Loads a top-level archive file. When all its entries together inflate beyond
/// `max_total_bytes`, the whole input is skipped with one problem.
pub(super) fn load_archive_file(path: &Path, format: Format, limits: &Limits) -> Found {
    let display = path.display().to_string();
    let data = match std::fs::read(path) {
        Ok(data) => data,
        Err(err) => return Found::problem(InputProblem::error(display, io_reason(&err))),
    };
    let zip = match format {
        Format::Jar => data.as_slice(),
        Format::Jmod => match data.strip_prefix(JMOD_MAGIC) {
            Some(zip) => zip,
            None => {
                let reason = "not a jmod file (no JM header)";
                return Found::problem(InputProblem::error(display, reason));
            }
        },
    };
    let budget = Budget::new(limits);
    let found = load_archive(zip, &display, format, 0, &budget);
    if budget.exceeded() {
        let reason = format!(
            "archive inflates beyond the {} total limit; skipped",
            size_limit(limits.max_total_bytes)
        );
        return Found::problem(InputProblem::error(display, reason));
    }
    if found.classes.is_empty() && found.problems.is_empty() {
        return Found::problem(InputProblem::warning(display, "no class files found"));
    }
    found
}

/// The inflated bytes one top-level input may still use, shared by all its parallel tasks.
struct Budget<'a> {
    limits: &'a Limits,
    used: AtomicU64,
    exceeded: AtomicBool,
}

impl<'a> Budget<'a> {
    fn new(limits: &'a Limits) -> Self {
        Self {
            limits,
            used: AtomicU64::new(0),
            exceeded: AtomicBool::new(false),
        }
    }

    fn exceeded(&self) -> bool {
        self.exceeded.load(Ordering::Relaxed)
    }

    /// Counts `bytes` more inflated bytes; false once the total is over the limit.
    fn spend(&self, bytes: u64) -> bool {
        let used = self
            .used
            .fetch_add(bytes, Ordering::Relaxed)
            .saturating_add(bytes);
        if used > self.limits.max_total_bytes {
            self.exceeded.store(true, Ordering::Relaxed);
        }
        !self.exceeded()
    }
}

/// One entry worth reading: a class (the winning multi-release variant) or a nested archive.
struct Planned {
    index: usize,
    name: String,
    nested: bool,
}

/// Loads the archive in `data`, whose display path is `display`; `depth` is 0 for a top-level
/// archive and grows by one for each archive it is nested in.
fn load_archive(data: &[u8], display: &str, format: Format, depth: u32, budget: &Budget) -> Found {
    let archive = match ZipArchive::new(Cursor::new(data)) {
        Ok(archive) => archive,
        Err(err) => return Found::problem(InputProblem::error(display, archive_reason(&err))),
    };
    let parts: Vec<Found> = plan(&archive, format)
        .par_iter()
        .map_init(
            || archive.clone(),
            |archive, entry| load_entry(archive, entry, display, depth, budget),
        )
        .collect();
    let mut found = Found::default();
    parts.into_iter().for_each(|part| found.append(part));
    found
}

/// Why an archive cannot be opened, in words: zip's own messages ("Could not find EOCD") say
/// little to someone who gave a truncated download or a file that is not a zip.
fn archive_reason(err: &ZipError) -> String {
    match err {
        ZipError::InvalidArchive(_) => "truncated or not a zip archive".to_owned(),
        ZipError::Io(io) if io.kind() == io::ErrorKind::UnexpectedEof => {
            "truncated or not a zip archive".to_owned()
        }
        ZipError::UnsupportedArchive(what) => format!("unsupported zip archive: {what}"),
        other => format!("cannot read archive: {other}"),
    }
}

/// The entries to read, sorted by name (a multi-release variant sorts under its base name):
/// for each class, the variant with the highest version, and every nested archive.
fn plan(archive: &Archive, format: Format) -> Vec<Planned> {
    let mut chosen: BTreeMap<&str, (u32, Planned)> = BTreeMap::new();
    for (index, name) in archive.file_names().enumerate() {
        let (key, version, nested) = match classify(name, format) {
            EntryKind::Class { base, version } => (base, version, false),
            EntryKind::Archive => (name, 0, true),
            EntryKind::Ignored => continue,
        };
        let planned = Planned {
            index,
            name: name.to_owned(),
            nested,
        };
        match chosen.get(key) {
            Some((best, _)) if *best >= version => {}
            _ => {
                chosen.insert(key, (version, planned));
            }
        }
    }
    chosen.into_values().map(|(_, planned)| planned).collect()
}

fn load_entry(
    archive: &mut Archive,
    entry: &Planned,
    outer: &str,
    depth: u32,
    budget: &Budget,
) -> Found {
    let path = format!("{outer}!/{}", entry.name);
    let limits = budget.limits;
    if entry.nested && depth >= limits.max_nesting {
        let reason = format!(
            "archive nested deeper than {} levels; skipped",
            limits.max_nesting
        );
        return Found::problem(InputProblem::error(path, reason));
    }
    if budget.exceeded() {
        return Found::default();
    }
    let bytes = match inflate(archive, entry.index, budget) {
        Ok(bytes) => bytes,
        Err(err) => return err.into_found(path, limits),
    };
    if entry.nested {
        load_archive(&bytes, &path, Format::Jar, depth + 1, budget)
    } else {
        Found::class(Loaded { path, bytes })
    }
}

/// Why an entry could not be inflated.
enum InflateError {
    /// Declared or actual size over `max_entry_bytes`.
    TooLarge,
    /// The input as a whole went over `max_total_bytes` (reported once, for the input).
    OverBudget,
    Zip(ZipError),
    Io(io::Error),
}

impl InflateError {
    fn into_found(self, path: String, limits: &Limits) -> Found {
        let reason = match self {
            Self::OverBudget => return Found::default(),
            Self::TooLarge => format!(
                "entry inflates beyond the {} limit; skipped",
                size_limit(limits.max_entry_bytes)
            ),
            Self::Zip(err) => format!("cannot inflate entry: {err}"),
            Self::Io(err) => format!("cannot inflate entry: {err}"),
        };
        Found::problem(InputProblem::error(path, reason))
    }
}

/// Inflates entry `index`, reading at most `max_entry_bytes + 1` bytes whatever it declares.
fn inflate(archive: &mut Archive, index: usize, budget: &Budget) -> Result<Vec<u8>, InflateError> {
    let max = budget.limits.max_entry_bytes;
    let file = archive.by_index(index).map_err(InflateError::Zip)?;
    let declared = file.size();
    if declared > max {
        return Err(InflateError::TooLarge);
    }
    // Trust the declared size only for a first allocation of modest size.
    let capacity = declared.min(16 << 20);
    let mut bytes = Vec::with_capacity(usize::try_from(capacity).unwrap_or(0));
    file.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(InflateError::Io)?;
    let len = bytes.len() as u64;
    if len > max {
        return Err(InflateError::TooLarge);
    }
    if !budget.spend(len) {
        return Err(InflateError::OverBudget);
    }
    Ok(bytes)
}

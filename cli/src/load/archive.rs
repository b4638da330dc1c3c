//! Archives: jars (and wars, ears, zips), jmods, and archives nested inside them, all read from
//! memory. Entries are inflated in parallel, each rayon task with its own clone of the archive
//! over the shared buffer; every entry is streamed in bounded chunks (`budget::read_bounded`)
//! so that the limits and the scan's memory budget hold on the bytes actually inflated, whatever
//! the archive declares. An archive whose end is missing is read from its local headers
//! (`local`).

use std::collections::{BTreeMap, HashMap};
use std::io::{self, Cursor};
use std::path::Path;

use rayon::prelude::*;
use zip::result::ZipError;
use zip::ZipArchive;

use super::budget::{read_bounded, Held, InputWork, MemoryBudget, ReadError};
use super::entries::{classify, EntryKind, Format};
use super::files::io_reason;
use super::{local, size_limit, Found, Limits, Loaded};
use crate::diag::InputProblem;

/// The header in front of the zip in a `.jmod` file.
const JMOD_MAGIC: &[u8] = b"JM\x01\x00";

/// Most duplicate-entry notes for one archive; the rest are summed up in one note.
const MAX_DUPLICATE_NOTES: usize = 20;

type Archive<'a> = ZipArchive<Cursor<&'a [u8]>>;

/// What loading one top-level input shares: the limits, the scan's memory budget and the
/// input's inflation limit.
pub(super) struct Ctx<'a> {
    pub(super) limits: &'a Limits,
    pub(super) budget: &'a MemoryBudget,
    work: InputWork,
}

impl<'a> Ctx<'a> {
    pub(super) fn new(limits: &'a Limits, budget: &'a MemoryBudget) -> Self {
        Self {
            limits,
            budget,
            work: InputWork::new(limits.max_total_bytes),
        }
    }
}

/// Loads a top-level archive file. When all its entries together inflate beyond
/// `max_total_bytes`, the whole input is skipped with one problem.
pub(super) fn load_archive_file(
    path: &Path,
    format: Format,
    limits: &Limits,
    budget: &MemoryBudget,
) -> Found {
    let display = path.display().to_string();
    let data = match read_file(path, budget) {
        Ok(data) => data,
        Err(ReadError::OverBudget) => {
            let reason = format!(
                "the archive does not fit in what is left of the scan's memory budget ({}); skipped",
                size_limit(budget.limit())
            );
            return Found::problem(InputProblem::error(display, reason));
        }
        Err(ReadError::Io(err)) => {
            return Found::problem(InputProblem::error(display, io_reason(&err)))
        }
        Err(ReadError::TooLarge | ReadError::OverWork) => {
            return Found::problem(InputProblem::error(display, "the archive is too large"))
        }
    };
    let zip = match format {
        Format::Jar => data.bytes(),
        Format::Jmod => match data.bytes().strip_prefix(JMOD_MAGIC) {
            Some(zip) => zip,
            None => {
                let reason = "not a jmod file (no JM header)";
                return Found::problem(InputProblem::error(display, reason));
            }
        },
    };
    let cx = Ctx::new(limits, budget);
    let mut found = load_archive(zip, &display, format, 0, &cx);
    drop(data);
    if cx.work.exceeded() {
        found.release(budget);
        let reason = format!(
            "archive inflates beyond the {} total limit; skipped",
            size_limit(limits.max_total_bytes)
        );
        return Found::problem(InputProblem::error(display, reason));
    }
    found.report_over_budget(&display, budget);
    found.report_too_deep(limits);
    if found.classes.is_empty() && found.problems.is_empty() {
        return Found::problem(InputProblem::warning(display, "no class files found"));
    }
    found
}

/// A file read into memory, paid from the budget.
fn read_file<'b>(path: &Path, budget: &'b MemoryBudget) -> Result<Held<'b>, ReadError> {
    let mut file = std::fs::File::open(path).map_err(ReadError::Io)?;
    let declared = file.metadata().map_err(ReadError::Io)?.len();
    read_bounded(&mut file, declared, u64::MAX - 1, budget, None)
}

/// One entry worth reading: a class (the winning multi-release variant) or a nested archive.
struct Planned {
    index: usize,
    name: String,
    nested: bool,
}

/// Loads the archive in `data`, whose display path is `display`; `depth` is 0 for a top-level
/// archive and grows by one for each archive it is nested in.
fn load_archive(data: &[u8], display: &str, format: Format, depth: u32, cx: &Ctx) -> Found {
    let archive = match ZipArchive::new(Cursor::new(data)) {
        Ok(archive) => archive,
        Err(err) if local::starts_like_zip(data) && is_missing_end(&err) => {
            return load_truncated(data, display, format, depth, cx)
        }
        Err(err) => {
            return Found::problem(InputProblem::error(display, archive_reason(data, &err)))
        }
    };
    let mut found = Found::default();
    if depth == 0 {
        let main_class = match format {
            Format::Jar => main_class(&mut archive.clone()),
            Format::Jmod => None,
        };
        found.packages.push(super::Packaging {
            path: display.to_string(),
            main_class,
        });
    }
    found
        .problems
        .extend(duplicate_notes(data, &archive, display, format));
    let mut planned = plan(archive.file_names().enumerate(), format);
    if depth >= cx.limits.max_nesting {
        // Archives nested too deep, counted without being touched (a nested bomb has a million).
        let mut deep = planned.iter().filter(|entry| entry.nested);
        if let Some(first) = deep.next() {
            let mut skipped = nesting_problem(format!("{display}!/{}", first.name));
            skipped.too_deep += u32::try_from(deep.count()).unwrap_or(u32::MAX - 1);
            found.append(skipped);
        }
        planned.retain(|entry| !entry.nested);
    }
    let parts: Vec<Found> = planned
        .par_iter()
        .map_init(
            || archive.clone(),
            |archive, entry| load_entry(archive, entry, display, depth, cx),
        )
        .collect();
    parts.into_iter().for_each(|part| found.append(part));
    found
}

/// The `Main-Class` of a jar's manifest (binary name with slashes), when it has one. A manifest
/// that cannot be read, or is larger than any real one (64 KiB), names none.
fn main_class(archive: &mut Archive) -> Option<String> {
    use std::io::Read;
    let entry = archive.by_name("META-INF/MANIFEST.MF").ok()?;
    let mut text = String::new();
    entry.take(64 * 1024).read_to_string(&mut text).ok()?;
    main_class_of(&text)
}

/// `Main-Class` in a manifest's main section: a header line, continued on the lines that start
/// with one space (the jar specification's 72-byte lines).
pub(super) fn main_class_of(manifest: &str) -> Option<String> {
    let mut value: Option<String> = None;
    for line in manifest.lines() {
        let line = line.trim_end_matches('\r');
        if line.is_empty() {
            break; // the main section ends at the first blank line
        }
        if let Some(rest) = line.strip_prefix(' ') {
            if let Some(v) = value.as_mut() {
                v.push_str(rest);
            }
            continue;
        }
        if value.is_some() {
            break;
        }
        if let Some((name, v)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("Main-Class") {
                value = Some(v.trim().to_string());
            }
        }
    }
    value
        .map(|v| v.trim().replace('.', "/"))
        .filter(|v| !v.is_empty())
}

/// Whether zip could not open an archive because its end (the central directory) is missing.
fn is_missing_end(err: &ZipError) -> bool {
    match err {
        ZipError::InvalidArchive(_) => true,
        ZipError::Io(io) => io.kind() == io::ErrorKind::UnexpectedEof,
        _ => false,
    }
}

/// Why an archive cannot be opened, in words: zip's own messages ("Could not find EOCD") say
/// little to someone who gave a truncated download or a file that is not a zip.
fn archive_reason(data: &[u8], err: &ZipError) -> String {
    match err {
        _ if is_missing_end(err) && !local::starts_like_zip(data) => {
            "not a zip archive (no zip header at its start nor directory at its end)".to_owned()
        }
        _ if is_missing_end(err) => "truncated or corrupt zip archive".to_owned(),
        ZipError::UnsupportedArchive(what) => format!("unsupported zip archive: {what}"),
        other => format!("cannot read archive: {other}"),
    }
}

/// The entries to read, sorted by name (a multi-release variant sorts under its base name):
/// for each class, the variant with the highest version, and every nested archive.
fn plan<'n>(names: impl Iterator<Item = (usize, &'n str)>, format: Format) -> Vec<Planned> {
    let mut chosen: BTreeMap<&str, (u32, Planned)> = BTreeMap::new();
    for (index, name) in names {
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
            // Of equal versions (one name given twice), the last copy wins.
            Some((best, _)) if *best > version => {}
            _ => {
                chosen.insert(key, (version, planned));
            }
        }
    }
    chosen.into_values().map(|(_, planned)| planned).collect()
}

/// One note per class or nested archive whose name the archive holds more than once (zip keeps
/// the last copy of a name; say so), read off the central directory.
fn duplicate_notes(
    data: &[u8],
    archive: &Archive,
    display: &str,
    format: Format,
) -> Vec<InputProblem> {
    const CENTRAL_HEADER: [u8; 4] = [0x50, 0x4b, 0x01, 0x02];
    let mut at = usize::try_from(
        archive
            .offset()
            .saturating_add(archive.central_directory_start()),
    )
    .unwrap_or(usize::MAX);
    let mut counts: HashMap<&[u8], u32> = HashMap::new();
    let mut total = 0usize;
    while data.get(at..at.saturating_add(4)) == Some(&CENTRAL_HEADER[..]) {
        let field = |off: usize| {
            data.get(at + off..at + off + 2)
                .map_or(0, |b| usize::from(u16::from_le_bytes([b[0], b[1]])))
        };
        let (name_len, extra_len, comment_len) = (field(28), field(30), field(32));
        let Some(name) = data.get(at + 46..at + 46 + name_len) else {
            break;
        };
        *counts.entry(name).or_default() += 1;
        total += 1;
        at += 46 + name_len + extra_len + comment_len;
    }
    if total <= archive.len() {
        return Vec::new();
    }
    let mut duplicated: Vec<(String, u32)> = counts
        .into_iter()
        .filter(|&(_, count)| count > 1)
        .map(|(name, count)| (String::from_utf8_lossy(name).into_owned(), count))
        .filter(|(name, _)| classify(name, format) != EntryKind::Ignored)
        .collect();
    duplicated.sort();
    let mut notes: Vec<InputProblem> = duplicated
        .iter()
        .take(MAX_DUPLICATE_NOTES)
        .map(|(name, count)| {
            InputProblem::note(
                format!("{display}!/{name}"),
                format!(
                    "the archive holds {count} entries of this name; the last one was used, \
                     the other {} ignored",
                    count - 1
                ),
            )
        })
        .collect();
    if duplicated.len() > MAX_DUPLICATE_NOTES {
        notes.push(InputProblem::note(
            display,
            format!(
                "{} more entry names occur more than once; the last copy of each was used",
                duplicated.len() - MAX_DUPLICATE_NOTES
            ),
        ));
    }
    notes
}

fn load_entry(archive: &mut Archive, entry: &Planned, outer: &str, depth: u32, cx: &Ctx) -> Found {
    let path = format!("{outer}!/{}", entry.name);
    if entry.nested && depth >= cx.limits.max_nesting {
        return nesting_problem(path);
    }
    if cx.work.exceeded() {
        return Found::default();
    }
    let max = entry_limit(entry.nested, cx.limits);
    let read = match archive.by_index(entry.index) {
        Ok(mut file) => {
            let declared = file.size();
            read_bounded(&mut file, declared, max, cx.budget, Some(&cx.work))
        }
        Err(err) => return Found::problem(InputProblem::error(path, entry_reason(&err))),
    };
    entry_found(read, path, entry.nested, depth, cx)
}

/// The most bytes an entry may inflate to: a class file, or a nested archive.
fn entry_limit(nested: bool, limits: &Limits) -> u64 {
    if nested {
        limits.max_entry_bytes
    } else {
        limits.max_class_bytes
    }
}

fn nesting_problem(path: String) -> Found {
    Found::too_deep(path)
}

/// What one inflated entry yields: a class, the contents of a nested archive, or a problem.
fn entry_found(
    read: Result<Held, ReadError>,
    path: String,
    nested: bool,
    depth: u32,
    cx: &Ctx,
) -> Found {
    let limits = cx.limits;
    let reason = match read {
        Ok(held) if nested => {
            // The nested archive's bytes are held (and charged) only while it is read.
            return load_archive(held.bytes(), &path, Format::Jar, depth + 1, cx);
        }
        Ok(held) => {
            let (bytes, charged) = held.keep();
            return Found::class(Loaded {
                path,
                bytes,
                charged,
            });
        }
        // Reported once, for the input.
        Err(ReadError::OverWork) => return Found::default(),
        Err(ReadError::OverBudget) => return Found::over_budget(),
        Err(ReadError::TooLarge) if nested => format!(
            "nested archive inflates beyond the {} limit; skipped",
            size_limit(limits.max_entry_bytes)
        ),
        Err(ReadError::TooLarge) => format!(
            "entry inflates beyond {}, more than any class file can be; skipped",
            size_limit(limits.max_class_bytes)
        ),
        Err(ReadError::Io(err)) => format!("cannot inflate entry: {}", inflate_reason(&err)),
    };
    Found::problem(InputProblem::error(path, reason))
}

fn entry_reason(err: &ZipError) -> String {
    match err {
        ZipError::Io(io) => format!("cannot read entry: {}", inflate_reason(io)),
        ZipError::UnsupportedArchive(what) => format!("unsupported entry: {what}"),
        other => format!("cannot read entry: {other}"),
    }
}

fn inflate_reason(err: &io::Error) -> String {
    match err.kind() {
        io::ErrorKind::UnexpectedEof => "its data ends early".to_owned(),
        io::ErrorKind::InvalidData => format!("corrupt data ({err})"),
        _ => err.to_string(),
    }
}

/// An archive whose central directory is missing: the entries before the cut, read from their
/// local headers, and one problem saying the archive is truncated.
fn load_truncated(data: &[u8], display: &str, format: Format, depth: u32, cx: &Ctx) -> Found {
    let want = |name: &str| match classify(name, format) {
        EntryKind::Ignored => None,
        EntryKind::Archive => Some(cx.limits.max_entry_bytes),
        EntryKind::Class { .. } => Some(cx.limits.max_class_bytes),
    };
    let recovered = local::recover(data, &want, cx.budget, &cx.work);
    if recovered.over_work {
        return Found::default(); // reported once, for the input
    }
    let names: Vec<&str> = recovered
        .entries
        .iter()
        .map(|entry| entry.name.as_str())
        .collect();
    let planned = plan(names.iter().copied().enumerate(), format);
    let mut slots: Vec<Option<Result<Held, ReadError>>> = recovered
        .entries
        .into_iter()
        .map(|entry| Some(entry.data))
        .collect();
    let mut found = Found::default();
    let mut read = 0usize;
    for entry in &planned {
        let path = format!("{display}!/{}", entry.name);
        let Some(data) = slots.get_mut(entry.index).and_then(Option::take) else {
            continue;
        };
        if entry.nested && depth >= cx.limits.max_nesting {
            found.append(nesting_problem(path));
            continue;
        }
        read += usize::from(data.is_ok());
        found.append(entry_found(data, path, entry.nested, depth, cx));
    }
    let after = match &recovered.cut_at {
        Some(name) => format!("; entry {name} and everything after it are lost"),
        None if recovered.reached_directory => {
            "; only part of the directory after them is left, so no entry seems lost".to_owned()
        }
        None => "; nothing after them could be read".to_owned(),
    };
    let whole = recovered.whole;
    let reason = format!(
        "the archive is truncated (its end, with the directory of its entries, is missing): \
         {whole} whole {} ({read} {}){after}",
        if whole == 1 {
            "entry was read from its local header"
        } else {
            "entries were read from their local headers"
        },
        if read == 1 {
            "class or nested archive"
        } else {
            "classes or nested archives"
        },
    );
    found
        .problems
        .insert(0, InputProblem::error(display, reason));
    found
}

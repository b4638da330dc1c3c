//! The file system side: walking directories for `.class` files, reading single class files,
//! and turning I/O errors into problem reasons.

use std::fs::{File, Metadata};
use std::io;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use walkdir::WalkDir;

use super::archive::load_archive_file;
use super::budget::{read_bounded, MemoryBudget, ReadError};
use super::entries::{has_ext, is_class, Format};
use super::{size_limit, Found, Limits, Loaded};
use crate::diag::InputProblem;

/// Every `.class` file and archive under `root` (except `module-info.class`), in walk order:
/// depth first, siblings sorted by file name. Symbolic links are followed; loops among them are
/// reported as notes and not followed. Archives found in the tree (a `lib/` of jars, the JDK's
/// `jmods/`) are loaded like archives given directly. Something with such a name that is not a
/// regular file (a FIFO, a device, a socket) is reported, never opened.
pub(super) fn load_dir(root: &Path, limits: &Limits, budget: &MemoryBudget) -> Found {
    let (paths, mut problems) = walk_classes(root);
    let read: Vec<Found> = paths
        .par_iter()
        .map(|path| {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default();
            match Format::from_file_name(&name) {
                Some(format) => load_archive_file(path, format, limits, budget),
                None => load_class_file(path, limits.max_class_bytes, budget),
            }
        })
        .collect();
    let mut found = Found::default();
    found.problems.append(&mut problems);
    read.into_iter().for_each(|f| found.append(f));
    found
}

fn walk_classes(root: &Path) -> (Vec<PathBuf>, Vec<InputProblem>) {
    let mut paths = Vec::new();
    let mut problems = Vec::new();
    let walk = WalkDir::new(root).follow_links(true).sort_by_file_name();
    for entry in walk {
        let entry = match entry {
            Ok(entry) => entry,
            Err(err) => {
                problems.push(walk_problem(root, &err));
                continue;
            }
        };
        let name = entry.file_name().to_string_lossy();
        let wanted = is_class(&name) || Format::from_file_name(&name).is_some();
        if !wanted || entry.file_type().is_dir() {
            continue;
        }
        if entry.file_type().is_file() {
            paths.push(entry.into_path());
            continue;
        }
        let display = entry.path().display().to_string();
        match entry.metadata() {
            Ok(metadata) => problems.push(not_regular(display, &metadata)),
            Err(err) => problems.push(walk_problem(root, &err)),
        }
    }
    (paths, problems)
}

fn walk_problem(root: &Path, err: &walkdir::Error) -> InputProblem {
    let path = err.path().unwrap_or(root).display().to_string();
    if let Some(ancestor) = err.loop_ancestor() {
        let reason = format!(
            "symbolic link loop back to {}; not followed",
            ancestor.display()
        );
        return InputProblem::note(path, reason);
    }
    let reason = match err.io_error() {
        Some(io) => io_reason(io),
        None => err.to_string(),
    };
    InputProblem::error(path, reason)
}

/// A path with a class or archive name that is not a regular file: skipped, never opened (a
/// FIFO would block the scan, a device would never end).
pub(super) fn not_regular(display: String, metadata: &Metadata) -> InputProblem {
    let what = file_kind(metadata);
    let name_kind = if has_ext(&display, "class") {
        "a class file"
    } else {
        "an archive"
    };
    InputProblem::error(
        display,
        format!("is {what}, not a regular file, though named like {name_kind}; skipped"),
    )
}

fn file_kind(metadata: &Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let kind = metadata.file_type();
        if kind.is_fifo() {
            return "a named pipe (FIFO)";
        }
        if kind.is_char_device() {
            return "a character device";
        }
        if kind.is_block_device() {
            return "a block device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    if metadata.is_dir() {
        "a directory"
    } else {
        "a special file"
    }
}

/// One class file read from disk, as is (it is not parsed here), paid from the memory budget.
pub(super) fn load_class_file(path: &Path, max_class_bytes: u64, budget: &MemoryBudget) -> Found {
    let display = path.display().to_string();
    let read = File::open(path)
        .map_err(ReadError::Io)
        .and_then(|mut file| {
            let declared = file.metadata().map_err(ReadError::Io)?.len();
            read_bounded(&mut file, declared, max_class_bytes, budget, None)
        });
    match read {
        Ok(held) => {
            let (bytes, charged) = held.keep();
            Found::class(Loaded {
                path: display,
                bytes,
                charged,
            })
        }
        Err(ReadError::TooLarge | ReadError::OverWork) => {
            let reason = format!(
                "is larger than {}, more than any class file can be; skipped",
                size_limit(max_class_bytes)
            );
            Found::problem(InputProblem::error(display, reason))
        }
        Err(ReadError::OverBudget) => Found::over_budget(),
        Err(ReadError::Io(err)) => Found::problem(InputProblem::error(display, io_reason(&err))),
    }
}

/// A problem reason for an I/O error: the OS error text, with a plain wording for a missing path.
pub(super) fn io_reason(err: &io::Error) -> String {
    match err.kind() {
        io::ErrorKind::NotFound => "no such file or directory".to_owned(),
        _ => format!("cannot read: {err}"),
    }
}

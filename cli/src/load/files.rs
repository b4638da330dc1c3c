//! The file system side: walking directories for `.class` files, reading single class files,
//! and turning I/O errors into problem reasons.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use walkdir::WalkDir;

use super::archive::load_archive_file;
use super::entries::{is_class, Format};
use super::{size_limit, Found, Limits, Loaded};
use crate::diag::InputProblem;

/// Every `.class` file and archive under `root` (except `module-info.class`), in walk order:
/// depth first, siblings sorted by file name. Symbolic links are followed; loops among them are
/// reported as notes and not followed. Archives found in the tree (a `lib/` of jars, the JDK's
/// `jmods/`) are loaded like archives given directly.
pub(super) fn load_dir(root: &Path, limits: &Limits) -> Found {
    let (paths, mut problems) = walk_classes(root);
    let read: Vec<Found> = paths
        .par_iter()
        .map(|path| {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default();
            match Format::from_file_name(&name) {
                Some(format) => load_archive_file(path, format, limits),
                None => load_class_file(path, limits.max_entry_bytes),
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
        match entry {
            Ok(entry)
                if entry.file_type().is_file() && {
                    let name = entry.file_name().to_string_lossy();
                    is_class(&name) || Format::from_file_name(&name).is_some()
                } =>
            {
                paths.push(entry.into_path());
            }
            Ok(_) => {}
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

/// One class file read from disk, as is (it is not parsed here).
pub(super) fn load_class_file(path: &Path, max_entry_bytes: u64) -> Found {
    let display = path.display().to_string();
    match read_limited(path, max_entry_bytes) {
        Ok(Some(bytes)) => Found::class(Loaded {
            path: display,
            bytes,
        }),
        Ok(None) => {
            let reason = format!(
                "is larger than the {} limit; skipped",
                size_limit(max_entry_bytes)
            );
            Found::problem(InputProblem::error(display, reason))
        }
        Err(err) => Found::problem(InputProblem::error(display, io_reason(&err))),
    }
}

/// The whole file, or `None` when it is larger than `max` bytes (checked on the bytes actually
/// read, not only on the size the file system reports).
fn read_limited(path: &Path, max: u64) -> io::Result<Option<Vec<u8>>> {
    let file = File::open(path)?;
    let declared = file.metadata()?.len();
    if declared > max {
        return Ok(None);
    }
    let mut bytes = Vec::with_capacity(usize::try_from(declared).unwrap_or(0));
    file.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= max).then_some(bytes))
}

/// A problem reason for an I/O error: the OS error text, with a plain wording for a missing path.
pub(super) fn io_reason(err: &io::Error) -> String {
    match err.kind() {
        io::ErrorKind::NotFound => "no such file or directory".to_owned(),
        _ => format!("cannot read: {err}"),
    }
}

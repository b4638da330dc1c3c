//! Finding class files: directories, `.class` files, archives (nested, multi-release), and the
//! `--classpath`. Pure I/O and unpacking: nothing here parses a class.
//!
//! Contract (relied on by `pipeline`):
//! - `RawClass::order` sorts classes in argument order: the first input given comes first,
//!   then `--classpath` entries after all scanned inputs, each in the order given; inside a
//!   directory or archive, in a stable (sorted) order. The pipeline keeps the first class of a
//!   given name in this order.
//! - Every problem is reported once in `LoadOutput::problems` with its display path; nothing
//!   here panics or stops on bad input.
//!
//! Submodules:
//! - `classpath`: [`parse_classpath`], splitting `--classpath` and expanding `@file`s.
//! - `files`: the file system: walking directories for `.class` files (sorted by file name,
//!   symbolic links followed, loops reported) and reading single class files.
//! - `archive`: jars, wars, ears, zips and jmods read into memory and inflated in parallel,
//!   archives nested inside them (`BOOT-INF/lib/*.jar`, ...) opened from memory, and the
//!   [`Limits`] enforced on the bytes actually inflated.
//! - `budget`: the scan's memory budget (bytes held at one time, shared by all inputs), the
//!   inflation limit of one input, and reading in bounded chunks paid for before they are
//!   allocated.
//! - `local`: reading a truncated archive's entries from their local headers.
//! - `entries`: what an archive entry name means (class, multi-release variant, nested archive,
//!   or ignored), as pure string logic.
//!
//! Inputs are loaded in parallel (rayon) and their results put back in argument order, so the
//! output does not depend on scheduling. Directories contribute their `.class` files and the
//! archives in them (a `lib/` of jars, the JDK's `jmods/`); archives
//! are recognised by extension (`.jar`, `.war`, `.ear`, `.zip`, `.jmod`), and inside archives
//! `.jar`, `.war` and `.zip` entries are nested archives. An archive inside a top-level archive
//! is nested one level deep; deeper than [`Limits::max_nesting`] is skipped with a problem.

mod archive;
mod budget;
mod classpath;
mod entries;
mod files;
mod local;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod testutil;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

pub use classpath::{parse_classpath, ClasspathError};

use crate::diag::InputProblem;
use budget::MemoryBudget;
use entries::{has_ext, Format};

const MIB: u64 = 1 << 20;

/// Bounds on what loading may read and hold, against zip bombs, runaway nesting and inputs
/// larger than the machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// How deep archives may nest inside archives (an archive inside a top-level archive is
    /// one level). Default 4.
    pub max_nesting: u32,
    /// The most bytes one class file may have, on disk or inflated. Default 64 MiB: no compiler
    /// writes class files near that size (the JVM's own limits, 65,535 constants, methods and
    /// fields and 64 KiB of code per method, keep real ones far smaller; the JDK's largest is
    /// under 1 MiB), so a bigger one is not a class file.
    pub max_class_bytes: u64,
    /// The most bytes one nested archive may inflate to. Default 512 MiB.
    pub max_entry_bytes: u64,
    /// The most bytes one top-level input may inflate in total, whether kept or not (the time a
    /// zip bomb may cost). Default 4 GiB.
    pub max_total_bytes: u64,
    /// The scan's memory budget: the most bytes loading holds at one time, over all inputs
    /// (archive files, nested archives being read, class files kept for the parser). What does
    /// not fit is reported and skipped. Default 1 GiB.
    pub memory_budget: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_nesting: 4,
            max_class_bytes: 64 * MIB,
            max_entry_bytes: 512 * MIB,
            max_total_bytes: 4096 * MIB,
            memory_budget: 1024 * MIB,
        }
    }
}

/// The bytes of one class file, not parsed yet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawClass {
    /// Display path: `dir/com/x/Y.class`, or `app.jar!/BOOT-INF/lib/dep.jar!/com/x/Y.class`
    /// inside archives.
    pub path: String,
    pub bytes: Vec<u8>,
    /// True when it came from `--classpath`: it serves the hierarchy and summaries, and is never
    /// reported on.
    pub library: bool,
    /// (index of the input in argument order, with `--classpath` entries after all scanned
    /// inputs; index inside that input in a stable sorted order).
    pub order: (u32, u32),
}

/// A scanned top-level archive and how it is packaged: a jar's `Main-Class` (binary name with
/// slashes) makes it an application; a jar without one, or a jmod, is a library.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Packaging {
    /// Display path, the prefix of its classes' paths (`app.jar` for `app.jar!/com/x/Y.class`).
    pub path: String,
    pub main_class: Option<String>,
}

/// Everything loaded, and every problem met on the way.
#[derive(Clone, Debug, Default)]
pub struct LoadOutput {
    /// Sorted by [`RawClass::order`].
    pub classes: Vec<RawClass>,
    /// The scanned top-level archives, in input order.
    pub packages: Vec<Packaging>,
    /// Each problem once, in input order.
    pub problems: Vec<InputProblem>,
}

/// Loads every class file from the scanned `inputs` and from the `classpath` (marked
/// [`RawClass::library`]). Bad inputs are reported in [`LoadOutput::problems`] and the rest
/// goes on.
pub fn load(inputs: &[PathBuf], classpath: &[PathBuf], limits: &Limits) -> LoadOutput {
    let each = load_each(inputs, classpath, limits, &|_| false);
    let mut output = LoadOutput::default();
    let mut seen = HashSet::new();
    for one in each.into_iter().flatten() {
        output.classes.extend(one.classes);
        output.packages.extend(one.packages);
        for problem in one.problems {
            if seen.insert(problem_key(&problem)) {
                output.problems.push(problem);
            }
        }
    }
    output.classes.sort_by_key(|class| class.order);
    output
}

/// What one top-level input (a scanned input or a `--classpath` entry) yielded.
#[derive(Clone, Debug, Default)]
pub struct InputLoad {
    /// In [`RawClass::order`].
    pub classes: Vec<RawClass>,
    /// Its packaging when it is a scanned top-level archive (empty for the classpath).
    pub packages: Vec<Packaging>,
    /// Its problems, in order (a classpath archive's warnings already made notes).
    pub problems: Vec<InputProblem>,
}

/// The key that [`load`] de-duplicates problems by across inputs (the same archive named
/// twice reports its problems once).
pub fn problem_key(problem: &InputProblem) -> (crate::diag::Severity, String, String) {
    (
        problem.severity,
        problem.path.clone(),
        problem.reason.clone(),
    )
}

/// Loads each input on its own, in parallel: one entry per input in argument order (the scanned
/// `inputs`, then the `classpath`), `None` for the inputs `skip` names by that index (the
/// pipeline found them in the cache). [`load`] is this and the merge.
pub fn load_each(
    inputs: &[PathBuf],
    classpath: &[PathBuf],
    limits: &Limits,
    skip: &(dyn Fn(usize) -> bool + Sync),
) -> Vec<Option<InputLoad>> {
    let budget = MemoryBudget::new(limits.memory_budget);
    let jobs: Vec<(&Path, Role)> = inputs
        .iter()
        .map(|path| (path.as_path(), Role::Scanned))
        .chain(classpath.iter().map(|path| (path.as_path(), Role::Library)))
        .collect();
    let results: Vec<Option<Found>> = jobs
        .par_iter()
        .enumerate()
        .map(|(i, &(path, role))| (!skip(i)).then(|| load_input(path, role, limits, &budget)))
        .collect();
    results
        .into_iter()
        .zip(jobs)
        .enumerate()
        .map(|(input, (found, (_, role)))| {
            let found = found?;
            let input = index_u32(input);
            let classes = found
                .classes
                .into_iter()
                .enumerate()
                .map(|(i, loaded)| RawClass {
                    path: loaded.path,
                    bytes: loaded.bytes,
                    library: role == Role::Library,
                    order: (input, index_u32(i)),
                })
                .collect();
            let packages = if role == Role::Scanned {
                found.packages
            } else {
                Vec::new()
            };
            let problems = found
                .problems
                .into_iter()
                .map(|mut problem| {
                    // An archive without classes on the classpath (resources, a BOM) is ordinary.
                    if role == Role::Library && problem.severity == crate::diag::Severity::Warning {
                        problem.severity = crate::diag::Severity::Note;
                    }
                    problem
                })
                .collect();
            Some(InputLoad {
                classes,
                packages,
                problems,
            })
        })
        .collect()
}

/// Whether a file name is one of an archive [`load`] opens (`.jar`, `.war`, `.ear`, `.zip`,
/// `.jmod`).
pub fn is_archive_name(name: &str) -> bool {
    Format::from_file_name(name).is_some()
}

/// Whether an input is scanned (reported on) or only on the classpath.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Scanned,
    Library,
}

fn load_input(path: &Path, role: Role, limits: &Limits, budget: &MemoryBudget) -> Found {
    let display = path.display().to_string();
    let metadata = match std::fs::metadata(path) {
        Ok(metadata) => metadata,
        Err(err) => return Found::problem(InputProblem::error(display, files::io_reason(&err))),
    };
    if metadata.is_dir() {
        return load_dir(path, role, limits, budget);
    }
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy())
        .unwrap_or_default();
    let known = has_ext(&name, "class") || Format::from_file_name(&name).is_some();
    if known && !metadata.is_file() {
        return Found::problem(files::not_regular(display, &metadata));
    }
    if has_ext(&name, "class") {
        if entries::is_class(&name) {
            let mut found = files::load_class_file(path, limits.max_class_bytes, budget);
            found.report_over_budget(&display, budget);
            return found;
        }
        return Found::default(); // module-info.class
    }
    match Format::from_file_name(&name) {
        Some(format) => archive::load_archive_file(path, format, limits, budget),
        None => Found::problem(InputProblem::error(
            display,
            "not a class file, directory or archive (.jar, .war, .ear, .zip, .jmod)",
        )),
    }
}

fn load_dir(path: &Path, role: Role, limits: &Limits, budget: &MemoryBudget) -> Found {
    let mut found = files::load_dir(path, limits, budget);
    found.report_over_budget(&path.display().to_string(), budget);
    if !found.classes.is_empty() || !found.problems.is_empty() {
        return found;
    }
    let display = path.display().to_string();
    let problem = match role {
        Role::Scanned => InputProblem::warning(display, "no class files found"),
        Role::Library => InputProblem::note(display, "no class files found"),
    };
    Found::problem(problem)
}

/// A class found inside one input, before it is numbered.
#[derive(Debug)]
struct Loaded {
    path: String,
    bytes: Vec<u8>,
    /// What its bytes cost the memory budget (given back if the class is dropped).
    charged: u64,
}

/// What one input (or part of one) yielded, in its stable order.
#[derive(Debug, Default)]
struct Found {
    classes: Vec<Loaded>,
    problems: Vec<InputProblem>,
    /// The top-level archive's packaging (one at most).
    packages: Vec<Packaging>,
    /// Entries or files skipped because the memory budget could not pay for them (reported
    /// once per top-level input, see [`Found::report_over_budget`]).
    over_budget: u32,
    /// Archives nested deeper than the limit, and the first of them (reported once per
    /// top-level input: a nested bomb holds a million of them).
    too_deep: u32,
    first_too_deep: Option<String>,
}

impl Found {
    fn class(loaded: Loaded) -> Self {
        Self {
            classes: vec![loaded],
            ..Self::default()
        }
    }

    fn problem(problem: InputProblem) -> Self {
        Self {
            problems: vec![problem],
            ..Self::default()
        }
    }

    fn over_budget() -> Self {
        Self {
            over_budget: 1,
            ..Self::default()
        }
    }

    fn append(&mut self, mut other: Found) {
        self.classes.append(&mut other.classes);
        self.packages.append(&mut other.packages);
        self.problems.append(&mut other.problems);
        self.over_budget = self.over_budget.saturating_add(other.over_budget);
        self.too_deep = self.too_deep.saturating_add(other.too_deep);
        if self.first_too_deep.is_none() {
            self.first_too_deep = other.first_too_deep;
        }
    }

    fn too_deep(path: String) -> Self {
        Self {
            too_deep: 1,
            first_too_deep: Some(path),
            ..Self::default()
        }
    }

    /// One problem for the archives nested too deep, by the path of the first of them.
    fn report_too_deep(&mut self, limits: &Limits) {
        let count = std::mem::take(&mut self.too_deep);
        let Some(first) = self.first_too_deep.take() else {
            return;
        };
        let more = match count.saturating_sub(1) {
            0 => String::new(),
            more => format!(", with {more} more archives nested as deep in this input"),
        };
        let reason = format!(
            "archive nested deeper than {} levels; skipped{more}",
            limits.max_nesting
        );
        self.problems.push(InputProblem::error(first, reason));
    }

    /// Drops the classes found, giving their bytes back to the budget.
    fn release(&mut self, budget: &MemoryBudget) {
        for class in self.classes.drain(..) {
            budget.release(class.charged);
        }
    }

    /// One problem for `display` when some of it was skipped for the memory budget.
    fn report_over_budget(&mut self, display: &str, budget: &MemoryBudget) {
        let skipped = std::mem::take(&mut self.over_budget);
        if skipped == 0 {
            return;
        }
        let reason = format!(
            "{skipped} {} skipped: the scan's memory budget ({}) was used up",
            if skipped == 1 {
                "entry or file was"
            } else {
                "entries or files were"
            },
            size_limit(budget.limit())
        );
        self.problems.push(InputProblem::error(display, reason));
    }
}

fn index_u32(index: usize) -> u32 {
    u32::try_from(index).unwrap_or(u32::MAX)
}

/// A byte limit as people read it: `512 MiB`, or `1000 bytes` when not a whole number of MiB.
fn size_limit(bytes: u64) -> String {
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else {
        format!("{bytes} bytes")
    }
}

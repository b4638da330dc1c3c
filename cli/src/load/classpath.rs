//! Parsing the `--classpath` argument, including `@file` elements.

use std::io;
use std::path::{Path, PathBuf};

/// How deep `@file`s may refer to further `@file`s (this also stops a file including itself).
const MAX_ARG_FILE_DEPTH: u32 = 8;

/// Why a `--classpath` argument could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ClasspathError {
    /// An `@file` could not be read.
    #[error("cannot read classpath file {}: {error}", path.display())]
    ArgFile { path: PathBuf, error: io::Error },
    /// `@file`s refer to each other more than [`MAX_ARG_FILE_DEPTH`] levels deep (usually a cycle).
    #[error(
        "classpath file {} refers to other @files more than {MAX_ARG_FILE_DEPTH} levels deep (a cycle?)",
        path.display()
    )]
    TooDeep { path: PathBuf },
}

/// Splits a `--classpath` argument with the platform's path separator (`:` on Unix, `;` on
/// Windows, as [`std::env::split_paths`]). An element `@file` is replaced by the entries listed
/// in that file: one or more separator-separated entries per line, blank lines and lines
/// starting with `#` ignored, relative paths resolved against the file's directory, and `@file`
/// elements inside it expanded the same way. Empty elements are dropped.
pub fn parse_classpath(arg: &str) -> Result<Vec<PathBuf>, ClasspathError> {
    let mut entries = Vec::new();
    expand_list(arg, None, 0, &mut entries)?;
    Ok(entries)
}

/// Adds the elements of a separator-separated `list`; relative ones are resolved against
/// `base` when given (the directory of the `@file` the list comes from).
fn expand_list(
    list: &str,
    base: Option<&Path>,
    depth: u32,
    entries: &mut Vec<PathBuf>,
) -> Result<(), ClasspathError> {
    for element in std::env::split_paths(list) {
        if element.as_os_str().is_empty() {
            continue;
        }
        let arg_file = element.to_str().and_then(|s| s.strip_prefix('@'));
        match arg_file {
            Some(file) => expand_arg_file(&resolve(base, Path::new(file)), depth, entries)?,
            None => entries.push(resolve(base, &element)),
        }
    }
    Ok(())
}

fn expand_arg_file(
    path: &Path,
    depth: u32,
    entries: &mut Vec<PathBuf>,
) -> Result<(), ClasspathError> {
    if depth >= MAX_ARG_FILE_DEPTH {
        return Err(ClasspathError::TooDeep {
            path: path.to_owned(),
        });
    }
    let text = std::fs::read_to_string(path).map_err(|error| ClasspathError::ArgFile {
        path: path.to_owned(),
        error,
    })?;
    let dir = path.parent().unwrap_or(Path::new(""));
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        expand_list(line, Some(dir), depth + 1, entries)?;
    }
    Ok(())
}

fn resolve(base: Option<&Path>, path: &Path) -> PathBuf {
    match base {
        Some(base) if path.is_relative() => base.join(path),
        _ => path.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::TempDir;
    use super::*;

    fn join(parts: &[&str]) -> String {
        std::env::join_paths(parts).unwrap().into_string().unwrap()
    }

    #[test]
    fn splits_with_the_platform_separator_and_drops_empty_elements() {
        let arg = join(&["a.jar", "", "dir/classes", "/abs/b.jar"]);
        let got = parse_classpath(&arg).unwrap();
        let want: Vec<PathBuf> = ["a.jar", "dir/classes", "/abs/b.jar"]
            .iter()
            .map(PathBuf::from)
            .collect();
        assert_eq!(got, want);
        assert!(parse_classpath("").unwrap().is_empty());
    }

    #[test]
    fn arg_file_with_comments_blank_lines_and_relative_paths() {
        let tmp = TempDir::new("cp-argfile");
        let sub = tmp.path().join("sub");
        std::fs::create_dir_all(&sub).unwrap();
        let abs = tmp.path().join("abs.jar");
        let text = format!(
            "# a comment\n\nlib/a.jar\n  {}  \r\n   # indented comment\n{}\n@inner.txt\n",
            join(&["b.jar", "c/classes"]),
            abs.display()
        );
        std::fs::write(sub.join("cp.txt"), text).unwrap();
        std::fs::write(sub.join("inner.txt"), "d.jar\n").unwrap();

        let arg_file = format!("@{}", sub.join("cp.txt").display());
        let got = parse_classpath(&join(&["first.jar", &arg_file, "last.jar"])).unwrap();
        let want = vec![
            PathBuf::from("first.jar"),
            sub.join("lib/a.jar"),
            sub.join("b.jar"),
            sub.join("c/classes"),
            abs,
            sub.join("d.jar"),
            PathBuf::from("last.jar"),
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn unreadable_arg_file_names_the_file() {
        let tmp = TempDir::new("cp-missing");
        let missing = tmp.path().join("nope.txt");
        let err = parse_classpath(&format!("a.jar{}@{}", sep(), missing.display())).unwrap_err();
        assert!(matches!(&err, ClasspathError::ArgFile { path, .. } if *path == missing));
        let message = err.to_string();
        assert!(
            message.contains(&missing.display().to_string()),
            "{message}"
        );
        assert!(message.contains("No such file"), "{message}");
    }

    #[test]
    fn self_including_arg_file_is_an_error_not_a_hang() {
        let tmp = TempDir::new("cp-cycle");
        let file = tmp.path().join("cp.txt");
        std::fs::write(&file, "@cp.txt\n").unwrap();
        let err = parse_classpath(&format!("@{}", file.display())).unwrap_err();
        assert!(matches!(err, ClasspathError::TooDeep { .. }), "{err}");
    }

    fn sep() -> char {
        if cfg!(windows) {
            ';'
        } else {
            ':'
        }
    }
}

//! Analysis options: what the command line (and later `stalecheck.toml`) can set. Plain data;
//! the analysis core reads it, nothing here does I/O.

/// How calls to methods whose code is not available (neither scanned nor on `--classpath`,
/// or `native`) are modelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum UnknownCalls {
    /// The callee takes no lock; its result is computed from its arguments (and, inside a
    /// region, from shared state). Few false alarms; the default.
    #[default]
    NoLock,
    /// The papers' conservative rule: the callee may take a lock of its own, so it is a region
    /// and its result is a shared value of a fresh block (sound, noisy).
    Conservative,
}

#[derive(Clone, Debug)]
pub struct AnalysisConfig {
    /// Simple names of annotations that make a method an atomic region.
    pub atomic_annotations: Vec<String>,
    /// Block-local atomicity: treat every lock taken by a callee as distinct (the paper's
    /// context-insensitive variant) instead of recognising re-entry of a lock the caller holds.
    pub context_insensitive: bool,
    pub unknown_calls: UnknownCalls,
    /// Whole-program rules: what the scanned code is (an application, a library, or decided
    /// from its packaging); see `whole::threads::find`.
    pub world: crate::whole::threads::WorldChoice,
    /// Simple names of class annotations that mark a class as meant for concurrent use (open
    /// world entry points).
    pub thread_safe_annotations: Vec<String>,
    /// Thread-safe classes beyond the built-in list (internal names, `com/x/Safe`): each call
    /// of one of their methods is a one-call region (from `stalecheck.toml`).
    pub thread_safe_classes: Vec<String>,
}

impl Default for AnalysisConfig {
    fn default() -> Self {
        Self {
            atomic_annotations: vec!["Atomic".to_string()],
            world: crate::whole::threads::WorldChoice::Auto,
            thread_safe_annotations: vec!["ThreadSafe".to_string()],
            context_insensitive: false,
            unknown_calls: UnknownCalls::NoLock,
            thread_safe_classes: Vec::new(),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// stalecheck.toml
// ---------------------------------------------------------------------------------------------

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use miette::{NamedSource, SourceSpan};
use serde::Deserialize;
use toml::Spanned;

use crate::rules::{Level, RuleId, RULES};

/// Name of the configuration file, looked up from the working directory upwards.
pub const CONFIG_FILE: &str = "stalecheck.toml";

/// A malformed or unreadable `stalecheck.toml`: the path, the line and column, and the reason,
/// with the offending text underlined.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("{location}: {message}")]
#[diagnostic(code(stalecheck::config))]
pub struct ConfigError {
    /// `path:line:column`, or the path alone.
    pub location: String,
    pub message: String,
    #[source_code]
    source_code: Option<NamedSource<String>>,
    #[label("{message}")]
    span: Option<SourceSpan>,
    #[help]
    help: Option<String>,
}

impl ConfigError {
    fn at(path: &Path, text: &str, span: Option<Range<usize>>, message: String) -> Box<Self> {
        let location = match &span {
            Some(r) => {
                let (line, column) = line_column(text, r.start);
                format!("{}:{line}:{column}", path.display())
            }
            None => path.display().to_string(),
        };
        Box::new(ConfigError {
            location,
            message,
            source_code: Some(NamedSource::new(
                path.display().to_string(),
                text.to_string(),
            )),
            span: span.map(|r| SourceSpan::from(r.start..r.end.max(r.start))),
            help: None,
        })
    }

    fn with_help(mut self: Box<Self>, help: impl Into<String>) -> Box<Self> {
        self.help = Some(help.into());
        self
    }

    fn io(path: &Path, e: &std::io::Error) -> Box<Self> {
        Box::new(ConfigError {
            location: path.display().to_string(),
            message: format!("cannot read the configuration file: {e}"),
            source_code: None,
            span: None,
            help: None,
        })
    }
}

/// 1-based line and column (in characters) of a byte offset.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line, col)
}

/// An enabled or disabled rule in `[rules]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleSetting {
    Off,
    Level(Level),
}

/// One `[[suppress]]` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SuppressEntry {
    /// `None`: every rule (`rule = "*"`).
    pub rule: Option<RuleId>,
    /// A class glob (see [`class_glob_matches`]).
    pub class: String,
    pub method: Option<String>,
    pub field: Option<String>,
    pub reason: String,
    /// Where the entry is, `stalecheck.toml:12`, for the notification when it matched nothing.
    pub origin: String,
}

/// The largest memory budget, in MiB, that `--memory-budget` and `memory-budget` take (16 TiB).
pub const MAX_MEMORY_BUDGET_MIB: u64 = 1 << 24;

/// `cache` in `stalecheck.toml`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CacheSetting {
    /// `cache = false`.
    Off,
    /// `cache = true`: the default directory.
    On,
    /// `cache = "DIR"`, resolved against the file's directory.
    Dir(PathBuf),
}

/// The settings of a `stalecheck.toml`. Paths are resolved against the file's directory.
#[derive(Clone, Debug, Default)]
pub struct FileConfig {
    pub path: PathBuf,
    pub rules: BTreeMap<RuleId, RuleSetting>,
    pub atomic_annotations: Option<Vec<String>>,
    pub thread_safe_annotations: Option<Vec<String>>,
    /// Dotted class names.
    pub thread_safe_classes: Vec<String>,
    /// Class globs or package names whose findings are not reported.
    pub exclude: Vec<String>,
    pub open_world: Option<bool>,
    /// `world = "auto" | "library" | "application"`.
    pub world: Option<crate::whole::threads::WorldChoice>,
    /// `lenient = true`: inputs that cannot be read are warnings, not errors (like `--lenient`).
    pub lenient: Option<bool>,
    /// `memory-budget = MIB`: the most memory loading may hold at one time (like
    /// `--memory-budget`).
    pub memory_budget: Option<u64>,
    /// `cache = false` turns the summary cache off (like `--no-cache`), `cache = "DIR"` puts it
    /// in DIR (like `--cache DIR`); `cache = true` is the default.
    pub cache: Option<CacheSetting>,
    /// `cache-size = MIB`: the most the summary cache may hold (like `--cache-size`).
    pub cache_size: Option<u64>,
    pub source_roots: Vec<PathBuf>,
    pub baseline: Option<PathBuf>,
    pub fail_on: Option<String>,
    pub category: Option<String>,
    pub suppress: Vec<SuppressEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawConfig {
    rules: Option<BTreeMap<Spanned<String>, Spanned<String>>>,
    atomic_annotations: Option<Vec<String>>,
    thread_safe_annotations: Option<Vec<String>>,
    thread_safe_classes: Option<Vec<Spanned<String>>>,
    exclude: Option<Vec<Spanned<String>>>,
    open_world: Option<bool>,
    world: Option<Spanned<String>>,
    lenient: Option<bool>,
    memory_budget: Option<Spanned<toml::Value>>,
    cache: Option<Spanned<toml::Value>>,
    cache_size: Option<Spanned<toml::Value>>,
    source_roots: Option<Vec<String>>,
    baseline: Option<String>,
    fail_on: Option<Spanned<String>>,
    category: Option<String>,
    suppress: Option<Vec<Spanned<RawSuppress>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSuppress {
    rule: Spanned<String>,
    class: Spanned<String>,
    method: Option<Spanned<String>>,
    field: Option<Spanned<String>>,
    reason: Spanned<String>,
}

/// `stalecheck.toml` in `start` or the nearest of its parents that has one.
pub fn find_config(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .map(|d| d.join(CONFIG_FILE))
        .find(|p| p.is_file())
}

impl FileConfig {
    /// Reads and checks a configuration file.
    pub fn load(path: &Path) -> Result<FileConfig, Box<ConfigError>> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError::io(path, &e))?;
        Self::parse(path, &text)
    }

    /// Parses and checks the text of a configuration file found at `path`.
    pub fn parse(path: &Path, text: &str) -> Result<FileConfig, Box<ConfigError>> {
        let raw: RawConfig = toml::from_str(text)
            .map_err(|e| ConfigError::at(path, text, e.span(), e.message().trim().to_string()))?;
        let err = |span: Range<usize>, msg: String| ConfigError::at(path, text, Some(span), msg);
        let dir = path.parent().unwrap_or(Path::new(""));
        let resolve = |p: &str| {
            let p = Path::new(p);
            if p.is_absolute() {
                p.to_path_buf()
            } else {
                dir.join(p)
            }
        };
        let known_rules = || RULES.iter().map(|r| r.code).collect::<Vec<_>>().join(", ");
        let mut cfg = FileConfig {
            path: path.to_path_buf(),
            ..FileConfig::default()
        };
        for (id, level) in raw.rules.unwrap_or_default() {
            let rule = RuleId::from_code(id.get_ref()).ok_or_else(|| {
                err(id.span(), format!("unknown rule id `{}`", id.get_ref()))
                    .with_help(format!("known rules: {}", known_rules()))
            })?;
            let setting = match level.get_ref().as_str() {
                "off" => RuleSetting::Off,
                "note" => RuleSetting::Level(Level::Note),
                "warning" => RuleSetting::Level(Level::Warning),
                "error" => RuleSetting::Level(Level::Error),
                other => {
                    return Err(err(level.span(), format!("unknown level `{other}`"))
                        .with_help("a rule's level is one of: error, warning, note, off"))
                }
            };
            cfg.rules.insert(rule, setting);
        }
        cfg.atomic_annotations = raw.atomic_annotations;
        cfg.thread_safe_annotations = raw.thread_safe_annotations;
        for c in raw.thread_safe_classes.unwrap_or_default() {
            if !is_class_name(c.get_ref()) {
                return Err(
                    err(c.span(), format!("`{}` is not a class name", c.get_ref()))
                        .with_help("write the binary name with dots, e.g. com.example.SafeCache"),
                );
            }
            cfg.thread_safe_classes.push(c.into_inner());
        }
        for g in raw.exclude.unwrap_or_default() {
            check_glob(g.get_ref()).map_err(|m| err(g.span(), m))?;
            cfg.exclude.push(g.into_inner());
        }
        cfg.open_world = raw.open_world;
        if let Some(w) = raw.world {
            let choice = crate::whole::threads::WorldChoice::parse(w.get_ref()).ok_or_else(|| {
                err(w.span(), format!("`{}` is not a world", w.get_ref())).with_help(
                    "write \"library\" (public API called by any thread), \"application\" (the main methods are the programs) or \"auto\" (decided from the jar's Main-Class)",
                )
            })?;
            cfg.world = Some(choice);
        }
        cfg.lenient = raw.lenient;
        if let Some(b) = raw.memory_budget {
            let mib = b
                .get_ref()
                .as_integer()
                .and_then(|m| u64::try_from(m).ok())
                .filter(|m| (1..=MAX_MEMORY_BUDGET_MIB).contains(m))
                .ok_or_else(|| {
                    let written = text.get(b.span()).unwrap_or("this");
                    err(b.span(), format!("a memory budget of {written} MiB")).with_help(format!(
                        "memory-budget is a whole number of MiB from 1 to \
                             {MAX_MEMORY_BUDGET_MIB}, e.g. memory-budget = 2048"
                    ))
                })?;
            cfg.memory_budget = Some(mib);
        }
        if let Some(c) = raw.cache {
            cfg.cache = Some(match c.get_ref() {
                toml::Value::Boolean(false) => CacheSetting::Off,
                toml::Value::Boolean(true) => CacheSetting::On,
                toml::Value::String(d) if !d.is_empty() => CacheSetting::Dir(resolve(d)),
                _ => {
                    let written = text.get(c.span()).unwrap_or("this");
                    return Err(err(c.span(), format!("`cache = {written}`")).with_help(
                        "cache is true, false, or the cache directory, e.g. cache = \".cache/stalecheck\"",
                    ));
                }
            });
        }
        if let Some(b) = raw.cache_size {
            let mib = b
                .get_ref()
                .as_integer()
                .and_then(|m| u64::try_from(m).ok())
                .filter(|m| *m >= 1)
                .ok_or_else(|| {
                    let written = text.get(b.span()).unwrap_or("this");
                    err(b.span(), format!("a cache size of {written} MiB")).with_help(
                        "cache-size is a whole number of MiB, at least 1, e.g. cache-size = 2048",
                    )
                })?;
            cfg.cache_size = Some(mib);
        }
        cfg.source_roots = raw
            .source_roots
            .unwrap_or_default()
            .iter()
            .map(|r| resolve(r))
            .collect();
        cfg.baseline = raw.baseline.as_deref().map(resolve);
        if let Some(f) = raw.fail_on {
            if !matches!(f.get_ref().as_str(), "error" | "warning" | "note" | "none") {
                return Err(err(f.span(), format!("unknown level `{}`", f.get_ref()))
                    .with_help("fail-on is one of: error, warning, note, none"));
            }
            cfg.fail_on = Some(f.into_inner());
        }
        cfg.category = raw.category;
        for entry in raw.suppress.unwrap_or_default() {
            let (line, _) = line_column(text, entry.span().start);
            let e = entry.into_inner();
            let rule = match e.rule.get_ref().as_str() {
                "*" => None,
                code => Some(RuleId::from_code(code).ok_or_else(|| {
                    err(e.rule.span(), format!("unknown rule id `{code}`"))
                        .with_help(format!("known rules: {}, or * for all", known_rules()))
                })?),
            };
            check_glob(e.class.get_ref()).map_err(|m| err(e.class.span(), m))?;
            if e.reason.get_ref().trim().is_empty() {
                return Err(err(
                    e.reason.span(),
                    "a suppression needs a reason: say why the finding is acceptable".into(),
                ));
            }
            for part in [&e.method, &e.field].into_iter().flatten() {
                if part.get_ref().is_empty() || part.get_ref().contains(['.', '/', '(']) {
                    return Err(err(
                        part.span(),
                        format!("`{}` is not a simple member name", part.get_ref()),
                    ));
                }
            }
            cfg.suppress.push(SuppressEntry {
                rule,
                class: e.class.into_inner(),
                method: e.method.map(Spanned::into_inner),
                field: e.field.map(Spanned::into_inner),
                reason: e.reason.into_inner().trim().to_string(),
                origin: format!("{}:{line}", path.display()),
            });
        }
        Ok(cfg)
    }
}

fn is_class_name(s: &str) -> bool {
    !s.is_empty()
        && s.split('.').all(|part| {
            !part.is_empty()
                && part
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        })
}

fn check_glob(g: &str) -> Result<(), String> {
    let ok = !g.is_empty()
        && g.split('.').all(|part| {
            !part.is_empty()
                && part
                    .chars()
                    .all(|c| c.is_alphanumeric() || matches!(c, '_' | '$' | '*'))
        });
    if ok {
        Ok(())
    } else {
        Err(format!(
            "`{g}` is not a class pattern (dotted names; `*` for any part of one name, `**` for any names)"
        ))
    }
}

/// Whether a class pattern matches a class (binary name with dots, `pkg.Outer$Inner`).
///
/// `*` matches any run of characters within one dotted name, `**` any run at all. A pattern
/// matches a class when it matches its name, the name of a class it is nested in
/// (`pkg.Outer` covers `pkg.Outer$Inner`), or, without wildcards, its package or a parent
/// package (`com.example` covers `com.example.sub.Foo`).
pub fn class_glob_matches(pattern: &str, class: &str) -> bool {
    if !pattern.contains('*') {
        return class == pattern
            || class
                .strip_prefix(pattern)
                .is_some_and(|rest| rest.starts_with('$') || rest.starts_with('.'));
    }
    let mut candidates = vec![class];
    for (i, c) in class.char_indices() {
        if c == '$' {
            candidates.push(&class[..i]);
        }
    }
    candidates
        .iter()
        .any(|c| glob(pattern.as_bytes(), c.as_bytes()))
}

fn glob(p: &[u8], s: &[u8]) -> bool {
    match p {
        [] => s.is_empty(),
        [b'*', b'*', rest @ ..] => (0..=s.len()).any(|i| glob(rest, &s[i..])),
        [b'*', rest @ ..] => {
            let mut i = 0;
            loop {
                if glob(rest, &s[i..]) {
                    return true;
                }
                if i == s.len() || s[i] == b'.' {
                    return false;
                }
                i += 1;
            }
        }
        [c, rest @ ..] => s.first() == Some(c) && glob(rest, &s[1..]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(class_glob_matches("com.x.Foo", "com.x.Foo"));
        assert!(class_glob_matches("com.x.Foo", "com.x.Foo$Inner"));
        assert!(!class_glob_matches("com.x.Foo", "com.x.FooBar"));
        assert!(class_glob_matches("com.x", "com.x.sub.Foo"));
        assert!(class_glob_matches("com.x.*", "com.x.Foo"));
        assert!(class_glob_matches("com.x.*", "com.x.Foo$1"));
        assert!(!class_glob_matches("com.x.*", "com.x.sub.Foo"));
        assert!(class_glob_matches("com.x.**", "com.x.sub.Foo"));
        assert!(class_glob_matches("*.Foo*", "x.FooBar"));
        assert!(!class_glob_matches("*.Foo", "a.b.Foo"));
        assert!(class_glob_matches("**.Foo", "a.b.Foo"));
    }

    fn parse(text: &str) -> Result<FileConfig, Box<ConfigError>> {
        FileConfig::parse(Path::new("/p/stalecheck.toml"), text)
    }

    #[test]
    fn a_full_file() {
        let c = parse(
            r#"
open-world = true
lenient = true
memory-budget = 2048
cache = ".cache/stalecheck"
cache-size = 512
source-roots = ["src/main/java", "/abs"]
baseline = "base.sarif"
atomic-annotations = ["Atomic", "Tx"]
thread-safe-classes = ["com.x.Safe"]
exclude = ["com.x.gen.**"]
fail-on = "error"
category = "backend"

[rules]
stale-value = "error"
block-local-atomicity = "off"

[[suppress]]
rule = "stale-value"
class = "com.x.*"
method = "get"
reason = "benign"

[[suppress]]
rule = "*"
class = "com.y.Z"
field = "count"
reason = "statistics only"
"#,
        )
        .unwrap();
        assert_eq!(c.open_world, Some(true));
        assert_eq!(c.lenient, Some(true));
        assert_eq!(c.memory_budget, Some(2048));
        assert_eq!(
            c.cache,
            Some(CacheSetting::Dir(PathBuf::from("/p/.cache/stalecheck")))
        );
        assert_eq!(c.cache_size, Some(512));
        assert_eq!(
            parse("cache = false\n").unwrap().cache,
            Some(CacheSetting::Off)
        );
        assert_eq!(
            parse("cache = true\n").unwrap().cache,
            Some(CacheSetting::On)
        );
        assert_eq!(
            c.source_roots,
            vec![PathBuf::from("/p/src/main/java"), PathBuf::from("/abs")]
        );
        assert_eq!(c.baseline, Some(PathBuf::from("/p/base.sarif")));
        assert_eq!(
            c.rules.get(&RuleId::StaleValue),
            Some(&RuleSetting::Level(Level::Error))
        );
        assert_eq!(
            c.rules.get(&RuleId::BlockLocalAtomicity),
            Some(&RuleSetting::Off)
        );
        assert_eq!(c.suppress.len(), 2);
        assert_eq!(c.suppress[0].rule, Some(RuleId::StaleValue));
        assert_eq!(c.suppress[0].origin, "/p/stalecheck.toml:19");
        assert_eq!(c.suppress[1].rule, None);
        assert_eq!(c.suppress[1].field.as_deref(), Some("count"));
        assert_eq!(c.fail_on.as_deref(), Some("error"));
    }

    #[test]
    fn errors_have_line_and_column() {
        let cases: &[(&str, &str, &str)] = &[
            ("open-world = \n", ":1:", "string"),
            (
                "[rules]\nstale-valu = \"error\"\n",
                ":2:1",
                "unknown rule id `stale-valu`",
            ),
            (
                "[rules]\nstale-value = \"loud\"\n",
                ":2:15",
                "unknown level `loud`",
            ),
            ("bogus = 1\n", ":1:1", "unknown field"),
            (
                "[[suppress]]\nrule = \"stale-value\"\nclass = \"a.B\"\n",
                ":1:",
                "reason",
            ),
            (
                "[[suppress]]\nrule = \"stale-value\"\nclass = \"a.B\"\nreason = \" \"\n",
                ":4:10",
                "needs a reason",
            ),
            ("exclude = [\"a b\"]\n", ":1:12", "not a class pattern"),
            ("memory-budget = 0\n", ":1:17", "a memory budget of 0 MiB"),
            ("memory-budget = -5\n", ":1:17", "a memory budget of -5 MiB"),
            (
                "memory-budget = \"1G\"\n",
                ":1:17",
                "a memory budget of \"1G\" MiB",
            ),
            ("cache = 3\n", ":1:9", "`cache = 3`"),
            ("cache = \"\"\n", ":1:9", "`cache = \"\"`"),
            ("cache-size = 0\n", ":1:14", "a cache size of 0 MiB"),
        ];
        for (text, at, what) in cases {
            let e = parse(text).expect_err(text);
            let shown = e.to_string();
            assert!(
                shown.starts_with("/p/stalecheck.toml")
                    && shown.contains(at)
                    && shown.contains(what),
                "{text:?}: {shown}"
            );
        }
    }

    #[test]
    fn found_upwards() {
        let dir = std::env::temp_dir().join(format!("stalecheck-config-{}", std::process::id()));
        let deep = dir.join("a").join("b");
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::write(dir.join(CONFIG_FILE), "open-world = true\n").unwrap();
        assert_eq!(find_config(&deep), Some(dir.join(CONFIG_FILE)));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

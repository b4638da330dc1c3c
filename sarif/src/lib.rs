//! SARIF 2.1.0 model and writer for stalecheck.
//!
//! This crate owns a small, analysis-agnostic model of the subset of
//! [SARIF 2.1.0](https://docs.oasis-open.org/sarif/sarif/v2.1.0/sarif-v2.1.0.html)
//! that stalecheck emits, and a writer that turns it into a schema-valid log.
//! It knows nothing about Java or bytecode; code is addressed through
//! physical locations (URIs and lines) and generic "logical location" strings.
//!
//! The model types ([`Log`], [`Run`], [`SarifResult`], ...) are plain data
//! with public fields. Serialization goes through a private wire model that:
//!
//! * computes `ruleIndex` of each result from the run's `tool.driver.rules`,
//! * numbers related locations `1..=n` so `[text](n)` message links resolve,
//! * omits empty and absent fields, and never emits a structurally invalid
//!   object (e.g. a `physicalLocation` without an `artifactLocation`),
//! * is deterministic: maps are [`BTreeMap`]s and arrays keep model order.
//!
//! With the `validate` feature, [`schema_errors`] checks a serialized log
//! against the official SARIF 2.1.0 JSON schema bundled with this crate.

use std::collections::BTreeMap;
use std::io::Write;

use serde::Serialize;

pub mod baseline;
pub mod fingerprint;
pub mod limits;
pub mod merge;
pub mod read;
mod uri;
#[cfg(feature = "validate")]
mod validate;
mod wire;

pub use uri::{dir_uri, file_uri, relative_uri};
#[cfg(feature = "validate")]
pub use validate::schema_errors;

/// Value of the top-level `$schema` property of every log this crate writes.
pub const SCHEMA_URI: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// Value of the top-level `version` property of every log this crate writes.
pub const SARIF_VERSION: &str = "2.1.0";

/// Errors raised while writing a SARIF log.
#[derive(Debug, thiserror::Error)]
pub enum SarifError {
    /// Serializing the log to JSON failed (this includes I/O errors raised
    /// by the underlying writer while the JSON was being written).
    #[error("failed to write SARIF log as JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// Writing to or flushing the output failed outside JSON serialization.
    #[error("failed to write SARIF log: {0}")]
    Io(#[from] std::io::Error),
}

/// Severity of a result, rule default or notification (SARIF `level`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// `"none"`: no severity (e.g. informational results).
    None,
    /// `"note"`: a minor problem or an opportunity for improvement.
    Note,
    /// `"warning"`: a problem; SARIF's default level.
    #[default]
    Warning,
    /// `"error"`: a serious problem.
    Error,
}

impl Level {
    /// The SARIF spelling of this level (`"none"`, `"note"`, `"warning"`, `"error"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Level::None => "none",
            Level::Note => "note",
            Level::Warning => "warning",
            Level::Error => "error",
        }
    }
}

impl std::fmt::Display for Level {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A rule (SARIF `reportingDescriptor`), listed in `tool.driver.rules`.
///
/// Empty strings are omitted from the output: an empty `name`,
/// `short_description` or `full_description` is not written, and `help` is
/// written only when `help_text` or `help_markdown` is non-empty.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ReportingDescriptor {
    /// Stable, opaque rule id (`id`), e.g. `"SC0001"`. Results refer to it.
    pub id: String,
    /// Human-readable identifier in PascalCase (`name`).
    pub name: String,
    /// One-line description (`shortDescription.text`).
    pub short_description: String,
    /// Longer description (`fullDescription.text`).
    pub full_description: String,
    /// Plain-text help (`help.text`).
    pub help_text: String,
    /// Markdown help (`help.markdown`).
    pub help_markdown: Option<String>,
    /// Absolute URI of the rule's documentation (`helpUri`).
    pub help_uri: Option<String>,
    /// Default severity (`defaultConfiguration.level`).
    pub default_level: Level,
    /// The tool does not run the rule unless asked to (`defaultConfiguration.enabled: false`).
    pub disabled_by_default: bool,
    /// Tags (`properties.tags`); duplicates are dropped on output.
    pub tags: Vec<String>,
    /// Precision, e.g. `"high"` or `"medium"` (`properties.precision`).
    pub precision: Option<String>,
    /// Severity, e.g. `"warning"` (`properties["problem.severity"]`).
    pub problem_severity: Option<String>,
    /// Relationships to taxa of the run's taxonomies, e.g. CWE-362 (`relationships`).
    pub relationships: Vec<Relationship>,
}

/// A relationship of a rule to a taxon (SARIF `reportingDescriptorRelationship`), e.g. to
/// `CWE-362` of the `CWE` taxonomy.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Relationship {
    /// Id of the taxon (`target.id`), e.g. `"362"`.
    pub target_id: String,
    /// Name of the taxonomy (`target.toolComponent.name`), e.g. `"CWE"`; its index in
    /// [`Run::taxonomies`] is added on output when the run declares it.
    pub taxonomy: String,
    /// Kinds (`kinds`), e.g. `"superset"` or `"relevant"`.
    pub kinds: Vec<String>,
}

/// A taxonomy (a SARIF `toolComponent` in `run.taxonomies`), e.g. CWE.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Taxonomy {
    /// Name (`name`), e.g. `"CWE"`.
    pub name: String,
    /// Version (`version`).
    pub version: Option<String>,
    /// Organization (`organization`).
    pub organization: Option<String>,
    /// Description (`shortDescription.text`).
    pub short_description: Option<String>,
    /// Absolute URI of the taxonomy (`informationUri`).
    pub information_uri: Option<String>,
    /// The taxa the run refers to (`taxa`).
    pub taxa: Vec<Taxon>,
}

/// One taxon of a [`Taxonomy`] (a `reportingDescriptor` in `taxa`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Taxon {
    /// Id (`id`), e.g. `"362"`.
    pub id: String,
    /// Name (`name`).
    pub name: String,
    /// Description (`shortDescription.text`).
    pub short_description: String,
    /// Absolute URI of its documentation (`helpUri`).
    pub help_uri: Option<String>,
}

/// The state of a result with respect to a baseline (SARIF `baselineState`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum BaselineState {
    /// Not in the baseline.
    New,
    /// In the baseline, same message and location.
    Unchanged,
    /// In the baseline (the fingerprint matches), but the message or the location changed.
    Updated,
    /// In the baseline only: fixed (or no longer reported) since.
    Absent,
}

impl BaselineState {
    /// The SARIF spelling (`"new"`, `"unchanged"`, `"updated"`, `"absent"`).
    pub fn as_str(self) -> &'static str {
        match self {
            BaselineState::New => "new",
            BaselineState::Unchanged => "unchanged",
            BaselineState::Updated => "updated",
            BaselineState::Absent => "absent",
        }
    }

    /// Parses the SARIF spelling.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "new" => BaselineState::New,
            "unchanged" => BaselineState::Unchanged,
            "updated" => BaselineState::Updated,
            "absent" => BaselineState::Absent,
            _ => return None,
        })
    }
}

/// Where a suppression was stated (SARIF `suppression.kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum SuppressionKind {
    /// In the analysed artifact itself (an annotation in the code).
    InSource,
    /// Outside it (a configuration file).
    External,
}

/// A suppression of a result (SARIF `suppression`, status `accepted`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suppression {
    /// Where it was stated (`kind`).
    pub kind: SuppressionKind,
    /// Why (`justification`).
    pub justification: Option<String>,
}

/// The analysis tool (SARIF `tool.driver`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Tool {
    /// Tool name (`name`).
    pub name: String,
    /// Tool version (`version`).
    pub version: String,
    /// Absolute URI of the tool's home page (`informationUri`).
    pub information_uri: Option<String>,
    /// Rules the tool can report (`rules`), in output order.
    pub rules: Vec<ReportingDescriptor>,
}

/// A logical location (SARIF `logicalLocation`), e.g. a method.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LogicalLocation {
    /// Kind of the location (`kind`), e.g. `"function"`, `"member"`, `"type"`.
    pub kind: String,
    /// Fully qualified, human-readable name (`fullyQualifiedName`).
    pub fully_qualified_name: String,
    /// Compiler-level name, e.g. a mangled or descriptor-bearing name
    /// (`decoratedName`).
    pub decorated_name: Option<String>,
}

impl LogicalLocation {
    /// A logical location of kind `"function"`.
    pub fn function(fully_qualified_name: impl Into<String>) -> Self {
        LogicalLocation {
            kind: "function".to_owned(),
            fully_qualified_name: fully_qualified_name.into(),
            decorated_name: None,
        }
    }
}

/// A location in the analyzed code (SARIF `location`).
///
/// * With a `uri`, a `physicalLocation` is written, with `region.startLine`
///   when `start_line` is a valid 1-based line (`Some(0)` counts as unknown).
/// * Without a `uri` no physical location can be written (SARIF requires an
///   `artifactLocation`), so `uri_base_id` and `start_line` are dropped.
/// * `logical` becomes `logicalLocations[0]`; `message` becomes `message.text`.
///
/// A location with none of these serializes as an empty (valid) object.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Location {
    /// URI reference of the artifact (`artifactLocation.uri`), usually
    /// relative to `uri_base_id`; see [`relative_uri`] and [`file_uri`].
    pub uri: Option<String>,
    /// Base id the `uri` is relative to (`artifactLocation.uriBaseId`),
    /// declared in [`Run::original_uri_base_ids`].
    pub uri_base_id: Option<String>,
    /// 1-based line (`region.startLine`).
    pub start_line: Option<u32>,
    /// Logical location (`logicalLocations[0]`).
    pub logical: Option<LogicalLocation>,
    /// Message about this location (`message.text`).
    pub message: Option<String>,
}

/// One step of a [`ThreadFlow`] (SARIF `threadFlowLocation`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ThreadFlowStep {
    /// Where the step happens (`location`).
    pub location: Location,
    /// What happens, e.g. `"acquire"`, `"release"`, `"read"`, `"use"`
    /// (`kinds`); duplicates are dropped on output.
    pub kinds: Vec<String>,
    /// Call-nesting depth for display (`nestingLevel`).
    pub nesting_level: Option<u32>,
    /// Position in the overall execution order across thread flows
    /// (`executionOrder`).
    pub execution_order: Option<u32>,
}

/// A sequence of steps in one thread (SARIF `threadFlow`).
///
/// A thread flow without steps is invalid SARIF and is omitted on output.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ThreadFlow {
    /// Identifier of the thread (`id`).
    pub id: Option<String>,
    /// Description of the flow (`message.text`).
    pub message: Option<String>,
    /// Steps in order (`locations`).
    pub steps: Vec<ThreadFlowStep>,
}

/// A code flow, made of one or more thread flows (SARIF `codeFlow`).
///
/// A code flow with no non-empty thread flow is omitted on output.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CodeFlow {
    /// Description of the flow (`message.text`).
    pub message: Option<String>,
    /// Thread flows (`threadFlows`).
    pub thread_flows: Vec<ThreadFlow>,
}

/// A finding (SARIF `result`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SarifResult {
    /// Id of the rule (`ruleId`); `ruleIndex` is derived from the run's tool.
    pub rule_id: String,
    /// Severity (`level`).
    pub level: Level,
    /// Message (`message.text`), plain text. It may link to related locations
    /// with `[text](n)`, where `n` is the 1-based position in `related`.
    pub message: String,
    /// The message as Markdown (`message.markdown`), with the same links; use
    /// [`escape_message`] for literal text that contains `[`, `]` or `\`.
    pub markdown: Option<String>,
    /// Main location (`locations[0]`).
    pub primary: Location,
    /// Related locations (`relatedLocations`), written with ids `1..=n`.
    pub related: Vec<Location>,
    /// Code flows (`codeFlows`).
    pub code_flows: Vec<CodeFlow>,
    /// Priority in `0.0..=100.0` (`rank`); out-of-range values are clamped and
    /// non-finite values are omitted.
    pub rank: Option<f64>,
    /// Partial fingerprints for result matching across runs
    /// (`partialFingerprints`).
    pub partial_fingerprints: BTreeMap<String, String>,
    /// Extra properties (`properties`).
    pub properties: BTreeMap<String, serde_json::Value>,
    /// State with respect to a baseline (`baselineState`).
    pub baseline_state: Option<BaselineState>,
    /// Suppressions (`suppressions`); a result with one is suppressed.
    pub suppressions: Vec<Suppression>,
}

/// A message from the tool about its own execution (SARIF `notification`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Notification {
    /// Severity (`level`).
    pub level: Level,
    /// Message (`message.text`).
    pub message: String,
    /// Artifact concerned
    /// (`locations[0].physicalLocation.artifactLocation.uri`).
    pub uri: Option<String>,
    /// Id of the notification kind (`descriptor.id`).
    pub descriptor_id: Option<String>,
}

/// How the tool was run (SARIF `invocation`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Invocation {
    /// Whether the tool ran to completion (`executionSuccessful`).
    pub execution_successful: bool,
    /// Full command line (`commandLine`).
    pub command_line: Option<String>,
    /// Arguments, without the program name (`arguments`).
    pub arguments: Vec<String>,
    /// Working directory as an absolute file URI, see [`dir_uri`]
    /// (`workingDirectory.uri`).
    pub working_directory: Option<String>,
    /// Notifications about the run (`toolExecutionNotifications`).
    pub notifications: Vec<Notification>,
    /// Process exit code (`exitCode`).
    pub exit_code: Option<i32>,
}

/// One run of the tool (SARIF `run`).
///
/// `results` is always written, even when empty: in SARIF an empty array
/// means "nothing found" while an absent one means "no results computed".
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Run {
    /// The tool and its rules (`tool.driver`).
    pub tool: Tool,
    /// Findings (`results`).
    pub results: Vec<SarifResult>,
    /// The invocation (`invocations[0]`).
    pub invocation: Option<Invocation>,
    /// Base ids for relative URIs, each mapped to the absolute file URI of a
    /// directory (`originalUriBaseIds[id].uri`). A missing trailing `/` is
    /// added on output, as SARIF requires.
    pub original_uri_base_ids: BTreeMap<String, String>,
    /// Identifier of this kind of run, e.g. `"stalecheck/main"`
    /// (`automationDetails.id`).
    pub automation_id: Option<String>,
    /// Taxonomies the rules relate to, e.g. CWE (`taxonomies`).
    pub taxonomies: Vec<Taxonomy>,
}

/// A SARIF log: the top-level `sarifLog` object.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Log {
    /// Runs (`runs`).
    pub runs: Vec<Run>,
}

impl Log {
    /// A log holding a single run.
    pub fn single(run: Run) -> Self {
        Log { runs: vec![run] }
    }

    /// The log as a JSON value, ready for inspection or validation.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(wire::SarifLog::from_model(self))
            .expect("the SARIF wire model has string keys and finite numbers only")
    }

    /// Writes the log as pretty-printed JSON followed by a newline.
    ///
    /// The output is deterministic: the same log always gives the same bytes.
    pub fn write_pretty<W: Write>(&self, mut w: W) -> Result<(), SarifError> {
        serde_json::to_writer_pretty(&mut w, &wire::SarifLog::from_model(self))?;
        w.write_all(b"\n")?;
        w.flush()?;
        Ok(())
    }

    /// The log as a pretty-printed JSON string (with a trailing newline),
    /// identical to what [`Log::write_pretty`] writes.
    pub fn to_string_pretty(&self) -> String {
        let mut buf = Vec::new();
        self.write_pretty(&mut buf)
            .expect("writing SARIF to memory cannot fail");
        String::from_utf8(buf).expect("serde_json writes UTF-8")
    }
}

/// Escapes `\`, `[` and `]` in `text` so it can be embedded literally in a
/// SARIF message whose other parts use `[text](n)` links
/// (SARIF §3.11.6), e.g. a Java array type `int[]`.
pub fn escape_message(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '\\' | '[' | ']') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn level_spelling() {
        for (level, s) in [
            (Level::None, "none"),
            (Level::Note, "note"),
            (Level::Warning, "warning"),
            (Level::Error, "error"),
        ] {
            assert_eq!(level.as_str(), s);
            assert_eq!(level.to_string(), s);
            assert_eq!(serde_json::to_value(level).unwrap(), s);
        }
        assert_eq!(Level::default(), Level::Warning);
    }

    #[test]
    fn escape_message_escapes_brackets_and_backslash() {
        assert_eq!(escape_message("f(int[])"), r"f(int\[\])");
        assert_eq!(escape_message(r"a\b"), r"a\\b");
        assert_eq!(escape_message("plain"), "plain");
    }
}

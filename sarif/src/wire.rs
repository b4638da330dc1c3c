//! Private serde structs mirroring the SARIF 2.1.0 JSON shape.
//!
//! They borrow from the public model and are built right before
//! serialization; all SARIF-specific shaping (omitting empty fields, ids of
//! related locations, `ruleIndex`, ...) happens here.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use crate::{Level, SARIF_VERSION, SCHEMA_URI};

#[derive(Serialize)]
pub(crate) struct SarifLog<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: Vec<Run<'a>>,
}

impl<'a> SarifLog<'a> {
    pub(crate) fn from_model(log: &'a crate::Log) -> Self {
        SarifLog {
            schema: SCHEMA_URI,
            version: SARIF_VERSION,
            runs: log.runs.iter().map(Run::from_model).collect(),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run<'a> {
    tool: Tool<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    automation_details: Option<AutomationDetails<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    invocations: Vec<Invocation<'a>>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    original_uri_base_ids: BTreeMap<&'a str, ArtifactLocation<'a, 'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    taxonomies: Vec<Taxonomy<'a>>,
    /// Always present: `[]` means "ran and found nothing".
    results: Vec<WireResult<'a>>,
}

impl<'a> Run<'a> {
    fn from_model(run: &'a crate::Run) -> Self {
        let mut rule_index: HashMap<&str, usize> = HashMap::new();
        for (i, rule) in run.tool.rules.iter().enumerate() {
            rule_index.entry(rule.id.as_str()).or_insert(i);
        }
        let taxonomy_index = |name: &str| run.taxonomies.iter().position(|t| t.name == name);
        Run {
            tool: Tool {
                driver: Driver::from_model(&run.tool, &taxonomy_index),
            },
            automation_details: run
                .automation_id
                .as_deref()
                .map(|id| AutomationDetails { id }),
            invocations: run.invocation.iter().map(Invocation::from_model).collect(),
            original_uri_base_ids: run
                .original_uri_base_ids
                .iter()
                .map(|(id, uri)| {
                    let uri = if uri.ends_with('/') {
                        Cow::Borrowed(uri.as_str())
                    } else {
                        Cow::Owned(format!("{uri}/"))
                    };
                    (
                        id.as_str(),
                        ArtifactLocation {
                            uri,
                            uri_base_id: None,
                        },
                    )
                })
                .collect(),
            taxonomies: run.taxonomies.iter().map(Taxonomy::from_model).collect(),
            results: run
                .results
                .iter()
                .map(|r| WireResult::from_model(r, rule_index.get(r.rule_id.as_str()).copied()))
                .collect(),
        }
    }
}

#[derive(Serialize)]
struct Tool<'a> {
    driver: Driver<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    version: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    information_uri: Option<&'a str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    rules: Vec<Rule<'a>>,
}

impl<'a> Driver<'a> {
    fn from_model(tool: &'a crate::Tool, taxonomy_index: &dyn Fn(&str) -> Option<usize>) -> Self {
        Driver {
            name: &tool.name,
            version: &tool.version,
            information_uri: tool.information_uri.as_deref(),
            rules: tool
                .rules
                .iter()
                .map(|r| Rule::from_model(r, taxonomy_index))
                .collect(),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Taxonomy<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    version: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    organization: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    short_description: Option<MultiformatMessage<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    information_uri: Option<&'a str>,
    is_comprehensive: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    taxa: Vec<Taxon<'a>>,
}

impl<'a> Taxonomy<'a> {
    fn from_model(t: &'a crate::Taxonomy) -> Self {
        Taxonomy {
            name: &t.name,
            version: t.version.as_deref(),
            organization: t.organization.as_deref(),
            short_description: t
                .short_description
                .as_deref()
                .map(|text| MultiformatMessage {
                    text,
                    markdown: None,
                }),
            information_uri: t.information_uri.as_deref(),
            is_comprehensive: false,
            taxa: t
                .taxa
                .iter()
                .map(|x| Taxon {
                    id: &x.id,
                    name: &x.name,
                    short_description: (!x.short_description.is_empty()).then_some(
                        MultiformatMessage {
                            text: &x.short_description,
                            markdown: None,
                        },
                    ),
                    help_uri: x.help_uri.as_deref(),
                })
                .collect(),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Taxon<'a> {
    id: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    short_description: Option<MultiformatMessage<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    help_uri: Option<&'a str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Relationship<'a> {
    target: RelationshipTarget<'a>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    kinds: Vec<&'a str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RelationshipTarget<'a> {
    id: &'a str,
    tool_component: ToolComponentReference<'a>,
}

#[derive(Serialize)]
struct ToolComponentReference<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    index: Option<usize>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Rule<'a> {
    id: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    short_description: Option<MultiformatMessage<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    full_description: Option<MultiformatMessage<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    help: Option<MultiformatMessage<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    help_uri: Option<&'a str>,
    default_configuration: Configuration,
    #[serde(skip_serializing_if = "RuleProperties::is_empty")]
    properties: RuleProperties<'a>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    relationships: Vec<Relationship<'a>>,
}

impl<'a> Rule<'a> {
    fn from_model(
        rule: &'a crate::ReportingDescriptor,
        taxonomy_index: &dyn Fn(&str) -> Option<usize>,
    ) -> Self {
        let plain = |s: &'a str| {
            (!s.is_empty()).then_some(MultiformatMessage {
                text: s,
                markdown: None,
            })
        };
        let help_markdown = rule.help_markdown.as_deref().filter(|m| !m.is_empty());
        let help =
            (!rule.help_text.is_empty() || help_markdown.is_some()).then_some(MultiformatMessage {
                text: &rule.help_text,
                markdown: help_markdown,
            });
        Rule {
            id: &rule.id,
            name: &rule.name,
            short_description: plain(&rule.short_description),
            full_description: plain(&rule.full_description),
            help,
            help_uri: rule.help_uri.as_deref(),
            default_configuration: Configuration {
                // Written only when false (SARIF's default is true).
                enabled: rule.disabled_by_default.then_some(false),
                level: rule.default_level,
            },
            properties: RuleProperties {
                tags: dedup(&rule.tags),
                precision: rule.precision.as_deref(),
                problem_severity: rule.problem_severity.as_deref(),
            },
            relationships: rule
                .relationships
                .iter()
                .map(|r| Relationship {
                    target: RelationshipTarget {
                        id: &r.target_id,
                        tool_component: ToolComponentReference {
                            name: &r.taxonomy,
                            index: taxonomy_index(&r.taxonomy),
                        },
                    },
                    kinds: dedup(&r.kinds),
                })
                .collect(),
        }
    }
}

#[derive(Serialize)]
struct MultiformatMessage<'a> {
    text: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    markdown: Option<&'a str>,
}

#[derive(Serialize)]
struct Configuration {
    #[serde(skip_serializing_if = "Option::is_none")]
    enabled: Option<bool>,
    level: Level,
}

#[derive(Serialize)]
struct RuleProperties<'a> {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tags: Vec<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    precision: Option<&'a str>,
    #[serde(rename = "problem.severity", skip_serializing_if = "Option::is_none")]
    problem_severity: Option<&'a str>,
}

impl RuleProperties<'_> {
    fn is_empty(&self) -> bool {
        self.tags.is_empty() && self.precision.is_none() && self.problem_severity.is_none()
    }
}

#[derive(Serialize)]
struct AutomationDetails<'a> {
    id: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Invocation<'a> {
    execution_successful: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    command_line: Option<&'a str>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    arguments: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    working_directory: Option<ArtifactLocation<'a, 'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_execution_notifications: Vec<Notification<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    exit_code: Option<i32>,
}

impl<'a> Invocation<'a> {
    fn from_model(inv: &'a crate::Invocation) -> Self {
        Invocation {
            execution_successful: inv.execution_successful,
            command_line: inv.command_line.as_deref(),
            arguments: &inv.arguments,
            working_directory: inv
                .working_directory
                .as_deref()
                .map(|uri| ArtifactLocation {
                    uri: Cow::Borrowed(uri),
                    uri_base_id: None,
                }),
            tool_execution_notifications: inv
                .notifications
                .iter()
                .map(Notification::from_model)
                .collect(),
            exit_code: inv.exit_code,
        }
    }
}

#[derive(Serialize)]
struct Notification<'a> {
    level: Level,
    message: Message<'a>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    locations: Vec<Location<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    descriptor: Option<DescriptorReference<'a>>,
}

impl<'a> Notification<'a> {
    fn from_model(n: &'a crate::Notification) -> Self {
        Notification {
            level: n.level,
            message: Message {
                text: &n.message,
                markdown: None,
            },
            locations: n
                .uri
                .as_deref()
                .map(|uri| Location {
                    id: None,
                    physical_location: Some(PhysicalLocation {
                        artifact_location: ArtifactLocation {
                            uri: Cow::Borrowed(uri),
                            uri_base_id: None,
                        },
                        region: None,
                    }),
                    logical_locations: Vec::new(),
                    message: None,
                })
                .into_iter()
                .collect(),
            descriptor: n
                .descriptor_id
                .as_deref()
                .map(|id| DescriptorReference { id }),
        }
    }
}

#[derive(Serialize)]
struct DescriptorReference<'a> {
    id: &'a str,
}

#[derive(Serialize)]
struct Message<'a> {
    text: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    markdown: Option<&'a str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WireResult<'a> {
    rule_id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    rule_index: Option<usize>,
    level: Level,
    message: Message<'a>,
    locations: [Location<'a>; 1],
    #[serde(skip_serializing_if = "Vec::is_empty")]
    related_locations: Vec<Location<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    code_flows: Vec<CodeFlow<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rank: Option<f64>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    partial_fingerprints: &'a BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    suppressions: Vec<Suppression<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    baseline_state: Option<crate::BaselineState>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    properties: &'a BTreeMap<String, serde_json::Value>,
}

#[derive(Serialize)]
struct Suppression<'a> {
    kind: crate::SuppressionKind,
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    justification: Option<&'a str>,
}

impl<'a> WireResult<'a> {
    fn from_model(r: &'a crate::SarifResult, rule_index: Option<usize>) -> Self {
        WireResult {
            rule_id: &r.rule_id,
            rule_index,
            level: r.level,
            message: Message {
                text: &r.message,
                markdown: r.markdown.as_deref(),
            },
            locations: [Location::from_model(&r.primary, None)],
            related_locations: r
                .related
                .iter()
                .zip(1u32..)
                .map(|(loc, id)| Location::from_model(loc, Some(id)))
                .collect(),
            code_flows: r
                .code_flows
                .iter()
                .filter_map(CodeFlow::from_model)
                .collect(),
            rank: r
                .rank
                .filter(|rank| rank.is_finite())
                .map(|rank| rank.clamp(0.0, 100.0)),
            partial_fingerprints: &r.partial_fingerprints,
            suppressions: r
                .suppressions
                .iter()
                .map(|s| Suppression {
                    kind: s.kind,
                    status: "accepted",
                    justification: s.justification.as_deref().filter(|j| !j.is_empty()),
                })
                .collect(),
            baseline_state: r.baseline_state,
            properties: &r.properties,
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CodeFlow<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<Message<'a>>,
    thread_flows: Vec<ThreadFlow<'a>>,
}

impl<'a> CodeFlow<'a> {
    /// `None` when no thread flow has a step (SARIF needs at least one).
    fn from_model(cf: &'a crate::CodeFlow) -> Option<Self> {
        let thread_flows: Vec<_> = cf
            .thread_flows
            .iter()
            .filter(|tf| !tf.steps.is_empty())
            .map(ThreadFlow::from_model)
            .collect();
        (!thread_flows.is_empty()).then(|| CodeFlow {
            message: cf.message.as_deref().map(|text| Message {
                text,
                markdown: None,
            }),
            thread_flows,
        })
    }
}

#[derive(Serialize)]
struct ThreadFlow<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<Message<'a>>,
    locations: Vec<ThreadFlowLocation<'a>>,
}

impl<'a> ThreadFlow<'a> {
    fn from_model(tf: &'a crate::ThreadFlow) -> Self {
        ThreadFlow {
            id: tf.id.as_deref(),
            message: tf.message.as_deref().map(|text| Message {
                text,
                markdown: None,
            }),
            locations: tf
                .steps
                .iter()
                .map(ThreadFlowLocation::from_model)
                .collect(),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ThreadFlowLocation<'a> {
    location: Location<'a>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    kinds: Vec<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    nesting_level: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    execution_order: Option<u32>,
}

impl<'a> ThreadFlowLocation<'a> {
    fn from_model(step: &'a crate::ThreadFlowStep) -> Self {
        ThreadFlowLocation {
            location: Location::from_model(&step.location, None),
            kinds: dedup(&step.kinds),
            nesting_level: step.nesting_level,
            execution_order: step.execution_order,
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Location<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    physical_location: Option<PhysicalLocation<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    logical_locations: Vec<LogicalLocation<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<Message<'a>>,
}

impl<'a> Location<'a> {
    fn from_model(loc: &'a crate::Location, id: Option<u32>) -> Self {
        Location {
            id,
            physical_location: loc.uri.as_deref().map(|uri| PhysicalLocation {
                artifact_location: ArtifactLocation {
                    uri: Cow::Borrowed(uri),
                    uri_base_id: loc.uri_base_id.as_deref(),
                },
                region: loc
                    .start_line
                    .filter(|&line| line >= 1)
                    .map(|start_line| Region { start_line }),
            }),
            logical_locations: loc
                .logical
                .iter()
                .map(|l| LogicalLocation {
                    kind: &l.kind,
                    fully_qualified_name: &l.fully_qualified_name,
                    decorated_name: l.decorated_name.as_deref(),
                })
                .collect(),
            message: loc.message.as_deref().map(|text| Message {
                text,
                markdown: None,
            }),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation<'a> {
    artifact_location: ArtifactLocation<'a, 'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<Region>,
}

/// `'u` is the lifetime of the URI (owned when a `/` had to be appended),
/// `'a` that of the base id.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactLocation<'u, 'a> {
    uri: Cow<'u, str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    uri_base_id: Option<&'a str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: u32,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LogicalLocation<'a> {
    #[serde(skip_serializing_if = "str::is_empty")]
    kind: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    fully_qualified_name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    decorated_name: Option<&'a str>,
}

/// The strings of `items` in order, without repeats (SARIF arrays such as
/// `tags` and `kinds` must have unique items).
fn dedup(items: &[String]) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::with_capacity(items.len());
    for item in items {
        if !out.contains(&item.as_str()) {
            out.push(item);
        }
    }
    out
}

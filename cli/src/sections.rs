//! The atomic sections the run-time agent (`agent/`, issue 16) monitors, built as data from a
//! scan: the read and the use of every `stale-value` and `causal-stale-value` finding and of
//! every check-then-act on a thread-safe object (general sections), the seed's pattern-based
//! sections (load-and-store, test-and-use) over the program's mutable fields, and a primitive
//! (data-race) section on every other access of those sections' variables, so that another
//! thread's access anywhere in the scanned code can break them. The format is
//! `docs/sections.schema.json`; the binary writes it (`scan --sections FILE`). No I/O here.

use serde::{Deserialize, Serialize};

use crate::bytecode::{Class, Code, Op};
use crate::explain::{Diagnostic, StepKind};
use crate::fxhash::{FxHashMap, FxHashSet};
use crate::program::Program;
use crate::rules::RuleId;

/// The version of the sections format this build writes and reads.
pub const VERSION: u32 = 1;

/// Instructions a pattern-based section may span at most (a section is short by intent).
const PATTERN_SPAN: u32 = 32;

/// A sections file.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct SectionsFile {
    pub version: u32,
    pub tool: String,
    pub sections: Vec<Section>,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    General,
    Primitive,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum AccessKind {
    Read,
    Write,
}

/// One atomic section over one variable.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Section {
    pub id: String,
    pub kind: Kind,
    /// Where it comes from: `stale-value`, `causal-stale-value`, `check-then-act`,
    /// `load-and-store`, `test-and-use`, `shared-access` (a primitive section) or `user`.
    pub origin: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finding: Option<FindingRef>,
    pub variable: Variable,
    pub entry: Point,
    /// End points (general sections only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ends: Vec<End>,
}

/// The static finding a section checks: enough to find it again in a SARIF report.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct FindingRef {
    pub rule: String,
    /// The finding's method: class (binary name with dots), name and descriptor.
    pub class: String,
    pub method: String,
    pub descriptor: String,
    /// The package-relative source file.
    pub file: String,
    /// The line of the finding (its use), if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq, Hash)]
pub struct Variable {
    /// The declaring class, binary name with dots.
    pub class: String,
    pub field: String,
    #[serde(rename = "static", default)]
    pub is_static: bool,
}

/// A program location: a method's instruction by its bytecode offset.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq, Hash)]
pub struct Point {
    /// Binary class name with dots.
    pub class: String,
    pub method: String,
    pub descriptor: String,
    /// The bytecode offset, as `javap -c` prints it.
    pub pc: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

/// An end point of a general section, with the accesses of other threads it allows.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct End {
    #[serde(flatten)]
    pub point: Point,
    #[serde(default)]
    pub allowed: Vec<AccessKind>,
}

/// What went into a sections file, in figures (printed by the binary).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub from_findings: usize,
    pub patterns: usize,
    pub primitive: usize,
    /// Findings whose read or use could not become a section (not a field read, use in another
    /// method, no code).
    pub skipped_findings: usize,
}

/// A field access instruction of a scanned method.
struct FieldAccess<'a> {
    var: Variable,
    write: bool,
    at: u32,
    class: &'a Class,
    method: usize,
}

/// Builds the sections of a scan from its diagnostics and its program.
pub fn build(program: &Program, diagnostics: &[Diagnostic]) -> (SectionsFile, Counts) {
    let mut counts = Counts::default();
    let mut sections: Vec<Section> = Vec::new();
    let mut taken: FxHashSet<Point> = FxHashSet::default();

    for d in diagnostics {
        let origin = match (d.rule, d.evidence) {
            (RuleId::StaleValue, _) => "stale-value",
            (RuleId::CausalStaleValue, _) => "causal-stale-value",
            (_, Some(e)) if e.starts_with("check-then-act") => "check-then-act",
            _ => continue,
        };
        match finding_section(program, d, origin) {
            Some(s) if !taken.contains(&s.entry) => {
                taken.insert(s.entry.clone());
                sections.push(s);
                counts.from_findings += 1;
            }
            Some(_) => {}
            None => counts.skipped_findings += 1,
        }
    }

    // Every access of a mutable field of the scanned classes, by variable.
    let mut accesses: FxHashMap<Variable, Vec<FieldAccess<'_>>> = FxHashMap::default();
    for (ci, class) in program.classes.iter().enumerate() {
        if class.library {
            continue;
        }
        for (mi, m) in class.methods.iter().enumerate() {
            if &*m.name == "<clinit>" {
                continue;
            }
            let Some(code) = &m.code else { continue };
            for (at, insn) in code.insns.iter().enumerate() {
                let (r, write, is_static) = match insn.op {
                    Op::GetField(r) => (r, false, false),
                    Op::PutField(r) => (r, true, false),
                    Op::GetStatic(r) => (r, false, true),
                    Op::PutStatic(r) => (r, true, true),
                    _ => continue,
                };
                if program.is_stable_field(ci as u32, r) {
                    continue;
                }
                let mref = class.member(r);
                let Some((oc, of)) = program.field_owner(&mref.class, &mref.name) else {
                    continue;
                };
                let owner = program.class(oc);
                if owner.library || owner.fields[of as usize].access & ACC_VOLATILE != 0 {
                    continue;
                }
                accesses
                    .entry(Variable {
                        class: owner.dotted_name(),
                        field: mref.name.to_string(),
                        is_static,
                    })
                    .or_default()
                    .push(FieldAccess {
                        var: Variable {
                            class: owner.dotted_name(),
                            field: mref.name.to_string(),
                            is_static,
                        },
                        write,
                        at: at as u32,
                        class,
                        method: mi,
                    });
            }
        }
    }
    let mut vars: Vec<&Variable> = accesses.keys().collect();
    vars.sort_by(|a, b| (&a.class, &a.field).cmp(&(&b.class, &b.field)));

    // Pattern-based sections, per method, over fields that are written outside constructors.
    for var in &vars {
        let list = &accesses[*var];
        let written = list.iter().any(|a| {
            a.write && {
                let n = &*a.class.methods[a.method].name;
                n != "<init>"
            }
        });
        if !written {
            continue;
        }
        for a in list.iter().filter(|a| !a.write) {
            let m = &a.class.methods[a.method];
            if &*m.name == "<init>" {
                continue;
            }
            let Some(code) = &m.code else { continue };
            let same = |b: &&FieldAccess<'_>| {
                std::ptr::eq(b.class, a.class)
                    && b.method == a.method
                    && b.at > a.at
                    && b.at <= a.at + PATTERN_SPAN
            };
            // load-and-store: the next write of the same field in the method.
            let store = list
                .iter()
                .filter(|b| b.write)
                .filter(same)
                .min_by_key(|b| b.at);
            // test-and-use: a read tested by the next instruction, then read again.
            let tested = matches!(
                code.insns.get(a.at as usize + 1).map(|i| &i.op),
                Some(Op::If { pop: 1, .. })
            );
            let reuse = if tested {
                list.iter()
                    .filter(|b| !b.write)
                    .filter(same)
                    .min_by_key(|b| b.at)
            } else {
                None
            };
            let (origin, end, allowed) = match (store, reuse) {
                (Some(s), _) => ("load-and-store", s, vec![]),
                (None, Some(u)) => ("test-and-use", u, vec![]),
                (None, None) => continue,
            };
            let entry = point(a.class, a.method, code, a.at);
            if taken.contains(&entry) {
                continue;
            }
            let end_point = point(a.class, a.method, code, end.at);
            taken.insert(entry.clone());
            taken.insert(end_point.clone());
            sections.push(Section {
                id: String::new(),
                kind: Kind::General,
                origin: origin.to_string(),
                finding: None,
                variable: (*var).clone(),
                entry,
                ends: vec![End {
                    point: end_point,
                    allowed,
                }],
            });
            counts.patterns += 1;
        }
    }

    // Primitive sections: the other accesses of the variables of the general sections.
    let general_vars: FxHashSet<Variable> = sections.iter().map(|s| s.variable.clone()).collect();
    for s in &sections {
        for e in &s.ends {
            taken.insert(e.point.clone());
        }
    }
    let mut primitive = Vec::new();
    for var in vars.iter().filter(|v| general_vars.contains(**v)) {
        for a in &accesses[*var] {
            let m = &a.class.methods[a.method];
            let Some(code) = &m.code else { continue };
            let p = point(a.class, a.method, code, a.at);
            if taken.insert(p.clone()) {
                primitive.push(Section {
                    id: String::new(),
                    kind: Kind::Primitive,
                    origin: "shared-access".to_string(),
                    finding: None,
                    variable: a.var.clone(),
                    entry: p,
                    ends: Vec::new(),
                });
                counts.primitive += 1;
            }
        }
    }
    sections.extend(primitive);
    assign_ids(&mut sections);
    (
        SectionsFile {
            version: VERSION,
            tool: "stalecheck".to_string(),
            sections,
        },
        counts,
    )
}

const ACC_VOLATILE: u16 = 0x0040;

/// Ids that say what a section is and where: `stale-value:pkg.C.m@4-17`, unique in the file.
fn assign_ids(sections: &mut [Section]) {
    let mut seen: FxHashMap<String, usize> = FxHashMap::default();
    for s in sections.iter_mut() {
        let mut id = format!(
            "{}:{}.{}@{}",
            s.origin, s.entry.class, s.entry.method, s.entry.pc
        );
        if let Some(e) = s.ends.first() {
            id.push_str(&format!("-{}", e.point.pc));
        }
        let n = seen.entry(id.clone()).or_insert(0);
        *n += 1;
        if *n > 1 {
            id.push_str(&format!("#{n}"));
        }
        s.id = id;
    }
}

fn point(class: &Class, method: usize, code: &Code, at: u32) -> Point {
    let m = &class.methods[method];
    Point {
        class: class.dotted_name(),
        method: m.name.to_string(),
        descriptor: m.descriptor.to_string(),
        pc: code.offset_of(at).unwrap_or(0),
        line: code.line_of(at),
    }
}

/// The general section of a finding: from its read (a field read, or for a value read through a
/// call, the nearest read before it of a field holding an object: the object called) to its use,
/// in the finding's method.
fn finding_section(program: &Program, d: &Diagnostic, origin: &str) -> Option<Section> {
    let read = d
        .steps
        .iter()
        .find(|s| s.kind == StepKind::Read && s.method.is_none() && s.file.is_none())?;
    let use_ = d
        .steps
        .iter()
        .rev()
        .find(|s| s.kind == StepKind::Use && s.method.is_none() && s.file.is_none())?;
    let ci = program.class_index(&d.class.replace('.', "/"))?;
    let class = program.class(ci);
    let mi = class
        .methods
        .iter()
        .position(|m| *m.name == *d.method && *m.descriptor == *d.descriptor)?;
    let code = class.methods[mi].code.as_ref()?;
    let at_of = |pc: u32| code.offsets.iter().position(|&o| u32::from(o) == pc);
    let read_at = at_of(read.pc?)? as u32;
    let use_at = at_of(use_.pc?)? as u32;
    if use_at <= read_at {
        return None;
    }
    // The field read: the read itself, or (a call's result) the nearest field read before it
    // that loads an object.
    let field_at = (0..=read_at)
        .rev()
        .find(|&i| match code.insns[i as usize].op {
            Op::GetField(r) | Op::GetStatic(r) => {
                i == read_at || crate::bytecode::is_reference(&class.member(r).desc)
            }
            _ => false,
        })?;
    let (r, is_static) = match code.insns[field_at as usize].op {
        Op::GetField(r) => (r, false),
        Op::GetStatic(r) => (r, true),
        _ => return None,
    };
    let mref = class.member(r);
    let owner = program
        .field_owner(&mref.class, &mref.name)
        .map(|(oc, _)| program.class(oc).dotted_name())
        .unwrap_or_else(|| mref.class.replace('/', "."));
    // A stale value read from a field matters when another thread writes the field; the state
    // of an object (a call's result: a check-then-act, a look into a thread-safe collection)
    // changes through calls that only read the field holding it, so any access breaks it.
    let allowed = if origin == "check-then-act" || field_at != read_at {
        vec![]
    } else {
        vec![AccessKind::Read]
    };
    Some(Section {
        id: String::new(),
        kind: Kind::General,
        origin: origin.to_string(),
        finding: Some(FindingRef {
            rule: d.rule.code().to_string(),
            class: d.class.clone(),
            method: d.method.clone(),
            descriptor: d.descriptor.clone(),
            file: d.file.clone(),
            line: d.line,
        }),
        variable: Variable {
            class: owner,
            field: mref.name.to_string(),
            is_static,
        },
        entry: point(class, mi, code, field_at),
        ends: vec![End {
            point: point(class, mi, code, use_at),
            allowed,
        }],
    })
}

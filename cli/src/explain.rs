//! Turns a rule's [`Finding`] (instruction indices) into a [`Diagnostic`]: source lines, the
//! value's story (read, stale, use) in words, and the method's identity. Output formats render
//! diagnostics; nothing here knows about a format.

use serde::Serialize;

use crate::analysis::locks::METHOD_SITE;
use crate::bytecode::{Class, Code, InvokeKind, Method, Op};
use crate::program::MethodId;
use crate::rules::{Finding, Level, RuleId};

/// One finding, ready for any output format.
#[derive(Clone, Debug, Serialize)]
pub struct Diagnostic {
    pub rule: RuleId,
    pub level: Level,
    pub message: String,
    /// Binary class name with dots: `pkg.Outer$Inner`.
    pub class: String,
    pub method: String,
    pub descriptor: String,
    /// Package-relative source path from the `SourceFile` attribute: `pkg/Outer.java`.
    pub file: String,
    /// The source file found under a `--source-root`, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<std::path::PathBuf>,
    /// Index of the `--source-root` it was found under.
    #[serde(skip)]
    pub source_root: Option<usize>,
    /// Line of the use (the primary location).
    pub line: Option<u32>,
    /// Critical sections entered since the read (stale-value).
    pub age: Option<u32>,
    /// The story of the finding in order: for the stale-value rules read, stale, use; for
    /// `method-consistency` the lock views (acquisition, access).
    pub steps: Vec<Step>,
    /// The abstract threads involved (whole-program rules).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub threads: Vec<String>,
    /// What makes it a finding, in a word (`write-back`, `same-object`, `check-then-act`...):
    /// the evidence its level and rank come from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence: Option<&'static str>,
    /// How sure and how serious, 0 to 100 (SARIF `rank`): from the evidence, the age and how
    /// direct the flow is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank: Option<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum StepKind {
    Read,
    Stale,
    Use,
    /// A lock acquisition opening a lock view.
    Lock,
    /// A field access inside a lock view.
    Access,
}

#[derive(Clone, Debug, Serialize)]
pub struct Step {
    pub kind: StepKind,
    pub line: Option<u32>,
    pub message: String,
    /// The package-relative source file, when not the finding's own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The instruction index of the step in its method (where the source is not available the
    /// HTML diagram places the step by it).
    #[serde(skip)]
    pub at: Option<u32>,
    /// The step's method (`Class.method`), when not the finding's own.
    #[serde(skip)]
    pub method: Option<String>,
    /// Done by the concurrent thread (the other lane of the interleaving), not by the thread
    /// that runs the finding's method.
    #[serde(skip)]
    pub other_thread: bool,
    /// The bytecode offset of the step's instruction (`pc`, as `javap -c` prints it): where the
    /// step is when there is no source line.
    #[serde(skip)]
    pub pc: Option<u32>,
}

impl StepKind {
    /// The word for the kind, as every output format names it.
    pub fn word(self) -> &'static str {
        match self {
            StepKind::Read => "read",
            StepKind::Stale => "stale",
            StepKind::Use => "use",
            StepKind::Lock => "lock",
            StepKind::Access => "access",
        }
    }
}

impl Step {
    /// Where the step is, in words (the text and HTML outputs): `line 12`, `line 30 in A.get`
    /// (another method of the same file), `pkg/Other.java:40`, or, without a line, the method
    /// and instruction index: `get #14` (`method` is the
    /// finding's own method, for steps that do not name another).
    pub fn place(&self, method: &str) -> String {
        let insn = || {
            let m = self.method.as_deref().unwrap_or(method);
            match self.pc {
                Some(pc) => format!("{m} @{pc}"),
                None => m.to_string(),
            }
        };
        match (&self.file, self.line) {
            (Some(f), Some(l)) => format!("{f}:{l}"),
            (Some(f), None) => format!("{f} {}", insn()),
            (None, Some(l)) => match &self.method {
                Some(m) => format!("line {l} in {m}"),
                None => format!("line {l}"),
            },
            (None, None) => insn(),
        }
    }

    /// A step of the finding's own method, in its own file.
    pub fn here(kind: StepKind, line: Option<u32>, at: Option<u32>, message: String) -> Step {
        Step {
            kind,
            line,
            message,
            file: None,
            at,
            method: None,
            other_thread: false,
            pc: None,
        }
    }

    /// The step with its bytecode offset, from the code of its method.
    pub fn in_code(mut self, code: Option<&Code>) -> Step {
        self.pc = self.at.and_then(|a| code?.offset_of(a));
        self
    }
}

/// The bytecode offsets of the steps of the finding's own method (those naming no other method
/// or file), from its code.
pub fn own_offsets(steps: &mut [Step], code: Option<&Code>) {
    for st in steps
        .iter_mut()
        .filter(|s| s.pc.is_none() && s.method.is_none() && s.file.is_none())
    {
        st.pc = st.at.and_then(|a| code?.offset_of(a));
    }
}

/// The package-relative source path of a class: `pkg/Outer.java`.
pub fn source_path(class: &Class) -> String {
    let file = match &class.source_file {
        Some(f) => f.to_string(),
        None => {
            let simple = class.name.rsplit('/').next().unwrap_or(&class.name);
            format!("{}.java", simple.split('$').next().unwrap_or(simple))
        }
    };
    format!("{}{}", class.package_path(), file)
}

/// The simple name of a class from its internal name: `Outer$Inner` for `pkg/Outer$Inner`.
pub fn simple_class(internal: &str) -> &str {
    internal.rsplit('/').next().unwrap_or(internal)
}

/// What the instruction at `at` read: "field `Counter.count`", "the result of `getX()`".
fn describe_read(class: &Class, code: &Code, at: u32) -> String {
    match code.insns.get(at as usize).map(|i| &i.op) {
        Some(Op::GetField(r) | Op::GetStatic(r)) => {
            let m = class.member(*r);
            format!("field `{}.{}`", simple_class(&m.class), m.name)
        }
        Some(Op::ArrayLoad(_)) => "an array element".to_string(),
        Some(Op::ArrayLength) => "an array length".to_string(),
        Some(Op::Invoke(_, r)) => format!("the result of `{}()`", class.member(*r).name),
        _ => "a shared value".to_string(),
    }
}

/// The region a value was read in: "the synchronized block at line 9".
fn describe_region(class: &Class, method: &Method, code: &Code, site: u32) -> String {
    if site == crate::analysis::locks::CALLER_SITE {
        return "the critical section every caller holds".to_string();
    }
    if site == METHOD_SITE {
        return if method.is_synchronized() {
            format!("synchronized method `{}`", method.name)
        } else {
            format!("atomic method `{}`", method.name)
        };
    }
    let line = code
        .line_of(site)
        .map(|l| format!(" at line {l}"))
        .unwrap_or_default();
    match code.insns.get(site as usize).map(|i| &i.op) {
        Some(Op::MonitorEnter) => format!("the synchronized block{line}"),
        Some(Op::Invoke(_, r)) => {
            let m = class.member(*r);
            match &*m.name {
                "lock" | "lockInterruptibly" => format!("the `lock()` region{line}"),
                // A stamped lock's read or write lock.
                n if stamped_takes(n) => format!("the `{n}()` region{line}"),
                _ => format!("the critical section of `{}()`{line}", m.name),
            }
        }
        Some(Op::If { .. }) => format!("the `tryLock()` region{line}"),
        _ => format!("the critical section{line}"),
    }
}

/// A `StampedLock` method named `name` that takes one of its locks.
fn stamped_takes(name: &str) -> bool {
    crate::analysis::locks::stamped_op(name).is_some_and(crate::analysis::locks::LockOp::takes)
}

/// The boundary at which the value went stale (or left its block).
fn describe_boundary(class: &Class, code: &Code, at: u32) -> String {
    match code.insns.get(at as usize).map(|i| &i.op) {
        Some(Op::MonitorEnter) => "a lock is acquired here (synchronized block)".to_string(),
        Some(Op::MonitorExit) => {
            "the lock is released here (end of the synchronized block)".to_string()
        }
        Some(Op::If { .. }) => {
            "`tryLock()` succeeds here and a critical section begins".to_string()
        }
        Some(Op::Invoke(_, r)) => {
            let m = class.member(*r);
            match &*m.name {
                "lock" | "lockInterruptibly" => "`lock()` acquires a lock here".to_string(),
                "unlock" => "`unlock()` releases the lock here".to_string(),
                n if stamped_takes(n) => format!("`{n}()` acquires a lock here"),
                n if crate::analysis::locks::stamped_op(n).is_some() => {
                    format!("`{n}()` releases the lock here")
                }
                "wait" => "`wait()` releases the lock here and re-acquires it".to_string(),
                n if n.starts_with("await") => {
                    format!("`{n}()` releases the lock here and re-acquires it")
                }
                n => format!("the call to `{n}()` is a critical section of its own"),
            }
        }
        _ => "a critical section boundary".to_string(),
    }
}

/// How the value is used at `at`.
fn describe_use(class: &Class, code: &Code, at: u32) -> String {
    match code.insns.get(at as usize).map(|i| &i.op) {
        Some(Op::PutField(r) | Op::PutStatic(r)) => {
            let m = class.member(*r);
            format!(
                "used in the store to `{}.{}`",
                simple_class(&m.class),
                m.name
            )
        }
        Some(Op::ArrayStore(_)) => "used in an array store".to_string(),
        Some(Op::ArrayLoad(_) | Op::ArrayLength) => "used to access an array".to_string(),
        Some(Op::Invoke(k, r)) => {
            let m = class.member(*r);
            if *k == InvokeKind::Special && &*m.name == "<init>" {
                format!("passed to the `{}` constructor", simple_class(&m.class))
            } else {
                format!("passed to `{}()`", m.name)
            }
        }
        Some(Op::InvokeDynamic(_)) => "captured or concatenated".to_string(),
        Some(Op::Compute { .. }) => "used in a computation".to_string(),
        Some(Op::Iinc(_)) => "incremented".to_string(),
        Some(Op::If { .. }) => "tested in a condition".to_string(),
        Some(Op::Switch(_)) => "used in a switch".to_string(),
        Some(Op::Return(_)) => "returned".to_string(),
        Some(Op::Athrow) => "thrown".to_string(),
        Some(Op::MonitorEnter | Op::MonitorExit) => "used as a lock".to_string(),
        _ => "used".to_string(),
    }
}

fn line_ref(l: Option<u32>) -> String {
    l.map(|l| format!("line {l}"))
        .unwrap_or_else(|| "an unknown line".to_string())
}

/// Build the diagnostic for a finding in `method` of `class`.
pub fn explain(class: &Class, method: &Method, code: &Code, f: &Finding) -> Diagnostic {
    let meta = f.rule.meta();
    let what = describe_read(class, code, f.read_at);
    let region = describe_region(class, method, code, f.region_site);
    let read_line = code.line_of(f.read_at);
    let use_line = code.line_of(f.use_at);
    let boundary_line = f.boundary_at.and_then(|b| code.line_of(b));
    let usage = describe_use(class, code, f.use_at);
    let message = match f.rule {
        RuleId::StaleValue if f.wrong_lock.is_some() => format!(
            "Stale value: {what} was read inside {region} ({}) and is {usage} ({}) before it ends, \
             but that lock does not exclude the other writers: another thread can change it in \
             between",
            line_ref(read_line),
            line_ref(use_line),
        ),
        RuleId::StaleValue => format!(
            "Stale value: {what} was read inside {region} ({}) and is {usage} ({}) after a new critical \
             section began ({}); another thread may have changed it meanwhile [age {}]",
            line_ref(read_line),
            line_ref(use_line),
            line_ref(boundary_line),
            f.age.unwrap_or(0)
        ),
        _ => format!(
            "Value of {what} read inside {region} ({}) is {usage} ({}) outside that block",
            line_ref(read_line),
            line_ref(use_line)
        ),
    };
    let mut steps = vec![Step::here(
        StepKind::Read,
        read_line,
        Some(f.read_at),
        format!("{what} is read here, inside {region}"),
    )];
    if let Some(b) = f.boundary_at {
        let mut m = describe_boundary(class, code, b);
        if f.rule == RuleId::StaleValue {
            m.push_str("; from here the value read before is stale");
        }
        steps.push(Step::here(StepKind::Stale, boundary_line, Some(b), m));
    }
    // Values of the same cause (same statement, same snapshot): their reads join the first
    // read, their uses come before the primary use. The message counts them without naming
    // them, so that the finding's fingerprint stays that of its first value.
    let mut message = message;
    if !f.also.is_empty() {
        let n = f.also.len();
        message.push_str(&format!(
            "; {n} more value{} of the same critical section {} stale the same way",
            if n == 1 { "" } else { "s" },
            if n == 1 { "goes" } else { "go" }
        ));
        let reads = f.also.iter().map(|&(read_at, _)| {
            Step::here(
                StepKind::Read,
                code.line_of(read_at),
                Some(read_at),
                format!(
                    "{} is read here too, inside {region}",
                    describe_read(class, code, read_at)
                ),
            )
        });
        // Before the boundary, unless the boundary is the first read's own call (a call that
        // is a critical section of its own): the other reads come after it.
        let first_stale = if f.boundary_at == Some(f.read_at) {
            steps
                .iter()
                .position(|s| s.kind == StepKind::Stale)
                .map(|i| i + 1)
        } else {
            steps.iter().position(|s| s.kind != StepKind::Read)
        };
        let at = first_stale.unwrap_or(steps.len());
        let reads: Vec<Step> = reads.collect();
        steps.splice(at..at, reads);
        for &(_, use_at) in f.also.iter().filter(|&&(_, u)| u != f.use_at) {
            steps.push(Step::here(
                StepKind::Use,
                code.line_of(use_at),
                Some(use_at),
                format!(
                    "a value read with it is {} here",
                    describe_use(class, code, use_at)
                ),
            ));
        }
    }
    steps.push(Step::here(
        StepKind::Use,
        use_line,
        Some(f.use_at),
        match f.rule {
            RuleId::StaleValue => format!("the stale value is {usage} here"),
            _ => format!("the value is {usage} here, outside its block"),
        },
    ));
    name_back_edges(code, &mut steps);
    own_offsets(&mut steps, Some(code));
    Diagnostic {
        rule: f.rule,
        level: meta.level,
        message,
        class: class.dotted_name(),
        method: method.name.to_string(),
        descriptor: method.descriptor.to_string(),
        file: source_path(class),
        source: None,
        source_root: None,
        line: use_line,
        age: f.age,
        steps,
        threads: Vec::new(),
        evidence: Some(f.evidence.word()),
        rank: Some(f.evidence.rank(f.age)),
    }
}

/// A read-modify-write inside one region whose lock is the wrong one (see
/// [`Finding::wrong_lock`]): the write at `at` in `writer`, which holds only other locks,
/// joins the story before the use.
pub fn wrong_lock(d: &mut Diagnostic, p: &crate::program::Program, writer: MethodId, at: u32) {
    let class = p.class(writer.class);
    let method = p.method(writer);
    let line = method.code.as_ref().and_then(|c| c.line_of(at));
    let who = format!("`{}.{}()`", simple_class(&class.name), method.name);
    d.message.push_str(&format!(
        " ({who} writes it under a different lock, {})",
        line_ref(line)
    ));
    let file = source_path(class);
    let simple = simple_class(&class.name);
    let step = Step {
        kind: StepKind::Stale,
        line,
        message: "written here under a different lock, which the critical section does not \
                  exclude"
            .to_string(),
        file: (file != d.file).then_some(file),
        at: Some(at),
        method: Some(format!("{simple}.{}", method.name)),
        other_thread: true,
        pc: method.code.as_ref().and_then(|c| c.offset_of(at)),
    };
    let at_use = d
        .steps
        .iter()
        .rposition(|s| s.kind == StepKind::Use)
        .unwrap_or(d.steps.len());
    d.steps.insert(at_use, step);
}

/// Steps are in execution order; where a step's line comes before the previous step's, the
/// reader would take it for an earlier one: say why execution comes back to it. When its
/// instruction comes before the previous one too, a loop brought execution back: name the back
/// edge (the first jump after the previous step that goes back to or before it) with its line.
/// Otherwise the compiler placed the code after the earlier line (the `return` of a `try` after
/// its `finally`, a loop condition at the bottom): say that execution returns to this line.
/// Only steps of the finding's own method (`file` and `method` unset) are compared.
pub fn name_back_edges(code: &Code, steps: &mut [Step]) {
    // (kind, furthest instruction, its line) of the previous group of steps of one kind: the
    // reads of one statement come in any order.
    let mut prev: Option<(StepKind, u32, Option<u32>)> = None;
    for st in steps.iter_mut() {
        let Some(at) = st.at.filter(|_| st.file.is_none() && st.method.is_none()) else {
            continue;
        };
        if let Some((k, p, pl)) = prev {
            if k == st.kind {
                prev = Some(if at > p { (k, at, st.line) } else { (k, p, pl) });
                continue;
            }
            if at < p {
                let back = code
                    .insns
                    .iter()
                    .enumerate()
                    .skip(p as usize)
                    .find(|(_, i)| match i.op {
                        Op::Goto(t) | Op::If { target: t, .. } => t <= at,
                        _ => false,
                    })
                    .map(|(j, _)| j as u32);
                let line = back.and_then(|j| code.line_of(j));
                st.message.push_str(&match line {
                    Some(l) => {
                        format!(" (after the loop's back edge at line {l} brought execution back)")
                    }
                    None => " (after a loop's back edge brought execution back)".to_string(),
                });
            } else if let (Some(l), Some(pl)) = (st.line, pl) {
                if l < pl {
                    st.message.push_str(&format!(
                        " (execution returns to this line after line {pl})"
                    ));
                }
            }
        }
        prev = Some((st.kind, at, st.line));
    }
}

/// How a region reads in a message: "synchronized method `Counter.addAndGet()`", "the call to
/// `get()` in `Cache.lookup()`", "the critical section at line 12 of `Inc.inc()`". `site` is the
/// acquisition site in method `id` (`METHOD_SITE` for a method-level region).
pub fn region_words(
    p: &crate::program::Program,
    id: crate::program::MethodId,
    site: u32,
) -> String {
    let (class, method) = (p.class(id.class), p.method(id));
    let simple = class.name.rsplit('/').next().unwrap_or(&class.name);
    if site == crate::analysis::locks::CALLER_SITE {
        return format!(
            "the critical section every caller of `{simple}.{}()` holds",
            method.name
        );
    }
    if site == crate::analysis::locks::METHOD_SITE {
        let what = if method.is_synchronized() {
            "synchronized method"
        } else {
            "atomic method"
        };
        return format!("{what} `{simple}.{}()`", method.name);
    }
    let code = method.code.as_ref();
    let callee = code.and_then(|c| match &c.insns.get(site as usize)?.op {
        crate::bytecode::Op::Invoke(_, r) => Some((class.member(*r).name.to_string(), *r)),
        _ => None,
    });
    let line = code
        .and_then(|c| c.line_of(site))
        .map(|l| format!(" at line {l}"))
        .unwrap_or_default();
    match callee {
        Some((name, _))
            if matches!(&*name, "lock" | "lockInterruptibly") || stamped_takes(&name) =>
        {
            format!("the critical section{line} of `{simple}.{}()`", method.name)
        }
        // A lock helper opens a critical section of the caller's.
        Some((name, r)) if crate::analysis::locks::calls_acquire_helper(p, id.class, r) => {
            format!(
                "the critical section{line} of `{simple}.{}()` (taken by `{name}()`)",
                method.name
            )
        }
        Some((name, _)) => format!("the call to `{name}()` in `{simple}.{}()`", method.name),
        None => format!("the critical section{line} of `{simple}.{}()`", method.name),
    }
}

//! `stale-value`: Burrows and Leino's stale-value errors (see `stale_value.md` beside this file).
//!
//! Ghost state per register, carried by the value: `from_critical` (the value was read from
//! shared state inside a critical section, Invariant J1 in its precise form), the region it
//! was read in, whether that region has been left, `stale` (a critical section was entered
//! after the region was left: G2) and `age` (critical sections entered since the read,
//! Invariant J2). A use of a stale value is reported once; the value is then fresh again, as
//! ESC/Java assumes the failed assertion's negation downstream.

use super::{Finding, RuleId};
use crate::analysis::engine::{Analysis, RegionEvent, StepCx, StepKind};
use crate::analysis::locks::{CallEffect, RegionCall};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Origin {
    /// Instruction that read the value (a field/array read, or a region call).
    pub read_at: u32,
    /// Site of the region it was read in.
    pub region: u32,
    /// Where that region was left, if it was.
    pub released_at: Option<u32>,
    /// The first region entry after the release: the value is stale from here.
    pub stale_at: Option<u32>,
    /// Critical sections entered since the read.
    pub age: u8,
}

/// The ghost state of one register: `None` when not from a critical section.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ghost(pub Option<Origin>);

impl Ghost {
    /// The join of two origins (commutative and associative, so the fixpoint terminates): the
    /// same read merges field by field; different reads keep the more suspicious one (stale
    /// first, then older, then the earlier read), with the larger age.
    fn worse(a: Origin, b: Origin) -> Origin {
        let min_some = |x: Option<u32>, y: Option<u32>| match (x, y) {
            (Some(p), Some(q)) => Some(p.min(q)),
            (p, q) => p.or(q),
        };
        if a.read_at == b.read_at && a.region == b.region {
            return Origin {
                read_at: a.read_at,
                region: a.region,
                released_at: min_some(a.released_at, b.released_at),
                stale_at: min_some(a.stale_at, b.stale_at),
                age: a.age.max(b.age),
            };
        }
        let key = |o: &Origin| {
            (
                o.stale_at.is_some(),
                o.age,
                std::cmp::Reverse((o.read_at, o.region)),
            )
        };
        let mut w = if key(&b) > key(&a) { b } else { a };
        w.age = a.age.max(b.age);
        w
    }
}

/// Ages are counted up to this (a loop would otherwise count forever); shown as is.
pub const MAX_AGE: u8 = 8;

#[derive(Default)]
pub struct StaleValue {
    pub findings: Vec<Finding>,
}

impl StaleValue {
    fn check(&mut self, cx: &StepCx, inputs: &mut [Ghost]) {
        // Lock operations take lock objects, and a compare-and-set checks the snapshot it is
        // given against the current value inside its region: neither is a stale use.
        let validating = matches!(
            cx.kind,
            StepKind::Call(CallEffect::Region {
                kind: RegionCall::Validating,
                ..
            })
        );
        if cx.kind.is_lock_operation() || validating {
            return;
        }
        for g in inputs.iter_mut() {
            let Some(o) = g.0 else { continue };
            if let Some(stale_at) = o.stale_at {
                if cx.record && !self.findings.iter().any(|f| f.read_at == o.read_at) {
                    self.findings.push(Finding {
                        rule: RuleId::StaleValue,
                        use_at: cx.at,
                        read_at: o.read_at,
                        region_site: o.region,
                        boundary_at: Some(stale_at),
                        age: Some(o.age as u32),
                    });
                }
                // Reported: from here on the value counts as fresh (one report per value).
                *g = Ghost(None);
            }
        }
    }
}

/// Whether a region call counts as a critical section for Burrows and Leino: calls to
/// synchronized methods of the same abstraction, `@Atomic` methods, and one call on a
/// thread-safe library object.
fn counts(kind: RegionCall) -> bool {
    kind != RegionCall::Other
}

fn merge(inputs: &[Ghost]) -> Ghost {
    inputs
        .iter()
        .filter_map(|g| g.0)
        .reduce(Ghost::worse)
        .map_or(Ghost(None), |o| Ghost(Some(o)))
}

fn read_here(cx: &StepCx, region: Option<u32>) -> Ghost {
    Ghost(region.map(|r| Origin {
        read_at: cx.at,
        region: r,
        released_at: None,
        stale_at: None,
        age: 0,
    }))
}

impl Analysis for StaleValue {
    type V = Ghost;

    fn join(&self, a: &Ghost, b: &Ghost, _region: Option<u32>) -> Ghost {
        match (a.0, b.0) {
            (Some(x), Some(y)) => Ghost(Some(Ghost::worse(x, y))),
            (x, y) => Ghost(x.or(y)),
        }
    }

    fn transfer(&mut self, cx: &StepCx, inputs: &mut [Ghost]) -> Ghost {
        match cx.kind {
            // `t := t + 1` keeps the staleness of `t` (the paper's precise approach); reading a
            // local is not a use.
            StepKind::Iinc => return inputs.first().copied().unwrap_or_default(),
            StepKind::Fresh => {
                self.check(cx, inputs);
                return Ghost(None);
            }
            _ => {}
        }
        self.check(cx, inputs);
        match cx.kind {
            StepKind::HeapRead => read_here(cx, cx.region),
            StepKind::Compute => merge(inputs),
            StepKind::Call(CallEffect::Region {
                returns_shared: false,
                ..
            }) => merge(inputs),
            StepKind::Call(CallEffect::Region { kind, .. }) if counts(kind) => {
                read_here(cx, cx.region)
            }
            StepKind::Call(CallEffect::Region { .. }) => read_here(cx, cx.caller_region),
            StepKind::Call(CallEffect::Plain { reads_heap: true }) if cx.region.is_some() => {
                read_here(cx, cx.region)
            }
            StepKind::Call(CallEffect::Plain { .. }) => merge(inputs),
            _ => Ghost(None),
        }
    }

    fn region(&mut self, ev: RegionEvent, v: &mut Ghost) {
        if ev.call().is_some_and(|k| !counts(k)) {
            return;
        }
        let Some(o) = &mut v.0 else { return };
        match ev {
            RegionEvent::Enter { at, .. } => {
                o.age = o.age.saturating_add(1).min(MAX_AGE);
                if o.released_at.is_some() && o.stale_at.is_none() {
                    o.stale_at = Some(at);
                }
            }
            RegionEvent::Exit { site, at, .. } => {
                if o.region == site && o.released_at.is_none() {
                    o.released_at = Some(at);
                }
            }
        }
    }
}

//! `stale-value`: Burrows and Leino's stale-value errors (see `stale_value.md` beside this file).
//!
//! Ghost state per register, carried by the value: `from_critical` (the value was read from
//! shared state inside a critical section, Invariant J1 in its precise form), the region it
//! was read in, whether that region has been left, `stale` (a critical section was entered
//! after the region was left: G2) and `age` (critical sections entered since the read,
//! Invariant J2). A use of a stale value is reported once; the value is then fresh again, as
//! ESC/Java assumes the failed assertion's negation downstream.

use super::{Evidence, Finding, RuleId};
use crate::analysis::engine::{Analysis, MethodCx, RegionEvent, StepCx, StepKind};
use crate::analysis::locks::{CallEffect, LockId, RegionCall, Returns, Sym};
use crate::analysis::outcome::result_tested;
use crate::bytecode::cfg::control_dependence;
use crate::fxhash::FxHashMap;

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
    /// Critical sections entered since the read, on a lock related to its own.
    pub age: u8,
    /// The shared location it was read from, when the frame names it (see `StepCx::place`).
    pub place: Sym,
    /// The value is the thread's own: the outcome of its own read-modify-write, or taken out of
    /// its location (this thread overwrote the location since). Not a snapshot others make
    /// stale; reported only when written back to where it came from (a lost update).
    pub owned: bool,
    /// Read from the state of a thread-safe object (a call), not a field's value.
    pub state: bool,
    /// The site of the enclosing critical section around the one it was read in, while it is
    /// still held (its lock: [`StaleValue::locks`]).
    pub outer: Option<u32>,
    /// An array allocated with the value as its length (`new Object[v.size()]`): used only
    /// where handed back to the object the size came from (`v.copyInto(a)`), which fills it
    /// assuming the size still holds.
    pub sized: bool,
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
                place: a.place,
                owned: a.owned && b.owned,
                state: a.state,
                outer: if a.outer == b.outer { a.outer } else { None },
                sized: a.sized && b.sized,
            };
        }
        let key = |o: &Origin| {
            (
                o.stale_at.is_some(),
                !o.owned,
                !o.sized,
                o.age,
                std::cmp::Reverse((o.read_at, o.region)),
            )
        };
        let mut w = if key(&b) > key(&a) { b } else { a };
        w.age = a.age.max(b.age);
        w
    }
}

/// The `read_at` and `region` of a clock value (see [`Ghost::clock`]).
const CLOCK: u32 = u32::MAX - 2;

impl Ghost {
    /// A clock reading, or a time computed from one: never stale, and arithmetic with it gives
    /// a time (a deadline `start + timeout` is not a snapshot of the timeout).
    fn clock() -> Ghost {
        Ghost(Some(Origin {
            read_at: CLOCK,
            region: CLOCK,
            released_at: None,
            stale_at: None,
            age: 0,
            place: Sym::Unknown,
            owned: false,
            state: false,
            outer: None,
            sized: false,
        }))
    }

    fn is_clock(&self) -> bool {
        self.0.is_some_and(|o| o.read_at == CLOCK)
    }
}

/// Ages are counted up to this (a loop would otherwise count forever); shown as is.
pub const MAX_AGE: u8 = 8;

#[derive(Default)]
pub struct StaleValue {
    pub findings: Vec<Finding>,
    /// The lock of each critical section (by acquisition site) values were read in or under.
    locks: FxHashMap<u32, LockId>,
    /// The reads whose values each compare-and-set style call (by site), or each re-read and
    /// compare (by instruction), checked against the current state.
    checked: FxHashMap<u32, Vec<u32>>,
    /// The instruction that just re-read and compared (see [`Analysis::refines`]).
    compared: Option<u32>,
    /// Updates that report their outcome (conditional updates, read-modify-writes, take-outs):
    /// the call and the location it updates.
    updates: Vec<(u32, Sym)>,
}

impl StaleValue {
    /// After the run: a decision on a stale look at a location (`n = q.size(); while (n-- >
    /// 0)`) that only leads to updates of that location whose outcome the code tests (`r =
    /// q.poll(); if (r == null) break;`) is checked by those outcomes, not acted upon stale
    /// (see [`crate::analysis::outcome`]). It stays a finding when one such update's outcome is
    /// ignored, or when it decides no update of the location at all.
    pub fn settle(&mut self, cx: &MethodCx<'_>) {
        let decisions = |f: &Finding| f.evidence == Evidence::Decision && f.read_place.is_some();
        if !self.findings.iter().any(decisions) {
            return;
        }
        let control = cx.program.with_known(cx.class_id, |known| {
            control_dependence(cx.cfg, cx.class, cx.code, known)
        });
        let updates = &self.updates;
        self.findings.retain(|f| {
            let Some((place, _)) = f.read_place.filter(|_| decisions(f)) else {
                return true;
            };
            let decided: Vec<u32> = updates
                .iter()
                .filter(|&&(at, p)| {
                    p == place
                        && control
                            .get(cx.cfg.block_of[at as usize] as usize)
                            .is_some_and(|c| c.branches.contains(&f.use_at))
                })
                .map(|&(at, _)| at)
                .collect();
            decided.is_empty() || !decided.iter().all(|&at| result_tested(cx.code, at))
        });
    }

    /// Re-read and compare: a stale value combined with a value read from the same location in
    /// the current critical section (`if (count == seen)`, a version check) is being checked
    /// against the current state, not used stale.
    fn revalidate(&mut self, at: u32, inputs: &mut [Ghost]) {
        let fresh = |place: Sym| {
            inputs
                .iter()
                .filter_map(|g| g.0)
                .any(|o| o.stale_at.is_none() && o.place == place)
        };
        let mut validated = [false; 8];
        for (k, g) in inputs.iter().enumerate().take(validated.len()) {
            if let Some(o) = g.0 {
                validated[k] = o.stale_at.is_some() && o.place != Sym::Unknown && fresh(o.place);
            }
        }
        for (g, _) in inputs.iter_mut().zip(validated).filter(|(_, v)| *v) {
            if let Some(o) = g.0 {
                // The same value held elsewhere in the frame is checked too (see `refines`).
                let reads = self.checked.entry(at).or_default();
                if !reads.contains(&o.read_at) {
                    reads.push(o.read_at);
                }
                self.compared = Some(at);
            }
            *g = Ghost(None);
        }
    }

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
        if validating {
            let reads = self.checked.entry(cx.at).or_default();
            for o in inputs.iter().filter_map(|g| g.0) {
                if !reads.contains(&o.read_at) {
                    reads.push(o.read_at);
                }
            }
        }
        if cx.kind.is_lock_operation() || validating || cx.local_target {
            // A store into an object this method allocated builds a local value.
            return;
        }
        // The receiver of a call is the object it operates on (its current state), not a
        // value it uses; so is an object whose own lock protects the access.
        let skip = usize::from(cx.receiver_locked || cx.receiver);
        // A field or array access whose first input (the object) is not skipped dereferences it.
        let derefs = skip == 0 && matches!(cx.kind, StepKind::HeapRead | StepKind::Sink);
        for (i, g) in inputs.iter_mut().enumerate().skip(skip) {
            let Some(o) = g.0 else { continue };
            if o.owned && !(cx.stores && cx.place == o.place) {
                // The thread's own value: stale only where written back to its location.
                continue;
            }
            if o.sized && (o.place == Sym::Unknown || cx.place != o.place) {
                // An array sized by a snapshot is only used stale where the object it was
                // sized after fills it.
                continue;
            }
            if (cx.publishes || cx.lookup || cx.adds) && cx.place == o.place {
                // `x.lazySet(x.get() + 1)`: the single-writer idiom, the writer's own value;
                // `map.containsKey(key)` with a key read from the map before: a lookup of the
                // current state, which re-checks rather than acts; `x.addAndGet(-x.get())`:
                // an amount applied to the value held now, which keeps what others added.
                continue;
            }
            if o.stale_at.is_none()
                && o.released_at.is_none()
                && cx.stores
                && cx.place == o.place
                && !o.state
                && o.place != Sym::Unknown
                && cx.record
                && cx.region.is_some()
            {
                self.update_in_region(cx, &o);
            }
            if let Some(stale_at) = o.stale_at {
                let reported = |f: &Finding| f.read_at == o.read_at && f.wrong_lock.is_none();
                if cx.record && !self.findings.iter().any(reported) {
                    // A stale use of it is a finding of its own: no candidate needed.
                    self.findings.retain(|f| f.read_at != o.read_at);
                    self.findings.push(Finding {
                        rule: RuleId::StaleValue,
                        use_at: cx.at,
                        read_at: o.read_at,
                        region_site: o.region,
                        boundary_at: Some(stale_at),
                        age: Some(o.age as u32),
                        also: Vec::new(),
                        evidence: evidence(cx, &o, self.locks.get(&o.region), derefs && i == 0),
                        read_place: (o.place != Sym::Unknown).then_some((o.place, o.state)),
                        enclosing: o
                            .outer
                            .and_then(|site| self.locks.get(&site))
                            .map(|&lock| (lock, o.place, o.state)),
                        wrong_lock: None,
                    });
                }
                // Reported: from here on the value counts as fresh (one report per value).
                *g = Ghost(None);
            }
        }
    }

    /// A value read inside a critical section and written back to its location before the
    /// section ends: atomic if the section's lock is the one every writer of the location
    /// holds. Kept as a candidate that stands only if some writer holds other locks alone (the
    /// wrong lock: [`crate::analysis::guards::Writes::other_lock`]).
    fn update_in_region(&mut self, cx: &StepCx, o: &Origin) {
        let Some(&lock) = self.locks.get(&o.region) else {
            return;
        };
        if self.findings.iter().any(|f| f.read_at == o.read_at) {
            return;
        }
        self.findings.push(Finding {
            rule: RuleId::StaleValue,
            use_at: cx.at,
            read_at: o.read_at,
            region_site: o.region,
            boundary_at: None,
            // The other writer's critical section is the one that can come in between.
            age: Some(1),
            also: Vec::new(),
            evidence: Evidence::WriteBack,
            read_place: Some((o.place, o.state)),
            enclosing: None,
            wrong_lock: Some((
                lock,
                cx.outer.map(|(l, _)| l).filter(|&l| l != lock),
                cx.object,
            )),
        });
    }
}

/// What the stale value `o` is used for at `cx` (`deref`: it is the object the instruction
/// reads or writes through).
fn evidence(cx: &StepCx, o: &Origin, lock: Option<&LockId>, deref: bool) -> Evidence {
    let same_place = o.place != Sym::Unknown && cx.place == o.place;
    if same_place && cx.stores {
        Evidence::WriteBack
    } else if same_place || deref {
        Evidence::SameObject
    } else if cx.kind == StepKind::Branch {
        Evidence::Decision
    } else if cx
        .lock
        .is_some_and(|l| lock.is_none_or(|own| own.related(l)))
    {
        Evidence::SameLock
    } else {
        Evidence::Use
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

/// A value read at `cx` in the critical section at `region`; its lock, and the enclosing one's,
/// are noted in `locks`.
fn read_here(locks: &mut FxHashMap<u32, LockId>, cx: &StepCx, region: Option<u32>) -> Ghost {
    if let (Some(r), Some(l)) = (region, cx.lock) {
        if Some(r) == cx.region {
            locks.entry(r).or_insert(l);
        }
    }
    if let Some((l, site)) = cx.outer {
        locks.entry(site).or_insert(l);
    }
    Ghost(region.map(|r| Origin {
        read_at: cx.at,
        region: r,
        released_at: None,
        stale_at: None,
        age: 0,
        place: cx.place,
        owned: false,
        state: matches!(
            cx.kind,
            StepKind::Call(CallEffect::Region {
                kind: RegionCall::ThreadSafeLibrary | RegionCall::Validating,
                ..
            })
        ),
        outer: cx.outer.map(|(_, site)| site).filter(|&site| site != r),
        sized: false,
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
                // A fresh value with inputs is an array allocated with them as its lengths: as
                // long as a snapshot of an object's size, it carries the snapshot (see
                // `Origin::sized`).
                if let Some(Ghost(Some(o))) = inputs.first() {
                    return Ghost(Some(Origin { sized: true, ..*o }));
                }
                return Ghost(None);
            }
            // A stable field of a (possibly stale) object: as old as the object, not a use.
            StepKind::StableRead => return merge(inputs),
            // Formatted into a message: not a use, and the text is not shared state.
            StepKind::Format => return Ghost(None),
            // A value returned is the caller's to use (the whole-program causal rule follows
            // it across methods).
            StepKind::Return => return Ghost(None),
            // A time computed from a clock reading, by arithmetic or by a call that computes
            // from its arguments alone (`nanoTimePlusMillis(now, timeout)`), is a time.
            StepKind::Compute
            | StepKind::Call(CallEffect::Plain {
                returns: Returns::Nothing,
            }) if cx.produces && inputs.iter().any(Ghost::is_clock) => return Ghost::clock(),
            StepKind::Call(CallEffect::Plain {
                returns: Returns::Clock,
            }) => return Ghost::clock(),
            // Re-read and compare: a branch on both values, or a comparison it tests.
            StepKind::Branch => self.revalidate(cx.at, inputs),
            StepKind::Compute if cx.compares => self.revalidate(cx.at, inputs),
            _ => {}
        }
        match cx.kind {
            // Arithmetic is not yet a use: the result carries the staleness to where it is used
            // (stored, passed, tested). So is a call that computes its result from its
            // arguments alone (`workerCountOf(c)`, `Integer.valueOf(n)`).
            StepKind::Compute
            | StepKind::Call(CallEffect::Plain {
                returns: Returns::Nothing,
            }) if cx.produces => return merge(inputs),
            _ => {}
        }
        if cx.record && cx.place != Sym::Unknown {
            if let StepKind::Call(CallEffect::Region { kind, returns, .. }) = cx.kind {
                if kind == RegionCall::Validating || returns == Returns::Owned {
                    self.updates.push((cx.at, cx.place));
                }
            }
        }
        self.check(cx, inputs);
        match cx.kind {
            StepKind::HeapRead => read_here(&mut self.locks, cx, cx.region),
            StepKind::Compute => merge(inputs),
            StepKind::Call(CallEffect::Region {
                returns: Returns::Nothing,
                ..
            }) => merge(inputs),
            // A live view is not a snapshot; the outcome of the thread's own read-modify-write
            // is its own.
            StepKind::Call(CallEffect::Region {
                returns: Returns::View | Returns::Fresh,
                ..
            }) => Ghost(None),
            StepKind::Call(CallEffect::Region {
                returns: Returns::Owned,
                ..
            }) => {
                let mut g = read_here(&mut self.locks, cx, cx.region);
                if let Some(o) = &mut g.0 {
                    o.owned = true;
                }
                g
            }
            StepKind::Call(CallEffect::Region { kind, .. }) if counts(kind) => {
                read_here(&mut self.locks, cx, cx.region)
            }
            StepKind::Call(CallEffect::Region { .. }) => {
                read_here(&mut self.locks, cx, cx.caller_region)
            }
            StepKind::Call(CallEffect::Plain {
                returns: Returns::Shared,
            }) if cx.region.is_some() => read_here(&mut self.locks, cx, cx.region),
            StepKind::Call(CallEffect::Plain {
                returns: Returns::Owned | Returns::View | Returns::Fresh,
            }) => Ghost(None),
            StepKind::Call(CallEffect::Plain { .. }) => merge(inputs),
            _ => Ghost(None),
        }
    }

    const STORES: bool = true;

    fn refines(&mut self, at: u32) -> bool {
        self.compared.take() == Some(at)
    }

    fn stored(&mut self, place: Sym, single_writer: bool, v: &mut Ghost) {
        // Taken out: read and overwritten in the same critical section (`n = head; head =
        // null`), or cleared by its single writer (`e = slots.get(i); slots.lazySet(i, null)`,
        // the consumer of a single-consumer queue). An ordinary overwrite in a later critical
        // section (`r = x.get(); x.set(0)`) takes nothing: an update in between is lost.
        if let Some(o) = &mut v.0 {
            if o.place == place && (o.released_at.is_none() || single_writer) {
                o.owned = true;
            }
        }
    }

    fn validated(&mut self, site: u32, v: &mut Ghost) {
        if let (Some(o), Some(reads)) = (v.0, self.checked.get(&site)) {
            if reads.contains(&o.read_at) {
                *v = Ghost(None);
            }
        }
    }

    fn region(&mut self, ev: RegionEvent, v: &mut Ghost) {
        if ev.call().is_some_and(|k| !counts(k)) {
            return;
        }
        let Some(o) = &mut v.0 else { return };
        match ev {
            RegionEvent::Enter { at, lock, .. } => {
                // Only a critical section that may protect the same state as the one the value
                // came from makes it stale: the same lock, the same object.
                if self.locks.get(&o.region).is_some_and(|l| !l.related(lock)) {
                    return;
                }
                o.age = o.age.saturating_add(1).min(MAX_AGE);
                if o.released_at.is_some() && o.stale_at.is_none() {
                    o.stale_at = Some(at);
                }
            }
            RegionEvent::Exit { site, at, .. } => {
                if o.region == site && o.released_at.is_none() {
                    o.released_at = Some(at);
                }
                if o.outer == Some(site) {
                    o.outer = None;
                }
            }
        }
    }
}

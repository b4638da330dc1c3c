//! `block-local-atomicity`: Artho, Havelund and Biere's block-local atomicity (see
//! `block_local_atomicity.md` beside this file).
//!
//! Register state ⟨shared, monitor block⟩: a value read from the heap inside a region is shared
//! and tagged with that region (a new block per non-reentrant acquisition; a block entered again
//! at the same site is a new instance, so values of the previous instance are marked `old`).
//! Every use of a shared value whose block is not the current block is a violation, reported
//! once; the value is then unshared (the paper's footnote 3).

use super::{Finding, RuleId};
use crate::analysis::engine::{Analysis, RegionEvent, StepCx, StepKind};
use crate::analysis::locks::{CallEffect, Returns};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block {
    pub read_at: u32,
    /// Acquisition site of the block the value was read in.
    pub site: u32,
    /// The value belongs to an earlier instance of the block at `site`.
    pub old: bool,
    /// The first region boundary after the read: the release of its block or the
    /// acquisition of another.
    pub left_at: Option<u32>,
}

impl Block {
    fn is_current(&self, region: Option<u32>) -> bool {
        !self.old && region == Some(self.site)
    }
}

/// `None`: unshared.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Shared(pub Option<Block>);

#[derive(Default)]
pub struct BlockLocal {
    pub findings: Vec<Finding>,
}

impl Analysis for BlockLocal {
    type V = Shared;

    fn join(&self, a: &Shared, b: &Shared, region: Option<u32>) -> Shared {
        match (a.0, b.0) {
            // The same read merges field by field. Different reads: keep the one that would be
            // a violation in the merged block, so no path's violation is lost, else the
            // earliest. A total order, so the join is commutative and the fixpoint terminates.
            (Some(x), Some(y)) if x.read_at == y.read_at && x.site == y.site => {
                Shared(Some(Block {
                    old: x.old || y.old,
                    left_at: match (x.left_at, y.left_at) {
                        (Some(p), Some(q)) => Some(p.min(q)),
                        (p, q) => p.or(q),
                    },
                    ..x
                }))
            }
            (Some(x), Some(y)) => {
                let key = |o: &Block| (o.is_current(region), o.read_at, o.site, !o.old, o.left_at);
                Shared(Some(if key(&y) < key(&x) { y } else { x }))
            }
            (x, y) => Shared(x.or(y)),
        }
    }

    fn transfer(&mut self, cx: &StepCx, inputs: &mut [Shared]) -> Shared {
        for s in inputs.iter_mut().filter(|_| !cx.kind.is_lock_operation()) {
            let Some(b) = s.0 else { continue };
            if !b.is_current(cx.region) {
                if cx.record && !self.findings.iter().any(|f| f.read_at == b.read_at) {
                    self.findings.push(Finding {
                        rule: RuleId::BlockLocalAtomicity,
                        use_at: cx.at,
                        read_at: b.read_at,
                        region_site: b.site,
                        boundary_at: b.left_at,
                        age: None,
                        also: Vec::new(),
                        evidence: super::Evidence::Use,
                        read_place: None,
                        enclosing: None,
                        wrong_lock: None,
                    });
                }
                *s = Shared(None);
            }
        }
        let here = |region: Option<u32>| {
            Shared(region.map(|site| Block {
                read_at: cx.at,
                site,
                old: false,
                left_at: None,
            }))
        };
        let merged = || {
            inputs
                .iter()
                .find_map(|s| s.0)
                .map_or(Shared(None), |b| Shared(Some(b)))
        };
        match cx.kind {
            StepKind::HeapRead => here(cx.region),
            StepKind::Compute | StepKind::Iinc | StepKind::StableRead | StepKind::Format => {
                merged()
            }
            // Strict: the outcome of a read-modify-write is a value of the block too; a live
            // view is not a value read from shared state.
            StepKind::Call(CallEffect::Region {
                returns: Returns::Shared | Returns::Owned,
                ..
            }) => here(cx.region),
            StepKind::Call(CallEffect::Region {
                returns: Returns::View | Returns::Fresh,
                ..
            })
            | StepKind::Call(CallEffect::Plain {
                returns: Returns::Fresh,
            }) => Shared(None),
            StepKind::Call(CallEffect::Region { .. }) => merged(),
            StepKind::Call(CallEffect::Plain {
                returns: Returns::Shared | Returns::Owned,
            }) if cx.region.is_some() => here(cx.region),
            StepKind::Call(CallEffect::Plain { .. }) => merged(),
            _ => Shared(None),
        }
    }

    fn region(&mut self, ev: RegionEvent, v: &mut Shared) {
        let Some(b) = &mut v.0 else { return };
        match ev {
            RegionEvent::Enter { site, at, .. } => {
                if b.site == site {
                    b.old = true;
                }
                b.left_at.get_or_insert(at);
            }
            RegionEvent::Exit { site, at, .. } => {
                if b.site == site {
                    b.left_at.get_or_insert(at);
                }
            }
        }
    }
}

//! Control-flow graph over decoded instructions: basic blocks, normal successor edges, and
//! exception edges (every instruction inside a handler's range may jump to the handler).

use super::model::{Class, Code, Cond, Op};

/// A basic block: instructions `[start, end)`.
#[derive(Debug, Clone)]
pub struct Block {
    pub start: u32,
    pub end: u32,
    /// Normal successors (block indices): fall-through, branch targets, switch targets.
    pub succs: Vec<u32>,
}

/// What a block does with locals, for paths whose branches agree ([`Cfg::with_local_tests`]).
#[derive(Debug, Clone, Default)]
pub struct BlockLocals {
    /// The block ends in a branch on a local's value, loaded just before it.
    pub test: Option<LocalTest>,
    /// The locals the block stores into (`Store`, `Iinc`).
    pub stores: Vec<u16>,
}

/// A branch on the value of a local (`iload l; ifeq`, `aload l; ifnull`): on its jump edge the
/// local is zero (`false`, `null`) or not, and the other edge says the opposite. Until the local
/// is stored again, a later branch on it can only go the same way.
#[derive(Debug, Clone, Copy)]
pub struct LocalTest {
    pub local: u16,
    /// Whether the local is zero or `null` on the jump edge.
    pub zero_at_target: bool,
    /// The blocks of the jump edge and of the fall-through edge.
    pub target: u32,
    pub fall: u32,
}

#[derive(Debug)]
pub struct Cfg {
    pub blocks: Vec<Block>,
    /// Block index of each instruction.
    pub block_of: Vec<u32>,
    /// For each instruction, the blocks of the handlers covering it (empty for most).
    pub handlers_at: Vec<Vec<u32>>,
    /// Per block, the tests and stores of locals, when built [`Cfg::with_local_tests`]
    /// (empty otherwise: [`Cfg::can_follow`] then ignores what branches test).
    pub locals: Vec<BlockLocals>,
}

/// The instructions that start a basic block (index `insns.len()` included, as the end): the
/// first, every branch, switch, subroutine and handler target, and every instruction after a
/// branch, a return or a throw. Nothing jumps into the middle of a block: an instruction that
/// starts none is reached only from the one before it.
pub fn leaders(code: &Code) -> Vec<bool> {
    let n = code.insns.len();
    let mut leader = vec![false; n + 1];
    if n > 0 {
        leader[0] = true;
    }
    for (i, insn) in code.insns.iter().enumerate() {
        let next = i + 1;
        match &insn.op {
            Op::If { target, .. } | Op::Goto(target) | Op::Jsr(target) => {
                leader[*target as usize] = true;
                leader[next] = true;
            }
            Op::Switch(table) => {
                for t in code.switch_targets(*table) {
                    leader[*t as usize] = true;
                }
                leader[next] = true;
            }
            Op::Return(_) | Op::Athrow | Op::Ret(_) => leader[next] = true,
            _ => {}
        }
    }
    for h in &code.handlers {
        leader[h.handler as usize] = true;
    }
    leader
}

impl Cfg {
    pub fn build(code: &Code) -> Cfg {
        let n = code.insns.len();
        let leader = leaders(code);
        let jsr_returns: Vec<u32> = (code.insns.iter().enumerate())
            .filter(|(_, i)| matches!(i.op, Op::Jsr(_)))
            .map(|(i, _)| i as u32 + 1)
            .collect();
        let mut block_of = vec![0u32; n];
        let mut starts = Vec::new();
        for i in 0..n {
            if leader[i] {
                starts.push(i as u32);
            }
            block_of[i] = (starts.len() - 1) as u32;
        }
        let mut blocks = Vec::with_capacity(starts.len());
        for (b, &start) in starts.iter().enumerate() {
            let end = starts.get(b + 1).copied().unwrap_or(n as u32);
            let last = &code.insns[(end - 1) as usize].op;
            let mut succs = Vec::new();
            let falls_through = !matches!(
                last,
                Op::Goto(_) | Op::Return(_) | Op::Athrow | Op::Switch(_) | Op::Ret(_) | Op::Jsr(_)
            );
            match last {
                Op::If { target, .. } => succs.push(block_of[*target as usize]),
                Op::Goto(t) | Op::Jsr(t) => succs.push(block_of[*t as usize]),
                Op::Switch(table) => {
                    let targets = code.switch_targets(*table);
                    succs.extend(targets.iter().map(|t| block_of[*t as usize]))
                }
                Op::Ret(_) => succs.extend(
                    jsr_returns
                        .iter()
                        .filter(|&&r| (r as usize) < n)
                        .map(|&r| block_of[r as usize]),
                ),
                _ => {}
            }
            if falls_through && (end as usize) < n {
                succs.push(block_of[end as usize]);
            }
            succs.sort_unstable();
            succs.dedup();
            blocks.push(Block { start, end, succs });
        }
        let mut handlers_at = vec![Vec::new(); n];
        for h in &code.handlers {
            let hb = block_of[h.handler as usize];
            for i in h.start..h.end.min(n as u32) {
                let v: &mut Vec<u32> = &mut handlers_at[i as usize];
                if !v.contains(&hb) {
                    v.push(hb);
                }
            }
        }
        Cfg {
            blocks,
            block_of,
            handlers_at,
            locals: Vec::new(),
        }
    }

    /// [`Cfg::build`] with the tests and stores of locals per block, so that
    /// [`Cfg::can_follow`] only follows paths whose branches on one local agree.
    pub fn with_local_tests(code: &Code) -> Cfg {
        let mut cfg = Cfg::build(code);
        let n = code.insns.len();
        let block_of = &cfg.block_of;
        cfg.locals = cfg
            .blocks
            .iter()
            .map(|&Block { start, end, .. }| {
                let last = &code.insns[(end - 1) as usize].op;
                let test = match (last, end - start >= 2) {
                    (
                        Op::If {
                            pop: 1,
                            target,
                            cond,
                        },
                        true,
                    ) if (end as usize) < n => {
                        let zero_at_target = match cond {
                            Cond::Zero | Cond::Null => Some(true),
                            Cond::NonZero | Cond::NonNull => Some(false),
                            Cond::Same | Cond::Differ | Cond::Other => None,
                        };
                        match (&code.insns[(end - 2) as usize].op, zero_at_target) {
                            (Op::Load(local, 1), Some(zero_at_target)) => Some(LocalTest {
                                local: *local,
                                zero_at_target,
                                target: block_of[*target as usize],
                                fall: block_of[end as usize],
                            }),
                            _ => None,
                        }
                    }
                    _ => None,
                };
                let mut stores = Vec::new();
                for i in &code.insns[start as usize..end as usize] {
                    match i.op {
                        Op::Store(local, slots) => stores.extend(local..local + u16::from(slots)),
                        Op::Iinc(local) => stores.push(local),
                        _ => {}
                    }
                }
                BlockLocals { test, stores }
            })
            .collect();
        cfg
    }

    /// Whether instruction `b` can run after instruction `a` in one run of the method (normal and
    /// exception edges), on a path whose branches on one local agree: after `if (flag) { A }`,
    /// a later `if (!flag) { B }` with no store to `flag` between cannot run `B` in the run that
    /// ran `A` (the two are exclusive like the arms of one `if`).
    pub fn can_follow(&self, a: u32, b: u32) -> bool {
        let (Some(&ba), Some(&bb)) = (self.block_of.get(a as usize), self.block_of.get(b as usize))
        else {
            return true;
        };
        if ba == bb && a <= b {
            return true;
        }
        self.reaches(ba, bb) && self.reaches_agreeing(ba, bb)
    }

    /// Whether the instruction at `a` runs at most once in one run of the method: it is in no
    /// loop. An index past the code (a site that stands for the whole method: its
    /// `synchronized`, its callers' locks) does.
    pub fn runs_once(&self, a: u32) -> bool {
        self.block_of
            .get(a as usize)
            .is_none_or(|&b| !self.reaches(b, b))
    }

    /// Whether instruction `a` can run again after itself in one run of the method (it is in a
    /// loop).
    pub fn can_repeat(&self, a: u32) -> bool {
        self.block_of
            .get(a as usize)
            .is_none_or(|&b| self.reaches(b, b))
    }

    /// The blocks a block can go to next: normal and exception edges.
    fn next_blocks(&self, blk: u32) -> impl Iterator<Item = u32> + '_ {
        let block = &self.blocks[blk as usize];
        block.succs.iter().copied().chain(
            (block.start..block.end)
                .filter_map(|i| self.handlers_at.get(i as usize))
                .flatten()
                .copied(),
        )
    }

    /// Whether block `b` is entered from block `from` alone (normal and exception edges).
    pub fn only_entered_from(&self, b: u32, from: u32) -> bool {
        let mut any = false;
        for x in 0..self.blocks.len() as u32 {
            if self.next_blocks(x).any(|s| s == b) {
                if x != from {
                    return false;
                }
                any = true;
            }
        }
        any
    }

    /// Whether every path from the method's entry to block `to` goes through block `via`
    /// (normal and exception edges).
    pub fn dominates(&self, via: u32, to: u32) -> bool {
        via == to || !self.reached_avoiding(via, Some(to))[to as usize]
    }

    /// The blocks that every path from the method's entry to them goes through block `via`
    /// (normal and exception edges): [`Cfg::dominates`] for every block at once.
    pub fn dominated_by(&self, via: u32) -> Vec<bool> {
        let reached = self.reached_avoiding(via, None);
        (reached.iter().enumerate())
            .map(|(b, &r)| b as u32 == via || !r)
            .collect()
    }

    /// The blocks that every path leaving block `from` enters `via` on its way to: those a path
    /// from `from` that never enters `via` cannot reach, and `via` itself (in a loop, the next
    /// round's blocks after a write at the end of this one). `from` itself is not, unless it
    /// is `via`: its instructions before `via`'s are passed on no path.
    pub fn passed_from(&self, from: u32, via: u32) -> Vec<bool> {
        if from == via {
            return vec![true; self.blocks.len()];
        }
        let mut seen = vec![false; self.blocks.len()];
        seen[from as usize] = true;
        let mut stack: Vec<u32> = self.next_blocks(from).collect();
        while let Some(b) = stack.pop() {
            if b == via || std::mem::replace(&mut seen[b as usize], true) {
                continue;
            }
            stack.extend(self.next_blocks(b));
        }
        (seen.iter().enumerate())
            .map(|(b, &r)| b as u32 == via || !r)
            .collect()
    }

    /// The blocks a path from the entry that never enters `via` reaches (all of them, or up to
    /// `stop` when it is reached).
    fn reached_avoiding(&self, via: u32, stop: Option<u32>) -> Vec<bool> {
        let mut seen = vec![false; self.blocks.len()];
        let mut stack = vec![0u32];
        while let Some(b) = stack.pop() {
            if b == via || std::mem::replace(&mut seen[b as usize], true) {
                continue;
            }
            if Some(b) == stop {
                break;
            }
            stack.extend(self.next_blocks(b));
        }
        seen
    }

    /// Whether block `bb` can be entered after block `ba` (a path of at least one edge).
    fn reaches(&self, ba: u32, bb: u32) -> bool {
        let mut seen = vec![false; self.blocks.len()];
        let mut stack: Vec<u32> = self.next_blocks(ba).collect();
        while let Some(x) = stack.pop() {
            if x == bb {
                return true;
            }
            if !std::mem::replace(&mut seen[x as usize], true) {
                stack.extend(self.next_blocks(x));
            }
        }
        false
    }

    /// [`Self::reaches`] on paths from the method's entry through `ba` to `bb` whose branches
    /// on a local agree with each other (what one branch learnt of the local holds until the
    /// local is stored). Without such branches, or past a bound on the states explored, it is
    /// the plain answer (`true`, called after [`Self::reaches`]).
    fn reaches_agreeing(&self, ba: u32, bb: u32) -> bool {
        /// What is known of the locals tested: `(local, zero)`, sorted.
        type Known = Vec<(u16, bool)>;
        const MAX_STATES: usize = 4096;
        // Only a local tested in two places can make one test decide another.
        let mut tested: Vec<u16> = self
            .locals
            .iter()
            .filter_map(|b| b.test.map(|t| t.local))
            .collect();
        tested.sort_unstable();
        let twice: Vec<u16> = tested
            .windows(2)
            .filter(|w| w[0] == w[1])
            .map(|w| w[0])
            .collect();
        if twice.is_empty() || self.blocks.is_empty() {
            return true;
        }
        let learn = |known: &Known, local: u16, zero: bool| -> Known {
            let mut k = known.clone();
            match k.binary_search_by_key(&local, |&(l, _)| l) {
                Ok(i) => k[i].1 = zero,
                Err(i) => k.insert(i, (local, zero)),
            }
            k
        };
        let mut seen: crate::fxhash::FxHashSet<(u32, bool, Known)> = Default::default();
        let mut stack: Vec<(u32, bool, Known)> = vec![(0, false, Vec::new())];
        let mut passed_a = false;
        while let Some((x, passed, known)) = stack.pop() {
            if passed && x == bb {
                return true;
            }
            if !seen.insert((x, passed, known.clone())) {
                continue;
            }
            if seen.len() > MAX_STATES {
                return true;
            }
            let passed = passed || x == ba;
            passed_a |= passed;
            let block = &self.blocks[x as usize];
            let locals = &self.locals[x as usize];
            let mut out = known;
            out.retain(|(l, _)| !locals.stores.contains(l));
            for i in block.start..block.end {
                for &h in self.handlers_at.get(i as usize).into_iter().flatten() {
                    stack.push((h, passed, out.clone()));
                }
            }
            match locals.test {
                Some(t) if t.target != t.fall && twice.binary_search(&t.local).is_ok() => {
                    let had = out.iter().find(|(l, _)| *l == t.local).map(|&(_, z)| z);
                    for (to, zero) in [(t.target, t.zero_at_target), (t.fall, !t.zero_at_target)] {
                        if had.is_none_or(|z| z == zero) {
                            stack.push((to, passed, learn(&out, t.local, zero)));
                        }
                    }
                }
                _ => {
                    for &s in &block.succs {
                        stack.push((s, passed, out.clone()));
                    }
                }
            }
        }
        // `a` is not reached from the entry on any agreeing path (dead code, or a bound of the
        // decoder): keep the plain answer.
        !passed_a
    }

    /// Blocks in reverse post-order from the entry (unreachable blocks last), a good worklist
    /// order for forward problems.
    pub fn reverse_post_order(&self) -> Vec<u32> {
        let n = self.blocks.len();
        let mut order = Vec::with_capacity(n);
        let mut seen = vec![false; n];
        // Iterative DFS with explicit stack of (block, next successor index).
        let mut exc_succs: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (b, blk) in self.blocks.iter().enumerate() {
            for i in blk.start..blk.end {
                for &h in &self.handlers_at[i as usize] {
                    if !exc_succs[b].contains(&h) {
                        exc_succs[b].push(h);
                    }
                }
            }
        }
        let succs = |b: usize| {
            self.blocks[b]
                .succs
                .iter()
                .chain(exc_succs[b].iter())
                .copied()
                .collect::<Vec<_>>()
        };
        if n > 0 {
            let mut stack: Vec<(u32, Vec<u32>, usize)> = vec![(0, succs(0), 0)];
            seen[0] = true;
            while let Some((b, ss, k)) = stack.last_mut() {
                if *k < ss.len() {
                    let s = ss[*k];
                    *k += 1;
                    if !seen[s as usize] {
                        seen[s as usize] = true;
                        let next = succs(s as usize);
                        stack.push((s, next, 0));
                    }
                } else {
                    order.push(*b);
                    stack.pop();
                }
            }
        }
        order.reverse();
        for (b, s) in seen.iter().enumerate() {
            if !s {
                order.push(b as u32);
            }
        }
        order
    }
}

/// Control dependence per block (Ferrante, Ottenstein and Warren over the post-dominator tree,
/// normal edges only): the branch instructions each block depends on, nested ones included
/// (the paper's `IS`), at most 16.
///
/// An `assert` decides nothing: a branch one of whose targets throws an `AssertionError` is no
/// condition of what follows, and a failed assertion is not a way out of the method. For the
/// post-dominators, the block that throws it goes on where the assertion would have passed (the
/// other target of the branch into it), so the code after `else { assert false; }` does not
/// depend on the `if` either.
///
/// Nor does a branch that only spares a redundant store (`if (state != CLOSED) state =
/// CLOSED;`, see [`super::ensure`]): its store is made whatever the look saw. `known` is what
/// the program says of `class`'s references ([`super::ensure::Known`]).
pub fn control_dependence(
    cfg: &Cfg,
    class: &Class,
    code: &Code,
    known: &super::ensure::Known<'_>,
) -> Vec<Control> {
    let asserts = |b: usize| {
        let blk = &cfg.blocks[b];
        code.insns[blk.start as usize..blk.end as usize].iter().any(
            |i| matches!(i.op, Op::New(r) if &*class.member(r).class == "java/lang/AssertionError"),
        )
    };
    let n = cfg.blocks.len();
    let exit = n;
    // Successors for the post-dominators: a block throwing an `AssertionError` continues at
    // the passing target of a branch into it.
    let mut succs: Vec<Vec<usize>> = cfg
        .blocks
        .iter()
        .map(|blk| blk.succs.iter().map(|&s| s as usize).collect())
        .collect();
    for (b, blk) in cfg.blocks.iter().enumerate() {
        let throws = blk.succs.is_empty()
            && blk.end > blk.start
            && matches!(code.insns[blk.end as usize - 1].op, Op::Athrow);
        if !throws || !asserts(b) {
            continue;
        }
        let pass = cfg.blocks.iter().find_map(|p| {
            (p.succs.len() == 2 && p.succs.contains(&(b as u32)))
                .then(|| p.succs.iter().find(|&&s| s as usize != b).copied())
                .flatten()
        });
        if let Some(c) = pass {
            succs[b] = vec![c as usize];
        }
    }
    // Post-order of the reverse graph from the virtual exit.
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
    for (b, ss) in succs.iter().enumerate() {
        if ss.is_empty() {
            preds[exit].push(b);
        }
        for &s in ss {
            preds[s].push(b);
        }
    }
    let mut order = Vec::with_capacity(n + 1);
    let mut seen = vec![false; n + 1];
    let mut stack: Vec<(usize, usize)> = vec![(exit, 0)];
    seen[exit] = true;
    while let Some(&mut (v, ref mut k)) = stack.last_mut() {
        if *k < preds[v].len() {
            let w = preds[v][*k];
            *k += 1;
            if !seen[w] {
                seen[w] = true;
                stack.push((w, 0));
            }
        } else {
            order.push(v);
            stack.pop();
        }
    }
    const UNDEF: usize = usize::MAX;
    let mut po = vec![UNDEF; n + 1];
    for (i, &v) in order.iter().enumerate() {
        po[v] = i;
    }
    let mut ipdom = vec![UNDEF; n + 1];
    ipdom[exit] = exit;
    let succs_of = |b: usize| -> Vec<usize> {
        if succs[b].is_empty() {
            vec![exit]
        } else {
            succs[b].clone()
        }
    };
    let mut changed = true;
    let mut rounds = 0;
    while changed && rounds < 64 {
        changed = false;
        rounds += 1;
        for &b in order.iter().rev() {
            if b == exit {
                continue;
            }
            let mut new = UNDEF;
            for s in succs_of(b) {
                if ipdom[s] == UNDEF {
                    continue;
                }
                new = if new == UNDEF {
                    s
                } else {
                    let (mut x, mut y) = (new, s);
                    let mut guard = 0;
                    while x != y && guard < 4 * (n + 1) {
                        guard += 1;
                        while po[x] < po[y] {
                            x = ipdom[x];
                        }
                        while po[y] < po[x] {
                            y = ipdom[y];
                        }
                    }
                    x
                };
            }
            if new != UNDEF && ipdom[b] != new {
                ipdom[b] = new;
                changed = true;
            }
        }
    }
    // Direct dependences: for an edge a → s, the blocks from s up the post-dominator tree to
    // ipdom(a) (exclusive) depend on a's branch.
    // Each with the successor of the branch's block that the dependence goes through (which
    // way the branch went for the block to run), `EDGES` when through several.
    let mut direct: Vec<Vec<(usize, u32)>> = vec![Vec::new(); n];
    let note = |to: &mut Vec<(usize, u32)>, a: usize, s: u32| match to.iter_mut().find(|e| e.0 == a)
    {
        Some(e) if e.1 != s => e.1 = EDGES,
        Some(_) => {}
        None => to.push((a, s)),
    };
    let ensures = super::ensure::ensure_stores(class, code, known);
    for (a, blk) in cfg.blocks.iter().enumerate() {
        if blk.succs.len() < 2
            || blk.succs.iter().any(|&s| asserts(s as usize))
            || (blk.end > blk.start && ensures.contains(&(blk.end - 1)))
        {
            continue;
        }
        let stop = if ipdom[a] == UNDEF { exit } else { ipdom[a] };
        for &s in &blk.succs {
            let mut x = s as usize;
            let mut guard = 0;
            while x != stop && x != exit && x != UNDEF && guard <= n {
                guard += 1;
                note(&mut direct[x], a, s);
                x = ipdom[x];
            }
        }
    }
    // Nested conditions: the transitive closure, as branch instructions, the direct ones
    // first. A nested one is passed the way the condition nested in it needs it.
    (0..n)
        .map(|b| {
            let mut out: Vec<(usize, u32)> = Vec::new();
            for &(a, s) in direct[b].iter().take(16) {
                note(&mut out, a, s);
            }
            let ndirect = out.len();
            let mut stack: Vec<(usize, u32)> =
                out.iter().flat_map(|&(a, _)| direct[a].clone()).collect();
            while let Some((a, s)) = stack.pop() {
                if let Some(k) = out.iter().position(|e| e.0 == a) {
                    if k >= ndirect {
                        note(&mut out, a, s);
                    }
                    continue;
                }
                if out.len() >= 16 {
                    continue;
                }
                out.push((a, s));
                stack.extend(direct[a].iter().copied());
            }
            Control {
                branches: out.iter().map(|&(a, _)| cfg.blocks[a].end - 1).collect(),
                edges: out.iter().map(|&(_, s)| s).collect(),
                direct: ndirect,
            }
        })
        .collect()
}

/// [`Control::edges`] of a dependence through more than one successor of the branch.
pub const EDGES: u32 = u32::MAX;

/// The conditions a block depends on: branch instructions, the direct ones first.
pub struct Control {
    pub branches: Vec<u32>,
    /// For each of `branches`, the successor block of the branch that leads to this block (the
    /// way the branch goes when the block runs), [`EDGES`] when several do.
    pub edges: Vec<u32>,
    /// How many of `branches` (the first ones) the block depends on directly.
    pub direct: usize,
}

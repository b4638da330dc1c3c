//! Stores that only skip a redundant write: `if (state != CLOSED) state = CLOSED;`, `if
//! (!stopped) stopped = true;`, `if (ref.get() != v) ref.set(v);`. The test looks at a
//! location and compares it with the very value the branch then stores there, and the branch
//! does nothing else. Whatever another thread writes between the look and the store, the
//! method's effect is "the location holds that value", as one atomic step would leave it: the
//! look only spares a store of what is already there. So the look decides nothing a concurrent
//! writer can make stale; [`ensure_stores`] lists such branches for the analyses to leave the
//! look out of what the store depends on.
//!
//! The twin that stays a check-then-act is a branch that does anything more: `if (!started) {
//! started = true; thread.start(); }` claims the transition, and two threads that both saw it
//! unclaimed both act. A value that only looks the same (`if (x == null) x = DEFAULT`, a store
//! of a value other than the one compared) is no such step either: the store may overwrite a
//! value another thread wrote after the look.
//!
//! Shapes recognised, as `javac` compiles them (the branch jumps over the store):
//! - a field (`getfield` on a local, usually `this`, or `getstatic`), an atomic variable held
//!   in one (a `scalar` of the platform model read by a `scalar-get` and stored by a one-value
//!   `scalar-set`: `get()` then `set(v)` or `lazySet(v)`), or
//!   a property of the object in a local read and written through its plain getter and setter
//!   (`if (getState() != CLOSED) setState(CLOSED)`, [`Known::accessor`]);
//! - compared with `if_icmpeq`/`if_acmpeq` (or `lcmp` then `ifeq`) with a value both places
//!   push alike: one local (a parameter), one `static final` field (an enum constant), `null`
//!   or zero; or tested against zero or `null` alone: `if (x != 0) x = 0`, `if (x != null) x =
//!   null`, and for a `boolean` `if (!b) b = true` / `if (b) b = false`.

use super::model::{Class, Code, Cond, Konst, MemberRef, Op, RefId};

/// What the program knows of a method's member references, for the shapes below.
pub struct Known<'a> {
    /// Whether a field reference names a field fixed once its class or object is built (a
    /// `static final` constant pushed at the test and at the store is one value).
    pub stable: &'a dyn Fn(RefId) -> bool,
    /// A method reference's target when it is a plain property accessor no subclass replaces:
    /// `Some((true, field))` for a getter that returns a field of its object, `Some((false,
    /// field))` for a setter that stores its one argument there and does nothing else; the
    /// field by its declaration (class and index).
    pub accessor: &'a dyn Fn(RefId) -> Option<(bool, (u32, u32))>,
    /// What a method of a holder of one value (an atomic, a `scalar` of the platform model)
    /// does to it: `Some(true)` only reads it (`scalar-get`), `Some(false)` stores its argument
    /// as the value (`scalar-set`); `None` for anything else or another class.
    pub scalar: &'a dyn Fn(&MemberRef) -> Option<bool>,
}

/// A location looked at and stored to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Location {
    /// `(local holding the object, field)`.
    Field(u16, RefId),
    Static(RefId),
    /// A property of the object in a local, through its getter and setter: `(local, field)`.
    Property(u16, (u32, u32)),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Value {
    Local(u16),
    StaticFinal(RefId),
    Zero,
    Null,
    /// `true` (an `int` constant other than zero: only a `boolean` makes it one value).
    True,
}

/// A look at a location, as the instructions that push its value make it.
#[derive(Clone, Copy)]
struct Look {
    location: Location,
    /// Through an atomic held in the location: the store is its `scalar-set`.
    atomic: bool,
    /// The value is a `boolean` (a field, an atomic's or a getter's value of type `Z`).
    boolean: bool,
    /// The first instruction of the look.
    start: usize,
}

/// The look an instruction sequence ending at `end` (exclusive) makes: `aload n; getfield f`,
/// `getstatic f`, each optionally followed by an atomic's `scalar-get`, or `aload n` and a
/// property getter.
fn look_before(class: &Class, code: &Code, known: &Known<'_>, end: usize) -> Option<Look> {
    let op = |k: usize| code.insns.get(k).map(|i| &i.op);
    // A field of the object in a local, or a static field: the location, its field reference
    // and the look's first instruction.
    let plain = |end: usize| -> Option<(Location, RefId, usize)> {
        match op(end.checked_sub(1)?)? {
            Op::GetStatic(f) => Some((Location::Static(*f), *f, end - 1)),
            Op::GetField(f) => match op(end.checked_sub(2)?)? {
                Op::Load(n, 1) => Some((Location::Field(*n, *f), *f, end - 2)),
                _ => None,
            },
            _ => None,
        }
    };
    // A generic getter's value is cast before it is compared (`AtomicReference<State>`).
    let end = match op(end.checked_sub(1)?)? {
        Op::CheckCast => end - 1,
        _ => end,
    };
    // `desc`: the field's type, or the getter's descriptor.
    let look = |location, atomic, desc: &str, start| Look {
        location,
        atomic,
        boolean: desc == "Z" || desc.ends_with(")Z"),
        start,
    };
    if let Some(Op::Invoke(_, r)) = op(end.checked_sub(1)?) {
        let m = class.member(*r);
        if let (Some((true, field)), Op::Load(n, 1)) =
            ((known.accessor)(*r), op(end.checked_sub(2)?)?)
        {
            return Some(look(Location::Property(*n, field), false, &m.desc, end - 2));
        }
        if m.arg_slots == 0 && (known.scalar)(m) == Some(true) {
            let (l, _, start) = plain(end - 1)?;
            return Some(look(l, true, &m.desc, start));
        }
        return None;
    }
    let (l, f, start) = plain(end)?;
    Some(look(l, false, &class.member(f).desc, start))
}

/// The value the single instruction at `k` pushes, when it is one pushed alike everywhere.
fn value_at(code: &Code, k: usize, known: &Known<'_>) -> Option<Value> {
    match code.insns.get(k)?.op {
        Op::Load(n, _) => Some(Value::Local(n)),
        Op::GetStatic(f) if (known.stable)(f) => Some(Value::StaticFinal(f)),
        Op::Flag(Konst::Zero) => Some(Value::Zero),
        Op::Flag(Konst::Null) => Some(Value::Null),
        Op::Flag(Konst::NonZero) => Some(Value::True),
        _ => None,
    }
}

/// The branch instructions of `code` whose fall-through arm only stores, in the location the
/// branch looked at, the value it compared that location with (see the module documentation).
pub fn ensure_stores(class: &Class, code: &Code, known: &Known<'_>) -> Vec<u32> {
    let mut out = Vec::new();
    for (b, insn) in code.insns.iter().enumerate() {
        let Op::If { pop, target, cond } = insn.op else {
            continue;
        };
        let target = target as usize;
        if target <= b + 1 {
            continue;
        }
        // What the test compares, and what value makes it fall through to the arm.
        let Some((look, value)) = compared(class, code, b, (pop, cond), known) else {
            continue;
        };
        // The arm: exactly the store of `value` in `location`, then the join; or that store
        // alone in a `synchronized` block.
        let (start, arm) = match monitor_body(code, b + 1, target) {
            Some(inner) => inner,
            None => (b + 1, &code.insns[b + 1..target]),
        };
        let arm: Vec<&Op> = arm.iter().map(|i| &i.op).collect();
        let pushes_value = |k: usize| value_at(code, start + k, known) == Some(value);
        let setter = |r: RefId| {
            let m = class.member(r);
            (known.scalar)(m) == Some(false) && m.arg_slots == 1 && m.ret_slots == 0
        };
        let stores = match (look.location, look.atomic, &arm[..]) {
            (Location::Field(n, f), false, [Op::Load(m, 1), _, Op::PutField(g)]) => {
                *m == n && same_field(class, f, *g) && pushes_value(1)
            }
            (Location::Static(f), false, [_, Op::PutStatic(g)]) => {
                same_field(class, f, *g) && pushes_value(0)
            }
            (
                Location::Field(n, f),
                true,
                [Op::Load(m, 1), Op::GetField(g), _, Op::Invoke(_, s)],
            ) => *m == n && same_field(class, f, *g) && pushes_value(2) && setter(*s),
            (Location::Static(f), true, [Op::GetStatic(g), _, Op::Invoke(_, s)]) => {
                same_field(class, f, *g) && pushes_value(1) && setter(*s)
            }
            (Location::Property(n, field), _, [Op::Load(m, 1), _, Op::Invoke(_, s)]) => {
                *m == n && pushes_value(1) && (known.accessor)(*s) == Some((false, field))
            }
            _ => false,
        };
        if stores {
            out.push(b as u32);
        }
    }
    out
}

/// The body of a `synchronized` block that is all of the instructions `from..to`, as `javac`
/// compiles one (the lock pushed by a load or a field read, kept in a local, entered; the body;
/// the exit and the jump past the handler that exits and rethrows), with its first index.
fn monitor_body(code: &Code, from: usize, to: usize) -> Option<(usize, &[super::model::Insn])> {
    let ops = &code.insns[from..to];
    let op = |k: usize| ops.get(k).map(|i| &i.op);
    // The lock: `aload n`, `aload n; getfield f` or `getstatic f`.
    let push = match (op(0)?, op(1)?) {
        (Op::Load(_, 1), Op::GetField(_)) => 2,
        (Op::Load(_, 1), _) | (Op::GetStatic(_), _) => 1,
        _ => return None,
    };
    let (Op::Dup, Op::Store(k, 1), Op::MonitorEnter) = (op(push)?, op(push + 1)?, op(push + 2)?)
    else {
        return None;
    };
    let n = ops.len();
    let tail = ops.get(n.checked_sub(8)?..)?;
    let tail: Vec<&Op> = tail.iter().map(|i| &i.op).collect();
    match tail[..] {
        [Op::Load(a, 1), Op::MonitorExit, Op::Goto(t), Op::Store(e, 1), Op::Load(c, 1), Op::MonitorExit, Op::Load(d, 1), Op::Athrow]
            if a == k && c == k && d == e && *t as usize == to =>
        {
            let body = push + 3;
            Some((from + body, ops.get(body..n - 8)?))
        }
        _ => None,
    }
}

/// The look the branch at `b` makes and the value it compares it with, such that the branch
/// falls through when they differ.
fn compared(
    class: &Class,
    code: &Code,
    b: usize,
    (pop, cond): (u8, Cond),
    known: &Known<'_>,
) -> Option<(Look, Value)> {
    let look_at = |end: usize| look_before(class, code, known, end);
    match (pop, cond) {
        (2, Cond::Same) => {
            // `look, value` or `value, look`; a `boolean`'s `true` is no value to compare two
            // `int`s by (every other constant is one too).
            let after_value = || {
                let v = value_at(code, b.checked_sub(1)?, known)?;
                Some((look_at(b - 1)?, v))
            };
            let before_value = || {
                let l = look_at(b)?;
                Some((l, value_at(code, l.start.checked_sub(1)?, known)?))
            };
            after_value()
                .or_else(before_value)
                .filter(|&(_, v)| v != Value::True)
        }
        (1, Cond::Zero) => match &code.insns.get(b.checked_sub(1)?)?.op {
            // `lcmp; ifeq`: a `long` compared with a value in a local.
            Op::Compute { pop: 4, push: 1 } => {
                let v = value_at(code, b.checked_sub(2)?, known)?;
                matches!(v, Value::Local(_)).then_some((look_at(b - 2)?, v))
            }
            // `if (x != 0) x = 0`, `if (b) b = false`.
            _ => Some((look_at(b)?, Value::Zero)),
        },
        // `if (x != null) x = null`.
        (1, Cond::Null) => Some((look_at(b)?, Value::Null)),
        // `if (!b) b = true`: only a `boolean` has one value other than zero.
        (1, Cond::NonZero) => look_at(b).filter(|l| l.boolean).map(|l| (l, Value::True)),
        _ => None,
    }
}

fn same_field(class: &Class, a: RefId, b: RefId) -> bool {
    let (x, y) = (class.member(a), class.member(b));
    a == b || (x.class == y.class && x.name == y.name && x.desc == y.desc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bytecode::model::{Insn, InvokeKind, MemberRef};

    const ATOMIC_REF: &str = "java/util/concurrent/atomic/AtomicReference";

    fn member(class: &str, name: &str, desc: &str, slots: (u8, u8), is_method: bool) -> MemberRef {
        MemberRef {
            class: class.into(),
            name: name.into(),
            desc: desc.into(),
            arg_slots: slots.0,
            ret_slots: slots.1,
            is_method,
        }
    }

    /// A class whose references are: 0 `state` (an `AtomicReference`), 1 `get()`, 2 `set()`,
    /// 3 and 4 two enum constants, 5 `flag` (a `boolean`), 6 `count` (an `int`), 7 `lock`, 8 a
    /// static method.
    fn class() -> Class {
        let mut c = Class::empty("p/C", Some("java/lang/Object"), false);
        c.refs = vec![
            member(
                "p/C",
                "state",
                "Ljava/util/concurrent/atomic/AtomicReference;",
                (1, 1),
                false,
            ),
            member(ATOMIC_REF, "get", "()Ljava/lang/Object;", (0, 1), true),
            member(ATOMIC_REF, "set", "(Ljava/lang/Object;)V", (1, 0), true),
            member("p/S", "CLOSED", "Lp/S;", (1, 1), false),
            member("p/S", "OPEN", "Lp/S;", (1, 1), false),
            member("p/C", "flag", "Z", (1, 1), false),
            member("p/C", "count", "I", (1, 1), false),
            member("p/C", "lock", "Ljava/lang/Object;", (1, 1), false),
            member("p/C", "log", "()V", (0, 0), true),
            member("p/C", "getState", "()Lp/S;", (0, 1), true),
            member("p/C", "setState", "(Lp/S;)V", (1, 0), true),
            member("p/C", "setMode", "(Lp/S;)V", (1, 0), true),
        ];
        c
    }

    fn code(ops: Vec<Op>) -> Code {
        let n = ops.len();
        Code {
            max_locals: 4,
            insns: ops.into_iter().map(|op| Insn { op }).collect(),
            handlers: vec![],
            lines: vec![],
            offsets: (0..n as u16).collect(),
            switches: vec![],
            switch_keys: vec![],
            class_literals: vec![],
            bits: vec![],
        }
    }

    /// References 9 and 10 are the getter and setter of one property, 11 another's setter.
    fn accessor(r: RefId) -> Option<(bool, (u32, u32))> {
        match r {
            9 => Some((true, (0, 1))),
            10 => Some((false, (0, 1))),
            11 => Some((false, (0, 2))),
            _ => None,
        }
    }

    fn scalar(m: &MemberRef) -> Option<bool> {
        (*m.class == *ATOMIC_REF).then(|| &*m.name == "get")
    }

    fn found(ops: Vec<Op>) -> Vec<u32> {
        let statics = |r: RefId| r == 3 || r == 4;
        let known = Known {
            stable: &statics,
            accessor: &accessor,
            scalar: &scalar,
        };
        ensure_stores(&class(), &code(ops), &known)
    }

    const IF_SAME: fn(u32) -> Op = |target| Op::If {
        pop: 2,
        target,
        cond: Cond::Same,
    };

    /// `if (state.get() != to) state.set(to)`, `to` pushed by `a` and `b`.
    fn atomic_ensure(a: Op, b: Op) -> Vec<Op> {
        vec![
            Op::Load(0, 1),
            Op::GetField(0),
            Op::Invoke(InvokeKind::Virtual, 1),
            a,
            IF_SAME(9),
            Op::Load(0, 1),
            Op::GetField(0),
            b,
            Op::Invoke(InvokeKind::Virtual, 2),
            Op::Return(0),
        ]
    }

    #[test]
    fn an_atomic_set_to_the_value_compared_only_spares_a_store() {
        assert_eq!(
            found(atomic_ensure(Op::GetStatic(3), Op::GetStatic(3))),
            [4]
        );
        assert_eq!(found(atomic_ensure(Op::Load(1, 1), Op::Load(1, 1))), [4]);
        assert_eq!(
            found(atomic_ensure(Op::Flag(Konst::Null), Op::Flag(Konst::Null))),
            [4]
        );
    }

    #[test]
    fn another_value_or_a_value_that_may_differ_is_a_check_then_act() {
        // `if (state.get() == OPEN) state.set(CLOSED)` (as the compare goes: another value).
        assert!(found(atomic_ensure(Op::GetStatic(4), Op::GetStatic(3))).is_empty());
        assert!(found(atomic_ensure(Op::Load(1, 1), Op::Load(2, 1))).is_empty());
        // A static field that may change between the look and the store.
        let statics_none = |_: RefId| false;
        let ops = atomic_ensure(Op::GetStatic(3), Op::GetStatic(3));
        let known = Known {
            stable: &statics_none,
            accessor: &accessor,
            scalar: &scalar,
        };
        assert!(ensure_stores(&class(), &code(ops), &known).is_empty());
        // Two `int` constants other than zero are not told apart.
        assert!(found(atomic_ensure(
            Op::Flag(Konst::NonZero),
            Op::Flag(Konst::NonZero)
        ))
        .is_empty());
    }

    #[test]
    fn a_branch_that_does_more_than_the_store_claims_the_transition() {
        let mut ops = atomic_ensure(Op::GetStatic(3), Op::GetStatic(3));
        ops.insert(9, Op::Invoke(InvokeKind::Static, 8));
        ops[4] = IF_SAME(10);
        assert!(found(ops).is_empty());
    }

    #[test]
    fn a_boolean_set_when_clear_and_a_number_cleared_when_set() {
        // `if (test on field) field = stored;`, the test jumping over the store.
        let store_unless = |field: RefId, cond: Cond, stored: Konst| {
            vec![
                Op::Load(0, 1),
                Op::GetField(field),
                Op::If {
                    pop: 1,
                    target: 6,
                    cond,
                },
                Op::Load(0, 1),
                Op::Flag(stored),
                Op::PutField(field),
                Op::Return(0),
            ]
        };
        // if (!flag) flag = true;
        assert_eq!(found(store_unless(5, Cond::NonZero, Konst::NonZero)), [2]);
        // An `int` that is not zero may be another value than the one stored: `if (count ==
        // 0) count = 1` stores what it did not compare.
        assert!(found(store_unless(6, Cond::NonZero, Konst::NonZero)).is_empty());
        // if (count != 0) count = 0;
        assert_eq!(found(store_unless(6, Cond::Zero, Konst::Zero)), [2]);
        // if (count != 0) count = 1;
        assert!(found(store_unless(6, Cond::Zero, Konst::NonZero)).is_empty());
    }

    #[test]
    fn a_property_set_through_its_setter_to_the_value_its_getter_was_compared_with() {
        // if (getState() != CLOSED) setState(CLOSED);
        let ops = |setter: RefId| {
            vec![
                Op::Load(0, 1),
                Op::Invoke(InvokeKind::Virtual, 9),
                Op::GetStatic(3),
                IF_SAME(7),
                Op::Load(0, 1),
                Op::GetStatic(3),
                Op::Invoke(InvokeKind::Virtual, setter),
                Op::Return(0),
            ]
        };
        assert_eq!(found(ops(10)), [3]);
        // Another property's setter.
        assert!(found(ops(11)).is_empty());
    }

    #[test]
    fn the_store_alone_in_a_synchronized_block() {
        // if (flag) { synchronized (lock) { flag = false; } }
        let ops = |extra: bool| {
            let mut ops = vec![
                Op::Load(0, 1),
                Op::GetField(5),
                Op::If {
                    pop: 1,
                    target: 0,
                    cond: Cond::Zero,
                },
                Op::Load(0, 1),
                Op::GetField(7),
                Op::Dup,
                Op::Store(1, 1),
                Op::MonitorEnter,
                Op::Load(0, 1),
                Op::Flag(Konst::Zero),
                Op::PutField(5),
            ];
            if extra {
                ops.push(Op::Invoke(InvokeKind::Static, 8));
            }
            ops.extend([
                Op::Load(1, 1),
                Op::MonitorExit,
                Op::Goto(0),
                Op::Store(2, 1),
                Op::Load(1, 1),
                Op::MonitorExit,
                Op::Load(2, 1),
                Op::Athrow,
                Op::Return(0),
            ]);
            let end = ops.len() as u32 - 1;
            for op in &mut ops {
                match op {
                    Op::If { target, .. } | Op::Goto(target) => *target = end,
                    _ => {}
                }
            }
            ops
        };
        assert_eq!(found(ops(false)), [2]);
        assert!(found(ops(true)).is_empty());
    }
}

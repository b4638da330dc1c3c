//! Synthetic accessors seen through: before Java 11 (nestmates), `javac` compiles an inner
//! class's use of its outer class's private members (and the other way round) into calls of
//! static synthetic methods `access$NNN` of the owner, each a field read, a field write or a call
//! of the private method. The analyses would then see the access in another method (a callee,
//! with no region of its own), where the same source compiled for Java 11 or later accesses the
//! field directly. [`inline`] rewrites each call of such an accessor into the access it makes, so
//! a library compiled for Java 8 reads like one compiled for Java 17. Anything else an accessor
//! does (`o.count++` through `access$108`) stays a call.

use crate::fxhash::FxHashMap;

use super::model::{acc, Class, InvokeKind, MemberRef, Op};

/// What an accessor does.
#[derive(Clone)]
enum Access {
    /// `getfield`/`getstatic` of the field.
    Read(MemberRef, bool),
    /// `putfield`/`putstatic` of the field, the value also returned (`dup_x1`): rewritten only
    /// where the caller drops that value (`pop`), as `o.f = v;` compiles.
    Write(MemberRef, bool),
    /// A call of the private method with the accessor's arguments, in order.
    Call(InvokeKind, MemberRef),
}

/// The access a static synthetic method makes, if it is a plain accessor.
fn accessor(c: &Class, m: &super::model::Method) -> Option<Access> {
    // The flags first: they are in the method itself, its name is another allocation.
    if m.access & (acc::STATIC | acc::SYNTHETIC) != acc::STATIC | acc::SYNTHETIC
        || !m.name.starts_with("access$")
    {
        return None;
    }
    let code = m.code.as_ref()?;
    let ops: Vec<&Op> = code.insns.iter().map(|i| &i.op).collect();
    let member = |r: u32| c.refs.get(r as usize).cloned();
    match ops[..] {
        [Op::Load(0, 1), Op::GetField(f), Op::Return(_)] => Some(Access::Read(member(*f)?, false)),
        [Op::GetStatic(f), Op::Return(_)] => Some(Access::Read(member(*f)?, true)),
        [Op::Load(0, 1), Op::Load(1, n), Op::DupX1 | Op::Dup2X1, Op::PutField(f), Op::Return(k)]
            if n == k =>
        {
            Some(Access::Write(member(*f)?, false))
        }
        [Op::Load(0, n), Op::Dup | Op::Dup2, Op::PutStatic(f), Op::Return(k)] if n == k => {
            Some(Access::Write(member(*f)?, true))
        }
        [ref loads @ .., Op::Invoke(kind, r), Op::Return(_)] => {
            let target = member(*r)?;
            // Every argument passed on, in order (the receiver first for an instance call).
            let mut slot = 0u16;
            for op in loads {
                match op {
                    Op::Load(s, n) if *s == slot => slot += u16::from(*n),
                    _ => return None,
                }
            }
            let receiver = u16::from(*kind != InvokeKind::Static);
            (slot == u16::from(target.arg_slots) + receiver
                && slot == m.param_slots()
                && matches!(
                    kind,
                    InvokeKind::Static | InvokeKind::Special | InvokeKind::Virtual
                ))
            .then_some(Access::Call(*kind, target))
        }
        _ => None,
    }
}

/// An accessor by class, name and descriptor.
type Key = (Box<str>, Box<str>, Box<str>);

/// Rewrite every call of a plain accessor (see the module documentation) into the access.
pub fn inline(classes: &mut [Class]) {
    use rayon::prelude::*;
    let found: FxHashMap<Key, Access> = classes
        .par_iter()
        .with_max_len(crate::PAR_CHUNK)
        .flat_map_iter(|c| {
            c.methods.iter().filter_map(move |m| {
                let a = accessor(c, m)?;
                Some(((c.name.clone(), m.name.clone(), m.descriptor.clone()), a))
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .collect();
    if found.is_empty() {
        return;
    }
    classes
        .par_iter_mut()
        .with_max_len(crate::PAR_CHUNK)
        .for_each(|c| {
            let Class { refs, methods, .. } = c;
            // Most classes call no accessor: their references say so without a look at the code.
            if !refs.iter().any(|r| r.name.starts_with("access$")) {
                return;
            }
            for m in methods.iter_mut() {
                let Some(code) = m.code.as_mut() else {
                    continue;
                };
                for i in 0..code.insns.len() {
                    let Op::Invoke(InvokeKind::Static, r) = code.insns[i].op else {
                        continue;
                    };
                    let Some(target) = refs.get(r as usize) else {
                        continue;
                    };
                    if !target.name.starts_with("access$") {
                        continue;
                    }
                    let key = (
                        Box::<str>::from(&*target.class),
                        Box::<str>::from(&*target.name),
                        Box::<str>::from(&*target.desc),
                    );
                    let Some(a) = found.get(&key) else { continue };
                    let mut add = |member: &MemberRef| {
                        refs.push(member.clone());
                        (refs.len() - 1) as u32
                    };
                    match a {
                        Access::Read(f, stat) => {
                            let id = add(f);
                            code.insns[i].op = if *stat {
                                Op::GetStatic(id)
                            } else {
                                Op::GetField(id)
                            };
                        }
                        Access::Write(f, stat) => {
                            // `o.f = v;`: the value the accessor returns is dropped.
                            let dropped = code.insns.get(i + 1).is_some_and(|n| {
                                matches!((&n.op, f.arg_slots), (Op::Pop, 1) | (Op::Pop2, 2))
                            });
                            if dropped {
                                let id = add(f);
                                code.insns[i].op = if *stat {
                                    Op::PutStatic(id)
                                } else {
                                    Op::PutField(id)
                                };
                                code.insns[i + 1].op = Op::Nop;
                            }
                        }
                        Access::Call(kind, target) => {
                            let id = add(target);
                            code.insns[i].op = Op::Invoke(*kind, id);
                        }
                    }
                }
            }
        });
}

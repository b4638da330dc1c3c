//! Which `--classpath` classes the scanned classes can reach: the program every analysis sees.
//!
//! A dependency is there to resolve what the scanned code uses, not to be analysed for its own
//! sake (SpotBugs, too, loads its auxiliary classpath on demand). The program is the scanned
//! classes and the classpath classes reached from them, transitively, by:
//! - a name in the code of a reached class: the owner of a field or method reference, the class
//!   of a `new`, the implementation of a lambda or method reference;
//! - a supertype of a reached class (inherited code runs on its objects);
//! - an implementation of a virtual or interface call made by a scanned class: a subtype of the
//!   receiver type that declares the method, unless there are more than
//!   [`MAX_IMPLEMENTATIONS`] (then the analyses treat the call as one of unknown callee
//!   anyway). The scanned code's caller may hand in any object of the receiver type.
//!
//! Inside a dependency this is rapid type analysis: an object of a dependency's class exists
//! only if reached code creates it (`new` names the class), or the scanned code's caller hands
//! it in (the implementations of the scanned code's own calls). Left out are classes that only
//! a service loader, reflection or another program creates, and that only a dependency calls:
//! such a call is one of unknown implementation, as one with too many implementations already
//! is ([`crate::program::Program::implementations`]).
//!
//! This keeps the work of a module scan proportional to what the module uses, not to its
//! classpath, and lets a warm scan decode from the summary cache only the classes it needs
//! ([`crate::cache::deps`]).

use crate::bytecode::{Class, InvokeKind, Op};
use crate::fxhash::{FxHashMap, FxHashSet};
use crate::program::MAX_IMPLEMENTATIONS;

/// What the closure knows of a class before it is decoded.
pub struct Header<'a> {
    pub name: &'a str,
    /// From `--classpath`.
    pub library: bool,
    /// Superclass and interfaces.
    pub supers: Vec<&'a str>,
    /// [`method_key`]s of the methods it declares with code ([`declared`]).
    pub declares: std::borrow::Cow<'a, [u64]>,
}

impl<'a> Header<'a> {
    pub fn of(c: &'a Class) -> Header<'a> {
        Header {
            name: &c.name,
            library: c.library,
            supers: c
                .super_name
                .iter()
                .chain(&c.interfaces)
                .map(|s| &**s)
                .collect(),
            declares: declared(c).into(),
        }
    }
}

/// A method's name and descriptor as one number (stable across runs and builds: cache entries
/// hold them).
pub fn method_key(name: &str, desc: &str) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(name.as_bytes());
    h.update(b"\0");
    h.update(desc.as_bytes());
    h.digest()
}

/// The [`method_key`]s of the methods a class declares with code, sorted.
pub fn declared(c: &Class) -> Vec<u64> {
    let mut keys: Vec<u64> = c
        .methods
        .iter()
        .filter(|m| m.code.is_some())
        .map(|m| method_key(&m.name, &m.descriptor))
        .collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

/// The closure, computed layer by layer so that a caller can decode each layer's classes (in
/// parallel) before they are looked at.
pub struct Reach {
    by_name: FxHashMap<Box<str>, u32>,
    /// Direct subtypes of each class.
    subtypes: FxHashMap<u32, Vec<u32>>,
    declares: Vec<Box<[u64]>>,
    reached: Vec<bool>,
    /// Calls already dispatched: (receiver type, method key).
    dispatched: FxHashSet<(u32, u64)>,
}

impl Reach {
    /// Over classes (already de-duplicated by name), in order. Returns the closure and its
    /// first layer: the scanned classes.
    pub fn new<'a>(classes: impl IntoIterator<Item = Header<'a>>) -> (Reach, Vec<u32>) {
        let mut by_name: FxHashMap<Box<str>, u32> = FxHashMap::default();
        let mut supers: Vec<Vec<&str>> = Vec::new();
        let mut declares = Vec::new();
        let mut reached = Vec::new();
        let mut first = Vec::new();
        for (i, h) in classes.into_iter().enumerate() {
            by_name.entry(Box::from(h.name)).or_insert(i as u32);
            reached.push(!h.library);
            if !h.library {
                first.push(i as u32);
            }
            supers.push(h.supers);
            declares.push(Box::from(h.declares.into_owned()));
        }
        let mut subtypes: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
        for (i, sups) in supers.iter().enumerate() {
            for &s in sups {
                if let Some(&s) = by_name.get(s) {
                    subtypes.entry(s).or_default().push(i as u32);
                }
            }
        }
        let reach = Reach {
            by_name,
            subtypes,
            declares,
            reached,
            dispatched: FxHashSet::default(),
        };
        (reach, first)
    }

    /// Takes in what reached class `c` names and, for a scanned class, the implementations of
    /// its calls (see the module documentation); pushes the classes reached for the first time
    /// onto `next`, the next layer.
    pub fn visit(&mut self, c: &Class, next: &mut Vec<u32>) {
        let names = c
            .super_name
            .iter()
            .chain(&c.interfaces)
            .map(|n| &**n)
            .chain(c.refs.iter().filter_map(|r| class_of(&r.class)))
            .chain(
                c.lambda_impls
                    .iter()
                    .flatten()
                    .filter_map(|(class, _, _)| class_of(class)),
            );
        let mut found: Vec<u32> = names.filter_map(|n| self.by_name.get(n).copied()).collect();
        if !c.library {
            for insn in c
                .methods
                .iter()
                .filter_map(|m| m.code.as_ref())
                .flat_map(|k| &k.insns)
            {
                if let Op::Invoke(InvokeKind::Virtual | InvokeKind::Interface, r) = insn.op {
                    let m = c.member(r);
                    let Some(&t) = class_of(&m.class).and_then(|n| self.by_name.get(n)) else {
                        continue;
                    };
                    let key = method_key(&m.name, &m.desc);
                    if self.dispatched.insert((t, key)) {
                        found.extend(self.implementations(t, key));
                    }
                }
            }
        }
        for j in found {
            if !std::mem::replace(&mut self.reached[j as usize], true) {
                next.push(j);
            }
        }
    }

    /// The subtypes of `t` (transitively) that declare method `key`, none if there are more
    /// than [`MAX_IMPLEMENTATIONS`].
    fn implementations(&self, t: u32, key: u64) -> Vec<u32> {
        let mut out = Vec::new();
        let mut seen: FxHashSet<u32> = FxHashSet::default();
        let mut stack = vec![t];
        while let Some(s) = stack.pop() {
            for &j in self.subtypes.get(&s).into_iter().flatten() {
                if seen.insert(j) {
                    stack.push(j);
                    if self.declares[j as usize].binary_search(&key).is_ok() {
                        out.push(j);
                        if out.len() > MAX_IMPLEMENTATIONS {
                            return Vec::new();
                        }
                    }
                }
            }
        }
        out
    }

    /// For each class, whether the program holds it.
    pub fn into_reached(self) -> Vec<bool> {
        self.reached
    }
}

/// The class an owner name stands for: `[[Lcom/x/A;` is `com/x/A`; an array of primitives
/// and an `invokedynamic` bootstrap (`#3`) name none.
fn class_of(owner: &str) -> Option<&str> {
    if owner.starts_with('#') {
        return None;
    }
    let element = owner.trim_start_matches('[');
    if element.len() == owner.len() {
        return Some(owner);
    }
    element.strip_prefix('L')?.strip_suffix(';')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bytecode::{Code, Insn, MemberRef, Method};

    /// The closure over classes that are all parsed.
    fn reached(classes: &[Class]) -> Vec<bool> {
        let (mut reach, mut layer) = Reach::new(classes.iter().map(Header::of));
        let mut next = Vec::new();
        while !layer.is_empty() {
            for &i in &layer {
                reach.visit(&classes[i as usize], &mut next);
            }
            layer = std::mem::take(&mut next);
        }
        reach.into_reached()
    }

    fn arc(s: &str) -> std::sync::Arc<str> {
        s.into()
    }

    fn class(name: &str, sup: Option<&str>, names: &[&str], library: bool) -> Class {
        Class {
            refs: names
                .iter()
                .map(|&n| MemberRef {
                    class: arc(n),
                    name: arc("f"),
                    desc: arc("I"),
                    arg_slots: 0,
                    ret_slots: 1,
                    is_method: false,
                })
                .collect(),
            ..Class::empty(name, sup, library)
        }
    }

    fn method(name: &str, insns: Vec<Insn>) -> Method {
        Method {
            name: name.into(),
            descriptor: "()V".into(),
            access: 0,
            annotations: Vec::new(),
            code: Some(Code {
                max_locals: 1,
                insns,
                handlers: Vec::new(),
                lines: Vec::new(),
                offsets: Vec::new(),
                switches: Vec::new(),
                switch_keys: Vec::new(),
                class_literals: Vec::new(),
                bits: Vec::new(),
            }),
        }
    }

    /// A class whose method `run` calls `owner.m()` virtually.
    fn caller(name: &str, owner: &str, library: bool) -> Class {
        let mut c = class(name, None, &[], library);
        c.refs.push(MemberRef {
            class: arc(owner),
            name: arc("m"),
            desc: arc("()V"),
            arg_slots: 1,
            ret_slots: 0,
            is_method: true,
        });
        let call = Insn {
            op: Op::Invoke(InvokeKind::Interface, 0),
        };
        c.methods.push(method("run", vec![call]));
        c
    }

    /// A class implementing `iface` (declaring `m` with code when `declares`).
    fn implementation(name: &str, iface: &str, declares: bool) -> Class {
        let mut c = class(name, Some("java/lang/Object"), &[], true);
        c.interfaces.push(iface.into());
        if declares {
            c.methods.push(method("m", Vec::new()));
        }
        c
    }

    #[test]
    fn array_owners_name_their_element_class() {
        assert_eq!(class_of("com/x/A"), Some("com/x/A"));
        assert_eq!(class_of("[[Lcom/x/A;"), Some("com/x/A"));
        assert_eq!(class_of("[I"), None);
        assert_eq!(class_of("#0"), None);
    }

    #[test]
    fn the_closure_follows_names_and_supertypes() {
        let classes = [
            // 0: scanned, names 1 (through an array type) and extends 2.
            class("app/Main", Some("lib/Base"), &["[Llib/Used;"], false),
            // 1: named; names 3, whose supertype 4 is in too.
            class("lib/Used", None, &["lib/Helper"], true),
            class("lib/Base", None, &[], true),
            class("lib/Helper", Some("lib/HelperBase"), &[], true),
            class("lib/HelperBase", None, &[], true),
            // Not reached: a subtype nobody creates or calls, what only it names, what
            // nobody names.
            class(
                "lib/OtherBase",
                Some("lib/Base"),
                &["lib/FromSubtype"],
                true,
            ),
            class("lib/FromSubtype", None, &[], true),
            class("lib/Unused", None, &[], true),
            // A scanned class is in even when nothing names it.
            class("app/Other", None, &[], false),
        ];
        assert_eq!(
            reached(&classes),
            vec![true, true, true, true, true, false, false, false, true]
        );
    }

    #[test]
    fn a_scanned_call_brings_in_its_implementations_a_dependency_call_does_not() {
        let classes = [
            caller("app/Main", "lib/Cache", false),
            class("lib/Cache", None, &[], true),
            // An implementation declaring `m`, and what it names.
            {
                let mut c = implementation("ext/Locked", "lib/Cache", true);
                c.refs.extend(class("x", None, &["ext/Lock"], true).refs);
                c
            },
            class("ext/Lock", None, &[], true),
            // One that does not declare `m` (its superclass's code would run: in by name).
            implementation("ext/Plain", "lib/Cache", false),
            // A dependency's call does not dispatch: `lib/Sink`'s implementation stays out.
            caller("lib/Calls", "lib/Sink", true),
            class("lib/Sink", None, &[], true),
            implementation("ext/SinkImpl", "lib/Sink", true),
        ];
        let mut all: Vec<Class> = classes.into_iter().collect();
        all[0]
            .refs
            .extend(class("x", None, &["lib/Calls"], false).refs);
        assert_eq!(
            reached(&all),
            vec![true, true, true, true, false, true, true, false]
        );
    }

    #[test]
    fn a_call_with_too_many_implementations_brings_in_none() {
        let mut classes = vec![
            caller("app/Main", "lib/Node", false),
            class("lib/Node", None, &[], true),
        ];
        for i in 0..=MAX_IMPLEMENTATIONS {
            classes.push(implementation(&format!("ext/Node{i}"), "lib/Node", true));
        }
        let r = reached(&classes);
        assert!(r[0] && r[1]);
        assert!(r[2..].iter().all(|&x| !x), "{r:?}");
        classes.pop();
        let r = reached(&classes);
        assert!(r.iter().all(|&x| x), "{MAX_IMPLEMENTATIONS} are in: {r:?}");
    }
}

//! The whole program as the analyses see it: every parsed class (scanned and `--classpath`),
//! an index by name, method resolution through the hierarchy, and the method summaries.

use std::collections::{HashMap, HashSet};

use crate::analysis::locks::ThreadSafeList;
use crate::analysis::summary::{self, Summary};
use crate::bytecode::{Class, Method};
use crate::config::AnalysisConfig;

/// A method by (class index, method index).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MethodId {
    pub class: u32,
    pub method: u32,
}

pub struct Program {
    pub classes: Vec<Class>,
    by_name: HashMap<Box<str>, u32>,
    /// Direct subclasses and implementors of each class.
    subtypes: HashMap<u32, Vec<u32>>,
    pub config: AnalysisConfig,
    pub thread_safe: ThreadSafeList,
    /// Fields `(owner, name)` assigned a thread-safe object (a `Collections.synchronized*`
    /// wrapper, or a `new` of a thread-safe class).
    pub thread_safe_fields: HashSet<(Box<str>, Box<str>)>,
    summaries: Vec<Vec<Summary>>,
}

impl Program {
    /// Index the classes (already de-duplicated) and compute the method summaries.
    pub fn new(classes: Vec<Class>, config: AnalysisConfig) -> Program {
        let mut by_name = HashMap::with_capacity(classes.len());
        for (i, c) in classes.iter().enumerate() {
            by_name.entry(c.name.clone()).or_insert(i as u32);
        }
        let mut subtypes: HashMap<u32, Vec<u32>> = HashMap::new();
        for (i, c) in classes.iter().enumerate() {
            for sup in c.super_name.iter().chain(c.interfaces.iter()) {
                if let Some(&s) = by_name.get(sup) {
                    subtypes.entry(s).or_default().push(i as u32);
                }
            }
        }
        let mut p = Program {
            classes,
            by_name,
            subtypes,
            config,
            thread_safe: ThreadSafeList::builtin(),
            thread_safe_fields: HashSet::new(),
            summaries: Vec::new(),
        };
        p.thread_safe_fields = summary::thread_safe_fields(&p);
        p.summaries = summary::compute(&p);
        p
    }

    pub fn class_index(&self, name: &str) -> Option<u32> {
        self.by_name.get(name).copied()
    }

    pub fn class(&self, i: u32) -> &Class {
        &self.classes[i as usize]
    }

    pub fn method(&self, id: MethodId) -> &Method {
        &self.classes[id.class as usize].methods[id.method as usize]
    }

    pub fn summary(&self, id: MethodId) -> &Summary {
        &self.summaries[id.class as usize][id.method as usize]
    }

    /// JVM method resolution: the class, then its superclasses, then its superinterfaces.
    pub fn resolve(&self, class: &str, name: &str, desc: &str) -> Option<MethodId> {
        let mut seen = HashSet::new();
        let mut cur = self.class_index(class);
        let mut ifaces = Vec::new();
        while let Some(ci) = cur {
            if !seen.insert(ci) {
                break;
            }
            let c = self.class(ci);
            if let Some(m) = c
                .methods
                .iter()
                .position(|m| &*m.name == name && &*m.descriptor == desc)
            {
                return Some(MethodId {
                    class: ci,
                    method: m as u32,
                });
            }
            ifaces.extend(c.interfaces.iter().cloned());
            cur = c.super_name.as_deref().and_then(|s| self.class_index(s));
        }
        while let Some(i) = ifaces.pop() {
            let Some(ci) = self.class_index(&i) else {
                continue;
            };
            if !seen.insert(ci) {
                continue;
            }
            let c = self.class(ci);
            if let Some(m) = c
                .methods
                .iter()
                .position(|m| &*m.name == name && &*m.descriptor == desc)
            {
                return Some(MethodId {
                    class: ci,
                    method: m as u32,
                });
            }
            ifaces.extend(c.interfaces.iter().cloned());
        }
        None
    }

    /// Concrete implementations of an abstract or interface method in known subtypes, at most
    /// `limit` of them (`None` when there are more: too wide to be useful).
    pub fn implementations(&self, id: MethodId, limit: usize) -> Option<Vec<MethodId>> {
        let m = self.method(id);
        let mut out = Vec::new();
        let mut stack = vec![id.class];
        let mut seen = HashSet::new();
        while let Some(c) = stack.pop() {
            if !seen.insert(c) {
                continue;
            }
            for &s in self.subtypes.get(&c).map(|v| v.as_slice()).unwrap_or(&[]) {
                let sc = self.class(s);
                if let Some(mi) = sc
                    .methods
                    .iter()
                    .position(|x| x.name == m.name && x.descriptor == m.descriptor)
                {
                    if sc.methods[mi].code.is_some() {
                        out.push(MethodId {
                            class: s,
                            method: mi as u32,
                        });
                        if out.len() > limit {
                            return None;
                        }
                    }
                }
                stack.push(s);
            }
        }
        Some(out)
    }

    /// Whether `a` and `b` belong to the same abstraction in the sense of Burrows and Leino:
    /// one is a superclass of the other, or they are nested in the same outer class.
    pub fn same_abstraction(&self, a: &str, b: &str) -> bool {
        let outer = |n: &str| n.split('$').next().unwrap_or(n).to_string();
        a == b || outer(a) == outer(b) || self.is_subclass(a, b) || self.is_subclass(b, a)
    }

    fn is_subclass(&self, sub: &str, sup: &str) -> bool {
        let mut cur = self.class_index(sub);
        let mut steps = 0;
        while let Some(ci) = cur {
            let c = self.class(ci);
            if &*c.name == sup {
                return true;
            }
            steps += 1;
            if steps > 64 {
                return false;
            }
            match c.super_name.as_deref() {
                Some(s) if s == sup => return true,
                Some(s) => cur = self.class_index(s),
                None => return false,
            }
        }
        false
    }
}

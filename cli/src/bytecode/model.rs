//! Our own model of a class file: what the analyses need, owned, independent of the parser.
//!
//! Instructions are decoded into [`Op`], a compact set that keeps every opcode's stack effect
//! (in slots: `long` and `double` take two) and resolves branch offsets into instruction indices.

/// Access flags we look at.
pub mod acc {
    pub const PUBLIC: u16 = 0x0001;
    pub const PRIVATE: u16 = 0x0002;
    pub const PROTECTED: u16 = 0x0004;
    pub const FINAL: u16 = 0x0010;
    pub const VOLATILE: u16 = 0x0040;
    pub const STATIC: u16 = 0x0008;
    pub const SYNCHRONIZED: u16 = 0x0020;
    pub const NATIVE: u16 = 0x0100;
    pub const ABSTRACT: u16 = 0x0400;
    pub const INTERFACE: u16 = 0x0200;
    pub const SYNTHETIC: u16 = 0x1000;
    pub const BRIDGE: u16 = 0x0040;
}

/// An internal class name in source form: `com/x/Outer$Inner` is `com.x.Outer$Inner`.
pub fn dotted(internal_name: &str) -> String {
    internal_name.replace('/', ".")
}

/// A parsed class.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct Class {
    /// Internal name, e.g. `com/x/Outer$Inner`.
    pub name: Box<str>,
    pub super_name: Option<Box<str>>,
    pub interfaces: Vec<Box<str>>,
    pub access: u16,
    /// The `SourceFile` attribute, e.g. `Outer.java`.
    pub source_file: Option<Box<str>>,
    /// Annotation type descriptors, e.g. `Lcom/x/Atomic;`.
    pub annotations: Vec<Box<str>>,
    pub methods: Vec<Method>,
    pub fields: Vec<Field>,
    /// For each `BootstrapMethods` entry: the implementation method of a lambda or method
    /// reference (`LambdaMetafactory`), as `(class, name, descriptor)`.
    pub lambda_impls: Vec<Option<MethodName>>,
    /// Constant-pool member references used by the instructions, indexed by [`RefId`].
    #[serde(with = "refs_serde")]
    pub refs: Vec<MemberRef>,
    /// Display path of the file it came from.
    pub path: String,
    /// From `--classpath`: used for the hierarchy and summaries, never reported.
    pub library: bool,
    /// What a parser fallback had to drop, if any.
    pub lost: Option<String>,
    /// `@SuppressStaleCheck` / `@SuppressFBWarnings` annotations on the class and its members
    /// (read for the reports; no analysis looks at them).
    pub suppress: Vec<SuppressAnnotation>,
}

/// A suppression annotation: one whose simple name is `SuppressStaleCheck` or
/// `SuppressFBWarnings`, on a class, method or field.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SuppressAnnotation {
    pub target: SuppressTarget,
    /// Simple name of the annotation type.
    pub annotation: Box<str>,
    /// The strings of its `value` element (none: everything is suppressed).
    pub values: Vec<Box<str>>,
    /// Its `justification` element.
    pub justification: Option<Box<str>>,
}

/// What a [`SuppressAnnotation`] is on.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum SuppressTarget {
    Class,
    /// Name and descriptor.
    Method(Box<str>, Box<str>),
    Field(Box<str>),
}

/// Simple names of the annotation types that suppress findings.
pub const SUPPRESS_ANNOTATIONS: &[&str] = &["SuppressStaleCheck", "SuppressFBWarnings"];

impl Class {
    pub fn is_interface(&self) -> bool {
        self.access & acc::INTERFACE != 0
    }

    /// Whether the class was compiled from Kotlin (it carries `@kotlin.Metadata`).
    pub fn is_kotlin(&self) -> bool {
        self.annotations.iter().any(|a| &**a == "Lkotlin/Metadata;")
    }

    /// The binary name with dots: `com.x.Outer$Inner`.
    pub fn dotted_name(&self) -> String {
        dotted(&self.name)
    }

    /// The package as a path prefix, e.g. `com/x/` (empty for the default package).
    pub fn package_path(&self) -> &str {
        match self.name.rfind('/') {
            Some(i) => &self.name[..=i],
            None => "",
        }
    }

    pub fn member(&self, id: RefId) -> &MemberRef {
        &self.refs[id as usize]
    }

    /// The slots an instruction of this class's code pops and pushes, for the straight-line
    /// instructions (`None` for branches, returns, monitor operations and the stack shuffles
    /// `dup`/`swap`, whose effect depends on what they move).
    pub fn stack_effect(&self, op: &Op) -> Option<(u8, u8)> {
        Some(match *op {
            Op::Nop | Op::CheckCast | Op::Iinc(_) => (0, 0),
            Op::Const(n) | Op::Load(_, n) => (0, n),
            Op::Flag(_) | Op::ClassLiteral(_) | Op::New(_) => (0, 1),
            Op::Store(_, n) => (n, 0),
            Op::ArrayLoad(n) => (2, n),
            Op::ArrayStore(n) => (2 + n, 0),
            Op::ArrayLength => (1, 1),
            Op::GetField(r) => (1, self.member(r).ret_slots),
            Op::GetStatic(r) => (0, self.member(r).ret_slots),
            Op::PutField(r) => (1 + self.member(r).ret_slots, 0),
            Op::PutStatic(r) => (self.member(r).ret_slots, 0),
            Op::Invoke(kind, r) => {
                let m = self.member(r);
                (
                    m.arg_slots + u8::from(kind != InvokeKind::Static),
                    m.ret_slots,
                )
            }
            Op::InvokeDynamic(r) => (self.member(r).arg_slots, self.member(r).ret_slots),
            Op::NewArray(d) => (d, 1),
            Op::Compute { pop, push } => (pop, push),
            Op::Pop => (1, 0),
            Op::Pop2 => (2, 0),
            _ => return None,
        })
    }

    /// The instruction of this class's code `insns` that pushed the stack slot `depth` slots
    /// below the top (the top is 1) just before the instruction at `at`, when everything pushed
    /// above it is a simple push (a load, a constant, a field read, a cast) that can be walked
    /// back over.
    pub fn pushed_by(&self, insns: &[Insn], at: usize, depth: i32) -> Option<usize> {
        let mut need = depth;
        let mut k = at.min(insns.len());
        while k > 0 && need > 0 {
            k -= 1;
            let op = &insns[k].op;
            let simple = matches!(
                op,
                Op::Load(..)
                    | Op::Const(_)
                    | Op::Flag(_)
                    | Op::GetStatic(_)
                    | Op::GetField(_)
                    | Op::CheckCast
                    | Op::Nop
            );
            let (pop, push) = self.stack_effect(op).filter(|_| simple)?;
            let (pop, push) = (i32::from(pop), i32::from(push));
            // This instruction pushes the deepest slot still wanted.
            if push >= need {
                return Some(k);
            }
            need += pop - push;
        }
        None
    }

    /// A class with nothing in it, for unit tests to fill in.
    #[cfg(test)]
    pub fn empty(name: &str, super_name: Option<&str>, library: bool) -> Class {
        Class {
            name: name.into(),
            super_name: super_name.map(Into::into),
            interfaces: Vec::new(),
            access: 0,
            source_file: None,
            annotations: Vec::new(),
            methods: Vec::new(),
            fields: Vec::new(),
            lambda_impls: Vec::new(),
            refs: Vec::new(),
            path: String::new(),
            library,
            lost: None,
            suppress: Vec::new(),
        }
    }

    /// The implementation method of the lambda or method reference an `invokedynamic` call
    /// site creates, if it is one.
    pub fn lambda_impl(&self, indy: RefId) -> Option<(&str, &str, &str)> {
        let attr: usize = self.member(indy).class.strip_prefix('#')?.parse().ok()?;
        self.lambda_impls
            .get(attr)?
            .as_ref()
            .map(|(c, n, d)| (&**c, &**n, &**d))
    }

    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| &*f.name == name)
    }
}

/// A method named by class, name and descriptor (internal forms).
pub type MethodName = (Box<str>, Box<str>, Box<str>);

/// A field declared by a class.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct Field {
    pub name: Box<str>,
    pub desc: Box<str>,
    pub access: u16,
}

/// A method of a class.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct Method {
    pub name: Box<str>,
    pub descriptor: Box<str>,
    pub access: u16,
    pub annotations: Vec<Box<str>>,
    pub code: Option<Code>,
}

impl Method {
    /// Whether the method returns a reference (an object or an array).
    pub fn returns_reference(&self) -> bool {
        self.descriptor.rsplit(')').next().is_some_and(is_reference)
    }

    pub fn is_static(&self) -> bool {
        self.access & acc::STATIC != 0
    }
    /// A program's entry point: `static void main(String[])`.
    pub fn is_main(&self) -> bool {
        self.is_static() && &*self.name == "main" && &*self.descriptor == "([Ljava/lang/String;)V"
    }
    pub fn is_synchronized(&self) -> bool {
        self.access & acc::SYNCHRONIZED != 0
    }
    /// Number of local slots taken by the parameters (with `this` for instance methods).
    pub fn param_slots(&self) -> u16 {
        let own = descriptor_arg_slots(&self.descriptor) as u16;
        if self.is_static() {
            own
        } else {
            own + 1
        }
    }
    /// Whether code outside the scanned module can call the method: it is `public`, and not a
    /// Kotlin `internal` member. Kotlin compiles those public, with the module's name appended
    /// to theirs (`removeEntry$okhttp`), so that only the module's own code calls them; a Kotlin
    /// class carries `@kotlin.Metadata`.
    pub fn callable_outside(&self, class: &Class) -> bool {
        self.access & acc::PUBLIC != 0
            && !(class.is_kotlin()
                && self.access & (acc::SYNTHETIC | acc::BRIDGE) == 0
                && self.name.rsplit_once('$').is_some_and(|(name, module)| {
                    !name.is_empty() && !module.is_empty() && !name.starts_with('<')
                }))
    }

    pub fn has_annotation_named(&self, simple_names: &[String]) -> bool {
        self.annotations.iter().any(|a| {
            simple_names
                .iter()
                .any(|n| annotation_has_simple_name(a, n))
        })
    }
}

/// Whether an annotation type descriptor has this simple name; the same as
/// `annotation_simple_name(desc) == name`, without splitting (this is asked for every call).
pub fn annotation_has_simple_name(desc: &str, name: &str) -> bool {
    let Some(body) = desc.strip_suffix(';') else {
        return annotation_simple_name(desc) == name;
    };
    match body.strip_suffix(name) {
        Some(rest) => rest == "L" || rest.ends_with('/') || rest.ends_with('$'),
        None => false,
    }
}

/// The simple name of an annotation type descriptor: `Lcom/x/Outer$Atomic;` → `Atomic`.
pub fn annotation_simple_name(desc: &str) -> &str {
    let d = desc.strip_prefix('L').unwrap_or(desc);
    let d = d.strip_suffix(';').unwrap_or(d);
    let d = d.rsplit('/').next().unwrap_or(d);
    d.rsplit('$').next().unwrap_or(d)
}

/// A method body.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct Code {
    pub max_locals: u16,
    pub insns: Vec<Insn>,
    pub handlers: Vec<Handler>,
    /// `(first instruction index, source line)`, sorted by instruction index.
    pub lines: Vec<(u32, u32)>,
    /// The byte offset of each instruction in the `Code` attribute (`pc`, as `javap -c` prints
    /// it); a method's code is shorter than 64 KiB.
    pub offsets: Vec<u16>,
    /// Jump tables of the switches: [`Op::Switch`] holds an index into this.
    pub switches: Vec<Box<[u32]>>,
    /// The case values of each switch, in the order of its targets after the default.
    pub switch_keys: Vec<Box<[i32]>>,
    /// Hashes of the class literals loaded by `ldc` ([`crate::analysis::locks::class_hash`]):
    /// [`Op::ClassLiteral`] holds an index into this.
    pub class_literals: Vec<u64>,
    /// What bit tests, masks and codes need, by instruction index (sorted): the values of the
    /// `int` constants that feed a bitwise `and`/`or`, a field store, a static call, an `int`
    /// comparison, a local's store, a jump or a return, or come right before a local's load, and
    /// which instructions are those `and`s and `or`s ([`BitFact`]).
    pub bits: Vec<(u32, BitFact)>,
}

/// A fact about one instruction for bit tests and masks ([`Code::bits`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum BitFact {
    /// It pushes this `int` constant.
    Int(i32),
    /// `iand`.
    And,
    /// `ior`.
    Or,
}

impl Code {
    /// The [`BitFact`] of instruction `at`, if one is kept.
    pub fn bit_fact(&self, at: u32) -> Option<BitFact> {
        let i = self.bits.binary_search_by_key(&at, |&(i, _)| i).ok()?;
        Some(self.bits[i].1)
    }

    /// The case values of a switch, in the order of [`Code::switch_targets`] after the default.
    pub fn switch_keys(&self, table: u32) -> &[i32] {
        self.switch_keys
            .get(table as usize)
            .map(|t| &t[..])
            .unwrap_or(&[])
    }

    /// Targets of a switch (default first).
    pub fn switch_targets(&self, table: u32) -> &[u32] {
        self.switches
            .get(table as usize)
            .map(|t| &t[..])
            .unwrap_or(&[])
    }
}

impl Code {
    /// The byte offset (`pc`) of instruction `insn`.
    pub fn offset_of(&self, insn: u32) -> Option<u32> {
        self.offsets.get(insn as usize).map(|&o| u32::from(o))
    }

    /// The source line of an instruction, from the `LineNumberTable`.
    pub fn line_of(&self, insn: u32) -> Option<u32> {
        let i = self.lines.partition_point(|&(start, _)| start <= insn);
        if i == 0 {
            None
        } else {
            Some(self.lines[i - 1].1)
        }
    }
}

/// An exception handler: instructions `[start, end)` jump to `handler` on a throw.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct Handler {
    pub start: u32,
    pub end: u32,
    pub handler: u32,
    /// What it catches, as far as the analyses care.
    pub catches: Catch,
}

/// The exceptions a handler catches ([`Handler::catches`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Catch {
    /// Every throwable: a `finally` (no catch type).
    All,
    /// An index out of range: `IndexOutOfBoundsException` and its platform subclasses
    /// (`ArrayIndexOutOfBoundsException`, `StringIndexOutOfBoundsException`), what a read by
    /// index throws when the index is past the end.
    OutOfRange,
    /// Any other class (`Exception` and `RuntimeException` included: a catch-all says nothing
    /// about which failure the code expects).
    Other,
}

impl Catch {
    /// The kind of a catch type (internal name; `None`: a `finally`).
    pub fn of(catch_type: Option<&str>) -> Catch {
        match catch_type {
            None => Catch::All,
            Some(
                "java/lang/IndexOutOfBoundsException"
                | "java/lang/ArrayIndexOutOfBoundsException"
                | "java/lang/StringIndexOutOfBoundsException",
            ) => Catch::OutOfRange,
            Some(_) => Catch::Other,
        }
    }
}

/// Index into [`Class::refs`].
pub type RefId = u32;

/// A field or method reference (class, name, descriptor) with its slot sizes precomputed.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct MemberRef {
    /// Shared with the class's other references that name the same string.
    pub class: std::sync::Arc<str>,
    pub name: std::sync::Arc<str>,
    pub desc: std::sync::Arc<str>,
    /// Fields: slots of the value. Methods: slots of the arguments (without the receiver).
    pub arg_slots: u8,
    /// Methods: slots of the return value (0 for void). Fields: same as `arg_slots`.
    pub ret_slots: u8,
    /// A method reference (not a field, not an `invokedynamic` call site).
    pub is_method: bool,
}

/// A class's member references encoded (for the summary cache) with their strings once each, as
/// the parser shares them: a table of the distinct strings, then each reference by indices into
/// it. Decoding gives each distinct string one `Arc` again.
mod refs_serde {
    use std::sync::Arc;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::MemberRef;
    use crate::fxhash::FxHashMap;

    #[derive(Serialize, Deserialize)]
    struct Wire<S> {
        strings: Vec<S>,
        /// (class, name, desc) indices, `arg_slots`, `ret_slots`, `is_method`.
        refs: Vec<([u32; 3], u8, u8, bool)>,
    }

    pub fn serialize<Z: Serializer>(refs: &[MemberRef], z: Z) -> Result<Z::Ok, Z::Error> {
        fn id<'a>(
            index: &mut FxHashMap<&'a str, u32>,
            strings: &mut Vec<&'a str>,
            s: &'a str,
        ) -> u32 {
            *index.entry(s).or_insert_with(|| {
                strings.push(s);
                strings.len() as u32 - 1
            })
        }
        let mut index: FxHashMap<&str, u32> = FxHashMap::default();
        let mut strings: Vec<&str> = Vec::new();
        let refs: Vec<([u32; 3], u8, u8, bool)> = refs
            .iter()
            .map(|r| {
                (
                    [
                        id(&mut index, &mut strings, &r.class),
                        id(&mut index, &mut strings, &r.name),
                        id(&mut index, &mut strings, &r.desc),
                    ],
                    r.arg_slots,
                    r.ret_slots,
                    r.is_method,
                )
            })
            .collect();
        Wire { strings, refs }.serialize(z)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<MemberRef>, D::Error> {
        let w: Wire<Box<str>> = Wire::deserialize(d)?;
        let strings: Vec<Arc<str>> = w.strings.into_iter().map(Arc::from).collect();
        let get = |i: u32| {
            strings
                .get(i as usize)
                .cloned()
                .ok_or_else(|| serde::de::Error::custom("a member reference names no string"))
        };
        w.refs
            .into_iter()
            .map(|([c, n, d], arg_slots, ret_slots, is_method)| {
                Ok(MemberRef {
                    class: get(c)?,
                    name: get(n)?,
                    desc: get(d)?,
                    arg_slots,
                    ret_slots,
                    is_method,
                })
            })
            .collect()
    }
}

/// One decoded instruction (8 bytes: the model of a whole JDK stays small).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Insn {
    pub op: Op,
}

/// Invocation kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum InvokeKind {
    Virtual,
    Special,
    Static,
    Interface,
}

/// The decoded operation. Stack effects are in slots.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub enum Op {
    Nop,
    /// Push a constant of `n` slots.
    Const(u8),
    /// Push a one-slot constant the analyses can tell apart in a branch on it: `aconst_null`,
    /// or an `int` (`iconst_*`, `bipush`, `sipush`) zero or not (a `boolean` flag).
    Flag(Konst),
    /// `ldc` of a class literal (a lock identity): index into [`Code::class_literals`].
    ClassLiteral(u32),
    /// Load `n` slots from local `idx`.
    Load(u16, u8),
    /// Store `n` slots into local `idx`.
    Store(u16, u8),
    Iinc(u16),
    /// Array element load: pops array and index, pushes `n` slots.
    ArrayLoad(u8),
    /// Array element store: pops array, index and `n` slots.
    ArrayStore(u8),
    ArrayLength,
    GetField(RefId),
    PutField(RefId),
    GetStatic(RefId),
    PutStatic(RefId),
    Invoke(InvokeKind, RefId),
    /// `invokedynamic`: pops `arg_slots`, pushes `ret_slots` of the call site descriptor. The
    /// [`MemberRef`]'s class is `#<bootstrap index>` (see [`Class::lambda_impl`]).
    InvokeDynamic(RefId),
    /// `new`: the [`MemberRef`] names the class (`name` is `<new>`).
    New(RefId),
    /// `newarray`/`anewarray` (pop 1) or `multianewarray` (pop dims): push a fresh array.
    NewArray(u8),
    /// `checkcast`: a move.
    CheckCast,
    /// Pops `pop` slots, pushes `push` slots computed from them (arithmetic, conversions,
    /// comparisons, `instanceof`).
    Compute {
        pop: u8,
        push: u8,
    },
    Pop,
    Pop2,
    Dup,
    DupX1,
    DupX2,
    Dup2,
    Dup2X1,
    Dup2X2,
    Swap,
    /// Conditional branch popping `pop` slots; `target` is an instruction index.
    If {
        pop: u8,
        target: u32,
        cond: Cond,
    },
    Goto(u32),
    Jsr(u32),
    Ret(u16),
    /// `tableswitch`/`lookupswitch`: index into [`Code::switches`].
    Switch(u32),
    /// Return popping `n` slots.
    Return(u8),
    Athrow,
    MonitorEnter,
    MonitorExit,
}

/// A constant as a branch on it sees it ([`Op::Flag`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Konst {
    Null,
    /// `0`, `false`.
    Zero,
    /// Any other `int`, `true`.
    NonZero,
}

/// What a conditional branch tests, as far as the analyses care.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Cond {
    /// `ifeq`: jumps when the int is zero (a `boolean` is false).
    Zero,
    /// `ifne`: jumps when the int is non-zero.
    NonZero,
    /// `ifnull`: jumps when the reference is `null`.
    Null,
    /// `ifnonnull`: jumps when the reference is not `null`.
    NonNull,
    /// `if_icmpeq`, `if_acmpeq`: jumps when the two values are the same.
    Same,
    /// `if_icmpne`, `if_acmpne`: jumps when the two values differ.
    Differ,
    Other,
}

/// Whether a field or return type descriptor is a reference (an object or an array).
pub fn is_reference(desc: &str) -> bool {
    desc.starts_with(['L', '['])
}

/// The parameter types of a method descriptor, in order: `(Ljava/lang/String;J[I)V` gives
/// `Ljava/lang/String;`, `J`, `[I` (nothing when it does not start with `(`).
pub fn param_types(desc: &str) -> impl Iterator<Item = &str> {
    let params = (desc.strip_prefix('('))
        .and_then(|d| d.split(')').next())
        .unwrap_or("");
    let bytes = params.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        if i >= bytes.len() {
            return None;
        }
        let start = i;
        while i < bytes.len() && bytes[i] == b'[' {
            i += 1;
        }
        if i < bytes.len() && bytes[i] == b'L' {
            while i < bytes.len() && bytes[i] != b';' {
                i += 1;
            }
        }
        i += 1;
        Some(&params[start..i.min(params.len())])
    })
}

/// Whether every parameter of a method descriptor is a reference (an object or an array).
pub fn reference_params_only(desc: &str) -> bool {
    desc.starts_with('(') && param_types(desc).all(is_reference)
}

/// Slots taken by a field descriptor: 2 for `J`/`D`, else 1.
pub fn field_slots(desc: &str) -> u8 {
    match desc.as_bytes().first() {
        Some(b'J') | Some(b'D') => 2,
        _ => 1,
    }
}

/// Slots taken by the arguments of a method descriptor (without the receiver).
pub fn descriptor_arg_slots(desc: &str) -> u8 {
    let slots: u32 = param_types(desc).map(|t| u32::from(field_slots(t))).sum();
    slots.min(255) as u8
}

/// Slots of the return value of a method descriptor.
pub fn descriptor_ret_slots(desc: &str) -> u8 {
    match desc.rsplit(')').next() {
        Some("V") => 0,
        Some(r) => field_slots(r),
        None => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptor_slots() {
        assert_eq!(descriptor_arg_slots("()V"), 0);
        assert_eq!(
            descriptor_arg_slots("(IJLjava/lang/String;[[D[Ljava/lang/Object;D)V"),
            8
        );
        assert_eq!(descriptor_ret_slots("()J"), 2);
        assert_eq!(descriptor_ret_slots("()V"), 0);
        assert_eq!(descriptor_ret_slots("(J)[J"), 1);
    }

    #[test]
    fn simple_annotation_names() {
        assert_eq!(annotation_simple_name("Lcom/x/Atomic;"), "Atomic");
        assert_eq!(annotation_simple_name("Lcom/x/Outer$Atomic;"), "Atomic");
        assert_eq!(annotation_simple_name("LAtomic;"), "Atomic");
        for (desc, name, yes) in [
            ("Lcom/x/Atomic;", "Atomic", true),
            ("Lcom/x/Outer$Atomic;", "Atomic", true),
            ("LAtomic;", "Atomic", true),
            ("Lcom/x/NotAtomic;", "Atomic", false),
            ("Lcom/x/Atomic$Inner;", "Atomic", false),
            ("Atomic", "Atomic", true),
        ] {
            assert_eq!(annotation_has_simple_name(desc, name), yes, "{desc} {name}");
            assert_eq!(annotation_simple_name(desc) == name, yes, "{desc} {name}");
        }
    }

    #[test]
    fn handlers_say_what_they_catch() {
        assert_eq!(Catch::of(None), Catch::All);
        for name in [
            "java/lang/IndexOutOfBoundsException",
            "java/lang/ArrayIndexOutOfBoundsException",
            "java/lang/StringIndexOutOfBoundsException",
        ] {
            assert_eq!(Catch::of(Some(name)), Catch::OutOfRange, "{name}");
        }
        for name in [
            "java/lang/RuntimeException",
            "java/lang/Exception",
            "java/io/IOException",
        ] {
            assert_eq!(Catch::of(Some(name)), Catch::Other, "{name}");
        }
    }

    #[test]
    fn instructions_stay_small() {
        assert!(
            std::mem::size_of::<Insn>() <= 8,
            "Insn is {} bytes",
            std::mem::size_of::<Insn>()
        );
    }

    #[test]
    fn line_lookup() {
        let code = Code {
            max_locals: 0,
            insns: vec![],
            handlers: vec![],
            lines: vec![(0, 10), (3, 12), (7, 11)],
            offsets: vec![],
            switches: vec![],
            switch_keys: vec![],
            class_literals: vec![],
            bits: vec![],
        };
        assert_eq!(code.line_of(0), Some(10));
        assert_eq!(code.line_of(4), Some(12));
        assert_eq!(code.line_of(9), Some(11));
    }
}

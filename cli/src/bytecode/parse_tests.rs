//! Tests for the parser boundary's fallback for dynamic-constant bootstrap arguments.
//!
//! javac 21+ emits `CONSTANT_Dynamic` bootstrap arguments (pattern switches over enums and
//! sealed types) and cafebabe 0.9 rejects such classes. Only javac 17 is available here, so
//! the class files are assembled byte by byte by the small builder below.

use std::collections::HashMap;

use cafebabe::attributes::AttributeData;
use cafebabe::constant_pool::{BootstrapArgument, ReferenceKind};

use super::model::{acc, Class, Op};
use super::parse::{parse_class, patch_dynamic_bootstrap_args};

// ---------------------------------------------------------------------------------------------
// A minimal class-file builder.

/// Constant-pool tags (JVMS §4.4).
const UTF8: u8 = 1;
const LONG: u8 = 5;
const CLASS: u8 = 7;
const FIELDREF: u8 = 9;
const METHODREF: u8 = 10;
const NAME_AND_TYPE: u8 = 12;
const METHOD_HANDLE: u8 = 15;
const DYNAMIC: u8 = 17;
const INVOKE_DYNAMIC: u8 = 18;
/// `MethodHandle` reference kind `REF_invokeStatic`.
const REF_INVOKE_STATIC: u8 = 6;

fn u2(v: usize) -> [u8; 2] {
    u16::try_from(v).expect("value fits in a u2").to_be_bytes()
}

fn u4(v: usize) -> [u8; 4] {
    u32::try_from(v).expect("value fits in a u4").to_be_bytes()
}

/// Constant-pool writer: every method appends one entry (or reuses an identical earlier one)
/// and returns its index.
struct Pool {
    bytes: Vec<u8>,
    /// Index of the next entry (`long`/`double` take two).
    next: u16,
    seen: HashMap<Vec<u8>, u16>,
}

impl Pool {
    fn new() -> Self {
        Pool {
            bytes: Vec::new(),
            next: 1,
            seen: HashMap::new(),
        }
    }

    fn add(&mut self, entry: Vec<u8>) -> u16 {
        if let Some(&index) = self.seen.get(&entry) {
            return index;
        }
        let index = self.next;
        self.next += if entry[0] == LONG { 2 } else { 1 };
        self.bytes.extend_from_slice(&entry);
        self.seen.insert(entry, index);
        index
    }

    /// An entry made of a tag and u2 fields.
    fn tagged(&mut self, tag: u8, fields: &[u16]) -> u16 {
        let mut entry = vec![tag];
        fields.iter().for_each(|f| entry.extend(f.to_be_bytes()));
        self.add(entry)
    }

    fn utf8(&mut self, s: &str) -> u16 {
        let mut entry = vec![UTF8];
        entry.extend(u2(s.len()));
        entry.extend(s.as_bytes());
        self.add(entry)
    }

    fn long(&mut self, v: i64) -> u16 {
        let mut entry = vec![LONG];
        entry.extend(v.to_be_bytes());
        self.add(entry)
    }

    fn class(&mut self, name: &str) -> u16 {
        let name = self.utf8(name);
        self.tagged(CLASS, &[name])
    }

    fn name_and_type(&mut self, name: &str, desc: &str) -> u16 {
        let (name, desc) = (self.utf8(name), self.utf8(desc));
        self.tagged(NAME_AND_TYPE, &[name, desc])
    }

    /// A `Fieldref` or `Methodref`.
    fn member(&mut self, tag: u8, class: &str, name: &str, desc: &str) -> u16 {
        let (class, nat) = (self.class(class), self.name_and_type(name, desc));
        self.tagged(tag, &[class, nat])
    }

    /// A `REF_invokeStatic` method handle to a static method.
    fn static_handle(&mut self, class: &str, name: &str, desc: &str) -> u16 {
        let method = self.member(METHODREF, class, name, desc);
        let mut entry = vec![METHOD_HANDLE, REF_INVOKE_STATIC];
        entry.extend(method.to_be_bytes());
        self.add(entry)
    }

    /// A `Dynamic` or `InvokeDynamic` entry using bootstrap method `bsm`.
    fn dynamic(&mut self, tag: u8, bsm: u16, name: &str, desc: &str) -> u16 {
        let nat = self.name_and_type(name, desc);
        self.tagged(tag, &[bsm, nat])
    }
}

/// An attribute: name index, length, body.
fn attribute(pool: &mut Pool, name: &str, body: &[u8]) -> Vec<u8> {
    let mut out = pool.utf8(name).to_be_bytes().to_vec();
    out.extend(u4(body.len()));
    out.extend(body);
    out
}

/// A `Code` attribute with no exception table and no sub-attributes.
fn code(pool: &mut Pool, max_stack: u16, max_locals: u16, bytecode: &[u8]) -> Vec<u8> {
    let mut body = Vec::new();
    body.extend(max_stack.to_be_bytes());
    body.extend(max_locals.to_be_bytes());
    body.extend(u4(bytecode.len()));
    body.extend(bytecode);
    body.extend([0, 0, 0, 0]); // exception_table_length, attributes_count
    attribute(pool, "Code", &body)
}

/// A `field_info` or `method_info`.
fn member_info(pool: &mut Pool, access: u16, name: &str, desc: &str, attrs: &[Vec<u8>]) -> Vec<u8> {
    let mut out = access.to_be_bytes().to_vec();
    out.extend(pool.utf8(name).to_be_bytes());
    out.extend(pool.utf8(desc).to_be_bytes());
    out.extend(u2(attrs.len()));
    attrs.iter().for_each(|a| out.extend(a));
    out
}

/// A built `demo/Switchy` and the constant-pool indices the tests look at.
struct Switchy {
    bytes: Vec<u8>,
    /// The `CONSTANT_Dynamic` entry (in the pool in both variants).
    dynamic: u16,
    /// The `MethodHandle` of bootstrap method 0 (`SwitchBootstraps.typeSwitch`).
    type_switch: u16,
    /// File offset of bootstrap method 0's first argument (a u2 constant-pool index).
    first_arg_at: usize,
}

const OBJECT: &str = "java/lang/Object";
const LOOKUP_NAME_TYPE: &str =
    "Ljava/lang/invoke/MethodHandles$Lookup;Ljava/lang/String;Ljava/lang/invoke/MethodType;";

/// Assemble (as javac 21 would, roughly):
///
/// ```java
/// package demo;
/// public class Switchy {
///     int x;
///     public static int pick(Object o) { return switch (o) { case RED -> ...; case String s -> ...; }; }
///     public synchronized int get() { return x; }
/// }
/// ```
///
/// `pick` is `aload_0; iconst_0; invokedynamic typeSwitch; ireturn`. Bootstrap method 0 is
/// `SwitchBootstraps.typeSwitch` with arguments `[Dynamic RED, Class String]` when
/// `dynamic_arg`, else `[Class String]`; bootstrap method 1 is
/// `ConstantBootstraps.enumConstant`, the one the `Dynamic` entry uses. Everything else is
/// identical between the two variants, including the constant pool.
fn switchy(dynamic_arg: bool) -> Switchy {
    let mut pool = Pool::new();
    let this = pool.class("demo/Switchy");
    let sup = pool.class(OBJECT);
    let string = pool.class("java/lang/String");
    let field_x = pool.member(FIELDREF, "demo/Switchy", "x", "I");
    let type_switch = pool.static_handle(
        "java/lang/runtime/SwitchBootstraps",
        "typeSwitch",
        &format!("({LOOKUP_NAME_TYPE}[Ljava/lang/Object;)Ljava/lang/invoke/CallSite;"),
    );
    let enum_constant = pool.static_handle(
        "java/lang/invoke/ConstantBootstraps",
        "enumConstant",
        "(Ljava/lang/invoke/MethodHandles$Lookup;Ljava/lang/String;Ljava/lang/Class;)Ljava/lang/Enum;",
    );
    // Unused; a two-slot entry before the Dynamic one, so the patcher's index bookkeeping is
    // exercised.
    pool.long(0x0123_4567_89ab_cdef);
    let dynamic = pool.dynamic(DYNAMIC, 1, "RED", "Ldemo/Color;");
    let indy = pool.dynamic(INVOKE_DYNAMIC, 0, "typeSwitch", "(Ljava/lang/Object;I)I");

    let [indy_hi, indy_lo] = indy.to_be_bytes();
    let [x_hi, x_lo] = field_x.to_be_bytes();
    // aload_0; iconst_0; invokedynamic #indy, 0, 0; ireturn
    let pick_code = code(
        &mut pool,
        2,
        1,
        &[0x2a, 0x03, 0xba, indy_hi, indy_lo, 0, 0, 0xac],
    );
    // aload_0; getfield #x; ireturn
    let get_code = code(&mut pool, 1, 1, &[0x2a, 0xb4, x_hi, x_lo, 0xac]);
    let fields = [member_info(&mut pool, 0, "x", "I", &[])];
    let methods = [
        member_info(
            &mut pool,
            0x0001 | acc::STATIC,
            "pick",
            "(Ljava/lang/Object;)I",
            &[pick_code],
        ),
        member_info(
            &mut pool,
            0x0001 | acc::SYNCHRONIZED,
            "get",
            "()I",
            &[get_code],
        ),
    ];

    let source = pool.utf8("Switchy.java");
    let source_file = attribute(&mut pool, "SourceFile", &source.to_be_bytes());
    let type_switch_args: &[u16] = if dynamic_arg {
        &[dynamic, string]
    } else {
        &[string]
    };
    let mut bsms = Vec::new();
    bsms.extend(u2(2));
    for (handle, args) in [(type_switch, type_switch_args), (enum_constant, &[])] {
        bsms.extend(handle.to_be_bytes());
        bsms.extend(u2(args.len()));
        args.iter().for_each(|a| bsms.extend(a.to_be_bytes()));
    }
    let bootstrap_methods = attribute(&mut pool, "BootstrapMethods", &bsms);

    // All pool entries exist now; lay out the file.
    let mut out = vec![0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 65]; // magic, minor 0, major 65 (Java 21)
    out.extend(pool.next.to_be_bytes());
    out.extend(&pool.bytes);
    out.extend(0x0021u16.to_be_bytes()); // ACC_PUBLIC | ACC_SUPER
    out.extend(this.to_be_bytes());
    out.extend(sup.to_be_bytes());
    out.extend(u2(0)); // interfaces
    for table in [&fields[..], &methods[..]] {
        out.extend(u2(table.len()));
        table.iter().for_each(|m| out.extend(m));
    }
    out.extend(u2(2));
    out.extend(source_file);
    // Attribute header (6), bootstrap method count (2), handle (2), argument count (2).
    let first_arg_at = out.len() + 12;
    out.extend(bootstrap_methods);
    Switchy {
        bytes: out,
        dynamic,
        type_switch,
        first_arg_at,
    }
}

fn method<'c>(class: &'c Class, name: &str) -> &'c super::model::Method {
    class
        .methods
        .iter()
        .find(|m| &*m.name == name)
        .unwrap_or_else(|| panic!("method {name} missing from {}", class.name))
}

// ---------------------------------------------------------------------------------------------
// Tests.

#[test]
fn builder_makes_valid_classes_and_cafebabe_still_rejects_dynamic_bootstrap_args() {
    let plain = switchy(false);
    let cf = cafebabe::parse_class(&plain.bytes)
        .unwrap_or_else(|e| panic!("the builder made an invalid class file: {e}"));
    assert_eq!(cf.this_class.to_string(), "demo/Switchy");
    assert_eq!(cf.methods.len(), 2);

    let with_dynamic = switchy(true);
    match cafebabe::parse_class(&with_dynamic.bytes) {
        Ok(_) => panic!(
            "cafebabe now accepts CONSTANT_Dynamic bootstrap method arguments: the fallback \
             (patch_dynamic_bootstrap_args in parse.rs) can be removed"
        ),
        // Rejected for the right reason, not because of a builder bug elsewhere.
        Err(e) => assert!(
            e.to_string().contains("argument 0 of bootstrap method 0"),
            "unexpected cafebabe error: {e}"
        ),
    }
}

#[test]
fn plain_class_parses_without_loss() {
    let class = parse_class(&switchy(false).bytes, "Switchy.class", true)
        .unwrap_or_else(|e| panic!("plain class rejected: {e}"));
    assert_eq!(class.lost, None);
    assert!(class.library);
}

#[test]
fn dynamic_bootstrap_arg_is_dropped_and_the_rest_of_the_class_survives() {
    let class = parse_class(&switchy(true).bytes, "Switchy.class", false)
        .unwrap_or_else(|e| panic!("fallback did not recover the class: {e}"));
    let lost = class
        .lost
        .as_deref()
        .expect("the fallback records what it dropped");
    assert!(
        lost.starts_with("1 ") && lost.contains("dynamic"),
        "lost = {lost:?}"
    );
    assert_eq!(&*class.name, "demo/Switchy");
    assert_eq!(class.super_name.as_deref(), Some(OBJECT));
    assert_eq!(class.source_file.as_deref(), Some("Switchy.java"));
    assert_eq!(class.path, "Switchy.class");
    assert!(!class.library);
    assert_eq!(class.methods.len(), 2);

    let pick = method(&class, "pick");
    assert_eq!(&*pick.descriptor, "(Ljava/lang/Object;)I");
    assert_ne!(pick.access & acc::STATIC, 0);
    let code = pick.code.as_ref().expect("pick has code");
    assert_eq!(code.max_locals, 1);
    let ops: Vec<&Op> = code.insns.iter().map(|i| &i.op).collect();
    assert!(
        matches!(
            ops[..],
            [
                Op::Load(0, 1),
                // iconst_0: a constant a branch on it can tell apart.
                Op::Flag(crate::bytecode::Konst::Zero),
                Op::InvokeDynamic(_),
                Op::Return(1)
            ]
        ),
        "pick: {ops:?}"
    );
    if let Op::InvokeDynamic(id) = ops[2] {
        let site = class.member(*id);
        assert_eq!(
            (&*site.name, &*site.desc),
            ("typeSwitch", "(Ljava/lang/Object;I)I")
        );
        assert_eq!((site.arg_slots, site.ret_slots), (2, 1));
    }

    let get = method(&class, "get");
    assert_eq!(&*get.descriptor, "()I");
    assert_ne!(get.access & acc::SYNCHRONIZED, 0);
    let code = get.code.as_ref().expect("get has code");
    let field = code
        .insns
        .iter()
        .find_map(|i| match i.op {
            Op::GetField(id) => Some(class.member(id)),
            _ => None,
        })
        .expect("get still has its getfield");
    assert_eq!(
        (&*field.class, &*field.name, &*field.desc),
        ("demo/Switchy", "x", "I")
    );
    assert_eq!(code.insns.len(), 3);
}

#[test]
fn patch_declines_classes_without_dynamic_args_and_malformed_input() {
    let plain = switchy(false).bytes;
    // The Dynamic entry is in this pool too, but no bootstrap argument refers to it.
    assert!(patch_dynamic_bootstrap_args(&plain).is_none());

    let garbage: [&[u8]; 5] = [
        b"",
        b"not a class file at all",
        &[0; 64],
        &[0xff; 64],
        &[
            0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 65, 0xff, 0xff, UTF8, 0xff, 0xff,
        ],
    ];
    for g in garbage {
        assert!(patch_dynamic_bootstrap_args(g).is_none(), "patched {g:?}");
        assert!(parse_class(g, "g.class", false).is_err(), "parsed {g:?}");
    }

    for bytes in [plain, switchy(true).bytes] {
        for len in 0..bytes.len() {
            let prefix = &bytes[..len];
            assert!(
                patch_dynamic_bootstrap_args(prefix).is_none(),
                "patched a {len}-byte prefix"
            );
            assert!(
                parse_class(prefix, "t.class", false).is_err(),
                "parsed a {len}-byte prefix"
            );
        }
    }
}

#[test]
fn patch_points_the_dynamic_arg_at_its_bootstrap_method_handle() {
    let built = switchy(true);
    let (patched, count) =
        patch_dynamic_bootstrap_args(&built.bytes).expect("there is a dynamic argument to patch");
    assert_eq!(count, 1);

    // The argument's u2 went from the Dynamic entry's index to the typeSwitch handle's index,
    // and nothing else changed.
    let at = built.first_arg_at;
    assert_eq!(built.bytes[at..at + 2], built.dynamic.to_be_bytes());
    assert_eq!(patched[at..at + 2], built.type_switch.to_be_bytes());
    assert_eq!(patched.len(), built.bytes.len());
    assert_eq!(patched[..at], built.bytes[..at]);
    assert_eq!(patched[at + 2..], built.bytes[at + 2..]);

    // Read the BootstrapMethods attribute back.
    let cf =
        cafebabe::parse_class(&patched).unwrap_or_else(|e| panic!("patched class rejected: {e}"));
    let bsms = cf
        .attributes
        .iter()
        .find_map(|a| match &a.data {
            AttributeData::BootstrapMethods(b) => Some(b),
            _ => None,
        })
        .expect("BootstrapMethods attribute");
    assert_eq!(bsms.len(), 2);
    let entry = &bsms[0];
    assert_eq!(entry.method.member_ref.name, "typeSwitch");
    assert_eq!(entry.arguments.len(), 2);
    match &entry.arguments[0] {
        BootstrapArgument::MethodHandle(h) => {
            assert_eq!(h.kind, ReferenceKind::InvokeStatic);
            assert_eq!(h.class_name, entry.method.class_name);
            assert_eq!(h.member_ref.name, "typeSwitch");
            assert_eq!(h.member_ref.descriptor, entry.method.member_ref.descriptor);
        }
        other => panic!("argument 0 should be the typeSwitch handle, is {other:?}"),
    }
    assert!(
        matches!(&entry.arguments[1], BootstrapArgument::ClassInfo(c) if c == "java/lang/String"),
        "argument 1: {:?}",
        entry.arguments[1]
    );
    assert_eq!(bsms[1].method.member_ref.name, "enumConstant");
}

#[test]
fn reference_params_only_reads_descriptors() {
    use super::model::reference_params_only;
    assert!(reference_params_only("()V"));
    assert!(reference_params_only(
        "(Ljava/lang/Object;)Ljava/lang/Object;"
    ));
    assert!(reference_params_only("([I[Ljava/lang/String;[[J)Z"));
    assert!(!reference_params_only("(I)Ljava/lang/Object;"));
    assert!(!reference_params_only("(Ljava/lang/Object;J)V"));
    assert!(!reference_params_only("nonsense"));
}

#[test]
fn param_types_split_descriptors() {
    use super::model::{descriptor_arg_slots, param_types};
    let types = |d| param_types(d).collect::<Vec<_>>();
    assert_eq!(
        types("(Ljava/lang/String;JI)V"),
        ["Ljava/lang/String;", "J", "I"]
    );
    assert_eq!(
        types("([[I[Ljava/lang/Runnable;D)V"),
        ["[[I", "[Ljava/lang/Runnable;", "D"]
    );
    assert!(types("()V").is_empty());
    assert!(types("nonsense").is_empty());
    assert_eq!(descriptor_arg_slots("(Ljava/lang/String;JI)V"), 4);
}

/// `demo/V` with one method `m` of the given access, descriptor, `max_locals`, code and
/// exception table `(start, end, handler)` (catch-all).
fn one_method(
    access: u16,
    desc: &str,
    max_locals: u16,
    bytecode: &[u8],
    handlers: &[(u16, u16, u16)],
) -> Vec<u8> {
    let mut pool = Pool::new();
    let this = pool.class("demo/V");
    let sup = pool.class(OBJECT);
    let mut body = Vec::new();
    body.extend(4u16.to_be_bytes());
    body.extend(max_locals.to_be_bytes());
    body.extend(u4(bytecode.len()));
    body.extend(bytecode);
    body.extend(u2(handlers.len()));
    for &(start, end, handler) in handlers {
        for v in [start, end, handler, 0] {
            body.extend(v.to_be_bytes());
        }
    }
    body.extend(u2(0));
    let code_attr = attribute(&mut pool, "Code", &body);
    let method = member_info(&mut pool, access, "m", desc, &[code_attr]);
    let mut out = vec![0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 65];
    out.extend(pool.next.to_be_bytes());
    out.extend(&pool.bytes);
    out.extend(0x0021u16.to_be_bytes());
    out.extend(this.to_be_bytes());
    out.extend(sup.to_be_bytes());
    out.extend(u2(0)); // interfaces
    out.extend(u2(0)); // fields
    out.extend(u2(1));
    out.extend(method);
    out.extend(u2(0)); // attributes
    out
}

/// Code that the JVM's verifier rejects is not accepted as if fine: the class is refused with a
/// reason naming the method.
#[test]
fn code_the_verifier_rejects_is_refused_with_its_reason() {
    const STATIC: u16 = 0x0001 | acc::STATIC;
    // iload_0; iinc 0 1; ireturn (static (I)I, one local): valid, with a handler over it all.
    let valid = [0x1a, 0x84, 0, 1, 0xac];
    let class = parse_class(
        &one_method(STATIC, "(I)I", 1, &valid, &[(0, 5, 4)]),
        "V",
        false,
    )
    .unwrap_or_else(|e| panic!("the valid variant must parse: {e}"));
    assert!(class.methods[0].code.is_some());

    type Case<'a> = (&'a str, u16, &'a [u8], &'a [(u16, u16, u16)], &'a str);
    let cases: [Case; 7] = [
        ("(I)I", 1, &[], &[], "its Code attribute is empty"),
        (
            "(I)I",
            1,
            &valid,
            &[(0, 9, 4)],
            "exception handler 0 (range 0..9, handler at 4)",
        ),
        (
            "(I)I",
            1,
            &valid,
            &[(0, 5, 7)],
            "exception handler 0 (range 0..5, handler at 7)",
        ),
        (
            "(I)I",
            1,
            &valid,
            &[(2, 5, 4)],
            "exception handler 0 (range 2..5",
        ),
        (
            "(I)I",
            1,
            &valid,
            &[(4, 4, 4)],
            "exception handler 0 (range 4..4",
        ),
        // iload_1 with one local.
        (
            "(I)I",
            1,
            &[0x1b, 0xac],
            &[],
            "instruction 0 uses local variable 1, beyond max_locals 1",
        ),
        (
            "(JI)I",
            2,
            &[0x1a, 0xac],
            &[],
            "its parameters take 3 local variables, beyond max_locals 2",
        ),
    ];
    for (desc, max_locals, code, handlers, want) in cases {
        let err = parse_class(
            &one_method(STATIC, desc, max_locals, code, handlers),
            "V",
            false,
        )
        .err()
        .unwrap_or_else(|| panic!("accepted: {want}"));
        let err = err.to_string();
        assert!(
            err.starts_with(&format!("method m{desc}: ")) && err.contains(want),
            "{err}\n  wanted: {want}"
        );
        assert!(err.ends_with("which the JVM's verifier rejects"), "{err}");
    }
}

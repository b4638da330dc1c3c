//! The parser boundary: `cafebabe` in, our [`Class`] model out. Nothing else in the crate
//! names `cafebabe`, so the parser can be swapped here.
//!
//! Known gap handled here: cafebabe 0.9 rejects a whole class when a `BootstrapMethods`
//! argument is a dynamic constant (`CONSTANT_Dynamic`, which javac 21+ emits for pattern
//! switches over enums and sealed types). We then patch a copy of the bytes so that each such
//! argument points at its bootstrap method's own handle, parse again, and record what was lost
//! (the identity of those bootstrap arguments, which no analysis uses).

use std::collections::HashMap;

use crate::fxhash::FxHashMap;

use cafebabe::attributes::{AttributeData, BootstrapMethodEntry, CodeData};
use cafebabe::bytecode::Opcode;
use cafebabe::constant_pool::{BootstrapArgument, Loadable, MemberRef as CbMemberRef};
use thiserror::Error;

use super::model::*;
use crate::analysis::locks::class_hash;

#[derive(Debug, Error)]
#[error("{0}")]
pub struct ParseFailure(pub String);

/// Parse one class file.
pub fn parse_class(bytes: &[u8], path: &str, library: bool) -> Result<Class, ParseFailure> {
    match parse_once(bytes, path, library) {
        Ok(c) => Ok(c),
        Err(first) => {
            let Some((patched, count)) = patch_dynamic_bootstrap_args(bytes) else {
                return Err(first);
            };
            let mut class = parse_once(&patched, path, library).map_err(|_| first)?;
            class.lost = Some(format!(
                "{count} bootstrap method argument(s) that are dynamic constants were dropped \
                 (cafebabe 0.9 cannot read them); the rest of the class was analysed"
            ));
            Ok(class)
        }
    }
}

fn parse_once(bytes: &[u8], path: &str, library: bool) -> Result<Class, ParseFailure> {
    // cafebabe can panic on some malformed input; keep that inside this boundary.
    let parsed = std::panic::catch_unwind(|| cafebabe::parse_class(bytes))
        .map_err(|_| ParseFailure("the class file parser panicked on this input".into()))?;
    let cf = parsed.map_err(|e| ParseFailure(e.to_string()))?;
    let mut refs = RefTable::default();
    let mut methods = Vec::with_capacity(cf.methods.len());
    for m in &cf.methods {
        let mut annotations = Vec::new();
        let mut code = None;
        for attr in &m.attributes {
            match &attr.data {
                AttributeData::Code(c) => {
                    code = Some(convert_code(c, &mut refs).map_err(|e| {
                        ParseFailure(format!("method {}{}: {}", m.name, m.descriptor, e))
                    })?)
                }
                AttributeData::RuntimeVisibleAnnotations(a)
                | AttributeData::RuntimeInvisibleAnnotations(a) => annotations.extend(
                    a.iter()
                        .map(|a| a.type_descriptor.to_string().into_boxed_str()),
                ),
                _ => {}
            }
        }
        methods.push(Method {
            name: m.name.as_ref().into(),
            descriptor: m.descriptor.to_string().into_boxed_str(),
            access: m.access_flags.bits(),
            annotations,
            code,
        });
    }
    let mut source_file = None;
    let mut annotations = Vec::new();
    let mut lambda_impls = Vec::new();
    for attr in &cf.attributes {
        match &attr.data {
            AttributeData::SourceFile(s) => source_file = Some(s.as_ref().into()),
            AttributeData::BootstrapMethods(entries) => {
                lambda_impls = entries.iter().map(lambda_impl).collect()
            }
            AttributeData::RuntimeVisibleAnnotations(a)
            | AttributeData::RuntimeInvisibleAnnotations(a) => annotations.extend(
                a.iter()
                    .map(|a| a.type_descriptor.to_string().into_boxed_str()),
            ),
            _ => {}
        }
    }
    Ok(Class {
        name: cf.this_class.to_string().into_boxed_str(),
        super_name: cf
            .super_class
            .as_ref()
            .map(|s| s.to_string().into_boxed_str()),
        interfaces: cf
            .interfaces
            .iter()
            .map(|i| i.to_string().into_boxed_str())
            .collect(),
        access: cf.access_flags.bits(),
        source_file,
        annotations,
        methods,
        fields: cf
            .fields
            .iter()
            .map(|f| Field {
                name: f.name.as_ref().into(),
                desc: f.descriptor.to_string().into_boxed_str(),
                access: f.access_flags.bits(),
            })
            .collect(),
        lambda_impls,
        refs: refs.refs,
        path: path.to_string(),
        library,
        lost: None,
        suppress: suppress_annotations(&cf),
    })
}

/// The suppression annotations (see [`SUPPRESS_ANNOTATIONS`]) on the class, its methods and
/// its fields, visible or invisible (class retention).
fn suppress_annotations(cf: &cafebabe::ClassFile<'_>) -> Vec<SuppressAnnotation> {
    use cafebabe::attributes::{AnnotationElementValue as V, AttributeInfo};
    fn strings(v: &V<'_>, out: &mut Vec<Box<str>>) {
        match v {
            V::StringConstant(s) => out.push(s.as_ref().into()),
            V::ArrayValue(items) => items.iter().for_each(|i| strings(i, out)),
            _ => {}
        }
    }
    fn read(
        attrs: &[AttributeInfo<'_>],
        target: SuppressTarget,
        out: &mut Vec<SuppressAnnotation>,
    ) {
        for attr in attrs {
            let (AttributeData::RuntimeVisibleAnnotations(a)
            | AttributeData::RuntimeInvisibleAnnotations(a)) = &attr.data
            else {
                continue;
            };
            for ann in a {
                let desc = ann.type_descriptor.to_string();
                let simple = annotation_simple_name(&desc);
                if !SUPPRESS_ANNOTATIONS.contains(&simple) {
                    continue;
                }
                let mut values = Vec::new();
                let mut justification = None;
                for e in &ann.elements {
                    match &*e.name {
                        "value" => strings(&e.value, &mut values),
                        "justification" => {
                            if let V::StringConstant(s) = &e.value {
                                justification = Some(s.as_ref().into());
                            }
                        }
                        _ => {}
                    }
                }
                out.push(SuppressAnnotation {
                    target: target.clone(),
                    annotation: simple.into(),
                    values,
                    justification,
                });
            }
        }
    }
    let mut out = Vec::new();
    read(&cf.attributes, SuppressTarget::Class, &mut out);
    for m in &cf.methods {
        let target =
            SuppressTarget::Method(m.name.as_ref().into(), m.descriptor.to_string().into());
        read(&m.attributes, target, &mut out);
    }
    for f in &cf.fields {
        read(
            &f.attributes,
            SuppressTarget::Field(f.name.as_ref().into()),
            &mut out,
        );
    }
    out
}

/// The implementation method of a `LambdaMetafactory` bootstrap entry (its second argument).
fn lambda_impl(entry: &BootstrapMethodEntry) -> Option<MethodName> {
    let bsm = &entry.method;
    let is_lambda = &*bsm.class_name == "java/lang/invoke/LambdaMetafactory"
        && matches!(&*bsm.member_ref.name, "metafactory" | "altMetafactory");
    if !is_lambda {
        return None;
    }
    match entry.arguments.get(1)? {
        BootstrapArgument::MethodHandle(h) => Some((
            h.class_name.as_ref().into(),
            h.member_ref.name.as_ref().into(),
            h.member_ref.descriptor.as_ref().into(),
        )),
        _ => None,
    }
}

#[derive(Default)]
struct RefTable<'a> {
    refs: Vec<MemberRef>,
    index: FxHashMap<(&'a str, &'a str, &'a str), RefId>,
}

impl<'a> RefTable<'a> {
    fn intern(&mut self, class: &'a str, name: &'a str, desc: &'a str, is_method: bool) -> RefId {
        if let Some(&id) = self.index.get(&(class, name, desc)) {
            return id;
        }
        let (arg_slots, ret_slots) = if is_method {
            (descriptor_arg_slots(desc), descriptor_ret_slots(desc))
        } else {
            let s = field_slots(desc);
            (s, s)
        };
        let id = self.refs.len() as RefId;
        self.refs.push(MemberRef {
            class: class.into(),
            name: name.into(),
            desc: desc.into(),
            arg_slots,
            ret_slots,
            is_method: is_method && !class.is_empty(),
        });
        self.index.insert((class, name, desc), id);
        id
    }
    /// An `invokedynamic` call site, keyed by its bootstrap index (so sites with the same name
    /// and type but different bootstraps stay apart). Not a method reference.
    fn intern_owned(&mut self, site: String, name: &str, desc: &str) -> RefId {
        if let Some(id) = self
            .refs
            .iter()
            .position(|r| *r.class == *site && &*r.name == name && &*r.desc == desc)
        {
            return id as RefId;
        }
        let id = self.refs.len() as RefId;
        self.refs.push(MemberRef {
            class: site.into_boxed_str(),
            name: name.into(),
            desc: desc.into(),
            arg_slots: descriptor_arg_slots(desc),
            ret_slots: descriptor_ret_slots(desc),
            is_method: false,
        });
        id
    }

    fn member(&mut self, m: &'a CbMemberRef<'a>, is_method: bool) -> RefId {
        self.intern(
            &m.class_name,
            &m.name_and_type.name,
            &m.name_and_type.descriptor,
            is_method,
        )
    }
}

fn convert_code<'a>(c: &'a CodeData<'a>, refs: &mut RefTable<'a>) -> Result<Code, String> {
    let Some(bc) = &c.bytecode else {
        return Err("no bytecode".into());
    };
    let offsets: Vec<usize> = bc.opcodes.iter().map(|(o, _)| *o).collect();
    let index_of = |off: i64| -> Result<u32, String> {
        usize::try_from(off)
            .ok()
            .and_then(|o| offsets.binary_search(&o).ok())
            .map(|i| i as u32)
            .ok_or_else(|| format!("jump to offset {off} is not an instruction"))
    };
    let index_or_end = |off: usize| -> u32 {
        // Exception ranges end at an instruction offset or at the end of the code.
        offsets.partition_point(|&o| o < off) as u32
    };
    let mut insns = Vec::with_capacity(bc.opcodes.len());
    let mut switches = Vec::new();
    let mut class_literals = Vec::new();
    for (off, opcode) in &bc.opcodes {
        let here = *off as i64;
        let jump = |d: i32| index_of(here + d as i64);
        use Opcode as O;
        let op = match opcode {
            O::Nop | O::Breakpoint | O::Impdep1 | O::Impdep2 => Op::Nop,
            O::AconstNull
            | O::IconstM1
            | O::Iconst0
            | O::Iconst1
            | O::Iconst2
            | O::Iconst3
            | O::Iconst4
            | O::Iconst5
            | O::Fconst0
            | O::Fconst1
            | O::Fconst2
            | O::Bipush(_)
            | O::Sipush(_) => Op::Const(1),
            O::Lconst0 | O::Lconst1 | O::Dconst0 | O::Dconst1 => Op::Const(2),
            O::Ldc(l) | O::LdcW(l) | O::Ldc2W(l) => match l {
                Loadable::ClassInfo(name) => {
                    class_literals.push(class_hash(name));
                    Op::ClassLiteral(class_literals.len() as u32 - 1)
                }
                Loadable::LiteralConstant(cafebabe::constant_pool::LiteralConstant::Long(_))
                | Loadable::LiteralConstant(cafebabe::constant_pool::LiteralConstant::Double(_)) => {
                    Op::Const(2)
                }
                Loadable::Dynamic(d) => Op::Const(field_slots(&d.name_and_type.descriptor)),
                _ => Op::Const(1),
            },
            O::Iload(i) | O::Fload(i) | O::Aload(i) => Op::Load(*i, 1),
            O::Lload(i) | O::Dload(i) => Op::Load(*i, 2),
            O::Istore(i) | O::Fstore(i) | O::Astore(i) => Op::Store(*i, 1),
            O::Lstore(i) | O::Dstore(i) => Op::Store(*i, 2),
            O::Iinc(i, _) => Op::Iinc(*i),
            O::Iaload | O::Faload | O::Aaload | O::Baload | O::Caload | O::Saload => {
                Op::ArrayLoad(1)
            }
            O::Laload | O::Daload => Op::ArrayLoad(2),
            O::Iastore | O::Fastore | O::Aastore | O::Bastore | O::Castore | O::Sastore => {
                Op::ArrayStore(1)
            }
            O::Lastore | O::Dastore => Op::ArrayStore(2),
            O::Arraylength => Op::ArrayLength,
            O::Getfield(m) => Op::GetField(refs.member(m, false)),
            O::Putfield(m) => Op::PutField(refs.member(m, false)),
            O::Getstatic(m) => Op::GetStatic(refs.member(m, false)),
            O::Putstatic(m) => Op::PutStatic(refs.member(m, false)),
            O::Invokevirtual(m) => Op::Invoke(InvokeKind::Virtual, refs.member(m, true)),
            O::Invokespecial(m) => Op::Invoke(InvokeKind::Special, refs.member(m, true)),
            O::Invokestatic(m) => Op::Invoke(InvokeKind::Static, refs.member(m, true)),
            O::Invokeinterface(m, _) => Op::Invoke(InvokeKind::Interface, refs.member(m, true)),
            O::Invokedynamic(d) => {
                let site = format!("#{}", d.attr_index);
                Op::InvokeDynamic(refs.intern_owned(
                    site,
                    &d.name_and_type.name,
                    &d.name_and_type.descriptor,
                ))
            }
            O::New(class) => Op::New(refs.intern(class, "<new>", "", false)),
            O::Newarray(_) | O::Anewarray(_) => Op::NewArray(1),
            O::Multianewarray(_, dims) => Op::NewArray(*dims),
            O::Checkcast(_) => Op::CheckCast,
            O::Instanceof(_) => Op::Compute { pop: 1, push: 1 },
            // int/float binary ops
            O::Iadd
            | O::Isub
            | O::Imul
            | O::Idiv
            | O::Irem
            | O::Iand
            | O::Ior
            | O::Ixor
            | O::Ishl
            | O::Ishr
            | O::Iushr
            | O::Fadd
            | O::Fsub
            | O::Fmul
            | O::Fdiv
            | O::Frem
            | O::Fcmpl
            | O::Fcmpg => Op::Compute { pop: 2, push: 1 },
            O::Ladd
            | O::Lsub
            | O::Lmul
            | O::Ldiv
            | O::Lrem
            | O::Land
            | O::Lor
            | O::Lxor
            | O::Dadd
            | O::Dsub
            | O::Dmul
            | O::Ddiv
            | O::Drem => Op::Compute { pop: 4, push: 2 },
            O::Lshl | O::Lshr | O::Lushr => Op::Compute { pop: 3, push: 2 },
            O::Lcmp | O::Dcmpl | O::Dcmpg => Op::Compute { pop: 4, push: 1 },
            O::Ineg | O::Fneg | O::I2b | O::I2c | O::I2s | O::I2f | O::F2i => {
                Op::Compute { pop: 1, push: 1 }
            }
            O::Lneg | O::Dneg | O::L2d | O::D2l => Op::Compute { pop: 2, push: 2 },
            O::I2l | O::I2d | O::F2l | O::F2d => Op::Compute { pop: 1, push: 2 },
            O::L2i | O::L2f | O::D2i | O::D2f => Op::Compute { pop: 2, push: 1 },
            O::Pop => Op::Pop,
            O::Pop2 => Op::Pop2,
            O::Dup => Op::Dup,
            O::DupX1 => Op::DupX1,
            O::DupX2 => Op::DupX2,
            O::Dup2 => Op::Dup2,
            O::Dup2X1 => Op::Dup2X1,
            O::Dup2X2 => Op::Dup2X2,
            O::Swap => Op::Swap,
            O::Ifeq(d) => Op::If {
                pop: 1,
                target: jump(*d)?,
                cond: Cond::Zero,
            },
            O::Ifne(d) => Op::If {
                pop: 1,
                target: jump(*d)?,
                cond: Cond::NonZero,
            },
            O::Iflt(d) | O::Ifge(d) | O::Ifgt(d) | O::Ifle(d) | O::Ifnull(d) | O::Ifnonnull(d) => {
                Op::If {
                    pop: 1,
                    target: jump(*d)?,
                    cond: Cond::Other,
                }
            }
            O::IfIcmpeq(d)
            | O::IfIcmpne(d)
            | O::IfIcmplt(d)
            | O::IfIcmpge(d)
            | O::IfIcmpgt(d)
            | O::IfIcmple(d)
            | O::IfAcmpeq(d)
            | O::IfAcmpne(d) => Op::If {
                pop: 2,
                target: jump(*d)?,
                cond: Cond::Other,
            },
            O::Goto(d) => Op::Goto(jump(*d)?),
            O::Jsr(d) => Op::Jsr(jump(*d)?),
            O::Ret(i) => Op::Ret(*i),
            O::Tableswitch(t) => {
                let mut targets = vec![jump(t.default)?];
                for j in &t.jumps {
                    targets.push(jump(*j)?);
                }
                switches.push(targets.into_boxed_slice());
                Op::Switch(switches.len() as u32 - 1)
            }
            O::Lookupswitch(t) => {
                let mut targets = vec![jump(t.default)?];
                for (_, j) in &t.match_offsets {
                    targets.push(jump(*j)?);
                }
                switches.push(targets.into_boxed_slice());
                Op::Switch(switches.len() as u32 - 1)
            }
            O::Ireturn | O::Freturn | O::Areturn => Op::Return(1),
            O::Lreturn | O::Dreturn => Op::Return(2),
            O::Return => Op::Return(0),
            O::Athrow => Op::Athrow,
            O::Monitorenter => Op::MonitorEnter,
            O::Monitorexit => Op::MonitorExit,
        };
        insns.push(Insn { op });
    }
    let handlers = c
        .exception_table
        .iter()
        .filter_map(|h| {
            let start = index_or_end(h.start_pc as usize);
            let end = index_or_end(h.end_pc as usize);
            let handler = offsets.binary_search(&(h.handler_pc as usize)).ok()? as u32;
            Some(Handler {
                start,
                end,
                handler,
            })
        })
        .collect();
    let mut lines: Vec<(u32, u32)> = Vec::new();
    for attr in &c.attributes {
        if let AttributeData::LineNumberTable(t) = &attr.data {
            for e in t {
                lines.push((index_or_end(e.start_pc as usize), e.line_number as u32));
            }
        }
    }
    lines.sort_unstable();
    Ok(Code {
        max_locals: c.max_locals,
        insns,
        handlers,
        lines,
        switches,
        class_literals,
    })
}

// ---------------------------------------------------------------------------------------------
// Fallback for dynamic-constant bootstrap arguments.

const TAG_UTF8: u8 = 1;
const TAG_METHOD_HANDLE: u8 = 15;
const TAG_DYNAMIC: u8 = 17;

struct Reader<'a> {
    b: &'a [u8],
    i: usize,
}

impl Reader<'_> {
    fn u1(&mut self) -> Option<u8> {
        let v = *self.b.get(self.i)?;
        self.i += 1;
        Some(v)
    }
    fn u2(&mut self) -> Option<u16> {
        let s = self.b.get(self.i..self.i + 2)?;
        self.i += 2;
        Some(u16::from_be_bytes([s[0], s[1]]))
    }
    fn u4(&mut self) -> Option<u32> {
        let s = self.b.get(self.i..self.i + 4)?;
        self.i += 4;
        Some(u32::from_be_bytes([s[0], s[1], s[2], s[3]]))
    }
    fn skip(&mut self, n: usize) -> Option<()> {
        if self.i + n > self.b.len() {
            return None;
        }
        self.i += n;
        Some(())
    }
    fn skip_attributes(&mut self) -> Option<()> {
        let n = self.u2()?;
        for _ in 0..n {
            self.u2()?;
            let len = self.u4()? as usize;
            self.skip(len)?;
        }
        Some(())
    }
}

/// Rewrite every bootstrap argument that refers to a `CONSTANT_Dynamic` so it refers to the
/// bootstrap method's own `MethodHandle` instead. Returns the patched bytes and how many
/// arguments were rewritten, or `None` if there was nothing to patch or the file is malformed.
pub(crate) fn patch_dynamic_bootstrap_args(bytes: &[u8]) -> Option<(Vec<u8>, usize)> {
    let mut r = Reader { b: bytes, i: 8 };
    let count = r.u2()? as usize;
    let mut tags = vec![0u8; count];
    let mut utf8_at: HashMap<u16, (usize, usize)> = HashMap::new();
    let mut idx = 1;
    while idx < count {
        let tag = r.u1()?;
        tags[idx] = tag;
        match tag {
            TAG_UTF8 => {
                let len = r.u2()? as usize;
                utf8_at.insert(idx as u16, (r.i, len));
                r.skip(len)?;
            }
            3 | 4 => r.skip(4)?,
            5 | 6 => {
                r.skip(8)?;
                idx += 1;
            }
            7 | 8 | 16 | 19 | 20 => r.skip(2)?,
            9 | 10 | 11 | 12 | 17 | 18 => r.skip(4)?,
            TAG_METHOD_HANDLE => r.skip(3)?,
            _ => return None,
        }
        idx += 1;
    }
    r.skip(6)?; // access, this, super
    let ifaces = r.u2()? as usize;
    r.skip(ifaces * 2)?;
    for _ in 0..2 {
        // fields, then methods
        let n = r.u2()?;
        for _ in 0..n {
            r.skip(6)?;
            r.skip_attributes()?;
        }
    }
    let n_attrs = r.u2()?;
    let mut out = bytes.to_vec();
    let mut patched = 0;
    for _ in 0..n_attrs {
        let name = r.u2()?;
        let len = r.u4()? as usize;
        let body_start = r.i;
        let is_bsm = utf8_at
            .get(&name)
            .and_then(|&(s, l)| bytes.get(s..s + l))
            .is_some_and(|n| n == b"BootstrapMethods");
        if is_bsm {
            let mut b = Reader {
                b: bytes,
                i: body_start,
            };
            let n = b.u2()?;
            for _ in 0..n {
                let handle = b.u2()?;
                let argc = b.u2()?;
                for _ in 0..argc {
                    let at = b.i;
                    let arg = b.u2()? as usize;
                    if tags.get(arg) == Some(&TAG_DYNAMIC) {
                        out[at..at + 2].copy_from_slice(&handle.to_be_bytes());
                        patched += 1;
                    }
                }
            }
        }
        r.i = body_start;
        r.skip(len)?;
    }
    (patched > 0).then_some((out, patched))
}

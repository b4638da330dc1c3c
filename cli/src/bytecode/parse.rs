//! The parser boundary: `cafebabe` in, our [`Class`] model out. Nothing else in the crate
//! names `cafebabe`, so the parser can be swapped here.
//!
//! Known gap handled here: cafebabe 0.9 rejects a whole class when a `BootstrapMethods`
//! argument is a dynamic constant (`CONSTANT_Dynamic`, which javac 21+ emits for pattern
//! switches over enums and sealed types). We then patch a copy of the bytes so that each such
//! argument points at its bootstrap method's own handle, parse again, and record what was lost
//! (the identity of those bootstrap arguments, which no analysis uses).

use std::collections::HashMap;

use cafebabe::attributes::{AttributeData, BootstrapMethodEntry, CodeData};
use cafebabe::constant_pool::BootstrapArgument;
use cafebabe::ParseOptions;
use thiserror::Error;

use super::decode::{decode_code, Pool, RawCode, RefTable};
use super::model::*;

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
    // cafebabe can panic on some malformed input; keep that inside this boundary, silently (the
    // caller reports the failure once). Instructions are decoded by our own `decode` module.
    let parsed = crate::diag::contain(|| {
        cafebabe::parse_class_with_options(bytes, ParseOptions::default().parse_bytecode(false))
    })
    .map_err(|_| ParseFailure("the class file parser failed on this input (it panicked)".into()))?;
    let cf = parsed.map_err(|e| ParseFailure(e.to_string()))?;
    let pool = Pool::read(bytes).map_err(ParseFailure)?;
    let mut refs = RefTable::new(&pool);
    let (field_descs, method_descs) = pool.member_descriptors().map_err(ParseFailure)?;
    if field_descs.len() != cf.fields.len() || method_descs.len() != cf.methods.len() {
        return Err(ParseFailure("malformed field or method table".into()));
    }
    let mut methods = Vec::with_capacity(cf.methods.len());
    for (m, descriptor) in cf.methods.iter().zip(method_descs) {
        let mut annotations = Vec::new();
        let mut code = None;
        for attr in &m.attributes {
            match &attr.data {
                AttributeData::Code(c) => {
                    let failure = |e: String| {
                        ParseFailure(format!("method {}{}: {}", m.name, m.descriptor, e))
                    };
                    let is_static = m.access_flags.bits() & acc::STATIC != 0;
                    let params =
                        u32::from(descriptor_arg_slots(&descriptor)) + u32::from(!is_static);
                    if params > u32::from(c.max_locals) {
                        return Err(failure(format!(
                            "its parameters take {params} local variables, beyond max_locals {}, \
                             which the JVM's verifier rejects",
                            c.max_locals
                        )));
                    }
                    code = Some(decode_code(&raw_code(c), &pool, &mut refs).map_err(failure)?)
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
            descriptor: descriptor.into(),
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
            .zip(field_descs)
            .map(|(f, desc)| Field {
                name: f.name.as_ref().into(),
                desc: desc.into(),
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

/// The parts of a `Code` attribute the decoder needs.
fn raw_code<'c>(c: &'c CodeData<'c>) -> RawCode<'c> {
    let mut lines = Vec::new();
    for attr in &c.attributes {
        if let AttributeData::LineNumberTable(t) = &attr.data {
            lines.extend(t.iter().map(|e| (e.start_pc, e.line_number)));
        }
    }
    RawCode {
        max_locals: c.max_locals,
        code: c.code,
        handlers: c
            .exception_table
            .iter()
            .map(|h| {
                let catches = crate::bytecode::Catch::of(h.catch_type.as_deref());
                (h.start_pc, h.end_pc, h.handler_pc, catches)
            })
            .collect(),
        lines,
    }
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
    // The target is built only for an annotation that suppresses (most members have none).
    fn read(
        attrs: &[AttributeInfo<'_>],
        target: &dyn Fn() -> SuppressTarget,
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
                    target: target(),
                    annotation: simple.into(),
                    values,
                    justification,
                });
            }
        }
    }
    let mut out = Vec::new();
    read(&cf.attributes, &|| SuppressTarget::Class, &mut out);
    for m in &cf.methods {
        let target =
            || SuppressTarget::Method(m.name.as_ref().into(), m.descriptor.to_string().into());
        read(&m.attributes, &target, &mut out);
    }
    for f in &cf.fields {
        read(
            &f.attributes,
            &|| SuppressTarget::Field(f.name.as_ref().into()),
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

//! Our own instruction decoder: raw `Code` attribute bytes and the raw constant pool in, [`Op`]s
//! out.
//!
//! `cafebabe` still parses and validates the class structure (see [`super::parse`]); it is told
//! not to decode instructions, because its decoded form (a vector of opcodes with borrowed
//! strings per instruction) costs more to build, convert and drop than decoding the bytes
//! directly into our 8-byte [`Op`]. Operands are resolved through [`Pool`], once per
//! constant-pool entry rather than once per instruction.

use std::borrow::Cow;
use std::sync::Arc;

use crate::analysis::locks::class_hash;
use crate::fxhash::FxHashMap;

use super::model::*;

const TAG_UTF8: u8 = 1;
const TAG_INTEGER: u8 = 3;
const TAG_FLOAT: u8 = 4;
const TAG_LONG: u8 = 5;
const TAG_DOUBLE: u8 = 6;
const TAG_CLASS: u8 = 7;
const TAG_STRING: u8 = 8;
const TAG_FIELDREF: u8 = 9;
const TAG_METHODREF: u8 = 10;
const TAG_INTERFACE_METHODREF: u8 = 11;
const TAG_NAME_AND_TYPE: u8 = 12;
const TAG_METHOD_HANDLE: u8 = 15;
const TAG_METHOD_TYPE: u8 = 16;
const TAG_DYNAMIC: u8 = 17;
const TAG_INVOKE_DYNAMIC: u8 = 18;
const TAG_MODULE: u8 = 19;
const TAG_PACKAGE: u8 = 20;

/// One constant-pool entry, by tag, with its operands (indices) or, for `Utf8`, where its bytes
/// are.
#[derive(Clone, Copy, Debug)]
enum Entry {
    /// Index 0 and the second slot of a `Long`/`Double`.
    None,
    Utf8 {
        start: u32,
        len: u16,
    },
    /// `Float`, `String`, `MethodHandle`, `MethodType`, `Module`, `Package`: a one-slot
    /// constant as far as instructions care.
    OneSlot,
    /// `Integer`: a one-slot constant whose value bit tests and masks need.
    Int(i32),
    /// `Long`, `Double`.
    TwoSlots,
    Class(u16),
    Member(u16, u16),
    NameAndType(u16, u16),
    /// `Dynamic` (bootstrap index, name-and-type) and `InvokeDynamic`.
    Dynamic(u16, u16),
}

/// The constant pool of one class file, read from its raw bytes.
pub struct Pool<'a> {
    bytes: &'a [u8],
    entries: Vec<Entry>,
    tags: Vec<u8>,
    /// File offset just after the constant pool (the class's access flags).
    end: usize,
}

fn u2(b: &[u8], i: usize) -> Option<u16> {
    Some(u16::from_be_bytes([*b.get(i)?, *b.get(i + 1)?]))
}

fn u4(b: &[u8], i: usize) -> Option<u32> {
    Some(u32::from_be_bytes([
        *b.get(i)?,
        *b.get(i + 1)?,
        *b.get(i + 2)?,
        *b.get(i + 3)?,
    ]))
}

impl<'a> Pool<'a> {
    /// Read the constant pool of a class file (which `cafebabe` has already validated).
    pub fn read(bytes: &'a [u8]) -> Result<Self, String> {
        let bad = || "malformed constant pool".to_string();
        let count = u2(bytes, 8).ok_or_else(bad)? as usize;
        let mut entries = vec![Entry::None; count.max(1)];
        let mut tags = vec![0u8; count.max(1)];
        let mut i = 10usize;
        let mut idx = 1usize;
        while idx < count {
            let tag = *bytes.get(i).ok_or_else(bad)?;
            tags[idx] = tag;
            i += 1;
            let (entry, size) = match tag {
                TAG_UTF8 => {
                    let len = u2(bytes, i).ok_or_else(bad)?;
                    (
                        Entry::Utf8 {
                            start: (i + 2) as u32,
                            len,
                        },
                        2 + len as usize,
                    )
                }
                TAG_INTEGER => (Entry::Int(u4(bytes, i).ok_or_else(bad)? as i32), 4),
                TAG_FLOAT => (Entry::OneSlot, 4),
                TAG_LONG | TAG_DOUBLE => (Entry::TwoSlots, 8),
                TAG_CLASS => (Entry::Class(u2(bytes, i).ok_or_else(bad)?), 2),
                TAG_STRING | TAG_METHOD_TYPE | TAG_MODULE | TAG_PACKAGE => (Entry::OneSlot, 2),
                TAG_FIELDREF | TAG_METHODREF | TAG_INTERFACE_METHODREF => (
                    Entry::Member(
                        u2(bytes, i).ok_or_else(bad)?,
                        u2(bytes, i + 2).ok_or_else(bad)?,
                    ),
                    4,
                ),
                TAG_NAME_AND_TYPE => (
                    Entry::NameAndType(
                        u2(bytes, i).ok_or_else(bad)?,
                        u2(bytes, i + 2).ok_or_else(bad)?,
                    ),
                    4,
                ),
                TAG_METHOD_HANDLE => (Entry::OneSlot, 3),
                TAG_DYNAMIC | TAG_INVOKE_DYNAMIC => (
                    Entry::Dynamic(
                        u2(bytes, i).ok_or_else(bad)?,
                        u2(bytes, i + 2).ok_or_else(bad)?,
                    ),
                    4,
                ),
                t => return Err(format!("unknown constant pool tag {t} at index {idx}")),
            };
            if i + size > bytes.len() {
                return Err(bad());
            }
            entries[idx] = entry;
            i += size;
            idx += if matches!(tag, TAG_LONG | TAG_DOUBLE) {
                2
            } else {
                1
            };
        }
        Ok(Pool {
            bytes,
            entries,
            tags,
            end: i,
        })
    }

    /// The descriptors of the fields and of the methods, in file order (as they are in the
    /// file: cafebabe hands them out parsed, and printing them back costs more than this walk).
    #[allow(clippy::type_complexity)]
    pub fn member_descriptors(&self) -> Result<(Vec<Cow<'a, str>>, Vec<Cow<'a, str>>), String> {
        let b = self.bytes;
        let bad = || "malformed class file".to_string();
        let mut i = self.end + 6; // access, this, super
        let interfaces = u2(b, i).ok_or_else(bad)? as usize;
        i += 2 + 2 * interfaces;
        let mut out = [Vec::new(), Vec::new()];
        for list in &mut out {
            let n = u2(b, i).ok_or_else(bad)?;
            i += 2;
            list.reserve(n as usize);
            for _ in 0..n {
                list.push(self.utf8(u2(b, i + 4).ok_or_else(bad)?)?);
                i += 6;
                let attrs = u2(b, i).ok_or_else(bad)?;
                i += 2;
                for _ in 0..attrs {
                    i += 6 + u4(b, i + 2).ok_or_else(bad)? as usize;
                }
            }
        }
        let [fields, methods] = out;
        Ok((fields, methods))
    }

    fn entry(&self, idx: u16) -> Entry {
        self.entries
            .get(idx as usize)
            .copied()
            .unwrap_or(Entry::None)
    }

    fn tag(&self, idx: u16) -> u8 {
        self.tags.get(idx as usize).copied().unwrap_or(0)
    }

    /// The string of a `Utf8` entry (modified UTF-8 decoded; borrowed when it is plain UTF-8).
    pub fn utf8(&self, idx: u16) -> Result<Cow<'a, str>, String> {
        let Entry::Utf8 { start, len } = self.entry(idx) else {
            return Err(format!("constant pool entry {idx} is not a string"));
        };
        let start = start as usize;
        let raw = self
            .bytes
            .get(start..start + len as usize)
            .ok_or("malformed constant pool")?;
        Ok(match std::str::from_utf8(raw) {
            // Modified UTF-8 never contains a NUL byte, so valid UTF-8 means the same text.
            Ok(s) if !raw.contains(&0) => Cow::Borrowed(s),
            _ => Cow::Owned(decode_modified_utf8(raw)),
        })
    }

    fn class_name(&self, idx: u16) -> Result<Cow<'a, str>, String> {
        match self.entry(idx) {
            Entry::Class(name) => self.utf8(name),
            _ => Err(format!("constant pool entry {idx} is not a class")),
        }
    }

    fn name_and_type(&self, idx: u16) -> Result<(Cow<'a, str>, Cow<'a, str>), String> {
        match self.entry(idx) {
            Entry::NameAndType(n, t) => Ok((self.utf8(n)?, self.utf8(t)?)),
            _ => Err(format!("constant pool entry {idx} is not a name and type")),
        }
    }
}

/// Modified UTF-8 (class files): `C0 80` for NUL and surrogate pairs encoded one half at a time.
fn decode_modified_utf8(raw: &[u8]) -> String {
    let mut units: Vec<u16> = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let b = raw[i] as u16;
        let cont = |k: usize| raw.get(i + k).map(|&c| (c & 0x3f) as u16).unwrap_or(0);
        if b < 0x80 {
            units.push(b);
            i += 1;
        } else if b & 0xe0 == 0xc0 {
            units.push(((b & 0x1f) << 6) | cont(1));
            i += 2;
        } else {
            units.push(((b & 0x0f) << 12) | (cont(1) << 6) | cont(2));
            i += 3;
        }
    }
    char::decode_utf16(units)
        .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect()
}

/// The member references of one class, interned: each distinct (class, name, descriptor) gets
/// one [`RefId`], each constant-pool entry is resolved once, and each distinct string is
/// allocated once.
pub struct RefTable<'a> {
    pub refs: Vec<MemberRef>,
    /// Distinct strings by content.
    strings: FxHashMap<Cow<'a, str>, Arc<str>>,
    /// References by the addresses of their (interned) strings.
    index: FxHashMap<(usize, usize, usize), RefId>,
    by_pool_index: Vec<RefId>,
}

const UNRESOLVED: RefId = RefId::MAX;

impl<'a> RefTable<'a> {
    pub fn new(pool: &Pool<'a>) -> Self {
        // Sized for the pool: a class's references and their strings are about as many as its
        // pool entries, and growing the tables took a tenth of the decoding.
        let n = pool.entries.len();
        RefTable {
            refs: Vec::with_capacity(n / 4),
            strings: FxHashMap::with_capacity_and_hasher(n / 2, Default::default()),
            index: FxHashMap::with_capacity_and_hasher(n / 4, Default::default()),
            by_pool_index: vec![UNRESOLVED; pool.entries.len()],
        }
    }

    fn string(&mut self, s: Cow<'a, str>) -> Arc<str> {
        if let Some(a) = self.strings.get(&s) {
            return a.clone();
        }
        let a: Arc<str> = Arc::from(&*s);
        self.strings.insert(s, a.clone());
        a
    }

    fn intern(
        &mut self,
        class: Cow<'a, str>,
        name: Cow<'a, str>,
        desc: Cow<'a, str>,
        kind: RefKind,
    ) -> RefId {
        let (class, name, desc) = (self.string(class), self.string(name), self.string(desc));
        let addr = |s: &Arc<str>| Arc::as_ptr(s) as *const u8 as usize;
        let key = (addr(&class), addr(&name), addr(&desc));
        if let Some(&id) = self.index.get(&key) {
            return id;
        }
        let (arg_slots, ret_slots) = match kind {
            RefKind::Field => {
                let s = field_slots(&desc);
                (s, s)
            }
            _ => (descriptor_arg_slots(&desc), descriptor_ret_slots(&desc)),
        };
        let id = self.refs.len() as RefId;
        let is_method = kind == RefKind::Method && !class.is_empty();
        self.refs.push(MemberRef {
            class,
            name,
            desc,
            arg_slots,
            ret_slots,
            is_method,
        });
        self.index.insert(key, id);
        id
    }

    /// The reference an instruction operand names, resolved once per pool entry.
    fn operand(&mut self, pool: &Pool<'a>, idx: u16, kind: RefKind) -> Result<RefId, String> {
        if let Some(&id) = self.by_pool_index.get(idx as usize) {
            if id != UNRESOLVED {
                return Ok(id);
            }
        }
        let id = match (kind, pool.entry(idx)) {
            (RefKind::Field | RefKind::Method, Entry::Member(class, nat)) => {
                let class = pool.class_name(class)?;
                let (name, desc) = pool.name_and_type(nat)?;
                self.intern(class, name, desc, kind)
            }
            (RefKind::New, Entry::Class(_)) => {
                let class = pool.class_name(idx)?;
                self.intern(
                    class,
                    Cow::Borrowed(super::NEW_REF),
                    Cow::Borrowed(""),
                    kind,
                )
            }
            (RefKind::Indy, Entry::Dynamic(bsm, nat)) if pool.tag(idx) == TAG_INVOKE_DYNAMIC => {
                // Keyed by the bootstrap index, so call sites with the same name and type but
                // different bootstraps stay apart (see `Class::lambda_impl`).
                let (name, desc) = pool.name_and_type(nat)?;
                self.intern(Cow::Owned(format!("#{bsm}")), name, desc, kind)
            }
            _ => {
                return Err(format!(
                    "constant pool entry {idx} has the wrong kind for its instruction"
                ))
            }
        };
        if let Some(slot) = self.by_pool_index.get_mut(idx as usize) {
            *slot = id;
        }
        Ok(id)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum RefKind {
    Field,
    Method,
    New,
    Indy,
}

/// What the `Code` attribute holds besides the instructions (already read by the parser).
pub struct RawCode<'c> {
    pub max_locals: u16,
    pub code: &'c [u8],
    /// `(start_pc, end_pc, handler_pc, what it catches)` of each exception table entry.
    pub handlers: Vec<(u16, u16, u16, Catch)>,
    /// `(start_pc, line)` of every `LineNumberTable` entry.
    pub lines: Vec<(u16, u16)>,
}

/// Length in bytes of the instruction at `pc` (switches need their padding).
fn insn_len(code: &[u8], pc: usize) -> Result<usize, String> {
    let op = code[pc];
    let len = match op {
        0x10 | 0x12 | 0x15..=0x19 | 0x36..=0x3a | 0xa9 | 0xbc => 2,
        0x11
        | 0x13
        | 0x14
        | 0x84
        | 0x99..=0xa8
        | 0xb2..=0xb8
        | 0xbb
        | 0xbd
        | 0xc0
        | 0xc1
        | 0xc6
        | 0xc7 => 3,
        0xc5 => 4,
        0xb9 | 0xba | 0xc8 | 0xc9 => 5,
        0xc4 => match code.get(pc + 1) {
            Some(0x84) => 6,
            Some(0x15..=0x19 | 0x36..=0x3a | 0xa9) => 4,
            Some(other) => return Err(format!("wide {other:#04x} at offset {pc} is invalid")),
            None => return Err(format!("truncated instruction at offset {pc}")),
        },
        0xaa | 0xab => {
            let base = (pc + 4) & !3;
            let word = |k: usize| {
                u4(code, base + 4 * k)
                    .map(|v| v as i32)
                    .ok_or_else(|| format!("truncated switch at offset {pc}"))
            };
            if op == 0xaa {
                let (low, high) = (word(1)?, word(2)?);
                let n = (high as i64 - low as i64 + 1).max(0) as usize;
                base - pc + 12 + 4 * n
            } else {
                let n = word(1)?.max(0) as usize;
                base - pc + 8 + 8 * n
            }
        }
        0x00..=0xc3 | 0xca | 0xfe | 0xff => 1,
        other => return Err(format!("unknown opcode {other:#04x} at offset {pc}")),
    };
    Ok(len)
}

/// Slots of the n-th JVM value type in opcode order (int, long, float, double, reference).
fn typed_slots(n: u8) -> u8 {
    if n == 1 || n == 3 {
        2
    } else {
        1
    }
}

/// Decode a method body into our model.
pub fn decode_code<'a>(
    raw: &RawCode<'_>,
    pool: &Pool<'a>,
    refs: &mut RefTable<'a>,
) -> Result<Code, String> {
    let code = raw.code;
    if code.is_empty() {
        return Err(rejected("its Code attribute is empty"));
    }
    if code.len() > usize::from(u16::MAX) {
        return Err(rejected("its code is longer than 65,535 bytes"));
    }
    // Pass 1: where each instruction starts, and the byte offset → instruction index map.
    let mut offsets: Vec<u32> = Vec::with_capacity(code.len() / 2 + 1);
    let mut index_at = vec![u32::MAX; code.len() + 1];
    let mut pc = 0usize;
    while pc < code.len() {
        index_at[pc] = offsets.len() as u32;
        offsets.push(pc as u32);
        pc += insn_len(code, pc)?;
    }
    if pc != code.len() {
        return Err(format!(
            "truncated instruction at offset {}",
            offsets.last().copied().unwrap_or(0)
        ));
    }
    let index_or_end = |off: usize| -> u32 {
        // Exception ranges and line entries start or end at an instruction or at the end.
        offsets.partition_point(|&o| (o as usize) < off) as u32
    };

    // Pass 2: decode.
    let mut insns = Vec::with_capacity(offsets.len());
    let mut switches = Vec::new();
    let mut switch_keys = Vec::new();
    let mut class_literals = Vec::new();
    let mut bits = Vec::new();
    let pool_int = |idx: u16| match pool.entry(idx) {
        Entry::Int(v) => Some(v),
        _ => None,
    };
    for &start in &offsets {
        let pc = start as usize;
        let op = code[pc];
        let b1 = || code[pc + 1];
        let idx2 = || u16::from_be_bytes([code[pc + 1], code[pc + 2]]);
        let jump = |delta: i64| -> Result<u32, String> {
            let target = pc as i64 + delta;
            usize::try_from(target)
                .ok()
                .and_then(|t| index_at.get(t).copied())
                .filter(|&i| i != u32::MAX)
                .ok_or_else(|| format!("jump to offset {target} is not an instruction"))
        };
        let jump2 = || jump(i16::from_be_bytes([code[pc + 1], code[pc + 2]]) as i64);
        let ldc = |idx: u16, class_literals: &mut Vec<u64>| -> Result<Op, String> {
            Ok(match pool.entry(idx) {
                Entry::Class(name) => {
                    class_literals.push(class_hash(&pool.utf8(name)?));
                    Op::ClassLiteral(class_literals.len() as u32 - 1)
                }
                Entry::TwoSlots => Op::Const(2),
                Entry::Dynamic(_, nat) if pool.tag(idx) == TAG_DYNAMIC => {
                    Op::Const(field_slots(&pool.name_and_type(nat)?.1))
                }
                Entry::OneSlot | Entry::Int(_) => Op::Const(1),
                _ => return Err(format!("ldc of constant pool entry {idx} is invalid")),
            })
        };
        let compute = |pop: u8, push: u8| Op::Compute { pop, push };
        let decoded = match op {
            0x00 | 0xca | 0xfe | 0xff => Op::Nop,
            0x01 => Op::Flag(Konst::Null),
            0x03 => Op::Flag(Konst::Zero),
            0x02 | 0x04..=0x08 => Op::Flag(Konst::NonZero),
            0x10 => Op::Flag(if b1() == 0 {
                Konst::Zero
            } else {
                Konst::NonZero
            }),
            0x11 => Op::Flag(if idx2() == 0 {
                Konst::Zero
            } else {
                Konst::NonZero
            }),
            0x0b..=0x0d => Op::Const(1),
            0x09 | 0x0a | 0x0e | 0x0f => Op::Const(2),
            0x12 => ldc(b1() as u16, &mut class_literals)?,
            0x13 | 0x14 => ldc(idx2(), &mut class_literals)?,
            // iload..aload (int, long, float, double, reference), then their `_0`..`_3` forms.
            0x15..=0x19 => Op::Load(b1() as u16, typed_slots(op - 0x15)),
            0x1a..=0x2d => Op::Load(((op - 0x1a) % 4) as u16, typed_slots((op - 0x1a) / 4)),
            0x2e | 0x30 | 0x32..=0x35 => Op::ArrayLoad(1),
            0x2f | 0x31 => Op::ArrayLoad(2),
            // istore..astore, then their `_0`..`_3` forms.
            0x36..=0x3a => Op::Store(b1() as u16, typed_slots(op - 0x36)),
            0x3b..=0x4e => Op::Store(((op - 0x3b) % 4) as u16, typed_slots((op - 0x3b) / 4)),
            0x4f | 0x51 | 0x53..=0x56 => Op::ArrayStore(1),
            0x50 | 0x52 => Op::ArrayStore(2),
            0x57 => Op::Pop,
            0x58 => Op::Pop2,
            0x59 => Op::Dup,
            0x5a => Op::DupX1,
            0x5b => Op::DupX2,
            0x5c => Op::Dup2,
            0x5d => Op::Dup2X1,
            0x5e => Op::Dup2X2,
            0x5f => Op::Swap,
            // add, sub, mul, div, rem: int, long, float, double in turn.
            0x60..=0x73 => match (op - 0x60) % 4 {
                1 | 3 => compute(4, 2),
                _ => compute(2, 1),
            },
            0x74 | 0x76 => compute(1, 1),
            0x75 | 0x77 => compute(2, 2),
            // shifts: int shifts pop 2; long shifts pop a long and an int.
            0x78 | 0x7a | 0x7c => compute(2, 1),
            0x79 | 0x7b | 0x7d => compute(3, 2),
            // and, or, xor
            0x7e | 0x80 | 0x82 => compute(2, 1),
            0x7f | 0x81 | 0x83 => compute(4, 2),
            0x84 => Op::Iinc(b1() as u16),
            0x85 | 0x87 | 0x8c | 0x8d => compute(1, 2), // i2l i2d f2l f2d
            0x86 | 0x8b | 0x91..=0x93 => compute(1, 1), // i2f f2i i2b i2c i2s
            0x88 | 0x89 | 0x8e | 0x90 => compute(2, 1), // l2i l2f d2i d2f
            0x8a | 0x8f => compute(2, 2),               // l2d d2l
            0x94 | 0x97 | 0x98 => compute(4, 1),        // lcmp dcmpl dcmpg
            0x95 | 0x96 => compute(2, 1),               // fcmpl fcmpg
            // ifeq ifne iflt ifge ifgt ifle ifnull ifnonnull
            0x99..=0x9e | 0xc6 | 0xc7 => Op::If {
                pop: 1,
                target: jump2()?,
                cond: match op {
                    0x99 => Cond::Zero,
                    0x9a => Cond::NonZero,
                    0xc6 => Cond::Null,
                    0xc7 => Cond::NonNull,
                    _ => Cond::Other,
                },
            },
            0x9f..=0xa6 => Op::If {
                pop: 2,
                target: jump2()?,
                cond: match op {
                    0x9f | 0xa5 => Cond::Same,
                    0xa0 | 0xa6 => Cond::Differ,
                    _ => Cond::Other,
                },
            },
            0xa7 => Op::Goto(jump2()?),
            0xa8 => Op::Jsr(jump2()?),
            0xa9 => Op::Ret(b1() as u16),
            0xaa | 0xab => {
                let base = (pc + 4) & !3;
                let word = |k: usize| u4(code, base + 4 * k).unwrap_or(0) as i32 as i64;
                let mut targets = vec![jump(word(0))?];
                let mut keys = Vec::new();
                if op == 0xaa {
                    let n = (word(2) - word(1) + 1).max(0) as usize;
                    for k in 0..n {
                        targets.push(jump(word(3 + k))?);
                        keys.push((word(1) + k as i64) as i32);
                    }
                } else {
                    let n = word(1).max(0) as usize;
                    for k in 0..n {
                        targets.push(jump(word(3 + 2 * k))?);
                        keys.push(word(2 + 2 * k) as i32);
                    }
                }
                switches.push(targets.into_boxed_slice());
                switch_keys.push(keys.into_boxed_slice());
                Op::Switch(switches.len() as u32 - 1)
            }
            0xac | 0xae | 0xb0 => Op::Return(1),
            0xad | 0xaf => Op::Return(2),
            0xb1 => Op::Return(0),
            0xb2 => Op::GetStatic(refs.operand(pool, idx2(), RefKind::Field)?),
            0xb3 => Op::PutStatic(refs.operand(pool, idx2(), RefKind::Field)?),
            0xb4 => Op::GetField(refs.operand(pool, idx2(), RefKind::Field)?),
            0xb5 => Op::PutField(refs.operand(pool, idx2(), RefKind::Field)?),
            0xb6 => Op::Invoke(
                InvokeKind::Virtual,
                refs.operand(pool, idx2(), RefKind::Method)?,
            ),
            0xb7 => Op::Invoke(
                InvokeKind::Special,
                refs.operand(pool, idx2(), RefKind::Method)?,
            ),
            0xb8 => Op::Invoke(
                InvokeKind::Static,
                refs.operand(pool, idx2(), RefKind::Method)?,
            ),
            0xb9 => Op::Invoke(
                InvokeKind::Interface,
                refs.operand(pool, idx2(), RefKind::Method)?,
            ),
            0xba => Op::InvokeDynamic(refs.operand(pool, idx2(), RefKind::Indy)?),
            0xbb => Op::New(refs.operand(pool, idx2(), RefKind::New)?),
            0xbc | 0xbd => Op::NewArray(1),
            0xbe => Op::ArrayLength,
            0xbf => Op::Athrow,
            0xc0 => Op::CheckCast,
            0xc1 => compute(1, 1),
            0xc2 => Op::MonitorEnter,
            0xc3 => Op::MonitorExit,
            0xc4 => {
                let sub = code[pc + 1];
                let local = u16::from_be_bytes([code[pc + 2], code[pc + 3]]);
                match sub {
                    0x15..=0x19 => Op::Load(local, typed_slots(sub - 0x15)),
                    0x36..=0x3a => Op::Store(local, typed_slots(sub - 0x36)),
                    0x84 => Op::Iinc(local),
                    _ => Op::Ret(local),
                }
            }
            0xc5 => Op::NewArray(code[pc + 3]),
            0xc8 => Op::Goto(jump(i32::from_be_bytes([
                code[pc + 1],
                code[pc + 2],
                code[pc + 3],
                code[pc + 4],
            ]) as i64)?),
            0xc9 => Op::Jsr(jump(i32::from_be_bytes([
                code[pc + 1],
                code[pc + 2],
                code[pc + 3],
                code[pc + 4],
            ]) as i64)?),
            other => return Err(format!("unknown opcode {other:#04x} at offset {pc}")),
        };
        if let Some(fact) = bit_fact(code, pc, &pool_int) {
            bits.push((insns.len() as u32, fact));
        }
        insns.push(Insn { op: decoded });
    }
    check_handlers(raw, &index_at)?;
    check_locals(&insns, raw.max_locals)?;
    let handlers = raw
        .handlers
        .iter()
        .filter_map(|&(start, end, handler, catches)| {
            let handler = *index_at.get(handler as usize)?;
            (handler != u32::MAX).then(|| Handler {
                start: index_or_end(start as usize),
                end: index_or_end(end as usize),
                handler,
                catches,
            })
        })
        .collect();
    let mut lines: Vec<(u32, u32)> = raw
        .lines
        .iter()
        .map(|&(pc, line)| (index_or_end(pc as usize), line as u32))
        .collect();
    lines.sort_unstable();
    Ok(Code {
        max_locals: raw.max_locals,
        insns,
        handlers,
        lines,
        // Every offset is below the code's length, checked above to fit.
        offsets: offsets.iter().map(|&o| o as u16).collect(),
        switches,
        switch_keys,
        class_literals,
        bits,
    })
}

/// What the instruction at `pc` tells bit tests, masks and codes ([`BitFact`]): an `int`
/// constant that feeds a bitwise `and`/`or`, a field store, a static call, an `int` comparison,
/// a local's store, a jump or a return, or comes right before a local's load (the next
/// instruction), or the `iand`/`ior` itself.
/// Other constants are not kept.
fn bit_fact(code: &[u8], pc: usize, pool_int: &impl Fn(u16) -> Option<i32>) -> Option<BitFact> {
    let op = code[pc];
    match op {
        0x7e => return Some(BitFact::And),
        0x80 => return Some(BitFact::Or),
        _ => {}
    }
    if !matches!(op, 0x02..=0x08 | 0x10..=0x13) {
        return None;
    }
    let len = insn_len(code, pc).ok()?;
    // iand, ior, putstatic, putfield, invokestatic; if_icmp<cond>, istore, goto, ireturn, iload
    // (a code made, compared or handed on: `action = START;`, `if (action == START)`, `START ==
    // action`).
    if !matches!(
        code.get(pc + len),
        Some(
            0x7e
            | 0x80
            | 0xb3
            | 0xb5
            | 0xb8
            | 0x9f..=0xa4
            | 0x36
            | 0x3b..=0x3e
            | 0xa7
            | 0xc8
            | 0xac
            | 0x15
            | 0x1a..=0x1d,
        )
    ) {
        return None;
    }
    let b = |k: usize| code[pc + k];
    let v = match op {
        0x02..=0x08 => i32::from(op) - 3,
        0x10 => i32::from(b(1) as i8),
        0x11 => i32::from(i16::from_be_bytes([b(1), b(2)])),
        0x12 => pool_int(u16::from(b(1)))?,
        _ => pool_int(u16::from_be_bytes([b(1), b(2)]))?,
    };
    Some(BitFact::Int(v))
}

/// A reason the JVM's verifier would reject the method (and its class) for.
fn rejected(why: &str) -> String {
    format!("{why}, which the JVM's verifier rejects")
}

/// Every exception handler covers a non-empty range of whole instructions inside the code and
/// starts at an instruction (JVMS 4.7.3).
fn check_handlers(raw: &RawCode<'_>, index_at: &[u32]) -> Result<(), String> {
    let len = raw.code.len();
    let starts_insn = |pc: usize| index_at.get(pc).is_some_and(|&i| i != u32::MAX) && pc < len;
    for (n, &(start, end, handler, _)) in raw.handlers.iter().enumerate() {
        let (start, end, handler) = (start as usize, end as usize, handler as usize);
        let range_ok = start < end && starts_insn(start) && (end == len || starts_insn(end));
        if !range_ok || !starts_insn(handler) {
            return Err(rejected(&format!(
                "exception handler {n} (range {start}..{end}, handler at {handler}) lies \
                 outside the {len} bytes of code or not on an instruction"
            )));
        }
    }
    Ok(())
}

/// Every local variable an instruction uses lies below `max_locals` (JVMS 4.10.1.9).
fn check_locals(insns: &[Insn], max_locals: u16) -> Result<(), String> {
    for (at, insn) in insns.iter().enumerate() {
        let (index, slots) = match insn.op {
            Op::Load(index, slots) | Op::Store(index, slots) => (index, u32::from(slots)),
            Op::Iinc(index) | Op::Ret(index) => (index, 1),
            _ => continue,
        };
        if u32::from(index) + slots > u32::from(max_locals) {
            return Err(rejected(&format!(
                "instruction {at} uses local variable {index}, beyond max_locals {max_locals}"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_facts_keep_masks_and_bitwise_ops() {
        let pool = |idx: u16| (idx == 9).then_some(1 << 20);
        // aload_0; dup; getfield #1; bipush 32; ior; putfield #1
        let set = [0x2a, 0x59, 0xb4, 0, 1, 0x10, 32, 0x80, 0xb5, 0, 1];
        assert_eq!(bit_fact(&set, 0, &pool), None);
        assert_eq!(bit_fact(&set, 5, &pool), Some(BitFact::Int(32)));
        assert_eq!(bit_fact(&set, 7, &pool), Some(BitFact::Or));
        // sipush -13; iand / ldc #9; invokestatic / iconst_m1; ireturn (not kept)
        assert_eq!(
            bit_fact(&[0x11, 0xff, 0xf3, 0x7e], 0, &pool),
            Some(BitFact::Int(-13))
        );
        assert_eq!(bit_fact(&[0x7e], 0, &pool), Some(BitFact::And));
        assert_eq!(
            bit_fact(&[0x12, 9, 0xb8, 0, 2], 0, &pool),
            Some(BitFact::Int(1 << 20))
        );
        assert_eq!(bit_fact(&[0x12, 8, 0xb8, 0, 2], 0, &pool), None);
        // iconst_m1; pop (not kept) / iconst_2; if_icmpne / bipush 7; istore_1
        assert_eq!(bit_fact(&[0x02, 0x57], 0, &pool), None);
        assert_eq!(
            bit_fact(&[0x05, 0xa0, 0, 4], 0, &pool),
            Some(BitFact::Int(2))
        );
        assert_eq!(bit_fact(&[0x10, 7, 0x3c], 0, &pool), Some(BitFact::Int(7)));
    }

    /// A class-file prefix (magic, version) and a constant pool: 1 Utf8 "demo/C", 2 Class #1,
    /// 3 Utf8 "f", 4 Utf8 "J", 5 NameAndType #3 #4, 6 Fieldref #2 #5, 7 Long (two slots),
    /// 9 Utf8 with a modified-UTF-8 NUL and a supplementary character.
    fn pool_bytes() -> Vec<u8> {
        let mut b = vec![0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 61, 0, 10];
        let utf8 = |b: &mut Vec<u8>, s: &[u8]| {
            b.push(TAG_UTF8);
            b.extend((s.len() as u16).to_be_bytes());
            b.extend(s);
        };
        utf8(&mut b, b"demo/C");
        b.extend([TAG_CLASS, 0, 1]);
        utf8(&mut b, b"f");
        utf8(&mut b, b"J");
        b.extend([TAG_NAME_AND_TYPE, 0, 3, 0, 4]);
        b.extend([TAG_FIELDREF, 0, 2, 0, 5]);
        b.extend([TAG_LONG, 0, 0, 0, 0, 0, 0, 0, 7]);
        // "a", NUL as C0 80, U+1F600 as two 3-byte surrogates.
        utf8(
            &mut b,
            &[b'a', 0xc0, 0x80, 0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80],
        );
        b
    }

    fn decode(code: &[u8]) -> Result<(Code, Vec<MemberRef>), String> {
        let bytes = pool_bytes();
        let pool = Pool::read(&bytes)?;
        let mut refs = RefTable::new(&pool);
        let raw = RawCode {
            max_locals: 300,
            code,
            handlers: vec![],
            lines: vec![],
        };
        let code = decode_code(&raw, &pool, &mut refs)?;
        Ok((code, refs.refs))
    }

    fn ops(code: &Code) -> Vec<String> {
        code.insns.iter().map(|i| format!("{:?}", i.op)).collect()
    }

    #[test]
    fn modified_utf8_is_decoded() {
        let bytes = pool_bytes();
        let pool = Pool::read(&bytes).expect("pool");
        assert_eq!(pool.utf8(1).expect("utf8"), "demo/C");
        assert_eq!(pool.utf8(9).expect("utf8"), "a\0\u{1F600}");
        assert!(pool.utf8(2).is_err(), "a class entry is not a string");
    }

    #[test]
    fn fields_are_interned_once_and_long_constants_take_two_slots() {
        // getstatic #6; getstatic #6; ldc2_w #7; return
        let (code, refs) = decode(&[0xb2, 0, 6, 0xb2, 0, 6, 0x14, 0, 7, 0xb1]).expect("decodes");
        assert_eq!(
            ops(&code),
            ["GetStatic(0)", "GetStatic(0)", "Const(2)", "Return(0)"]
        );
        assert_eq!(refs.len(), 1);
        assert_eq!(
            (&*refs[0].class, &*refs[0].name, refs[0].arg_slots),
            ("demo/C", "f", 2)
        );
    }

    #[test]
    fn switches_wide_and_wide_jumps() {
        // 0: iload_0
        // 1: tableswitch (pad 2) default +31, low 0, high 1, [+31, +35]  -> 32, 32, 36
        // 24: lookupswitch (pad 3) default +8, npairs 1, (5, +12)        -> 32, 36
        let mut code = vec![0x1a, 0xaa, 0, 0];
        for w in [31i32, 0, 1, 31, 35] {
            code.extend(w.to_be_bytes());
        }
        assert_eq!(code.len(), 24);
        code.extend([0xab, 0, 0, 0]);
        for w in [8i32, 1, 5, 12] {
            code.extend(w.to_be_bytes());
        }
        assert_eq!(code.len(), 44);
        // 44: wide iload 256; 48: wide iinc 257 +1; 54: goto_w -54 (to 0)
        code.extend([0xc4, 0x15, 1, 0, 0xc4, 0x84, 1, 1, 0, 1, 0xc8]);
        code.extend((-54i32).to_be_bytes());
        // The lookupswitch targets above are relative to 24: 32 and 36 are not instructions
        // here, so patch them to land on the wide iload (44) and the goto_w (54).
        code[28..32].copy_from_slice(&20i32.to_be_bytes());
        code[40..44].copy_from_slice(&30i32.to_be_bytes());
        // Likewise the tableswitch: default and case 0 -> 44, case 1 -> 48.
        code[4..8].copy_from_slice(&43i32.to_be_bytes());
        code[16..20].copy_from_slice(&43i32.to_be_bytes());
        code[20..24].copy_from_slice(&47i32.to_be_bytes());
        let (code, _) = decode(&code).expect("decodes");
        assert_eq!(
            ops(&code),
            [
                "Load(0, 1)",
                "Switch(0)",
                "Switch(1)",
                "Load(256, 1)",
                "Iinc(257)",
                "Goto(0)"
            ]
        );
        assert_eq!(code.switch_targets(0), [3, 3, 4]);
        assert_eq!(code.switch_keys(0), [0, 1]);
        assert_eq!(code.switch_targets(1), [3, 5]);
        assert_eq!(code.switch_keys(1), [5]);
    }

    #[test]
    fn bad_code_is_an_error_not_a_panic() {
        // A jump into the middle of an instruction.
        assert!(decode(&[0xa7, 0, 1, 0xb1])
            .unwrap_err()
            .contains("not an instruction"));
        // A truncated instruction.
        assert!(decode(&[0xb2, 0]).unwrap_err().contains("truncated"));
        // An unknown opcode.
        assert!(decode(&[0xcb]).unwrap_err().contains("unknown opcode"));
        // An operand of the wrong kind: getstatic of a class entry.
        assert!(decode(&[0xb2, 0, 2]).unwrap_err().contains("wrong kind"));
        // A truncated tableswitch.
        assert!(decode(&[0xaa, 0, 0, 0, 0, 0])
            .unwrap_err()
            .contains("truncated"));
    }
}

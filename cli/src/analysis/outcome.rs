//! What an update reports, and whether the code looks at it. Part of the shared model of what
//! validates a value: an update that returns its outcome (`putIfAbsent` the value it found,
//! `poll` the element or `null`, `decrementAndGet` the new count, `compareAndSet` whether it
//! succeeded) tells the thread the state it found, so a decision that led to it on an older
//! look at that state is checked when the code tests the outcome (`if (r == null) break;`).
//! The buggy twin ignores the outcome (`q.poll().run()`, a bare `decrementAndGet()`).

use crate::bytecode::{Code, Op};

/// Whether the result of the call at `at` is tested by a condition: consumed by a branch at
/// once (`if (map.putIfAbsent(k, v) != null)`), or stored in a local that a branch tests
/// (`r = q.poll(); if (r == null)`, `rc = n.decrementAndGet(); if (rc == 0)`). Read off the code
/// as compilers emit it; a local is followed by its slot, anywhere in the method.
pub fn result_tested(code: &Code, at: u32) -> bool {
    tested_after(code, at as usize + 1)
}

/// Whether the value read at `at` (a field, a call's result) is tested by a condition, as
/// [`result_tested`] reads it, or through its length when it is an array (`if (n ==
/// buf.length) return;`): a look at the value that only decides.
pub fn look_tested(code: &Code, at: u32) -> bool {
    let next = at as usize + 1;
    let length = matches!(code.insns.get(next).map(|i| &i.op), Some(Op::ArrayLength));
    tested_after(code, next + usize::from(length))
}

/// Whether the result of the call at `at` decides something: tested ([`result_tested`]), or
/// returned at once, for the caller to decide on (`return seen.add(id);`).
pub fn result_decides(code: &Code, at: u32) -> bool {
    result_tested(code, at)
        || matches!(
            code.insns.get(at as usize + 1).map(|i| &i.op),
            Some(Op::Return(_))
        )
}

/// Whether the value read at `at` goes nowhere but into conditions: tested at once, or stored
/// in a local that the method stores nothing else in, whose every load is tested (`Object v =
/// value; if (v == CANCELLED) return; if (v == null) ..`). Such a look only decides; its value
/// is handed to no call and kept nowhere.
pub fn only_tested(code: &Code, at: u32) -> bool {
    let mut k = at as usize + 1;
    while matches!(code.insns.get(k).map(|i| &i.op), Some(Op::CheckCast)) {
        k += 1;
    }
    match code.insns.get(k).map(|i| &i.op) {
        Some(&Op::Store(slot, _)) => {
            let stores = (code.insns.iter())
                .filter(|i| matches!(i.op, Op::Store(s, _) if s == slot))
                .count();
            let mut loads = (code.insns.iter().enumerate())
                .filter(|(_, i)| matches!(i.op, Op::Load(s, _) if s == slot))
                .peekable();
            stores == 1 && loads.peek().is_some() && loads.all(|(j, _)| tested_from(code, j + 1))
        }
        Some(Op::Dup) => false,
        _ => tested_from(code, k),
    }
}

/// [`result_tested`] for the value on top of the stack before instruction `k`.
fn tested_after(code: &Code, mut k: usize) -> bool {
    // `(r = q.poll()) != null`: dup, store, test.
    while let Some(op) = code.insns.get(k).map(|i| &i.op) {
        match *op {
            Op::CheckCast | Op::Dup => k += 1,
            Op::Store(slot, _) => {
                if code.insns.iter().enumerate().any(|(j, i)| {
                    matches!(i.op, Op::Load(s, _) if s == slot) && tested_from(code, j + 1)
                }) {
                    return true;
                }
                // Only a copy left on the stack can still be tested.
                return matches!(code.insns.get(k - 1).map(|i| &i.op), Some(Op::Dup))
                    && tested_from(code, k + 1);
            }
            _ => return tested_from(code, k),
        }
    }
    false
}

/// Whether the value on top of the stack before instruction `k` goes into a condition: a
/// branch, after at most two operands pushed or combined (`x != null`, `rc < 0`, `n > 0L`,
/// `old == CANCELLED`: a sentinel held in a static field).
fn tested_from(code: &Code, k: usize) -> bool {
    for i in code.insns.iter().skip(k).take(3) {
        match i.op {
            Op::If { .. } | Op::Switch(_) => return true,
            Op::Const(_) | Op::Flag(_) | Op::Load(..) | Op::Compute { .. } | Op::GetStatic(_) => {}
            _ => return false,
        }
    }
    false
}

//! Bounded memory for loading: the scan's memory budget, the inflation limit of one input, and
//! reading a stream into memory in bounded chunks that are paid for before they are allocated.
//!
//! Two bounds, two purposes:
//! - [`MemoryBudget`]: the bytes the loader holds at one time for the whole scan (archive files
//!   read, nested archives being opened, class files kept for the parser), shared by every
//!   input and every parallel task. A buffer grows only after its growth is charged, so the
//!   budget holds whatever an archive declares.
//! - [`InputWork`]: the bytes one top-level input may inflate in total, kept or not (a bound on
//!   the time a zip bomb costs; a nested archive in the style of 42.zip is stopped here).

use std::io::{self, Read};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Bytes read from a stream per step.
const CHUNK: usize = 64 * 1024;

/// The bytes the loader may hold at one time, for the whole scan.
#[derive(Debug)]
pub(super) struct MemoryBudget {
    limit: u64,
    held: AtomicU64,
}

impl MemoryBudget {
    pub(super) fn new(limit: u64) -> Self {
        Self {
            limit,
            held: AtomicU64::new(0),
        }
    }

    pub(super) fn limit(&self) -> u64 {
        self.limit
    }

    /// Takes `bytes` from the budget; false (and nothing taken) when they do not fit.
    pub(super) fn try_charge(&self, bytes: u64) -> bool {
        self.held
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |held| {
                held.checked_add(bytes).filter(|&total| total <= self.limit)
            })
            .is_ok()
    }

    /// Gives `bytes` back.
    pub(super) fn release(&self, bytes: u64) {
        let _ = self
            .held
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |held| {
                Some(held.saturating_sub(bytes))
            });
    }
}

/// The bytes one top-level input may inflate in total, shared by all its parallel tasks.
#[derive(Debug)]
pub(super) struct InputWork {
    limit: u64,
    used: AtomicU64,
    exceeded: AtomicBool,
}

impl InputWork {
    pub(super) fn new(limit: u64) -> Self {
        Self {
            limit,
            used: AtomicU64::new(0),
            exceeded: AtomicBool::new(false),
        }
    }

    pub(super) fn exceeded(&self) -> bool {
        self.exceeded.load(Ordering::Relaxed)
    }

    /// Counts `bytes` more inflated bytes; false once the total is over the limit.
    pub(super) fn spend(&self, bytes: u64) -> bool {
        let used = self
            .used
            .fetch_add(bytes, Ordering::Relaxed)
            .saturating_add(bytes);
        if used > self.limit {
            self.exceeded.store(true, Ordering::Relaxed);
        }
        !self.exceeded()
    }
}

/// Bytes held in memory and charged to the budget (their capacity), given back on drop unless
/// [`Held::keep`] hands them on still charged.
#[derive(Debug)]
pub(super) struct Held<'b> {
    bytes: Vec<u8>,
    charged: u64,
    budget: &'b MemoryBudget,
}

impl Held<'_> {
    pub(super) fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The bytes, still charged to the budget (class files kept for the parser stay charged
    /// until loading ends). Returns the bytes and their charge.
    pub(super) fn keep(mut self) -> (Vec<u8>, u64) {
        let charged = std::mem::take(&mut self.charged);
        (std::mem::take(&mut self.bytes), charged)
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        self.budget.release(self.charged);
    }
}

/// Why [`read_bounded`] stopped.
#[derive(Debug)]
pub(super) enum ReadError {
    /// More than `max` bytes (declared or actual).
    TooLarge,
    /// The scan's memory budget could not pay for the next chunk.
    OverBudget,
    /// The input's inflation limit was passed.
    OverWork,
    Io(io::Error),
}

/// Reads `reader` to its end into memory, at most `max` bytes, in chunks of 64 KiB (read into
/// a scratch chunk, then copied): the buffer grows (doubling) only after the growth is charged
/// to `budget`, and every chunk read is counted in `work` when given. `declared` (the size the container claims) is refused when
/// over `max`, and otherwise only sizes the first allocation.
pub(super) fn read_bounded<'b, R: Read>(
    reader: &mut R,
    declared: u64,
    max: u64,
    budget: &'b MemoryBudget,
    work: Option<&InputWork>,
) -> Result<Held<'b>, ReadError> {
    if declared > max {
        return Err(ReadError::TooLarge);
    }
    if declared > budget.limit() {
        return Err(ReadError::OverBudget);
    }
    let mut held = Held {
        bytes: Vec::new(),
        charged: 0,
        budget,
    };
    // The size the container declares sizes the first allocation (exactly, so that an honest
    // entry costs its size), never more than 1 MiB of it before the bytes are really there.
    grow(
        &mut held,
        declared.clamp(CHUNK as u64, 1 << 20).min(max.max(1)),
    )?;
    // Read into a scratch chunk and copy: no buffer is zero-filled before it is read into.
    let mut chunk = vec![0u8; CHUNK];
    loop {
        let got = read_some(reader, &mut chunk)?;
        if got == 0 {
            break;
        }
        if work.is_some_and(|work| !work.spend(got as u64)) {
            return Err(ReadError::OverWork);
        }
        let len = held.bytes.len() as u64;
        if len + got as u64 > max {
            return Err(ReadError::TooLarge);
        }
        let capacity = held.bytes.capacity() as u64;
        if len + got as u64 > capacity {
            let doubled = capacity.saturating_mul(2).max(CHUNK as u64);
            grow(&mut held, doubled.max(len + got as u64).min(max))?;
        }
        held.bytes.extend_from_slice(&chunk[..got]);
    }
    // Give back the room that was not needed.
    held.bytes.shrink_to_fit();
    let capacity = held.bytes.capacity() as u64;
    if capacity < held.charged {
        budget.release(held.charged - capacity);
        held.charged = capacity;
    }
    Ok(held)
}

fn read_some<R: Read>(reader: &mut R, buf: &mut [u8]) -> Result<usize, ReadError> {
    loop {
        match reader.read(buf) {
            Ok(got) => return Ok(got),
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(ReadError::Io(err)),
        }
    }
}

/// Grows the buffer of `held` to `capacity` bytes, charging the growth first.
fn grow(held: &mut Held, capacity: u64) -> Result<(), ReadError> {
    let current = held.bytes.capacity() as u64;
    let more = capacity.saturating_sub(current);
    if more == 0 {
        return Ok(());
    }
    if !held.budget.try_charge(more) {
        return Err(ReadError::OverBudget);
    }
    held.charged += more;
    let additional = usize::try_from(capacity).map_err(|_| ReadError::TooLarge)? - held.bytes.len();
    held.bytes.reserve_exact(additional);
    // `reserve_exact` may give more than asked: charge what was really allocated.
    let actual = held.bytes.capacity() as u64;
    if actual > capacity {
        if !held.budget.try_charge(actual - capacity) {
            return Err(ReadError::OverBudget);
        }
        held.charged += actual - capacity;
    }
    Ok(())
}

/// Reads `reader` to its end without keeping the bytes, counting them in `work` (to find where
/// an entry ends when only its compressed stream says so).
pub(super) fn skip_bounded<R: Read>(reader: &mut R, work: &InputWork) -> Result<(), ReadError> {
    let mut buf = vec![0u8; CHUNK];
    loop {
        let got = match reader.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(got) => got,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(ReadError::Io(err)),
        };
        if !work.spend(got as u64) {
            return Err(ReadError::OverWork);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_whole_streams_and_charges_only_what_is_kept() {
        let budget = MemoryBudget::new(10 << 20);
        let data = vec![5u8; 300_000];
        let held = read_bounded(&mut data.as_slice(), 0, 1 << 20, &budget, None).unwrap();
        assert_eq!(held.bytes(), data.as_slice());
        let (bytes, charged) = held.keep();
        assert_eq!(charged, bytes.capacity() as u64);
        assert_eq!(budget.held.load(Ordering::Relaxed), charged);
        budget.release(charged);
        assert_eq!(budget.held.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn a_dropped_buffer_gives_its_charge_back() {
        let budget = MemoryBudget::new(10 << 20);
        let data = vec![5u8; 100_000];
        drop(read_bounded(&mut data.as_slice(), 0, 1 << 20, &budget, None).unwrap());
        assert_eq!(budget.held.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn limits_hold_on_actual_bytes() {
        let budget = MemoryBudget::new(10 << 20);
        let data = vec![5u8; 3 << 20];
        // Declared small, actually larger than `max`.
        let err = read_bounded(&mut data.as_slice(), 10, 1 << 20, &budget, None).unwrap_err();
        assert!(matches!(err, ReadError::TooLarge), "{err:?}");
        // Exactly `max` is fine.
        let held = read_bounded(&mut data.as_slice(), 10, 3 << 20, &budget, None).unwrap();
        assert_eq!(held.bytes().len(), 3 << 20);
        drop(held);
        // Declared larger than `max`: refused before reading.
        let err = read_bounded(&mut data.as_slice(), 4 << 20, 3 << 20, &budget, None);
        assert!(matches!(err, Err(ReadError::TooLarge)));
        assert_eq!(budget.held.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn the_budget_is_never_exceeded() {
        let budget = MemoryBudget::new(1 << 20);
        let data = vec![5u8; 2 << 20];
        let err = read_bounded(&mut data.as_slice(), 0, 8 << 20, &budget, None).unwrap_err();
        assert!(matches!(err, ReadError::OverBudget), "{err:?}");
        assert_eq!(budget.held.load(Ordering::Relaxed), 0);
        let work = InputWork::new(100_000);
        let unbounded = MemoryBudget::new(u64::MAX);
        let err = read_bounded(&mut data.as_slice(), 0, 8 << 20, &unbounded, Some(&work));
        assert!(matches!(err, Err(ReadError::OverWork)));
        assert!(work.exceeded());
    }
}

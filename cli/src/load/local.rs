//! Reading a zip archive whose end is missing (a cut download, a copy that stopped): the
//! central directory is gone, but every entry before the cut still has its local header in
//! front of its data. Walks those headers from the start, as `unzip -F` does, and stops at the
//! first entry that is not whole.
//!
//! The `zip` crate's own stream reader (`read_zipfile_from_stream`) refuses entries whose sizes
//! follow their data (a data descriptor: what `jar` and most build tools write for deflated
//! entries), so the headers are read here; such an entry's deflate stream says where it ends.

use std::io::{self, Read};

use flate2::{Decompress, FlushDecompress, Status};

use super::budget::{read_bounded, skip_bounded, Held, InputWork, MemoryBudget, ReadError};

const LOCAL_HEADER: u32 = 0x0403_4b50;
const DATA_DESCRIPTOR: u32 = 0x0807_4b50;
const CENTRAL_HEADER: u32 = 0x0201_4b50;
const END_OF_DIRECTORY: u32 = 0x0605_4b50;
const LOCAL_HEADER_LEN: usize = 30;
const FLAG_ENCRYPTED: u16 = 1;
const FLAG_DESCRIPTOR: u16 = 1 << 3;
const STORED: u16 = 0;
const DEFLATED: u16 = 8;
const ZIP64_EXTRA: u16 = 0x0001;

/// Whether `data` starts like a zip archive (a local header).
pub(super) fn starts_like_zip(data: &[u8]) -> bool {
    read_u32(data, 0) == Some(LOCAL_HEADER)
}

/// One entry read from its local header.
pub(super) struct LocalEntry<'b> {
    pub(super) name: String,
    pub(super) data: Result<Held<'b>, ReadError>,
}

/// What walking the local headers found.
pub(super) struct Recovered<'b> {
    /// The whole entries that `want` asked for, in archive order.
    pub(super) entries: Vec<LocalEntry<'b>>,
    /// How many whole entries (of any kind) were found.
    pub(super) whole: usize,
    /// The name of the entry where the walk stopped, if it had a readable header.
    pub(super) cut_at: Option<String>,
    /// The input's inflation limit was passed while walking.
    pub(super) over_work: bool,
    /// The walk ended at what is left of the central directory: no entry seems lost.
    pub(super) reached_directory: bool,
}

/// Walks the local headers of `data`. Entries whose name `want` accepts are inflated (at most
/// `max(name)` bytes each, paid from `budget`); the others are only stepped over.
pub(super) fn recover<'b>(
    data: &[u8],
    want: &dyn Fn(&str) -> Option<u64>,
    budget: &'b MemoryBudget,
    work: &InputWork,
) -> Recovered<'b> {
    let mut out = Recovered {
        entries: Vec::new(),
        whole: 0,
        cut_at: None,
        over_work: false,
        reached_directory: false,
    };
    let mut at = 0usize;
    while read_u32(data, at) == Some(LOCAL_HEADER) {
        let Some(header) = Header::read(data, at) else {
            break;
        };
        match read_entry(data, &header, want, budget, work) {
            Step::Next { end, entry } => {
                out.whole += 1;
                out.entries.extend(entry);
                at = end;
            }
            Step::Stop { over_work } => {
                out.cut_at = Some(header.name);
                out.over_work = over_work;
                return out;
            }
        }
    }
    out.reached_directory = matches!(read_u32(data, at), Some(CENTRAL_HEADER | END_OF_DIRECTORY));
    out
}

enum Step<'b> {
    Next {
        end: usize,
        entry: Option<LocalEntry<'b>>,
    },
    Stop {
        over_work: bool,
    },
}

struct Header {
    name: String,
    flags: u16,
    method: u16,
    compressed: u64,
    size: u64,
    zip64: bool,
    data_start: usize,
}

impl Header {
    fn read(data: &[u8], at: usize) -> Option<Self> {
        let flags = read_u16(data, at + 6)?;
        let method = read_u16(data, at + 8)?;
        let mut compressed = u64::from(read_u32(data, at + 18)?);
        let mut size = u64::from(read_u32(data, at + 22)?);
        let name_len = usize::from(read_u16(data, at + 26)?);
        let extra_len = usize::from(read_u16(data, at + 28)?);
        let name_start = at + LOCAL_HEADER_LEN;
        let name = data.get(name_start..name_start + name_len)?;
        let extra = data.get(name_start + name_len..name_start + name_len + extra_len)?;
        let mut zip64 = false;
        let mut fields = extra;
        while fields.len() >= 4 {
            let id = u16::from_le_bytes([fields[0], fields[1]]);
            let len = usize::from(u16::from_le_bytes([fields[2], fields[3]]));
            let body = fields.get(4..4 + len)?;
            if id == ZIP64_EXTRA {
                zip64 = true;
                if size == u64::from(u32::MAX) && body.len() >= 8 {
                    size = read_u64(body, 0)?;
                }
                if compressed == u64::from(u32::MAX) && body.len() >= 16 {
                    compressed = read_u64(body, 8)?;
                }
            }
            fields = &fields[4 + len..];
        }
        Some(Self {
            name: String::from_utf8_lossy(name).into_owned(),
            flags,
            method,
            compressed,
            size,
            zip64,
            data_start: name_start + name_len + extra_len,
        })
    }
}

fn read_entry<'b>(
    data: &[u8],
    header: &Header,
    want: &dyn Fn(&str) -> Option<u64>,
    budget: &'b MemoryBudget,
    work: &InputWork,
) -> Step<'b> {
    let stop = Step::Stop { over_work: false };
    if header.flags & FLAG_ENCRYPTED != 0 {
        return stop;
    }
    let rest = &data[header.data_start.min(data.len())..];
    let descriptor = header.flags & FLAG_DESCRIPTOR != 0;
    let max = want(&header.name);
    let (entry, used) = match (header.method, descriptor) {
        (STORED, false) | (DEFLATED, false) => {
            let Some(stream) = usize::try_from(header.compressed)
                .ok()
                .and_then(|len| rest.get(..len))
            else {
                return stop; // the cut is inside this entry
            };
            let entry = max.map(|max| {
                let data = if header.method == STORED {
                    read_bounded(&mut &stream[..], header.size, max, budget, Some(work))
                } else {
                    let mut inflater = RawInflate::new(stream);
                    let read = read_bounded(&mut inflater, header.size, max, budget, Some(work));
                    read.and_then(|held| match inflater.ended {
                        true => Ok(held),
                        false => Err(ReadError::Io(io::ErrorKind::UnexpectedEof.into())),
                    })
                };
                LocalEntry {
                    name: header.name.clone(),
                    data,
                }
            });
            (entry, stream.len())
        }
        (DEFLATED, true) => {
            // Only the deflate stream says where this entry ends.
            let mut inflater = RawInflate::new(rest);
            let data = match max {
                Some(max) => Some(read_bounded(
                    &mut inflater,
                    header.size,
                    max,
                    budget,
                    Some(work),
                )),
                None => match skip_bounded(&mut inflater, work) {
                    Ok(()) => None,
                    Err(err) => Some(Err(err)),
                },
            };
            match data {
                Some(Err(ReadError::OverWork)) => return Step::Stop { over_work: true },
                // Too large or over budget: the stream's end is not known; nothing after it
                // can be found.
                Some(Err(_)) => return stop,
                _ if !inflater.ended => return stop,
                _ => {}
            }
            let entry = data.map(|data| LocalEntry {
                name: header.name.clone(),
                data,
            });
            (entry, inflater.consumed)
        }
        // A stored entry whose size follows its data, or a method we do not read: where it
        // ends cannot be known.
        _ => return stop,
    };
    if matches!(
        entry,
        Some(LocalEntry {
            data: Err(ReadError::OverWork),
            ..
        })
    ) {
        return Step::Stop { over_work: true };
    }
    let mut end = header.data_start + used;
    if descriptor {
        if read_u32(data, end) == Some(DATA_DESCRIPTOR) {
            end += 4;
        }
        end += if header.zip64 { 20 } else { 12 };
        if end > data.len() {
            return stop;
        }
    }
    Step::Next { end, entry }
}

/// A raw deflate stream over a slice, read as `Read`; knows whether the stream ended and how
/// many compressed bytes it took.
struct RawInflate<'a> {
    input: &'a [u8],
    consumed: usize,
    ended: bool,
    inflater: Decompress,
}

impl<'a> RawInflate<'a> {
    fn new(input: &'a [u8]) -> Self {
        Self {
            input,
            consumed: 0,
            ended: false,
            inflater: Decompress::new(false),
        }
    }
}

impl Read for RawInflate<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.ended || buf.is_empty() {
                return Ok(0);
            }
            let before_in = self.inflater.total_in();
            let before_out = self.inflater.total_out();
            let status = self
                .inflater
                .decompress(&self.input[self.consumed..], buf, FlushDecompress::None)
                .map_err(|err| io::Error::new(io::ErrorKind::InvalidData, err))?;
            self.consumed += (self.inflater.total_in() - before_in) as usize;
            let produced = (self.inflater.total_out() - before_out) as usize;
            if status == Status::StreamEnd {
                self.ended = true;
            }
            if produced > 0 || self.ended {
                return Ok(produced);
            }
            if self.consumed >= self.input.len() {
                return Ok(0); // input exhausted before the stream's end: cut
            }
            if self.inflater.total_in() == before_in {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "deflate stream makes no progress",
                ));
            }
        }
    }
}

fn read_u16(data: &[u8], at: usize) -> Option<u16> {
    let b = data.get(at..at.checked_add(2)?)?;
    Some(u16::from_le_bytes([b[0], b[1]]))
}

fn read_u32(data: &[u8], at: usize) -> Option<u32> {
    let b = data.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

fn read_u64(data: &[u8], at: usize) -> Option<u64> {
    let b = data.get(at..at.checked_add(8)?)?;
    Some(u64::from_le_bytes(b.try_into().ok()?))
}

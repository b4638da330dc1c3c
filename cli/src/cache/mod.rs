//! The summary cache: what the scan computes from a dependency jar alone, kept on disk between
//! scans (`--cache DIR`; the binary chooses the directory). This is I/O, outside the analysis
//! core: the pipeline asks it before loading and parsing (see [`deps`]).
//!
//! [`Store`] is the directory: one file per entry, named by the entry's key (a 128-bit hash of
//! everything the entry depends on), each with a header (magic, format version, key, payload
//! length, payload checksum). It is
//! - safe when scans share it: an entry is written to a temporary file in the directory and
//!   renamed into place, so a reader sees a whole entry or none;
//! - bounded: after writing, the least recently used entries (by modification time, which a hit
//!   refreshes) are removed until the directory holds at most [`Store::max_bytes`];
//! - self-healing: an entry that does not check (truncated, overwritten, another format) is a
//!   miss; the scan rebuilds it and overwrites it. Nothing the cache meets fails a scan.

pub mod deps;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use xxhash_rust::xxh3::{xxh3_128, xxh3_64};

/// The first bytes of every entry.
pub const MAGIC: &[u8; 8] = b"STLCACHE";
/// The entry layout and encoding; a change makes older entries misses (and they age out).
pub const FORMAT: u32 = 7;
/// Magic, format, key, payload length, checksum.
const HEADER_LEN: usize = 8 + 4 + 16 + 8 + 8;
/// Entries' file name extension; anything else in the directory is left alone (but for our
/// own stale temporary files).
const EXT: &str = "entry";
/// Prefix of the temporary files entries are written to before the rename.
const TMP_PREFIX: &str = ".tmp-";
/// A temporary file older than this was left by a scan that died: removed by eviction.
const STALE_TMP: Duration = Duration::from_secs(3600);
/// The default size bound, 1 GiB.
pub const DEFAULT_MAX_BYTES: u64 = 1 << 30;

/// What went wrong with the cache directory itself (never fatal: the scan runs without it).
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    #[error("cannot create the cache directory {}: {source}", dir.display())]
    CreateDir {
        dir: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write the cache entry {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Why an entry that exists was not used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Corrupt {
    #[error("shorter than its header")]
    Short,
    #[error("not a stalecheck cache entry")]
    Magic,
    #[error("written in cache format {0}, this stalecheck reads {FORMAT}")]
    Format(u32),
    #[error("made for another key")]
    Key,
    #[error("its length does not match its header")]
    Length,
    #[error("its checksum does not match its contents")]
    Checksum,
    #[error("cannot be read: {0}")]
    Read(String),
    #[error("cannot be decoded: {0}")]
    Decode(String),
}

/// An entry's key: a 128-bit hash of everything its contents depend on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Key(pub u128);

impl Key {
    /// The key of a list of parts (each length-prefixed, so that no two lists collide by
    /// concatenation).
    pub fn of(parts: &[&[u8]]) -> Key {
        let mut buf = Vec::new();
        for p in parts {
            buf.extend_from_slice(&(p.len() as u64).to_le_bytes());
            buf.extend_from_slice(p);
        }
        Key(xxh3_128(&buf))
    }

    fn file_name(&self) -> String {
        format!("{:032x}.{EXT}", self.0)
    }
}

/// The content hash of a file's bytes (what a dependency's key starts from).
pub fn content_hash(bytes: &[u8]) -> u128 {
    xxh3_128(bytes)
}

/// The cache directory and its size bound.
#[derive(Clone, Debug)]
pub struct Store {
    dir: PathBuf,
    max_bytes: u64,
}

/// What a look-up found.
#[derive(Debug)]
pub enum Lookup {
    Hit(Vec<u8>),
    Miss,
    /// An entry was there but did not check: a miss, to be rebuilt and overwritten.
    Corrupt(Corrupt),
}

/// Distinguishes the temporary files of one process's threads.
static TMP_COUNTER: AtomicU64 = AtomicU64::new(0);

impl Store {
    /// The store in `dir` (created when the first entry is written), holding at most
    /// `max_bytes` of entries.
    pub fn new(dir: impl Into<PathBuf>, max_bytes: u64) -> Store {
        Store {
            dir: dir.into(),
            max_bytes,
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn max_bytes(&self) -> u64 {
        self.max_bytes
    }

    /// The path of the entry for `key`.
    pub fn path(&self, key: Key) -> PathBuf {
        self.dir.join(key.file_name())
    }

    /// The payload stored under `key`, checked. A hit refreshes the entry's modification time
    /// (what eviction orders by).
    pub fn get(&self, key: Key) -> Lookup {
        let path = self.path(key);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Lookup::Miss,
            Err(e) => return Lookup::Corrupt(Corrupt::Read(e.to_string())),
        };
        match check(&bytes, key) {
            Ok(()) => {
                touch(&path);
                let mut bytes = bytes;
                bytes.drain(..HEADER_LEN);
                Lookup::Hit(bytes)
            }
            Err(c) => Lookup::Corrupt(c),
        }
    }

    /// Stores `payload` under `key`: written to a temporary file in the directory, then renamed
    /// over the entry (atomic: readers see the old entry, the new one, or none).
    pub fn put(&self, key: Key, payload: &[u8]) -> Result<(), CacheError> {
        std::fs::create_dir_all(&self.dir).map_err(|source| CacheError::CreateDir {
            dir: self.dir.clone(),
            source,
        })?;
        let nanos = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let tmp = self.dir.join(format!(
            "{TMP_PREFIX}{}-{}-{nanos}",
            std::process::id(),
            TMP_COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let path = self.path(key);
        let result = (|| {
            let mut f = std::fs::File::create(&tmp)?;
            f.write_all(&header(key, payload))?;
            f.write_all(payload)?;
            f.flush()?;
            drop(f);
            std::fs::rename(&tmp, &path)
        })();
        result.map_err(|source| {
            let _ = std::fs::remove_file(&tmp);
            CacheError::Write { path, source }
        })
    }

    /// Removes the least recently used entries until the entries take at most
    /// [`Store::max_bytes`], and temporary files that scans which died left behind. Returns how
    /// many entries were removed. Errors (an entry another scan removed first) are ignored.
    pub fn evict(&self) -> usize {
        let Ok(dir) = std::fs::read_dir(&self.dir) else {
            return 0;
        };
        let now = SystemTime::now();
        let mut entries: Vec<(SystemTime, String, u64)> = Vec::new();
        for e in dir.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let Ok(meta) = e.metadata() else { continue };
            let modified = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
            if name.starts_with(TMP_PREFIX) {
                if now
                    .duration_since(modified)
                    .is_ok_and(|age| age > STALE_TMP)
                {
                    let _ = std::fs::remove_file(e.path());
                }
            } else if meta.is_file() && name.ends_with(&format!(".{EXT}")) {
                entries.push((modified, name, meta.len()));
            }
        }
        let mut total: u64 = entries.iter().map(|e| e.2).sum();
        if total <= self.max_bytes {
            return 0;
        }
        // Oldest first; the name breaks ties so that two scans evicting at once agree.
        entries.sort();
        let mut removed = 0;
        for (_, name, len) in entries {
            if total <= self.max_bytes {
                break;
            }
            if std::fs::remove_file(self.dir.join(&name)).is_ok() {
                removed += 1;
            }
            total = total.saturating_sub(len);
        }
        removed
    }
}

fn header(key: Key, payload: &[u8]) -> Vec<u8> {
    let mut h = Vec::with_capacity(HEADER_LEN);
    h.extend_from_slice(MAGIC);
    h.extend_from_slice(&FORMAT.to_le_bytes());
    h.extend_from_slice(&key.0.to_le_bytes());
    h.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    h.extend_from_slice(&xxh3_64(payload).to_le_bytes());
    h
}

/// Whether `bytes` is a whole, unchanged entry for `key`.
fn check(bytes: &[u8], key: Key) -> Result<(), Corrupt> {
    let field = |at: usize, len: usize| bytes.get(at..at + len).ok_or(Corrupt::Short);
    let u64_at = |at: usize| -> Result<u64, Corrupt> {
        let mut b = [0u8; 8];
        b.copy_from_slice(field(at, 8)?);
        Ok(u64::from_le_bytes(b))
    };
    if bytes.len() < HEADER_LEN {
        return Err(Corrupt::Short);
    }
    if field(0, 8)? != MAGIC {
        return Err(Corrupt::Magic);
    }
    let mut f = [0u8; 4];
    f.copy_from_slice(field(8, 4)?);
    let format = u32::from_le_bytes(f);
    if format != FORMAT {
        return Err(Corrupt::Format(format));
    }
    let mut k = [0u8; 16];
    k.copy_from_slice(field(12, 16)?);
    if u128::from_le_bytes(k) != key.0 {
        return Err(Corrupt::Key);
    }
    let payload = &bytes[HEADER_LEN..];
    if u64_at(28)? != payload.len() as u64 {
        return Err(Corrupt::Length);
    }
    if u64_at(36)? != xxh3_64(payload) {
        return Err(Corrupt::Checksum);
    }
    Ok(())
}

/// Marks an entry used now (eviction removes the least recently used first).
fn touch(path: &Path) {
    if let Ok(f) = std::fs::File::options().append(true).open(path) {
        let _ = f.set_modified(SystemTime::now());
    }
}

#[cfg(test)]
mod tests;

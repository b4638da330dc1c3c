//! Dependency entries: for each `--classpath` archive, what loading and parsing made of it (its
//! classes in our model, in order, each parse failure, and its load problems), keyed by its
//! bytes. A warm scan reads these instead of inflating and parsing the jar, and decodes only the
//! classes the program reaches ([`Slot::Cached`], [`crate::reach`]).
//!
//! Why the output is the same with and without the cache: an entry holds exactly what
//! [`crate::load::load_each`] and [`crate::pipeline::parse_raw`] give for that one input, and
//! those are functions of the key's parts alone: the archive's bytes (its content hash and
//! length), the path it was named by (every class's display path starts with it), the load
//! [`Limits`] but the memory budget, that it is a classpath entry, and the build of stalecheck
//! that made it (the hash of the executable: another build may parse differently). The pipeline
//! then puts entries and freshly loaded inputs together in argument order, de-duplicates their
//! problems as [`crate::load::load`] does, and goes on as without a cache: the program, its
//! summaries and every rule are computed over the same classes.
//!
//! Not cached: an input whose loading reported an error (the memory budget may have refused part
//! of it, which depends on the other inputs; a broken archive is read again and reported again),
//! scanned inputs and class directories (what changes between scans).

use std::io::Read;
use std::path::{Path, PathBuf};

use bincode::Options;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::{Corrupt, Key, Lookup, Store};
use crate::bytecode::Class;
use crate::diag::{InputProblem, Severity};
use crate::load::{self, InputLoad, Limits, Packaging};

/// What the pipeline passes in: where the cache is and which build asks.
#[derive(Clone, Debug)]
pub struct CacheOptions {
    pub store: Store,
    /// Identifies the build of stalecheck (the binary passes a hash of its executable): entries
    /// of another build are never used.
    pub build_id: u128,
}

/// What the cache did in one scan, for `STALECHECK_TIMINGS` and the binary's notes.
#[derive(Clone, Debug, Default)]
pub struct CacheReport {
    /// Classpath archives found in the cache.
    pub hits: usize,
    /// Classpath archives not found in the cache (loaded, parsed and, unless their loading
    /// reported an error, stored).
    pub misses: usize,
    /// Entries written.
    pub written: usize,
    /// Entries removed to keep the size bound.
    pub evicted: usize,
    /// Entries that did not check and were rebuilt: (path of the archive, why).
    pub corrupt: Vec<(String, Corrupt)>,
    /// Entries that could not be written (the scan went on).
    pub write_errors: Vec<String>,
    /// Hashing the archives (part of `lookup_time`); hashing, reading and decoding entries;
    /// encoding and writing them.
    pub hash_time: std::time::Duration,
    pub lookup_time: std::time::Duration,
    pub store_time: std::time::Duration,
}

/// One input after loading and parsing, as the pipeline goes on with it.
pub struct Parsed {
    /// Every class file's parse result, in the loader's order.
    pub classes: Vec<Result<Slot, InputProblem>>,
    pub packages: Vec<Packaging>,
    pub problems: Vec<InputProblem>,
}

/// A parsed class, or one the cache holds and decodes only when the program needs it (most of
/// a classpath is never reached: see [`crate::reach`]).
pub enum Slot {
    Class(Class),
    Cached(CachedClass),
}

/// A class in a cache entry: what the pipeline looks at before deciding whether to decode it.
pub struct CachedClass {
    stub: Stub,
    entry: std::sync::Arc<Vec<u8>>,
    /// Where its encoded [`Class`] lies in `entry`.
    body: std::ops::Range<usize>,
}

impl Slot {
    pub fn name(&self) -> &str {
        match self {
            Slot::Class(c) => &c.name,
            Slot::Cached(c) => &c.stub.name,
        }
    }
    pub fn path(&self) -> &str {
        match self {
            Slot::Class(c) => &c.path,
            Slot::Cached(c) => &c.stub.path,
        }
    }
    pub fn lost(&self) -> Option<&str> {
        match self {
            Slot::Class(c) => c.lost.as_deref(),
            Slot::Cached(c) => c.stub.lost.as_deref(),
        }
    }
    /// What [`crate::reach`] needs before deciding to decode it.
    pub fn header(&self) -> crate::reach::Header<'_> {
        match self {
            Slot::Class(c) => crate::reach::Header::of(c),
            Slot::Cached(c) => crate::reach::Header {
                name: &c.stub.name,
                library: true,
                supers: c.stub.supers.iter().map(|s| &**s).collect(),
                declares: std::borrow::Cow::Borrowed(&c.stub.declares),
            },
        }
    }
    pub fn library(&self) -> bool {
        match self {
            Slot::Class(c) => c.library,
            Slot::Cached(_) => true,
        }
    }
    /// The class, decoded from its cache entry; `None` for a class that is not encoded. The
    /// entry's checksum held, so a failure here is a bug or a damaged disk: reported with the
    /// class's path.
    pub fn decode_cached(&self) -> Option<Result<Class, InputProblem>> {
        let Slot::Cached(c) = self else {
            return None;
        };
        Some(encoding().deserialize(&c.entry[c.body.clone()]).map_err(|e| {
            InputProblem::error(
                c.stub.path.clone(),
                format!("its cache entry cannot be decoded ({e}); the class was left out; remove the cache directory to rebuild it"),
            )
        }))
    }
    /// The class, if it is decoded.
    pub fn class(&self) -> Option<&Class> {
        match self {
            Slot::Class(c) => Some(c),
            Slot::Cached(_) => None,
        }
    }
    pub fn into_class(self) -> Option<Class> {
        match self {
            Slot::Class(c) => Some(c),
            Slot::Cached(_) => None,
        }
    }
}

/// What an entry's index says of one class: enough to de-duplicate classes by name, report
/// what its parsing lost, decide whether the program needs it ([`crate::reach::Header`]), and
/// find its encoded body.
#[derive(Serialize, Deserialize)]
struct Stub {
    name: Box<str>,
    path: String,
    lost: Option<String>,
    /// Superclass and interfaces.
    supers: Vec<Box<str>>,
    /// [`crate::reach::declared`].
    declares: Vec<u64>,
    /// The length of its encoded [`Class`] (bodies follow the index, in order).
    len: u64,
}

/// An entry's index, as written and as read. The payload is the index's length (8 bytes, little
/// endian), the index, then the encoded classes of its `Ok` stubs, in order.
#[derive(Serialize, Deserialize)]
struct Index {
    classes: Vec<Result<Stub, InputProblem>>,
    problems: Vec<InputProblem>,
}

/// Loads and parses every input, taking classpath archives from the cache when it has them and
/// storing the ones it did not. Returns one [`Parsed`] per input, in argument order (scanned
/// inputs, then the classpath): the same values as loading and parsing each input without a
/// cache. `parse` turns the loaded classes into parse results (in parallel, in order, one
/// result per class).
pub fn load_and_parse(
    inputs: &[PathBuf],
    classpath: &[PathBuf],
    limits: &Limits,
    cache: Option<&CacheOptions>,
    parse: &dyn Fn(Vec<load::RawClass>) -> Vec<Result<Class, InputProblem>>,
    report: &mut CacheReport,
) -> Vec<Parsed> {
    let t = std::time::Instant::now();
    // The key of every cacheable classpath archive, by input index.
    let keys: Vec<Option<Key>> = match cache {
        None => vec![None; inputs.len() + classpath.len()],
        Some(c) => inputs
            .iter()
            .map(|_| None)
            .chain(
                classpath
                    .par_iter()
                    .map(|path| key_of(path, limits, c.build_id))
                    .collect::<Vec<_>>(),
            )
            .collect(),
    };
    report.hash_time = t.elapsed();
    let paths: Vec<&PathBuf> = inputs.iter().chain(classpath).collect();
    let looked: Vec<Result<Option<Parsed>, (String, Corrupt)>> = keys
        .par_iter()
        .zip(paths)
        .map(|(key, path)| {
            let (Some(key), Some(c)) = (key, cache) else {
                return Ok(None);
            };
            let got = match c.store.get(*key) {
                Lookup::Hit(bytes) => decode(bytes).map(Some),
                Lookup::Miss => Ok(None),
                Lookup::Corrupt(e) => Err(e),
            };
            got.map_err(|e| (path.display().to_string(), e))
        })
        .collect();
    let mut found: Vec<Option<Parsed>> = Vec::with_capacity(looked.len());
    for l in looked {
        match l {
            Ok(entry) => found.push(entry),
            Err(corrupt) => {
                report.corrupt.push(corrupt);
                found.push(None);
            }
        }
    }
    report.hits = found.iter().filter(|f| f.is_some()).count();
    report.misses = keys.iter().filter(|k| k.is_some()).count() - report.hits;
    report.lookup_time = t.elapsed();

    let loaded = load::load_each(inputs, classpath, limits, &|i| found[i].is_some());
    // Every class loaded now is parsed in one parallel pass, then handed back to its input.
    let mut raw = Vec::new();
    let mut counts = Vec::with_capacity(loaded.len());
    let mut rest: Vec<Option<(Vec<Packaging>, Vec<InputProblem>)>> = Vec::new();
    for one in loaded {
        match one {
            Some(InputLoad {
                classes,
                packages,
                problems,
            }) => {
                counts.push(classes.len());
                raw.extend(classes);
                rest.push(Some((packages, problems)));
            }
            None => {
                counts.push(0);
                rest.push(None);
            }
        }
    }
    let mut parsed = parse(raw).into_iter();
    let mut out = Vec::with_capacity(rest.len());
    let mut to_store: Vec<(Key, usize)> = Vec::new();
    for (i, ((one, hit), n)) in rest.into_iter().zip(found).zip(counts).enumerate() {
        match (one, hit) {
            (_, Some(entry)) => out.push(entry),
            (Some((packages, problems)), None) => {
                let cacheable =
                    keys[i].is_some() && !problems.iter().any(|p| p.severity == Severity::Error);
                if let (true, Some(key)) = (cacheable, keys[i]) {
                    to_store.push((key, out.len()));
                }
                out.push(Parsed {
                    classes: parsed
                        .by_ref()
                        .take(n)
                        .map(|c| c.map(Slot::Class))
                        .collect(),
                    packages,
                    problems,
                });
            }
            (None, None) => out.push(Parsed {
                classes: Vec::new(),
                packages: Vec::new(),
                problems: Vec::new(),
            }),
        }
    }
    if let Some(c) = cache {
        let t = std::time::Instant::now();
        let results: Vec<Result<(), String>> = to_store
            .par_iter()
            .map(|&(key, i)| {
                let payload = encode(&out[i]).map_err(|e| e.to_string())?;
                c.store.put(key, &payload).map_err(|e| e.to_string())
            })
            .collect();
        for r in results {
            match r {
                Ok(()) => report.written += 1,
                Err(e) => report.write_errors.push(e),
            }
        }
        if report.written > 0 {
            report.evicted = c.store.evict();
        }
        report.store_time = t.elapsed();
    }
    out
}

/// An entry's payload for a freshly parsed input (every class a [`Slot::Class`]).
fn encode(p: &Parsed) -> bincode::Result<Vec<u8>> {
    let mut bodies = Vec::new();
    let mut classes = Vec::with_capacity(p.classes.len());
    for c in &p.classes {
        classes.push(match c {
            Err(problem) => Err(problem.clone()),
            Ok(slot) => {
                let Some(class) = slot.class() else {
                    return Err(Box::new(bincode::ErrorKind::Custom(
                        "a class of a fresh input is still encoded".into(),
                    )));
                };
                let start = bodies.len();
                encoding().serialize_into(&mut bodies, class)?;
                Ok(Stub {
                    name: class.name.clone(),
                    path: class.path.clone(),
                    lost: class.lost.clone(),
                    supers: class
                        .super_name
                        .iter()
                        .chain(&class.interfaces)
                        .cloned()
                        .collect(),
                    declares: crate::reach::declared(class),
                    len: (bodies.len() - start) as u64,
                })
            }
        });
    }
    let index = encoding().serialize(&Index {
        classes,
        problems: p.problems.clone(),
    })?;
    let mut payload = Vec::with_capacity(8 + index.len() + bodies.len());
    payload.extend_from_slice(&(index.len() as u64).to_le_bytes());
    payload.extend_from_slice(&index);
    payload.extend_from_slice(&bodies);
    Ok(payload)
}

/// An entry's index, with its classes left encoded until the program needs them.
fn decode(bytes: Vec<u8>) -> Result<Parsed, Corrupt> {
    let bad = |what: &str| Corrupt::Decode(what.to_string());
    let len: [u8; 8] = bytes
        .get(..8)
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| bad("no index length"))?;
    let index_end = usize::try_from(u64::from_le_bytes(len))
        .ok()
        .and_then(|n| n.checked_add(8))
        .filter(|&end| end <= bytes.len())
        .ok_or_else(|| bad("the index length is past the end"))?;
    let index: Index = encoding()
        .deserialize(&bytes[8..index_end])
        .map_err(|e| Corrupt::Decode(e.to_string()))?;
    let entry = std::sync::Arc::new(bytes);
    let mut at = index_end;
    let mut classes = Vec::with_capacity(index.classes.len());
    for c in index.classes {
        classes.push(match c {
            Err(problem) => Err(problem),
            Ok(stub) => {
                let end = usize::try_from(stub.len)
                    .ok()
                    .and_then(|n| n.checked_add(at))
                    .filter(|&end| end <= entry.len())
                    .ok_or_else(|| bad("a class lies past the end"))?;
                let body = at..end;
                at = end;
                Ok(Slot::Cached(CachedClass {
                    stub,
                    entry: entry.clone(),
                    body,
                }))
            }
        });
    }
    if at != entry.len() {
        return Err(bad("bytes follow the last class"));
    }
    Ok(Parsed {
        classes,
        packages: Vec::new(),
        problems: index.problems,
    })
}

/// Entries are bincode with variable-length integers (most numbers in a class are small), and
/// nothing may follow the value.
fn encoding() -> impl bincode::Options {
    use bincode::Options;
    bincode::DefaultOptions::new()
        .with_varint_encoding()
        .reject_trailing_bytes()
}

/// The key of a classpath entry, when it is an archive that can be cached: its bytes (content
/// hash and length), the path it was named by, the load limits that shape what is read (all but
/// the memory budget), its role, the cache format and the build.
fn key_of(path: &Path, limits: &Limits, build_id: u128) -> Option<Key> {
    let name = path.file_name()?.to_string_lossy();
    if !load::is_archive_name(&name) || !std::fs::metadata(path).ok()?.is_file() {
        return None;
    }
    let (hash, len) = hash_file(path).ok()?;
    let display = path.display().to_string();
    Some(Key::of(&[
        b"stalecheck classpath archive",
        &super::FORMAT.to_le_bytes(),
        &build_id.to_le_bytes(),
        env!("CARGO_PKG_VERSION").as_bytes(),
        &hash.to_le_bytes(),
        &len.to_le_bytes(),
        display.as_bytes(),
        &limits.max_nesting.to_le_bytes(),
        &limits.max_class_bytes.to_le_bytes(),
        &limits.max_entry_bytes.to_le_bytes(),
        &limits.max_total_bytes.to_le_bytes(),
        b"library",
    ]))
}

/// A file's content hash and length, read in 1 MiB chunks.
fn hash_file(path: &Path) -> std::io::Result<(u128, u64)> {
    let mut f = std::fs::File::open(path)?;
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut len = 0u64;
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        len += n as u64;
        h.update(&buf[..n]);
    }
    Ok((h.digest128(), len))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("stalecheck-deps-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn the_key_covers_contents_path_limits_and_build() {
        let d = temp("key");
        let jar = d.join("a.jar");
        std::fs::write(&jar, b"PK not really a jar").unwrap();
        let limits = Limits::default();
        let k = key_of(&jar, &limits, 1).unwrap();
        assert_eq!(
            key_of(&jar, &limits, 1),
            Some(k),
            "the same inputs, the same key"
        );
        assert_ne!(key_of(&jar, &limits, 2), Some(k), "another build");
        let other_limits = Limits {
            max_nesting: 1,
            ..limits
        };
        assert_ne!(key_of(&jar, &other_limits, 1), Some(k), "other limits");
        let budget = Limits {
            memory_budget: 1,
            ..limits
        };
        assert_eq!(
            key_of(&jar, &budget, 1),
            Some(k),
            "the memory budget is not part of the key (entries hold no budget refusals)"
        );
        let copy = d.join("b.jar");
        std::fs::copy(&jar, &copy).unwrap();
        assert_ne!(key_of(&copy, &limits, 1), Some(k), "classes name the path");
        std::fs::write(&jar, b"PK changed").unwrap();
        assert_ne!(key_of(&jar, &limits, 1), Some(k), "other contents");
        // Not cached: class directories, class files, what does not exist.
        assert_eq!(key_of(&d, &limits, 1), None);
        std::fs::create_dir_all(d.join("dir.jar")).unwrap();
        assert_eq!(key_of(&d.join("dir.jar"), &limits, 1), None);
        std::fs::write(d.join("A.class"), b"\xca\xfe\xba\xbe").unwrap();
        assert_eq!(key_of(&d.join("A.class"), &limits, 1), None);
        assert_eq!(key_of(&d.join("missing.jar"), &limits, 1), None);
        std::fs::remove_dir_all(&d).unwrap();
    }

    fn class(name: &str) -> Class {
        Class {
            path: format!("x.jar!/{name}.class"),
            lost: (name == "B").then(|| "a method was dropped".to_string()),
            ..Class::empty(name, Some("java/lang/Object"), true)
        }
    }

    #[test]
    fn entries_round_trip_classes_decode_on_demand_and_garbage_does_not_decode() {
        let problems = vec![InputProblem::note("x.jar", "no class files found")];
        let bad = InputProblem::error("x.jar!/C.class", "not a valid class file: bad");
        let fresh = Parsed {
            classes: vec![
                Ok(Slot::Class(class("A"))),
                Err(bad.clone()),
                Ok(Slot::Class(class("B"))),
            ],
            packages: Vec::new(),
            problems: problems.clone(),
        };
        let bytes = encode(&fresh).unwrap();
        let back = decode(bytes.clone()).unwrap();
        assert_eq!(back.problems, problems);
        assert_eq!(back.classes.len(), 3);
        assert!(matches!(&back.classes[1], Err(p) if *p == bad));
        // Names, paths and what parsing lost are known before a class is decoded.
        let b = back.classes[2].as_ref().unwrap();
        assert!(b.class().is_none(), "left encoded");
        assert_eq!(
            (b.name(), b.path(), b.lost()),
            ("B", "x.jar!/B.class", Some("a method was dropped"))
        );
        let decoded = b.decode_cached().unwrap().unwrap();
        assert_eq!(&*decoded.name, "B");
        assert_eq!(decoded.lost.as_deref(), Some("a method was dropped"));
        assert!(
            Slot::Class(decoded).decode_cached().is_none(),
            "nothing to decode"
        );
        let a = back.classes[0]
            .as_ref()
            .unwrap()
            .decode_cached()
            .unwrap()
            .unwrap();
        assert_eq!((&*a.name, a.lost.as_deref()), ("A", None));

        let mut longer = bytes.clone();
        longer.push(0);
        assert!(
            matches!(decode(longer), Err(Corrupt::Decode(_))),
            "trailing bytes"
        );
        assert!(matches!(
            decode(bytes[..bytes.len() - 1].to_vec()),
            Err(Corrupt::Decode(_))
        ));
        assert!(matches!(decode(vec![0xff; 16]), Err(Corrupt::Decode(_))));
        assert!(matches!(decode(vec![1, 0]), Err(Corrupt::Decode(_))));
        // A body that does not decode (the checksum held, so only a bug makes one) is an
        // error of that class, not a failed scan.
        let mut damaged = bytes.clone();
        let last = damaged.len() - 1;
        damaged[last - 40..=last].fill(0xff);
        if let Ok(d) = decode(damaged) {
            let b = d.classes[2].as_ref().unwrap();
            let e = b.decode_cached().unwrap().map(|_| ()).unwrap_err();
            assert!(e.reason.contains("cache entry cannot be decoded"), "{e:?}");
        }
    }
}

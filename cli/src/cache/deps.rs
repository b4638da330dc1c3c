//! Dependency entries: for each `--classpath` archive, what loading and parsing made of it (its
//! classes in our model, in order, each parse failure, and its load problems), keyed by its
//! bytes. A warm scan reads these instead of inflating and parsing the jar.
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
    pub classes: Vec<Result<Class, InputProblem>>,
    pub packages: Vec<Packaging>,
    pub problems: Vec<InputProblem>,
}

/// An entry as written (borrowing) and as read (owning): the same layout.
#[derive(Serialize)]
struct EntryOut<'a> {
    classes: &'a [Result<Class, InputProblem>],
    problems: &'a [InputProblem],
}

#[derive(Deserialize)]
struct EntryIn {
    classes: Vec<Result<Class, InputProblem>>,
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
    let looked: Vec<Result<Option<EntryIn>, (String, Corrupt)>> = keys
        .par_iter()
        .zip(paths)
        .map(|(key, path)| {
            let (Some(key), Some(c)) = (key, cache) else {
                return Ok(None);
            };
            let got = match c.store.get(*key) {
                Lookup::Hit(bytes) => decode(&bytes).map(Some),
                Lookup::Miss => Ok(None),
                Lookup::Corrupt(e) => Err(e),
            };
            got.map_err(|e| (path.display().to_string(), e))
        })
        .collect();
    let mut found: Vec<Option<EntryIn>> = Vec::with_capacity(looked.len());
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
            (_, Some(entry)) => {
                out.push(Parsed {
                    classes: entry.classes,
                    packages: Vec::new(),
                    problems: entry.problems,
                });
            }
            (Some((packages, problems)), None) => {
                let cacheable =
                    keys[i].is_some() && !problems.iter().any(|p| p.severity == Severity::Error);
                if let (true, Some(key)) = (cacheable, keys[i]) {
                    to_store.push((key, out.len()));
                }
                out.push(Parsed {
                    classes: parsed.by_ref().take(n).collect(),
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
                let p = &out[i];
                let payload = encoding()
                    .serialize(&EntryOut {
                        classes: &p.classes,
                        problems: &p.problems,
                    })
                    .map_err(|e| e.to_string())?;
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

fn decode(bytes: &[u8]) -> Result<EntryIn, Corrupt> {
    encoding()
        .deserialize(bytes)
        .map_err(|e| Corrupt::Decode(e.to_string()))
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

    #[test]
    fn entries_round_trip_and_garbage_does_not_decode() {
        let problems = vec![InputProblem::note("x.jar", "no class files found")];
        let classes: Vec<Result<Class, InputProblem>> = vec![Err(InputProblem::error(
            "x.jar!/A.class",
            "not a valid class file: bad",
        ))];
        let bytes = encoding()
            .serialize(&EntryOut {
                classes: &classes,
                problems: &problems,
            })
            .unwrap();
        let back = decode(&bytes).unwrap();
        assert_eq!(back.problems, problems);
        assert_eq!(back.classes.len(), 1);
        assert!(matches!(&back.classes[0], Err(p) if p == classes[0].as_ref().unwrap_err()));
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(
            matches!(decode(&longer), Err(Corrupt::Decode(_))),
            "trailing bytes"
        );
        assert!(matches!(
            decode(&bytes[..bytes.len() - 1]),
            Err(Corrupt::Decode(_))
        ));
        assert!(matches!(decode(&[0xff; 16]), Err(Corrupt::Decode(_))));
    }
}

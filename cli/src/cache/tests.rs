//! The store on a real temporary directory: keys, the header check, atomic replacement,
//! eviction of the least recently used entries.

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use super::*;

/// A fresh directory under the system's temporary directory, removed at the end.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!(
            "stalecheck-cache-test-{name}-{}-{}",
            std::process::id(),
            SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos())
        ));
        let _ = std::fs::remove_dir_all(&dir);
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn hit(l: Lookup) -> Vec<u8> {
    match l {
        Lookup::Hit(b) => b,
        other => panic!("expected a hit, got {other:?}"),
    }
}

#[test]
fn keys_depend_on_every_part_and_its_boundaries() {
    let k = Key::of(&[b"ab", b"c"]);
    assert_eq!(k, Key::of(&[b"ab", b"c"]));
    assert_ne!(k, Key::of(&[b"a", b"bc"]), "parts are length-prefixed");
    assert_ne!(k, Key::of(&[b"ab", b"d"]));
    assert_ne!(k, Key::of(&[b"ab", b"c", b""]));
    assert_ne!(content_hash(b"x"), content_hash(b"y"));
}

#[test]
fn put_then_get_round_trips_and_misses_other_keys() {
    let d = TempDir::new("roundtrip");
    let s = Store::new(&d.0, DEFAULT_MAX_BYTES);
    let k = Key::of(&[b"one"]);
    assert!(matches!(s.get(k), Lookup::Miss), "no directory yet");
    s.put(k, b"payload").unwrap();
    assert_eq!(hit(s.get(k)), b"payload");
    assert!(matches!(s.get(Key::of(&[b"two"])), Lookup::Miss));
    // Overwriting replaces the entry; no temporary file is left behind.
    s.put(k, b"second").unwrap();
    assert_eq!(hit(s.get(k)), b"second");
    let names: Vec<String> = std::fs::read_dir(&d.0)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec![k.file_name()]);
}

#[test]
fn every_kind_of_damage_is_a_corrupt_entry() {
    let d = TempDir::new("corrupt");
    let s = Store::new(&d.0, DEFAULT_MAX_BYTES);
    let k = Key::of(&[b"k"]);
    s.put(k, b"some payload bytes").unwrap();
    let good = std::fs::read(s.path(k)).unwrap();
    let damaged = |f: &dyn Fn(&mut Vec<u8>)| {
        let mut b = good.clone();
        f(&mut b);
        std::fs::write(s.path(k), &b).unwrap();
        match s.get(k) {
            Lookup::Corrupt(c) => c,
            other => panic!("expected a corrupt entry, got {other:?}"),
        }
    };
    assert_eq!(damaged(&|b| b.truncate(10)), Corrupt::Short);
    assert_eq!(damaged(&|b| b[0] = b'X'), Corrupt::Magic);
    assert_eq!(
        damaged(&|b| b[8..12].copy_from_slice(&(FORMAT + 1).to_le_bytes())),
        Corrupt::Format(FORMAT + 1)
    );
    assert_eq!(damaged(&|b| b[12] ^= 1), Corrupt::Key);
    assert_eq!(damaged(&|b| b.truncate(b.len() - 1)), Corrupt::Length);
    assert_eq!(damaged(&|b| b.push(0)), Corrupt::Length);
    assert_eq!(
        damaged(&|b| {
            let last = b.len() - 1;
            b[last] ^= 0x20
        }),
        Corrupt::Checksum
    );
    // Rebuilt: written again, it is a hit.
    s.put(k, b"some payload bytes").unwrap();
    assert_eq!(hit(s.get(k)), b"some payload bytes");
}

/// Sets an entry's modification time `secs_ago` seconds in the past.
fn age(s: &Store, k: Key, secs_ago: u64) {
    let f = std::fs::File::options()
        .append(true)
        .open(s.path(k))
        .unwrap();
    f.set_modified(SystemTime::now() - Duration::from_secs(secs_ago))
        .unwrap();
}

#[test]
fn eviction_removes_least_recently_used_entries_to_the_bound() {
    let d = TempDir::new("evict");
    let payload = vec![7u8; 1000];
    let entry = (HEADER_LEN + payload.len()) as u64;
    // Room for two entries.
    let s = Store::new(&d.0, 2 * entry + 10);
    let (a, b, c) = (Key::of(&[b"a"]), Key::of(&[b"b"]), Key::of(&[b"c"]));
    for k in [a, b, c] {
        s.put(k, &payload).unwrap();
    }
    age(&s, a, 300);
    age(&s, b, 200);
    age(&s, c, 100);
    // A hit makes `a` the most recently used.
    hit(s.get(a));
    // Something that is not an entry is left alone, and not counted.
    std::fs::write(d.0.join("README"), vec![0u8; 5000]).unwrap();
    assert_eq!(s.evict(), 1);
    assert!(matches!(s.get(b), Lookup::Miss), "the oldest goes first");
    hit(s.get(a));
    hit(s.get(c));
    assert!(d.0.join("README").exists());
    assert_eq!(s.evict(), 0, "already within the bound");
}

#[test]
fn stale_temporary_files_are_removed_and_fresh_ones_kept() {
    let d = TempDir::new("tmp");
    let s = Store::new(&d.0, DEFAULT_MAX_BYTES);
    s.put(Key::of(&[b"x"]), b"x").unwrap();
    let old = d.0.join(format!("{TMP_PREFIX}1-2-3"));
    let new = d.0.join(format!("{TMP_PREFIX}4-5-6"));
    std::fs::write(&old, b"partial").unwrap();
    std::fs::write(&new, b"partial").unwrap();
    std::fs::File::options()
        .append(true)
        .open(&old)
        .unwrap()
        .set_modified(SystemTime::now() - STALE_TMP - Duration::from_secs(60))
        .unwrap();
    s.evict();
    assert!(!old.exists());
    assert!(new.exists(), "another scan may be writing it");
}

#[test]
fn an_unwritable_directory_is_an_error_not_a_panic() {
    let d = TempDir::new("unwritable");
    std::fs::write(&d.0, b"a file where the directory should be").unwrap();
    let s = Store::new(d.0.join("sub"), DEFAULT_MAX_BYTES);
    assert!(matches!(
        s.put(Key::of(&[b"k"]), b"v"),
        Err(CacheError::CreateDir { .. })
    ));
    assert!(matches!(
        s.get(Key::of(&[b"k"])),
        Lookup::Miss | Lookup::Corrupt(_)
    ));
    assert_eq!(s.evict(), 0);
    let _ = std::fs::remove_file(&d.0);
}

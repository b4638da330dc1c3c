//! Fingerprints for matching results across runs (`partialFingerprints`).
//!
//! * [`STALECHECK_V1`]: our own, line-independent fingerprint. The caller gives each result a
//!   *key* made of parts that survive edits elsewhere in the file (for stalecheck: the rule, the
//!   class, the method with its descriptor and the fields or methods the finding is about);
//!   [`ordinal_fingerprints`] hashes each key and appends the ordinal of the result among those
//!   with an equal key (`<16 hex digits>:<n>`), in the order given.
//! * [`PRIMARY_LOCATION_LINE_HASH`]: GitHub code scanning's hash of the source line of the
//!   primary location, computed by [`line_hashes`] exactly as GitHub's upload action does (a
//!   rolling hash over the next 100 non-blank characters from the start of each line).

use std::collections::HashMap;

/// Key of our own fingerprint in `partialFingerprints`.
pub const STALECHECK_V1: &str = "stalecheck/v1";

/// Key of GitHub's line hash in `partialFingerprints`.
pub const PRIMARY_LOCATION_LINE_HASH: &str = "primaryLocationLineHash";

/// A stable 64-bit hash (FNV-1a) of the parts, each terminated by a NUL byte so that
/// `["ab", "c"]` and `["a", "bc"]` differ. Stable across platforms and releases.
pub fn key_hash(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for b in part.bytes().chain(std::iter::once(0u8)) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

/// The fingerprints (`<hash>:<ordinal>`) of results with the given keys: the ordinal counts,
/// from 1, the results with an equal key in the order given.
pub fn ordinal_fingerprints<K: AsRef<[String]>>(keys: &[K]) -> Vec<String> {
    let mut seen: HashMap<u64, u32> = HashMap::new();
    keys.iter()
        .map(|k| {
            let parts: Vec<&str> = k.as_ref().iter().map(String::as_str).collect();
            let h = key_hash(&parts);
            let n = seen.entry(h).or_insert(0);
            *n += 1;
            format!("{h:016x}:{n}")
        })
        .collect()
}

const BLOCK_SIZE: usize = 100;
const MOD: u64 = 37;
const EOF: u64 = 65535;

/// GitHub's `primaryLocationLineHash` of every line of `text`: element `i` is the hash of line
/// `i + 1`. Line ends `\n`, `\r\n` and `\r` count alike; spaces and tabs are ignored; the text
/// is taken as UTF-16 code units, as GitHub's action (JavaScript) reads it.
pub fn line_hashes(text: &str) -> Vec<String> {
    let first_mod = (0..BLOCK_SIZE).fold(1u64, |m, _| m.wrapping_mul(MOD));
    let mut window = [0u64; BLOCK_SIZE];
    let mut line_numbers = [0usize; BLOCK_SIZE]; // 0: not the start of a line
    let mut hash: u64 = 0;
    let mut index = 0usize;
    let mut line_number = 0usize;
    let mut line_start = true;
    let mut prev_cr = false;
    let mut counts: HashMap<u64, u32> = HashMap::new();
    let mut out: Vec<String> = Vec::new();

    let mut output = |hash: u64, line: usize, out: &mut Vec<String>| {
        let n = counts.entry(hash).or_insert(0);
        *n += 1;
        if out.len() < line {
            out.resize(line, String::new());
        }
        out[line - 1] = format!("{hash:x}:{n}");
    };
    let update = |hash: &mut u64, index: &mut usize, window: &mut [u64; BLOCK_SIZE], c: u64| {
        let begin = window[*index];
        window[*index] = c;
        *hash = MOD
            .wrapping_mul(*hash)
            .wrapping_add(c)
            .wrapping_sub(first_mod.wrapping_mul(begin));
        *index = (*index + 1) % BLOCK_SIZE;
    };

    let units = text
        .encode_utf16()
        .map(u64::from)
        .chain(std::iter::once(EOF));
    for mut c in units {
        if c == u64::from(b' ') || c == u64::from(b'\t') || (prev_cr && c == u64::from(b'\n')) {
            prev_cr = false;
            continue;
        }
        if c == u64::from(b'\r') {
            c = u64::from(b'\n');
            prev_cr = true;
        } else {
            prev_cr = false;
        }
        if line_numbers[index] != 0 {
            output(hash, line_numbers[index], &mut out);
            line_numbers[index] = 0;
        }
        if line_start {
            line_start = false;
            line_number += 1;
            line_numbers[index] = line_number;
        }
        if c == u64::from(b'\n') {
            line_start = true;
        }
        update(&mut hash, &mut index, &mut window, c);
    }
    for _ in 0..BLOCK_SIZE {
        if line_numbers[index] != 0 {
            output(hash, line_numbers[index], &mut out);
            line_numbers[index] = 0;
        }
        update(&mut hash, &mut index, &mut window, 0);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected values: GitHub's own test vectors for its line hash.
    #[test]
    fn line_hashes_match_githubs() {
        assert_eq!(line_hashes(""), vec!["c129715d7a2bc9a3:1"]);
        assert_eq!(
            line_hashes(" a\nb\n  \t\tc\n d"),
            vec![
                "271789c17abda88f:1",
                "54703d4cd895b18:1",
                "180aee12dab6264:1",
                "a23a3dc5e078b07b:1"
            ]
        );
        let expected = vec![
            "e9496ae3ebfced30:1",
            "fb7c023a8b9ccb3f:1",
            "ce8ba1a563dcdaca:1",
            "e20e36e16fcb0cc8:1",
            "b3edc88f2938467e:1",
            "c8e28b0b4002a3a0:1",
            "c129715d7a2bc9a3:1",
        ];
        for text in [
            " hello; \t\nworld!!!\n\n\n  \t\tGreetings\n End\n",
            " hello; \t\nworld!!!\r\r\r  \t\tGreetings\r End\r",
            " hello; \t\r\nworld!!!\r\n\r\n\r\n  \t\tGreetings\r\n End\r\n",
            " hello; \t\nworld!!!\r\n\n\r  \t\tGreetings\r End\r\n",
        ] {
            assert_eq!(line_hashes(text), expected, "{text:?}");
        }
        let lorem = "Lorem ipsum dolor sit amet.\n".repeat(10);
        assert_eq!(
            line_hashes(&lorem),
            vec![
                "a7f2ff13bc495cf2:1",
                "a7f2ff13bc495cf2:2",
                "a7f2ff13bc495cf2:3",
                "a7f2ff13bc495cf2:4",
                "a7f2ff13bc495cf2:5",
                "a7f2ff13bc495cf2:6",
                "a7f2ff1481e87703:1",
                "a9cf91f7bbf1862b:1",
                "55ec222b86bcae53:1",
                "cc97dc7b1d7d8f7b:1",
                "c129715d7a2bc9a3:1"
            ]
        );
    }

    #[test]
    fn ordinals_count_equal_keys() {
        let k = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let fps = ordinal_fingerprints(&[k(&["a", "b"]), k(&["a", "c"]), k(&["a", "b"])]);
        assert!(fps[0].ends_with(":1") && fps[1].ends_with(":1") && fps[2].ends_with(":2"));
        assert_eq!(fps[0].split(':').next(), fps[2].split(':').next());
        assert_ne!(fps[0], fps[1]);
        assert_ne!(key_hash(&["ab", "c"]), key_hash(&["a", "bc"]));
        // Stable across releases: a baseline written today must match tomorrow.
        assert_eq!(key_hash(&[]), 0xcbf2_9ce4_8422_2325);
        assert_eq!(format!("{:016x}", key_hash(&["a"])), "089be207b544f1e4");
    }
}

//! Hostile and unusual input, made by the test in a scratch directory and scanned by the binary
//! under an address-space limit of 2 GiB for the whole process: zip bombs (entries of 500 MiB,
//! three copies of a jar of seven of them), a nested archive in the style of 42.zip, an entry
//! whose declared size is a lie, a truncated jar, a jar holding one name a thousand times, FIFOs
//! named like a class and a jar, and a class whose parsing panics. The scan must end with a
//! report every time, the valid classes beside them scanned, one problem per bad input, and
//! nothing from the contained panic on standard error.
//!
//! `STALECHECK_HOSTILE_OUT=DIR` keeps the inputs in DIR (`bench/hostile.sh` measures the peak
//! memory of scanning each).

mod common;

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use flate2::write::DeflateEncoder;
use flate2::{Compression, Crc};

const MIB: usize = 1 << 20;

/// The address-space limit of the scanning process.
const LIMIT_BYTES: u64 = 2 << 30;

/// Valid classes put inside the hostile archives (none of them elsewhere).
const EXTRA: &[(&str, &str)] = &[
    (
        "hostile/A.java",
        "package hostile; public class A { int a; }",
    ),
    (
        "hostile/B.java",
        "package hostile; public class B { int b; }",
    ),
    (
        "hostile/C.java",
        "package hostile; public class C { int c; }",
    ),
];

/// Entries of 60 MiB (under the class-file limit) in `fat.jar`: more than the memory budget.
const FAT_ENTRIES: usize = 24;

const BUGGY: &str = r#"package hostile;

public class Buggy {
    private final Object lock = new Object();
    private int field;

    public void inc() {
        int tmp;
        synchronized (lock) {
            tmp = field;
        }
        tmp++;
        synchronized (lock) {
            field = tmp;
        }
    }
}
"#;

/// An entry of a hand-written zip: its name, its data deflated (or stored), its CRC and size.
#[derive(Clone)]
struct Entry {
    name: String,
    method: u16,
    data: Vec<u8>,
    crc: u32,
    size: u64,
}

impl Entry {
    fn deflated(name: &str, plain: &[u8]) -> Self {
        let mut encoder = DeflateEncoder::new(Vec::new(), Compression::best());
        encoder.write_all(plain).unwrap();
        let mut crc = Crc::new();
        crc.update(plain);
        Self {
            name: name.to_owned(),
            method: 8,
            data: encoder.finish().unwrap(),
            crc: crc.sum(),
            size: plain.len() as u64,
        }
    }

    fn renamed(&self, name: &str) -> Self {
        Self {
            name: name.to_owned(),
            ..self.clone()
        }
    }
}

/// `size` zero bytes, deflated, without holding them all at once.
fn zeros(name: &str, size: usize) -> Entry {
    let chunk = vec![0u8; 4 * MIB];
    // The best compression: a deflate stream of zeros is periodic, so that archives of it
    // compress again (as in 42.zip).
    let mut encoder = DeflateEncoder::new(Vec::new(), Compression::best());
    let mut crc = Crc::new();
    let mut left = size;
    while left > 0 {
        let n = left.min(chunk.len());
        encoder.write_all(&chunk[..n]).unwrap();
        crc.update(&chunk[..n]);
        left -= n;
    }
    Entry {
        name: name.to_owned(),
        method: 8,
        data: encoder.finish().unwrap(),
        crc: crc.sum(),
        size: size as u64,
    }
}

/// A zip of `entries` as given (names may repeat; `declared`, when given, replaces every
/// entry's uncompressed size in the headers: a lie).
fn zip(entries: &[Entry], declared: Option<u32>) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for e in entries {
        let size = declared.unwrap_or(e.size as u32);
        let offset = out.len() as u32;
        let mut common = Vec::new();
        common.extend_from_slice(&0u16.to_le_bytes()); // flags
        common.extend_from_slice(&e.method.to_le_bytes());
        common.extend_from_slice(&[0; 4]); // time, date
        common.extend_from_slice(&e.crc.to_le_bytes());
        common.extend_from_slice(&(e.data.len() as u32).to_le_bytes());
        common.extend_from_slice(&size.to_le_bytes());
        common.extend_from_slice(&(e.name.len() as u16).to_le_bytes());
        common.extend_from_slice(&0u16.to_le_bytes()); // extra
        out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        out.extend_from_slice(&20u16.to_le_bytes());
        out.extend_from_slice(&common);
        out.extend_from_slice(e.name.as_bytes());
        out.extend_from_slice(&e.data);
        central.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        central.extend_from_slice(&20u16.to_le_bytes());
        central.extend_from_slice(&20u16.to_le_bytes());
        central.extend_from_slice(&common);
        central.extend_from_slice(&[0; 10]); // comment, disk, attributes
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(e.name.as_bytes());
    }
    let start = out.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&start.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}

/// What one hostile input must give: the path of its one problem (relative to the inputs
/// directory), and words its reason must contain.
struct Expect {
    rel: &'static str,
    reason: &'static str,
}

/// Writes the hostile inputs and the valid ones into `dir`; returns what each must give.
fn write_inputs(dir: &Path, valid_classes: &Path, extra_classes: &Path) -> Vec<Expect> {
    let big = zeros("x.class", 500 * MIB);
    let mut expect = Vec::new();

    // Seven entries of 500 MiB each (declared honestly), three copies of the jar.
    let seven: Vec<Entry> = (0..7)
        .map(|i| big.renamed(&format!("p/Big{i}.class")))
        .collect();
    let seven_jar = zip(&seven, None);
    for copy in [
        "bombs/seven-1.jar",
        "bombs/seven-2.jar",
        "bombs/seven-3.jar",
    ] {
        write(dir, copy, &seven_jar);
    }
    for (copy, rels) in [
        ("bombs/seven-1.jar", SEVEN_1),
        ("bombs/seven-2.jar", SEVEN_2),
        ("bombs/seven-3.jar", SEVEN_3),
    ] {
        let _ = copy;
        for rel in rels {
            expect.push(Expect {
                rel,
                reason: "more than any class file can be",
            });
        }
    }

    // One entry declaring 100 bytes, inflating to 500 MiB.
    write(
        dir,
        "bombs/liar.jar",
        &zip(&[big.renamed("p/Liar.class")], Some(100)),
    );
    expect.push(Expect {
        rel: "bombs/liar.jar!/p/Liar.class",
        reason: "more than any class file can be",
    });

    // 42.zip: five levels of sixteen archives each, a class of 500 MiB in each of the 1,048,576
    // archives at the bottom (16 TiB in all).
    let mut level = zip(&[big.renamed("p/Page.class")], None);
    for _ in 0..5 {
        let inner = Entry::deflated("x.zip", &level);
        let entries: Vec<Entry> = (0..16)
            .map(|i| inner.renamed(&format!("{i:x}.zip")))
            .collect();
        level = zip(&entries, None);
    }
    write(dir, "bombs/42.zip", &level);
    expect.push(Expect {
        rel: "bombs/42.zip!/0.zip!/0.zip!/0.zip!/0.zip!/0.zip",
        reason: "archive nested deeper than 4 levels; skipped, with 1048575 more archives nested as deep in this input",
    });

    // A jar cut short: its first classes are whole.
    let good: Vec<Entry> = common::class_entries(extra_classes)
        .iter()
        .map(|(name, bytes)| Entry::deflated(name, bytes))
        .collect();
    let mut cut_entries = vec![good[0].renamed("cut/A.class")];
    cut_entries.push(zeros("cut/Tail.class", MIB));
    let cut = zip(&cut_entries, None);
    let tail_at = cut.len() - cut_entries.last().unwrap().data.len() / 2;
    write(dir, "bombs/cut.jar", &cut[..tail_at - 200]);
    expect.push(Expect {
        rel: "bombs/cut.jar",
        reason: "the archive is truncated",
    });

    // Classes of 60 MiB each (a class-file header, then zeros): together over the budget.
    let mut fat = vec![0u8; 60 * MIB];
    fat[..4].copy_from_slice(&[0xCA, 0xFE, 0xBA, 0xBE]);
    let fat = Entry::deflated("x.class", &fat);
    let fat: Vec<Entry> = (0..FAT_ENTRIES)
        .map(|i| fat.renamed(&format!("fat/F{i:02}.class")))
        .collect();
    write(dir, "budget/fat.jar", &zip(&fat, None));

    // One name a thousand times.
    let mut dups: Vec<Entry> = (0..1000)
        .map(|_| good[1].renamed("dup/Same.class"))
        .collect();
    dups.push(good[2].renamed("dup/Other.class"));
    write(dir, "bombs/dups.jar", &zip(&dups, None));
    expect.push(Expect {
        rel: "bombs/dups.jar!/dup/Same.class",
        reason: "the archive holds 1000 entries of this name; the last one was used",
    });

    // FIFOs named like a class and a jar, in a scanned directory.
    for rel in ["bombs/fifo/Pipe.class", "bombs/fifo/pipe.jar"] {
        let path = dir.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let status = Command::new("mkfifo").arg(&path).status().expect("mkfifo");
        assert!(status.success());
    }
    expect.push(Expect {
        rel: "bombs/fifo/Pipe.class",
        reason: "is a named pipe (FIFO), not a regular file",
    });
    expect.push(Expect {
        rel: "bombs/fifo/pipe.jar",
        reason: "is a named pipe (FIFO), not a regular file",
    });

    // A class whose parsing panics (injected): reported once, nothing on stderr.
    write(
        dir,
        "bombs/panic/Victim.class",
        &fs::read(valid_classes.join("hostile/Buggy.class")).unwrap(),
    );
    expect.push(Expect {
        rel: "bombs/panic/Victim.class",
        reason: "the parser failed on it",
    });
    expect
}

const SEVEN_1: &[&str] = &[
    "bombs/seven-1.jar!/p/Big0.class",
    "bombs/seven-1.jar!/p/Big1.class",
    "bombs/seven-1.jar!/p/Big2.class",
    "bombs/seven-1.jar!/p/Big3.class",
    "bombs/seven-1.jar!/p/Big4.class",
    "bombs/seven-1.jar!/p/Big5.class",
    "bombs/seven-1.jar!/p/Big6.class",
];
const SEVEN_2: &[&str] = &[
    "bombs/seven-2.jar!/p/Big0.class",
    "bombs/seven-2.jar!/p/Big1.class",
    "bombs/seven-2.jar!/p/Big2.class",
    "bombs/seven-2.jar!/p/Big3.class",
    "bombs/seven-2.jar!/p/Big4.class",
    "bombs/seven-2.jar!/p/Big5.class",
    "bombs/seven-2.jar!/p/Big6.class",
];
const SEVEN_3: &[&str] = &[
    "bombs/seven-3.jar!/p/Big0.class",
    "bombs/seven-3.jar!/p/Big1.class",
    "bombs/seven-3.jar!/p/Big2.class",
    "bombs/seven-3.jar!/p/Big3.class",
    "bombs/seven-3.jar!/p/Big4.class",
    "bombs/seven-3.jar!/p/Big5.class",
    "bombs/seven-3.jar!/p/Big6.class",
];

fn write(dir: &Path, rel: &str, bytes: &[u8]) {
    let path = dir.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, bytes).unwrap();
}

/// Runs the binary with its address space limited to [`LIMIT_BYTES`] (`prlimit`, else the
/// shell's `ulimit -v`).
fn scan_limited(cwd: &Path, args: &[&str]) -> std::process::Output {
    let bin = env!("CARGO_BIN_EXE_stalecheck");
    let mut command = if Path::new("/usr/bin/prlimit").is_file() {
        let mut c = Command::new("/usr/bin/prlimit");
        c.arg(format!("--as={LIMIT_BYTES}")).arg("--").arg(bin);
        c
    } else {
        let mut c = Command::new("sh");
        c.arg("-c")
            .arg(format!(
                "ulimit -v {} && exec \"$0\" \"$@\"",
                LIMIT_BYTES / 1024
            ))
            .arg(bin);
        c
    };
    command
        .current_dir(cwd)
        .args(args)
        .env("STALECHECK_DEBUG_PANIC", "parse:Victim.class")
        .output()
        .expect("run stalecheck")
}

#[test]
fn hostile_inputs_scan_to_a_report_under_a_2_gib_limit() {
    let dir = match std::env::var_os("STALECHECK_HOSTILE_OUT") {
        Some(out) => PathBuf::from(out),
        None => common::scratch_dir("hostile"),
    };
    let valid = dir.join("valid");
    common::compile_sources(
        &dir.join("src"),
        &valid,
        "17",
        &[("hostile/Buggy.java", BUGGY)],
    );
    let extra = dir.join("extra");
    common::compile_sources(&dir.join("src-extra"), &extra, "17", EXTRA);
    let expect = write_inputs(&dir, &valid, &extra);

    // Everything but the budget: each bad input is refused by a limit of its own.
    let (report, stdout, stderr) = scan_checked(&dir, &["valid", "bombs", "bombs/fifo/pipe.jar"]);
    // The contained panic: once on stderr, as the problem it is.
    let victim: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("Victim.class"))
        .collect();
    assert_eq!(victim.len(), 1, "{stderr}");
    let findings = report["findings"].as_array().unwrap();
    let classes: Vec<&str> = findings
        .iter()
        .filter_map(|f| f["class"].as_str())
        .collect();
    assert!(classes.contains(&"hostile.Buggy"), "{findings:#?}");
    // Buggy; A from the truncated jar; B (the used copy) and C from the duplicates' jar.
    assert_eq!(report["summary"]["classes"], 4, "{stdout}");
    let problems = report["problems"].as_array().unwrap();
    let unexpected: Vec<&serde_json::Value> = problems
        .iter()
        .filter(|p| !expect.iter().any(|e| p["path"] == e.rel))
        .collect();
    assert!(
        unexpected.is_empty(),
        "problems for no bad input: {unexpected:#?}"
    );
    for e in &expect {
        let mine: Vec<&serde_json::Value> =
            problems.iter().filter(|p| p["path"] == e.rel).collect();
        assert_eq!(
            mine.len(),
            1,
            "{}: one problem wanted, got {mine:#?}",
            e.rel
        );
        let reason = mine[0]["reason"].as_str().unwrap();
        assert!(reason.contains(e.reason), "{}: {reason}", e.rel);
    }
    let truncated = problems
        .iter()
        .find(|p| p["path"] == "bombs/cut.jar")
        .unwrap();
    assert!(
        truncated["reason"]
            .as_str()
            .unwrap()
            .contains("1 whole entry was read from its local header"),
        "{truncated}"
    );

    // The same problems in every output format: text (stderr) and SARIF (notifications).
    let subset: Vec<&Expect> = expect
        .iter()
        .filter(|e| !e.rel.starts_with("bombs/seven"))
        .collect();
    let inputs = [
        "bombs/cut.jar",
        "bombs/dups.jar",
        "bombs/fifo",
        "bombs/liar.jar",
        "bombs/42.zip",
        "bombs/panic",
    ];
    let mut args = vec!["scan"];
    args.extend_from_slice(&inputs);
    args.push("--no-progress");
    let text = scan_limited(&dir, &args);
    let stderr = String::from_utf8_lossy(&text.stderr);
    assert_eq!(text.status.code(), Some(2), "{stderr}");
    args.extend_from_slice(&["--format", "sarif"]);
    let sarif = scan_limited(&dir, &args);
    let log: serde_json::Value = serde_json::from_slice(&sarif.stdout).expect("a SARIF log");
    let notes = log["runs"][0]["invocations"][0]["toolExecutionNotifications"]
        .as_array()
        .expect("notifications");
    for e in &subset {
        let lines = stderr
            .lines()
            .filter(|l| l.contains(&format!(" {}: ", e.rel)))
            .count();
        assert_eq!(lines, 1, "{} once on stderr:\n{stderr}", e.rel);
        let in_sarif = notes
            .iter()
            .filter(|n| {
                n["message"]["text"]
                    .as_str()
                    .is_some_and(|t| t.starts_with(&format!("{}: ", e.rel)))
            })
            .count();
        assert_eq!(in_sarif, 1, "{} once in SARIF: {notes:#?}", e.rel);
    }
    assert_eq!(notes.len(), subset.len(), "{notes:#?}");

    // The budget: classes of 60 MiB, more of them than 1 GiB holds.
    let (report, stdout, _) = scan_checked(&dir, &["valid", "budget"]);
    let findings = report["findings"].as_array().unwrap();
    assert!(
        findings.iter().any(|f| f["class"] == "hostile.Buggy"),
        "{stdout}"
    );
    let problems = report["problems"].as_array().unwrap();
    let mut fat_kept = 0;
    let mut budget = Vec::new();
    for p in problems {
        let path = p["path"].as_str().unwrap();
        let reason = p["reason"].as_str().unwrap();
        if path.starts_with("budget/fat.jar!/fat/F") && reason.starts_with("not a valid class file")
        {
            // A class the budget could pay for: kept, and refused by the parser.
            fat_kept += 1;
        } else if path == "budget/fat.jar"
            && reason.ends_with("skipped: the scan's memory budget (1024 MiB) was used up")
        {
            budget.push(reason);
        } else {
            panic!("unexpected problem {p}");
        }
    }
    assert_eq!(budget.len(), 1, "{problems:#?}");
    let skipped: usize = budget[0]
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(fat_kept + skipped, FAT_ENTRIES, "{problems:#?}");
    assert!(fat_kept >= 1 && skipped >= 1, "{problems:#?}");

    // --memory-budget sets the budget: 200 MiB hold three of the classes at most.
    let (report, _, _) = scan_checked(&dir, &["budget", "--memory-budget", "200"]);
    let budget = report["problems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["path"] == "budget/fat.jar")
        .expect("the budget's problem");
    let reason = budget["reason"].as_str().unwrap();
    assert!(
        reason.ends_with("skipped: the scan's memory budget (200 MiB) was used up"),
        "{reason}"
    );
    let skipped: usize = reason.split_whitespace().next().unwrap().parse().unwrap();
    assert!(skipped >= FAT_ENTRIES - 3, "{reason}");

    // So does `memory-budget` in stalecheck.toml.
    std::fs::write(dir.join("budget.toml"), "memory-budget = 200\n").expect("write the config");
    let (report, _, _) = scan_checked(&dir, &["budget", "--config", "budget.toml"]);
    let from_file = report["problems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["path"] == "budget/fat.jar")
        .expect("the budget's problem");
    let reason = from_file["reason"].as_str().unwrap();
    assert!(
        reason.ends_with("skipped: the scan's memory budget (200 MiB) was used up"),
        "{reason}"
    );
}

/// Scans `inputs` (relative to `dir`) under the memory limit: a JSON report, exit code 2 (inputs
/// could not be read), nothing from a contained panic on stderr.
fn scan_checked(dir: &Path, inputs: &[&str]) -> (serde_json::Value, String, String) {
    let mut args = vec!["scan"];
    args.extend_from_slice(inputs);
    args.extend_from_slice(&["--format", "json", "--no-progress"]);
    let out = scan_limited(dir, &args);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!(
            "no report from scanning {inputs:?} ({e}); exit {:?}\nstderr:\n{}",
            out.status.code(),
            &stderr[..stderr.len().min(4000)]
        )
    });
    assert_eq!(
        out.status.code(),
        Some(2),
        "inputs could not be read\n{stderr}"
    );
    for word in ["panicked", "backtrace", "RUST_BACKTRACE"] {
        assert!(!stderr.contains(word), "{word:?} on stderr:\n{stderr}");
    }
    (report, stdout, stderr)
}

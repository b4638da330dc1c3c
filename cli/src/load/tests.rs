//! Behaviour of [`load`] on real files and archives written to temporary directories.

use std::path::{Path, PathBuf};

use super::testutil::{self, class_bytes, zip_bytes, Deflated, Stored, TempDir};
use super::*;
use crate::diag::Severity;

fn load_all(inputs: &[&Path]) -> LoadOutput {
    load_with(inputs, &Limits::default())
}

fn load_with(inputs: &[&Path], limits: &Limits) -> LoadOutput {
    let inputs: Vec<PathBuf> = inputs.iter().map(|path| path.to_path_buf()).collect();
    load(&inputs, &[], limits)
}

fn paths(output: &LoadOutput) -> Vec<String> {
    output.classes.iter().map(|c| c.path.clone()).collect()
}

fn shown(path: &Path) -> String {
    path.display().to_string()
}

fn assert_no_problems(output: &LoadOutput) {
    assert!(
        output.problems.is_empty(),
        "unexpected problems: {:?}",
        output.problems
    );
}

/// The single problem of `output`, which must have exactly one.
fn only_problem(output: &LoadOutput) -> &InputProblem {
    assert_eq!(output.problems.len(), 1, "problems: {:?}", output.problems);
    &output.problems[0]
}

#[test]
fn directory_walk_is_sorted_by_file_name_and_keeps_class_files_and_archives() {
    let tmp = TempDir::new("dir-order");
    let root = tmp.path().join("classes");
    for rel in [
        "b/A.class",
        "a-b.class",
        "a/b/C.class",
        "a/Z.class",
        "A.class",
    ] {
        tmp.write(&format!("classes/{rel}"), &class_bytes(rel));
    }
    tmp.write("classes/readme.txt", b"text");
    tmp.write(
        "classes/lib/dep.jar",
        &zip_bytes(&[("X.class", b"x", Stored)]),
    );
    tmp.write("classes/module-info.class", b"module");

    let output = load_all(&[&root]);
    assert_no_problems(&output);
    let want: Vec<String> = [
        "A.class",
        "a/Z.class",
        "a/b/C.class",
        "a-b.class",
        "b/A.class",
        "lib/dep.jar!/X.class",
    ]
    .iter()
    .map(|rel| shown(&root.join(rel)))
    .collect();
    assert_eq!(paths(&output), want);
    for (i, class) in output.classes.iter().enumerate() {
        assert_eq!(class.order, (0, i as u32));
        assert!(!class.library);
    }
    assert_eq!(output.classes[2].bytes, class_bytes("a/b/C.class"));
}

#[test]
fn garbage_class_file_is_returned_as_is() {
    let tmp = TempDir::new("garbage");
    let file = tmp.write("Bad.class", b"not a class at all");
    let output = load_all(&[&file]);
    assert_no_problems(&output);
    assert_eq!(paths(&output), vec![shown(&file)]);
    assert_eq!(output.classes[0].bytes, b"not a class at all");
}

#[test]
fn nested_jars_stored_and_deflated_are_opened_from_memory() {
    let tmp = TempDir::new("nested");
    let inner_deflated = zip_bytes(&[
        ("com/dep/B.class", &class_bytes("B"), Stored),
        ("com/dep/A.class", &class_bytes("A"), Deflated),
    ]);
    let inner_stored = zip_bytes(&[("org/lib/C.class", &class_bytes("C"), Deflated)]);
    let war = zip_bytes(&[("WEB-INF/lib/w.jar", &inner_stored, Deflated)]);
    let outer = zip_bytes(&[
        ("META-INF/MANIFEST.MF", b"Manifest-Version: 1.0\n", Deflated),
        ("BOOT-INF/lib/stored.jar", &inner_stored, Stored),
        (
            "BOOT-INF/classes/com/app/Main.class",
            &class_bytes("Main"),
            Deflated,
        ),
        ("BOOT-INF/lib/deflated.jar", &inner_deflated, Deflated),
        ("BOOT-INF/lib/app.war", &war, Stored),
    ]);
    let jar = tmp.write("app.jar", &outer);

    let output = load_all(&[&jar]);
    assert_no_problems(&output);
    let j = shown(&jar);
    let want = vec![
        format!("{j}!/BOOT-INF/classes/com/app/Main.class"),
        format!("{j}!/BOOT-INF/lib/app.war!/WEB-INF/lib/w.jar!/org/lib/C.class"),
        format!("{j}!/BOOT-INF/lib/deflated.jar!/com/dep/A.class"),
        format!("{j}!/BOOT-INF/lib/deflated.jar!/com/dep/B.class"),
        format!("{j}!/BOOT-INF/lib/stored.jar!/org/lib/C.class"),
    ];
    assert_eq!(paths(&output), want);
    let bytes: Vec<Vec<u8>> = output.classes.iter().map(|c| c.bytes.clone()).collect();
    let names = ["Main", "C", "A", "B", "C"];
    assert_eq!(bytes, names.map(class_bytes).to_vec());
}

/// An archive containing `levels` archives nested one in the other, each with one class.
fn nested_chain(levels: usize) -> Vec<u8> {
    let mut archive = zip_bytes(&[("Leaf.class", &class_bytes("Leaf"), Deflated)]);
    for level in (0..levels).rev() {
        let class = format!("L{level}.class");
        archive = zip_bytes(&[
            (&class, &class_bytes(&class), Deflated),
            (&format!("n{}.jar", level + 1), &archive, Stored),
        ]);
    }
    archive
}

#[test]
fn nesting_deeper_than_the_limit_is_skipped_with_one_problem() {
    let tmp = TempDir::new("too-deep");
    let jar = tmp.write("outer.jar", &nested_chain(3));
    let limits = Limits {
        max_nesting: 2,
        ..Limits::default()
    };

    let output = load_with(&[&jar], &limits);
    let j = shown(&jar);
    let want = vec![
        format!("{j}!/L0.class"),
        format!("{j}!/n1.jar!/L1.class"),
        format!("{j}!/n1.jar!/n2.jar!/L2.class"),
    ];
    assert_eq!(paths(&output), want);
    let problem = only_problem(&output);
    assert_eq!(problem.path, format!("{j}!/n1.jar!/n2.jar!/n3.jar"));
    assert_eq!(
        problem.reason,
        "archive nested deeper than 2 levels; skipped"
    );
    assert_eq!(problem.severity, Severity::Error);
}

#[test]
fn default_limit_allows_four_levels_of_nesting() {
    let tmp = TempDir::new("four-deep");
    let ok = tmp.write("ok.jar", &nested_chain(4));
    let output = load_all(&[&ok]);
    assert_no_problems(&output);
    assert_eq!(output.classes.len(), 5);
    assert!(output.classes[4].path.ends_with("n4.jar!/Leaf.class"));

    let deep = tmp.write("deep.jar", &nested_chain(5));
    let output = load_all(&[&deep]);
    assert_eq!(output.classes.len(), 5);
    assert_eq!(
        only_problem(&output).reason,
        "archive nested deeper than 4 levels; skipped"
    );
}

#[test]
fn multi_release_variant_with_the_highest_version_wins() {
    let tmp = TempDir::new("multi-release");
    let jar = tmp.write(
        "mr.jar",
        &zip_bytes(&[
            ("META-INF/MANIFEST.MF", b"Multi-Release: true\n", Deflated),
            ("META-INF/versions/9/com/x/Y.class", b"Y9", Deflated),
            ("META-INF/versions/17/com/x/Y.class", b"Y17", Deflated),
            ("com/x/Y.class", b"Y", Deflated),
            ("META-INF/versions/11/com/x/Y.class", b"Y11", Stored),
            ("META-INF/versions/11/com/x/Only11.class", b"O11", Deflated),
            ("com/x/Z.class", b"Z", Deflated),
            ("META-INF/versions/9/com/x/Z.class", b"Z9", Deflated),
            ("META-INF/Stray.class", b"stray", Deflated),
        ]),
    );
    let output = load_all(&[&jar]);
    assert_no_problems(&output);
    let j = shown(&jar);
    let want = vec![
        format!("{j}!/META-INF/versions/11/com/x/Only11.class"),
        format!("{j}!/META-INF/versions/17/com/x/Y.class"),
        format!("{j}!/META-INF/versions/9/com/x/Z.class"),
    ];
    assert_eq!(paths(&output), want);
    let bytes: Vec<&[u8]> = output.classes.iter().map(|c| c.bytes.as_slice()).collect();
    assert_eq!(bytes, vec![&b"O11"[..], b"Y17", b"Z9"]);
}

#[test]
fn module_info_is_skipped_silently() {
    let tmp = TempDir::new("module-info");
    let jar = tmp.write(
        "m.jar",
        &zip_bytes(&[
            ("module-info.class", b"mi", Deflated),
            ("META-INF/versions/9/module-info.class", b"mi9", Deflated),
            ("com/x/A.class", b"A", Deflated),
        ]),
    );
    tmp.write("dir/module-info.class", b"mi");
    tmp.write("dir/com/x/B.class", b"B");
    let direct = tmp.write("module-info.class", b"mi");

    let output = load_all(&[&jar, &tmp.path().join("dir"), &direct]);
    assert_no_problems(&output);
    let want = vec![
        format!("{}!/com/x/A.class", shown(&jar)),
        shown(&tmp.path().join("dir/com/x/B.class")),
    ];
    assert_eq!(paths(&output), want);
}

#[test]
fn archive_without_classes_is_a_warning() {
    let tmp = TempDir::new("empty-archive");
    let jar = tmp.write(
        "res.jar",
        &zip_bytes(&[("config.properties", b"a=b", Deflated)]),
    );
    let output = load_all(&[&jar]);
    assert!(output.classes.is_empty());
    let problem = only_problem(&output);
    assert_eq!(
        (problem.severity, problem.path.as_str()),
        (Severity::Warning, shown(&jar).as_str())
    );
    assert_eq!(problem.reason, "no class files found");
    // On the classpath, a jar of resources is ordinary: a note.
    let output = load(&[], std::slice::from_ref(&jar), &Limits::default());
    assert_eq!(only_problem(&output).severity, Severity::Note);
}

/// A real-looking jar with several deflated entries.
fn sample_jar() -> Vec<u8> {
    let entries: Vec<(String, Vec<u8>)> = (0..20)
        .map(|i| {
            (
                format!("com/x/C{i:02}.class"),
                class_bytes(&format!("C{i}").repeat(50)),
            )
        })
        .collect();
    let refs: Vec<(&str, &[u8], _)> = entries
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice(), Deflated))
        .collect();
    zip_bytes(&refs)
}

/// Where the local header of entry `name` starts in the zip `bytes`.
fn local_header_of(bytes: &[u8], name: &str) -> usize {
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes.to_vec())).unwrap();
    let entry = archive.by_name(name).unwrap();
    entry.header_start() as usize
}

#[test]
fn truncated_jar_keeps_its_intact_entries_with_one_problem() {
    let tmp = TempDir::new("truncated");
    let bytes = sample_jar();
    // Cut inside the data of C12 (its last two bytes): C00..C11 are whole.
    let cut = local_header_of(&bytes, "com/x/C13.class") - 2;
    let jar = tmp.write("cut.jar", &bytes[..cut]);
    let good = tmp.write("good.jar", &bytes);

    let output = load_all(&[&jar, &good]);
    let from_cut: Vec<&RawClass> = output.classes.iter().filter(|c| c.order.0 == 0).collect();
    assert_eq!(from_cut.len(), 12);
    assert_eq!(
        from_cut[11].path,
        format!("{}!/com/x/C11.class", shown(&jar))
    );
    assert_eq!(from_cut[11].bytes, class_bytes(&"C11".repeat(50)));
    assert_eq!(output.classes.len(), 32);
    let problem = only_problem(&output);
    assert_eq!(
        (problem.severity, &problem.path),
        (Severity::Error, &shown(&jar))
    );
    assert!(
        problem.reason.starts_with("the archive is truncated")
            && problem.reason.contains("12 whole entries were read")
            && problem
                .reason
                .contains("entry com/x/C12.class and everything after it are lost"),
        "{}",
        problem.reason
    );
    assert!(!problem.reason.contains("EOCD"), "{}", problem.reason);
}

#[test]
fn truncated_jar_written_with_data_descriptors_is_read_from_its_deflate_streams() {
    let tmp = TempDir::new("truncated-descriptor");
    let names: Vec<String> = (0..6).map(|i| format!("p/D{i}.class")).collect();
    let entries: Vec<(&str, Vec<u8>)> = names
        .iter()
        .map(|n| (n.as_str(), class_bytes(&n.repeat(40))))
        .collect();
    let mut bytes = testutil::zip_with_data_descriptors(&entries);
    assert!(
        zip::read::read_zipfile_from_stream(&mut std::io::Cursor::new(&bytes)).is_err(),
        "zip's stream reader must refuse these entries, or this test proves nothing"
    );
    let cut = local_header_of(&bytes, "p/D4.class") + 35;
    bytes.truncate(cut);
    let jar = tmp.write("descriptors.jar", &bytes);

    let output = load_all(&[&jar]);
    let want: Vec<String> = names[..4]
        .iter()
        .map(|n| format!("{}!/{n}", shown(&jar)))
        .collect();
    assert_eq!(paths(&output), want);
    assert_eq!(
        output.classes[3].bytes,
        class_bytes(&"p/D3.class".repeat(40))
    );
    let problem = only_problem(&output);
    assert!(
        problem.reason.contains("4 whole entries were read"),
        "{}",
        problem.reason
    );
}

#[test]
fn truncated_nested_jar_is_reported_by_its_nested_path() {
    let tmp = TempDir::new("truncated-nested");
    let bytes = sample_jar();
    let cut = local_header_of(&bytes, "com/x/C03.class") + 10;
    let outer = zip_bytes(&[
        ("lib/cut.jar", &bytes[..cut], Stored),
        ("com/app/Main.class", b"main", Deflated),
    ]);
    let jar = tmp.write("outer.jar", &outer);
    let output = load_all(&[&jar]);
    let j = shown(&jar);
    assert_eq!(
        paths(&output),
        vec![
            format!("{j}!/com/app/Main.class"),
            format!("{j}!/lib/cut.jar!/com/x/C00.class"),
            format!("{j}!/lib/cut.jar!/com/x/C01.class"),
            format!("{j}!/lib/cut.jar!/com/x/C02.class"),
        ]
    );
    let problem = only_problem(&output);
    assert_eq!(problem.path, format!("{j}!/lib/cut.jar"));
    assert!(
        problem.reason.starts_with("the archive is truncated"),
        "{}",
        problem.reason
    );
}

#[test]
fn a_file_that_is_not_a_zip_says_so() {
    let tmp = TempDir::new("not-zip");
    let jar = tmp.write("text.jar", b"this is not an archive at all, just text");
    let output = load_all(&[&jar]);
    let problem = only_problem(&output);
    assert!(
        problem.reason.starts_with("not a zip archive"),
        "{}",
        problem.reason
    );
}

#[test]
fn duplicate_entry_names_get_one_note_each_saying_which_copy_was_used() {
    let tmp = TempDir::new("duplicates");
    let mut entries: Vec<(String, Vec<u8>)> = (0..1000)
        .map(|i| {
            (
                "com/x/Dup.class".to_owned(),
                class_bytes(&format!("copy{i}")),
            )
        })
        .collect();
    entries.push(("com/x/Other.class".to_owned(), class_bytes("other")));
    entries.push(("readme.txt".to_owned(), b"a".to_vec()));
    entries.push(("readme.txt".to_owned(), b"b".to_vec()));
    let bytes = testutil::zip_allowing_duplicates(&entries);
    let jar = tmp.write("dups.jar", &bytes);

    let output = load_all(&[&jar]);
    let j = shown(&jar);
    assert_eq!(
        paths(&output),
        vec![
            format!("{j}!/com/x/Dup.class"),
            format!("{j}!/com/x/Other.class")
        ]
    );
    assert_eq!(output.classes[0].bytes, class_bytes("copy999"));
    let problem = only_problem(&output);
    assert_eq!(
        (problem.severity, problem.path.as_str()),
        (Severity::Note, format!("{j}!/com/x/Dup.class").as_str())
    );
    assert_eq!(
        problem.reason,
        "the archive holds 1000 entries of this name; the last one was used, the other 999 ignored"
    );
}

#[cfg(unix)]
#[test]
fn fifos_and_devices_named_like_inputs_are_reported_not_opened() {
    let tmp = TempDir::new("fifo");
    let root = tmp.path().join("classes");
    tmp.write("classes/a/Good.class", &class_bytes("good"));
    for name in ["a/Pipe.class", "lib/pipe.jar"] {
        let path = root.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let status = std::process::Command::new("mkfifo")
            .arg(&path)
            .status()
            .expect("run mkfifo");
        assert!(status.success());
    }
    std::os::unix::fs::symlink("/dev/zero", root.join("a/Zero.class")).unwrap();

    let output = load_all(&[&root, &root.join("lib/pipe.jar")]);
    assert_eq!(paths(&output), vec![shown(&root.join("a/Good.class"))]);
    let mut problems: Vec<(String, String)> = output
        .problems
        .iter()
        .map(|p| (p.path.clone(), p.reason.clone()))
        .collect();
    problems.sort();
    let want = vec![
        (
            shown(&root.join("a/Pipe.class")),
            "is a named pipe (FIFO), not a regular file, though named like a class file; skipped"
                .to_owned(),
        ),
        (
            shown(&root.join("a/Zero.class")),
            "is a character device, not a regular file, though named like a class file; skipped"
                .to_owned(),
        ),
        (
            shown(&root.join("lib/pipe.jar")),
            "is a named pipe (FIFO), not a regular file, though named like an archive; skipped"
                .to_owned(),
        ),
    ];
    assert_eq!(problems, want);
    assert!(output
        .problems
        .iter()
        .all(|p| p.severity == Severity::Error));
}

#[test]
fn what_the_memory_budget_cannot_pay_for_is_skipped_with_one_problem_per_input() {
    let tmp = TempDir::new("budget");
    let mib = vec![3u8; 1 << 20];
    let big = tmp.write(
        "big.jar",
        &zip_bytes(&[
            ("A.class", &mib, Deflated),
            ("B.class", &mib, Deflated),
            ("C.class", &mib, Deflated),
        ]),
    );
    let small = tmp.write("small.jar", &zip_bytes(&[("S.class", b"s", Deflated)]));
    let limits = Limits {
        memory_budget: (1 << 20) + (1 << 19),
        ..Limits::default()
    };
    let output = load_with(&[&big], &limits);
    assert_eq!(output.classes.len(), 1, "{:?}", paths(&output));
    let problem = only_problem(&output);
    assert_eq!(problem.path, shown(&big));
    assert_eq!(
        problem.reason,
        "2 entries or files were skipped: the scan's memory budget (1572864 bytes) was used up"
    );
    // Alone, the small jar fits.
    let output = load_with(&[&small], &limits);
    assert_no_problems(&output);
}

/// Flips every byte of the data of entry `name` of the zip in `bytes`.
fn corrupt_entry(bytes: &mut [u8], name: &str) {
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes.to_vec())).unwrap();
    let entry = archive.by_name(name).unwrap();
    let start = entry.data_start() as usize;
    let end = start + entry.compressed_size() as usize;
    drop(entry);
    bytes[start..end].iter_mut().for_each(|b| *b ^= 0x5A);
}

#[test]
fn corrupt_entry_is_reported_and_the_others_kept() {
    let tmp = TempDir::new("corrupt-entry");
    for method in [Stored, Deflated] {
        let big = class_bytes(&"B".repeat(1000));
        let mut bytes = zip_bytes(&[
            ("com/x/A.class", &class_bytes("A"), method),
            ("com/x/B.class", &big, method),
            ("com/x/C.class", &class_bytes("C"), method),
        ]);
        corrupt_entry(&mut bytes, "com/x/B.class");
        let jar = tmp.write(&format!("corrupt-{method:?}.jar"), &bytes);

        let output = load_all(&[&jar]);
        let j = shown(&jar);
        let want = vec![format!("{j}!/com/x/A.class"), format!("{j}!/com/x/C.class")];
        assert_eq!(paths(&output), want, "{method:?}");
        let problem = only_problem(&output);
        assert_eq!(problem.path, format!("{j}!/com/x/B.class"));
        assert!(
            problem.reason.starts_with("cannot inflate entry: "),
            "{}",
            problem.reason
        );
    }
}

#[test]
fn entry_inflating_beyond_the_limit_is_skipped() {
    let tmp = TempDir::new("entry-limit");
    let zeros = vec![0u8; 10 << 20];
    let bytes = zip_bytes(&[
        ("com/x/Big.class", &zeros, Deflated),
        ("com/x/Small.class", b"small", Deflated),
    ]);
    assert!(bytes.len() < 100_000, "the test entry should compress well");
    let jar = tmp.write("bomb.jar", &bytes);
    let limits = Limits {
        max_class_bytes: 1 << 20,
        ..Limits::default()
    };

    let output = load_with(&[&jar], &limits);
    let j = shown(&jar);
    assert_eq!(paths(&output), vec![format!("{j}!/com/x/Small.class")]);
    let problem = only_problem(&output);
    assert_eq!(problem.path, format!("{j}!/com/x/Big.class"));
    assert_eq!(
        problem.reason,
        "entry inflates beyond 1 MiB, more than any class file can be; skipped"
    );
}

/// Overwrites the uncompressed size that the local and central headers declare for every
/// entry, as a zip bomb would.
fn lie_about_sizes(bytes: &mut [u8], declared: u32) {
    let patch = |bytes: &mut [u8], at: usize| {
        bytes[at..at + 4].copy_from_slice(&declared.to_le_bytes());
    };
    for i in 0..bytes.len().saturating_sub(30) {
        match bytes[i..i + 4] {
            [0x50, 0x4b, 0x03, 0x04] => patch(bytes, i + 22),
            [0x50, 0x4b, 0x01, 0x02] => patch(bytes, i + 24),
            _ => {}
        }
    }
}

#[test]
fn entry_limit_holds_on_actual_bytes_when_the_declared_size_lies() {
    let tmp = TempDir::new("lying-size");
    let mut bytes = zip_bytes(&[("com/x/Big.class", &vec![7u8; 10 << 20], Deflated)]);
    lie_about_sizes(&mut bytes, 100);
    let jar = tmp.write("liar.jar", &bytes);
    let limits = Limits {
        max_class_bytes: 1 << 20,
        ..Limits::default()
    };

    let output = load_with(&[&jar], &limits);
    assert!(output.classes.is_empty(), "{:?}", paths(&output));
    let problem = only_problem(&output);
    assert_eq!(problem.path, format!("{}!/com/x/Big.class", shown(&jar)));
    assert_eq!(
        problem.reason,
        "entry inflates beyond 1 MiB, more than any class file can be; skipped"
    );
}

#[test]
fn input_inflating_beyond_the_total_limit_is_skipped_whole() {
    let tmp = TempDir::new("total-limit");
    let mib = vec![1u8; 1 << 20];
    let inner = zip_bytes(&[("D.class", &mib, Deflated)]);
    let jar = tmp.write(
        "many.jar",
        &zip_bytes(&[
            ("A.class", &mib, Deflated),
            ("B.class", &mib, Deflated),
            ("lib/inner.jar", &inner, Deflated),
            ("C.class", &mib, Deflated),
        ]),
    );
    let other = tmp.write("other.jar", &zip_bytes(&[("A.class", &mib, Deflated)]));
    let limits = Limits {
        max_total_bytes: 3 << 20,
        ..Limits::default()
    };

    let output = load_with(&[&jar, &other], &limits);
    assert_eq!(paths(&output), vec![format!("{}!/A.class", shown(&other))]);
    let problem = only_problem(&output);
    assert_eq!(problem.path, shown(&jar));
    assert_eq!(
        problem.reason,
        "archive inflates beyond the 3 MiB total limit; skipped"
    );

    let limits = Limits {
        max_total_bytes: 6 << 20,
        ..Limits::default()
    };
    let output = load_with(&[&jar], &limits);
    assert_no_problems(&output);
    assert_eq!(output.classes.len(), 4);
}

#[test]
fn missing_path_is_reported_once_and_the_rest_goes_on() {
    let tmp = TempDir::new("missing");
    let missing = tmp.path().join("nope.jar");
    let class = tmp.write("A.class", b"A");
    let output = load_all(&[&missing, &class, &missing]);
    assert_eq!(output.classes.len(), 1);
    assert_eq!(output.classes[0].order, (1, 0));
    let problem = only_problem(&output);
    assert_eq!(
        problem,
        &InputProblem::error(shown(&missing), "no such file or directory")
    );
}

#[test]
fn unknown_extension_is_an_error() {
    let tmp = TempDir::new("unknown-ext");
    let notes = tmp.write("notes.txt", b"hello");
    let output = load_all(&[&notes]);
    assert!(output.classes.is_empty());
    let want = InputProblem::error(
        shown(&notes),
        "not a class file, directory or archive (.jar, .war, .ear, .zip, .jmod)",
    );
    assert_eq!(only_problem(&output), &want);
}

#[test]
fn empty_directory_is_an_error_when_scanned_and_a_note_on_the_classpath() {
    let tmp = TempDir::new("empty-dir");
    let scanned = tmp.path().join("scanned");
    let library = tmp.path().join("library");
    std::fs::create_dir_all(&scanned).unwrap();
    tmp.write("library/readme.txt", b"no classes");

    let classpath = [library.clone()];
    let output = load(
        std::slice::from_ref(&scanned),
        &classpath,
        &Limits::default(),
    );
    assert!(output.classes.is_empty());
    let want = vec![
        InputProblem::warning(shown(&scanned), "no class files found"),
        InputProblem::note(shown(&library), "no class files found"),
    ];
    assert_eq!(output.problems, want);
}

#[test]
fn order_follows_inputs_then_classpath() {
    let tmp = TempDir::new("order");
    tmp.write("in-dir/b/B.class", b"B");
    tmp.write("in-dir/a/A.class", b"A");
    let in_jar = tmp.write(
        "in.jar",
        &zip_bytes(&[("z/Z.class", b"Z", Deflated), ("y/Y.class", b"Y", Stored)]),
    );
    let cp_jar = tmp.write("cp.jar", &zip_bytes(&[("lib/L.class", b"L", Deflated)]));
    tmp.write("cp-dir/M.class", b"M");
    let inputs = [tmp.path().join("in-dir"), in_jar];
    let classpath = [cp_jar, tmp.path().join("cp-dir")];

    let output = load(&inputs, &classpath, &Limits::default());
    assert_no_problems(&output);
    let got: Vec<(&[u8], (u32, u32), bool)> = output
        .classes
        .iter()
        .map(|c| (c.bytes.as_slice(), c.order, c.library))
        .collect();
    let want: Vec<(&[u8], (u32, u32), bool)> = vec![
        (b"A", (0, 0), false),
        (b"B", (0, 1), false),
        (b"Y", (1, 0), false),
        (b"Z", (1, 1), false),
        (b"L", (2, 0), true),
        (b"M", (3, 0), true),
    ];
    assert_eq!(got, want);
}

#[test]
fn synthetic_jmod_loads_only_classes_under_classes() {
    let tmp = TempDir::new("jmod");
    let mut bytes = b"JM\x01\x00".to_vec();
    bytes.extend(zip_bytes(&[
        ("classes/module-info.class", b"mi", Deflated),
        ("classes/com/x/A.class", b"A", Deflated),
        ("lib/libx.so", b"elf", Deflated),
        ("bin/Tool.class", b"tool", Deflated),
    ]));
    let jmod = tmp.write("m.jmod", &bytes);
    let output = load_all(&[&jmod]);
    assert_no_problems(&output);
    assert_eq!(
        paths(&output),
        vec![format!("{}!/classes/com/x/A.class", shown(&jmod))]
    );

    let headless = tmp.write(
        "headless.jmod",
        &zip_bytes(&[("classes/A.class", b"A", Stored)]),
    );
    let output = load_all(&[&headless]);
    assert!(output.classes.is_empty());
    let want = InputProblem::error(shown(&headless), "not a jmod file (no JM header)");
    assert_eq!(only_problem(&output), &want);
}

/// `$JAVA_HOME/jmods` of the `javac` on the `PATH`, or of `$JAVA_HOME`, if it exists.
fn jdk_jmods() -> Option<PathBuf> {
    let from_env = std::env::var_os("JAVA_HOME").map(PathBuf::from);
    let from_path = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join("javac"))
            .find(|javac| javac.is_file())
            .and_then(|javac| std::fs::canonicalize(javac).ok())
            .and_then(|javac| Some(javac.parent()?.parent()?.to_owned()))
    });
    [from_path, from_env]
        .into_iter()
        .flatten()
        .map(|home| home.join("jmods"))
        .find(|jmods| jmods.join("java.base.jmod").is_file())
}

#[test]
fn real_java_base_jmod_loads_without_problems() {
    let Some(jmods) = jdk_jmods() else {
        println!("skipped: no JDK with a jmods directory found (javac on PATH or JAVA_HOME)");
        return;
    };
    let base = jmods.join("java.base.jmod");
    let output = load_all(&[&base]);
    assert_no_problems(&output);
    assert!(
        output.classes.len() > 5000,
        "only {} classes",
        output.classes.len()
    );
    let object = format!("{}!/classes/java/lang/Object.class", shown(&base));
    let object = output
        .classes
        .iter()
        .find(|c| c.path == object)
        .expect("java/lang/Object");
    assert!(object.bytes.starts_with(b"\xCA\xFE\xBA\xBE"));
    assert!(output
        .classes
        .iter()
        .all(|c| !c.path.ends_with("module-info.class")));
}

#[cfg(unix)]
#[test]
fn unreadable_file_and_directory_report_the_os_error() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = TempDir::new("unreadable");
    let jar = tmp.write("locked.jar", &zip_bytes(&[("A.class", b"A", Stored)]));
    tmp.write("locked-dir/A.class", b"A");
    let dir = tmp.path().join("locked-dir");
    let set_mode = |path: &Path, mode| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    };
    set_mode(&jar, 0o000);
    set_mode(&dir, 0o000);
    if std::fs::read(&jar).is_ok() {
        set_mode(&dir, 0o755);
        println!("skipped: running with privileges that ignore file permissions (root?)");
        return;
    }
    let output = load_all(&[&jar, &dir]);
    set_mode(&dir, 0o755);
    assert!(output.classes.is_empty());
    let got: Vec<(&str, &str)> = output
        .problems
        .iter()
        .map(|p| (p.path.as_str(), p.reason.as_str()))
        .collect();
    let denied = "cannot read: Permission denied (os error 13)";
    assert_eq!(
        got,
        vec![
            (shown(&jar).as_str(), denied),
            (shown(&dir).as_str(), denied)
        ]
    );
}

#[cfg(unix)]
#[test]
fn symlink_loop_is_a_note_and_classes_are_loaded_once() {
    let tmp = TempDir::new("symlink-loop");
    tmp.write("root/a/A.class", b"A");
    let root = tmp.path().join("root");
    std::os::unix::fs::symlink(&root, root.join("a/loop")).unwrap();
    let output = load_all(&[&root]);
    assert_eq!(paths(&output), vec![shown(&root.join("a/A.class"))]);
    let problem = only_problem(&output);
    assert_eq!(
        (problem.severity, &problem.path),
        (Severity::Note, &shown(&root.join("a/loop")))
    );
    assert!(
        problem.reason.starts_with("symbolic link loop back to "),
        "{}",
        problem.reason
    );
}

#[test]
fn a_jar_names_its_main_class_and_nested_jars_are_not_packages() {
    let tmp = TempDir::new("main-class");
    let manifest = b"Manifest-Version: 1.0\r\nCreated-By: 17 (Debian)\r\nMain-Class: com.example.very.lo\r\n ng.Main\r\n\r\nName: com/x/\r\nMain-Class: not.This\r\n";
    let inner = zip_bytes(&[
        (
            "META-INF/MANIFEST.MF",
            b"Main-Class: inner.Main\n",
            Deflated,
        ),
        ("com/y/Z.class", b"Z", Deflated),
    ]);
    let app = tmp.write(
        "app.jar",
        &zip_bytes(&[
            ("META-INF/MANIFEST.MF", manifest, Deflated),
            ("com/x/Y.class", b"Y", Deflated),
            ("lib/inner.jar", &inner, Stored),
        ]),
    );
    let lib = tmp.write(
        "lib.jar",
        &zip_bytes(&[
            ("META-INF/MANIFEST.MF", b"Manifest-Version: 1.0\n", Deflated),
            ("com/z/W.class", b"W", Deflated),
        ]),
    );
    let output = load_all(&[&app, &lib]);
    assert_no_problems(&output);
    assert_eq!(
        output.packages,
        vec![
            Packaging {
                path: shown(&app),
                main_class: Some("com/example/very/long/Main".to_string()),
            },
            Packaging {
                path: shown(&lib),
                main_class: None,
            },
        ]
    );
}

#[test]
fn a_directory_is_no_package() {
    let tmp = TempDir::new("dir-no-package");
    tmp.write("com/x/Y.class", &class_bytes("com/x/Y"));
    let output = load_all(&[tmp.path()]);
    assert!(output.packages.is_empty(), "{:?}", output.packages);
}

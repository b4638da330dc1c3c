//! Path → URI conversion with a small percent-encoder (RFC 3986).

use std::borrow::Cow;
use std::ffi::OsStr;
use std::fmt::Write as _;
use std::path::{Component, Path};

/// The absolute `file://` URI of `path`, e.g. `/a b/C#.java` →
/// `file:///a%20b/C%23.java`.
///
/// Every byte other than an RFC 3986 unreserved character
/// (`A-Z a-z 0-9 - . _ ~`) or the `/` separator is percent-encoded (as UTF-8;
/// on Unix, non-UTF-8 path bytes are encoded as they are). A relative `path`
/// is first made absolute against the current directory, lexically (without
/// touching the file system or resolving symlinks). On Windows, `\` becomes
/// `/`, a drive letter keeps its `:` (`file:///C:/x`), and UNC paths become
/// `file://server/share/...`.
pub fn file_uri(path: &Path) -> String {
    let abs: Cow<'_, Path> = if path.is_absolute() {
        Cow::Borrowed(path)
    } else {
        std::path::absolute(path).map_or(Cow::Borrowed(path), Cow::Owned)
    };
    let mut out = String::from("file://");
    push_absolute(&mut out, &abs);
    out
}

/// Like [`file_uri`], but always ending with `/`, as SARIF requires for the
/// URIs of directories (`originalUriBaseIds`, `workingDirectory`).
pub fn dir_uri(path: &Path) -> String {
    let mut uri = file_uri(path);
    if !uri.ends_with('/') {
        uri.push('/');
    }
    uri
}

/// The relative URI reference of a relative `rel` path, e.g. `pkg/Foo.java`,
/// with `/` separators on every platform and each segment percent-encoded as
/// in [`file_uri`] (so a `:` can never be mistaken for a URI scheme).
///
/// `.` segments are dropped and `..` is kept. If `rel` is in fact absolute,
/// this returns [`file_uri`]`(rel)`, which is still a valid URI reference.
pub fn relative_uri(rel: &Path) -> String {
    if rel.has_root() {
        return file_uri(rel);
    }
    let mut out = String::new();
    for component in rel.components() {
        let segment: &OsStr = match component {
            Component::CurDir => continue,
            Component::ParentDir => OsStr::new(".."),
            Component::Normal(s) => s,
            // Only reachable for a drive-relative Windows path such as `C:x`.
            Component::Prefix(p) => p.as_os_str(),
            Component::RootDir => continue,
        };
        if !out.is_empty() {
            out.push('/');
        }
        push_encoded_os(&mut out, segment, false);
    }
    out
}

#[cfg(not(windows))]
fn push_absolute(out: &mut String, abs: &Path) {
    // `/a/b` → `/a/b`: the path already starts with the separator.
    push_encoded_os(out, abs.as_os_str(), true);
}

#[cfg(windows)]
fn push_absolute(out: &mut String, abs: &Path) {
    let s = abs.to_string_lossy().replace('\\', "/");
    let s = if let Some(unc) = s.strip_prefix("//?/UNC/") {
        format!("//{unc}")
    } else if let Some(rest) = s.strip_prefix("//?/") {
        rest.to_owned()
    } else {
        s
    };
    if let Some(unc) = s.strip_prefix("//") {
        // `//server/share/x` → authority `server`, path `/share/x`.
        push_encoded(out, unc.as_bytes(), true);
    } else {
        out.push('/');
        // Keep the drive letter's colon: `C:/x` → `/C:/x`.
        let bytes = s.as_bytes();
        if bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' {
            out.push_str(&s[..2]);
            push_encoded(out, &bytes[2..], true);
        } else {
            push_encoded(out, bytes, true);
        }
    }
}

#[cfg(unix)]
fn push_encoded_os(out: &mut String, s: &OsStr, keep_slash: bool) {
    use std::os::unix::ffi::OsStrExt;
    push_encoded(out, s.as_bytes(), keep_slash);
}

#[cfg(not(unix))]
fn push_encoded_os(out: &mut String, s: &OsStr, keep_slash: bool) {
    let s = s.to_string_lossy();
    if cfg!(windows) && keep_slash {
        push_encoded(out, s.replace('\\', "/").as_bytes(), keep_slash);
    } else {
        push_encoded(out, s.as_bytes(), keep_slash);
    }
}

/// Appends `bytes` to `out`, percent-encoding all but unreserved characters
/// (and `/` when `keep_slash`).
fn push_encoded(out: &mut String, bytes: &[u8], keep_slash: bool) {
    for &b in bytes {
        if b.is_ascii_alphanumeric()
            || matches!(b, b'-' | b'.' | b'_' | b'~')
            || (keep_slash && b == b'/')
        {
            out.push(char::from(b));
        } else {
            write!(out, "%{b:02X}").expect("writing to a String cannot fail");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encoded(s: &str, keep_slash: bool) -> String {
        let mut out = String::new();
        push_encoded(&mut out, s.as_bytes(), keep_slash);
        out
    }

    #[test]
    fn encoder_keeps_unreserved_only() {
        assert_eq!(encoded("aZ09-._~", false), "aZ09-._~");
        assert_eq!(encoded("a/b", true), "a/b");
        assert_eq!(encoded("a/b", false), "a%2Fb");
        assert_eq!(
            encoded(" #%?[]@!$&'()*+,;=:", false),
            "%20%23%25%3F%5B%5D%40%21%24%26%27%28%29%2A%2B%2C%3B%3D%3A"
        );
        // Non-ASCII is encoded as UTF-8 bytes.
        assert_eq!(encoded("é", false), "%C3%A9");
    }

    #[cfg(unix)]
    #[test]
    fn file_uri_unix() {
        assert_eq!(file_uri(Path::new("/")), "file:///");
        assert_eq!(
            file_uri(Path::new("/tmp/x/Foo.java")),
            "file:///tmp/x/Foo.java"
        );
        assert_eq!(
            file_uri(Path::new("/home/a b/C#1/50%.java")),
            "file:///home/a%20b/C%231/50%25.java"
        );
        assert_eq!(dir_uri(Path::new("/tmp/src")), "file:///tmp/src/");
        assert_eq!(dir_uri(Path::new("/tmp/src/")), "file:///tmp/src/");
        assert_eq!(dir_uri(Path::new("/")), "file:///");
    }

    #[cfg(unix)]
    #[test]
    fn file_uri_non_utf8_bytes() {
        use std::os::unix::ffi::OsStrExt;
        let p = Path::new(OsStr::from_bytes(b"/x/\xff.class"));
        assert_eq!(file_uri(p), "file:///x/%FF.class");
    }

    #[test]
    fn file_uri_of_relative_path_is_absolute() {
        let uri = file_uri(Path::new("some dir/Foo.java"));
        assert!(uri.starts_with("file:///"), "{uri}");
        assert!(uri.ends_with("/some%20dir/Foo.java"), "{uri}");
    }

    #[test]
    fn relative_uri_segments() {
        assert_eq!(relative_uri(Path::new("pkg/Foo.java")), "pkg/Foo.java");
        assert_eq!(relative_uri(Path::new("./pkg/./Foo.java")), "pkg/Foo.java");
        assert_eq!(
            relative_uri(Path::new("../a b/C#.java")),
            "../a%20b/C%23.java"
        );
        // A colon would otherwise read as a URI scheme.
        assert_eq!(relative_uri(Path::new("a:b/Foo.java")), "a%3Ab/Foo.java");
        assert_eq!(relative_uri(Path::new("")), "");
    }

    #[cfg(unix)]
    #[test]
    fn relative_uri_of_absolute_path_is_file_uri() {
        assert_eq!(relative_uri(Path::new("/a/b c")), "file:///a/b%20c");
    }
}

//! Test helpers: temporary directories and archives written with the `zip` crate.

use std::io::{Cursor, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

pub(super) use zip::CompressionMethod::{Deflated, Stored};

/// A fresh directory under the system temp dir, removed on drop.
pub(super) struct TempDir(PathBuf);

impl TempDir {
    pub(super) fn new(tag: &str) -> Self {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!(
            "stalecheck-load-test-{}-{tag}-{n}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create temp dir");
        Self(dir)
    }

    pub(super) fn path(&self) -> &Path {
        &self.0
    }

    /// Writes `bytes` to `rel` under this directory (creating parents) and returns the path.
    pub(super) fn write(&self, rel: &str, bytes: &[u8]) -> PathBuf {
        let path = self.0.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create parent dir");
        }
        std::fs::write(&path, bytes).expect("write test file");
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A zip archive with the given entries, in the given order.
pub(super) fn zip_bytes(entries: &[(&str, &[u8], CompressionMethod)]) -> Vec<u8> {
    let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
    for (name, bytes, method) in entries {
        let options = SimpleFileOptions::default()
            .compression_method(*method)
            .large_file(bytes.len() > u32::MAX as usize);
        writer.start_file(*name, options).expect("start zip entry");
        writer.write_all(bytes).expect("write zip entry");
    }
    writer.finish().expect("finish zip").into_inner()
}

/// Bytes that look like a class file (nothing here parses them).
pub(super) fn class_bytes(name: &str) -> Vec<u8> {
    let mut bytes = b"\xCA\xFE\xBA\xBE\x00\x00\x00\x3D".to_vec();
    bytes.extend_from_slice(name.as_bytes());
    bytes
}

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

/// A zip written by hand, for what the `zip` crate's writer refuses to make: entries deflated
/// with their sizes in a data descriptor after the data (as `jar` writes them), or one name
/// given several times.
fn raw_zip(entries: &[(&str, Vec<u8>)], descriptors: bool) -> Vec<u8> {
    use flate2::write::DeflateEncoder;
    use flate2::Compression;
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in entries {
        let (method, stored): (u16, Vec<u8>) = if descriptors {
            let mut encoder = DeflateEncoder::new(Vec::new(), Compression::default());
            encoder.write_all(data).expect("deflate");
            (8, encoder.finish().expect("deflate"))
        } else {
            (0, data.clone())
        };
        let crc = crc32(data);
        let flags: u16 = if descriptors { 1 << 3 } else { 0 };
        let offset = out.len() as u32;
        let (local_crc, local_csize, local_size) = if descriptors {
            (0, 0, 0)
        } else {
            (crc, stored.len() as u32, data.len() as u32)
        };
        out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        out.extend_from_slice(&20u16.to_le_bytes());
        out.extend_from_slice(&flags.to_le_bytes());
        out.extend_from_slice(&method.to_le_bytes());
        out.extend_from_slice(&[0; 4]); // time, date
        out.extend_from_slice(&local_crc.to_le_bytes());
        out.extend_from_slice(&local_csize.to_le_bytes());
        out.extend_from_slice(&local_size.to_le_bytes());
        out.extend_from_slice(&(name.len() as u16).to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(&stored);
        if descriptors {
            out.extend_from_slice(&0x0807_4b50u32.to_le_bytes());
            out.extend_from_slice(&crc.to_le_bytes());
            out.extend_from_slice(&(stored.len() as u32).to_le_bytes());
            out.extend_from_slice(&(data.len() as u32).to_le_bytes());
        }
        central.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        central.extend_from_slice(&20u16.to_le_bytes());
        central.extend_from_slice(&20u16.to_le_bytes());
        central.extend_from_slice(&flags.to_le_bytes());
        central.extend_from_slice(&method.to_le_bytes());
        central.extend_from_slice(&[0; 4]);
        central.extend_from_slice(&crc.to_le_bytes());
        central.extend_from_slice(&(stored.len() as u32).to_le_bytes());
        central.extend_from_slice(&(data.len() as u32).to_le_bytes());
        central.extend_from_slice(&(name.len() as u16).to_le_bytes());
        central.extend_from_slice(&[0; 12]); // extra, comment, disk, attributes
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
    }
    let central_start = out.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&central_start.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}

/// Deflated entries with data descriptors (sizes after the data), as `jar` writes them.
pub(super) fn zip_with_data_descriptors(entries: &[(&str, Vec<u8>)]) -> Vec<u8> {
    raw_zip(entries, true)
}

/// Stored entries, names given as they are (duplicates included).
pub(super) fn zip_allowing_duplicates(entries: &[(String, Vec<u8>)]) -> Vec<u8> {
    let refs: Vec<(&str, Vec<u8>)> = entries
        .iter()
        .map(|(name, data)| (name.as_str(), data.clone()))
        .collect();
    raw_zip(&refs, false)
}

/// CRC-32 (IEEE), bit by bit: enough for test archives.
fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in data {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

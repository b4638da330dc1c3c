//! What an archive entry name means: a class (possibly a multi-release variant), a nested
//! archive, or something to ignore. Pure string logic, no I/O.

/// The layout of an archive: where its classes live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Format {
    /// `.jar`, `.war`, `.ear`, `.zip`: classes anywhere (multi-release variants under
    /// `META-INF/versions/N/`).
    Jar,
    /// `.jmod`: a `JM\x01\x00` header, then a zip whose classes live under `classes/`.
    Jmod,
}

impl Format {
    /// The format of a top-level archive given its file name, if it is one.
    pub(super) fn from_file_name(name: &str) -> Option<Self> {
        if ["jar", "war", "ear", "zip"]
            .iter()
            .any(|ext| has_ext(name, ext))
        {
            Some(Self::Jar)
        } else if has_ext(name, "jmod") {
            Some(Self::Jmod)
        } else {
            None
        }
    }

    /// The prefix under which classes live in this format.
    fn class_root(self) -> &'static str {
        match self {
            Self::Jar => "",
            Self::Jmod => "classes/",
        }
    }
}

/// What one entry of an archive is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum EntryKind<'a> {
    /// A class file. `base` is its path without any `META-INF/versions/N/` prefix (the key that
    /// multi-release variants share); `version` is `N`, or 0 for the base entry.
    Class { base: &'a str, version: u32 },
    /// An archive nested inside this one (`.jar`, `.war`, `.zip`).
    Archive,
    /// Anything else: directories, resources, `module-info.class`, other `META-INF` files.
    Ignored,
}

const VERSIONS: &str = "META-INF/versions/";

/// Classifies the entry `name` of an archive of the given format.
pub(super) fn classify(name: &str, format: Format) -> EntryKind<'_> {
    let Some(name) = name.strip_prefix(format.class_root()) else {
        return EntryKind::Ignored;
    };
    if name.ends_with('/') {
        return EntryKind::Ignored;
    }
    if let Some(rest) = name.strip_prefix(VERSIONS) {
        return classify_versioned(rest);
    }
    if name.starts_with("META-INF/") {
        return EntryKind::Ignored;
    }
    if is_class(name) {
        EntryKind::Class {
            base: name,
            version: 0,
        }
    } else if is_nested_archive(name) {
        EntryKind::Archive
    } else {
        EntryKind::Ignored
    }
}

/// `rest` follows `META-INF/versions/`: `N/pkg/X.class` is a variant of `pkg/X.class`.
fn classify_versioned(rest: &str) -> EntryKind<'_> {
    let Some((version, base)) = rest.split_once('/') else {
        return EntryKind::Ignored;
    };
    match version.parse::<u32>() {
        Ok(version) if is_class(base) && !base.starts_with("META-INF/") => {
            EntryKind::Class { base, version }
        }
        _ => EntryKind::Ignored,
    }
}

/// A class file other than `module-info.class`.
pub(super) fn is_class(path: &str) -> bool {
    let file_name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    has_ext(file_name, "class") && !file_name.eq_ignore_ascii_case("module-info.class")
}

fn is_nested_archive(name: &str) -> bool {
    ["jar", "war", "zip"].iter().any(|ext| has_ext(name, ext))
}

/// Whether `name` ends with `.ext` (ASCII case-insensitive) and has something before the dot.
pub(super) fn has_ext(name: &str, ext: &str) -> bool {
    let Some(split) = name.len().checked_sub(ext.len() + 1) else {
        return false;
    };
    let (stem, suffix) = name.split_at_checked(split).unwrap_or((name, ""));
    !stem.is_empty()
        && !stem.ends_with('/')
        && suffix
            .strip_prefix('.')
            .is_some_and(|e| e.eq_ignore_ascii_case(ext))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jar(name: &str) -> EntryKind<'_> {
        classify(name, Format::Jar)
    }

    #[test]
    fn plain_classes_and_archives() {
        assert_eq!(
            jar("com/x/Y.class"),
            EntryKind::Class {
                base: "com/x/Y.class",
                version: 0
            }
        );
        assert_eq!(
            jar("Y.CLASS"),
            EntryKind::Class {
                base: "Y.CLASS",
                version: 0
            }
        );
        assert_eq!(jar("BOOT-INF/lib/dep.jar"), EntryKind::Archive);
        assert_eq!(jar("WEB-INF/lib/dep.JAR"), EntryKind::Archive);
        assert_eq!(jar("x.war"), EntryKind::Archive);
        assert_eq!(jar("x.zip"), EntryKind::Archive);
        assert_eq!(jar("x.ear"), EntryKind::Ignored);
        assert_eq!(jar("com/x/"), EntryKind::Ignored);
        assert_eq!(jar("com/x.class/"), EntryKind::Ignored);
        assert_eq!(jar("com/x/.class"), EntryKind::Ignored);
        assert_eq!(jar("com/x/readme.txt"), EntryKind::Ignored);
        assert_eq!(jar(""), EntryKind::Ignored);
    }

    #[test]
    fn module_info_is_ignored_everywhere() {
        assert_eq!(jar("module-info.class"), EntryKind::Ignored);
        assert_eq!(jar("a/b/module-info.class"), EntryKind::Ignored);
        assert_eq!(
            jar("META-INF/versions/9/module-info.class"),
            EntryKind::Ignored
        );
        assert_eq!(
            classify("classes/module-info.class", Format::Jmod),
            EntryKind::Ignored
        );
    }

    #[test]
    fn meta_inf_only_keeps_versioned_classes() {
        assert_eq!(
            jar("META-INF/versions/11/com/x/Y.class"),
            EntryKind::Class {
                base: "com/x/Y.class",
                version: 11
            }
        );
        assert_eq!(jar("META-INF/versions/x/com/x/Y.class"), EntryKind::Ignored);
        assert_eq!(jar("META-INF/versions/11/"), EntryKind::Ignored);
        assert_eq!(jar("META-INF/versions/11"), EntryKind::Ignored);
        assert_eq!(jar("META-INF/versions/11/lib/dep.jar"), EntryKind::Ignored);
        assert_eq!(jar("META-INF/MANIFEST.MF"), EntryKind::Ignored);
        assert_eq!(jar("META-INF/Foo.class"), EntryKind::Ignored);
        assert_eq!(jar("META-INF/lib/dep.jar"), EntryKind::Ignored);
    }

    #[test]
    fn jmod_classes_live_under_classes() {
        assert_eq!(
            classify("classes/java/lang/Object.class", Format::Jmod),
            EntryKind::Class {
                base: "java/lang/Object.class",
                version: 0
            }
        );
        assert_eq!(classify("lib/libjava.so", Format::Jmod), EntryKind::Ignored);
        assert_eq!(classify("bin/Foo.class", Format::Jmod), EntryKind::Ignored);
    }

    #[test]
    fn formats_by_extension() {
        assert_eq!(Format::from_file_name("a.jar"), Some(Format::Jar));
        assert_eq!(Format::from_file_name("a.EAR"), Some(Format::Jar));
        assert_eq!(Format::from_file_name("java.base.jmod"), Some(Format::Jmod));
        assert_eq!(Format::from_file_name("a.class"), None);
        assert_eq!(Format::from_file_name(".jar"), None);
        assert_eq!(Format::from_file_name("jar"), None);
    }

    #[test]
    fn has_ext_handles_multibyte_names() {
        assert!(has_ext("é.class", "class"));
        assert!(!has_ext("éclass", "class"));
        assert!(!has_ext("é", "class"));
        assert!(!has_ext("ééééé", "jar"));
    }
}

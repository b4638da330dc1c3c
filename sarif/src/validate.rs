//! Validation against the official SARIF 2.1.0 JSON schema (feature `validate`).

use std::sync::OnceLock;

use jsonschema::Validator;

/// The official OASIS SARIF 2.1.0 schema (errata 01), bundled with the crate.
const SCHEMA_JSON: &str = include_str!("../tests/data/sarif-schema-2.1.0.json");

fn validator() -> &'static Validator {
    static VALIDATOR: OnceLock<Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| {
        let schema: serde_json::Value =
            serde_json::from_str(SCHEMA_JSON).expect("bundled SARIF schema is valid JSON");
        // The OASIS file declares `"$schema": ".../draft-04/schema#"` (with a
        // draft-04 `id`), so the draft is pinned to 4 instead of being
        // guessed. Formats (`uri`, `uri-reference`, ...) are checked, and
        // `offline()` guarantees that no `$ref` is ever fetched: the schema
        // only uses local `#/definitions/...` references.
        jsonschema::draft4::options()
            .should_validate_formats(true)
            .offline()
            .build(&schema)
            .expect("bundled SARIF schema compiles")
    })
}

/// Validates `log` against the official SARIF 2.1.0 JSON schema bundled with
/// this crate, returning one line per violation (`"<JSON pointer>: <error>"`);
/// an empty vector means the log is valid.
///
/// Works offline and from any working directory. The compiled schema is
/// cached, so repeated calls are cheap.
///
/// ```
/// let log = stalecheck_sarif::Log::default().to_json();
/// assert!(stalecheck_sarif::schema_errors(&log).is_empty());
/// ```
pub fn schema_errors(log: &serde_json::Value) -> Vec<String> {
    validator()
        .iter_errors(log)
        .map(|e| {
            let path = e.instance_path().to_string();
            let path = if path.is_empty() { "/" } else { &path };
            format!("{path}: {e}")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn bundled_schema_is_draft_04() {
        let schema: serde_json::Value = serde_json::from_str(super::SCHEMA_JSON).unwrap();
        assert_eq!(schema["$schema"], "http://json-schema.org/draft-04/schema#");
    }
}

//! The name and version of every JSON document the lab prints. Each `--format json` output is
//! one object whose first key, `schema`, names it as `lab.<document>/<version>`: the document
//! (`run`, `memory-run`, `profiles`...) and an integer version that grows when a field is
//! removed, renamed or changes meaning (adding a field keeps the version). `docs/json.md`
//! documents every name in [`SCHEMAS`]; a test checks that it names them all.

use serde::Serialize;

/// A result that `--format json` prints as a document: it serialises to a JSON object, and
/// [`SCHEMA`](Document::SCHEMA) names it.
pub trait Document: Serialize {
    /// `lab.<document>/<version>`, one of [`SCHEMAS`].
    const SCHEMA: &'static str;
}

/// `lab run` under a compaction profile.
pub const RUN: &str = "lab.run/1";
/// `lab run` under a memory profile.
pub const MEMORY_RUN: &str = "lab.memory-run/1";
/// `lab explain`.
pub const EXPLAIN: &str = "lab.explain/1";
/// `lab verify`.
pub const VERIFY: &str = "lab.verify/1";
/// `lab --selftest`.
pub const SELFTEST: &str = "lab.selftest/1";
/// `lab --break`, `lab run S --break D` (compaction).
pub const BREAKS: &str = "lab.breaks/1";
/// `lab memory --break`, `lab run S --break MB..` (memory).
pub const MEMORY_BREAKS: &str = "lab.memory-breaks/1";
/// `lab matrix`.
pub const MATRIX: &str = "lab.matrix/1";
/// `lab sweep`.
pub const SWEEP: &str = "lab.sweep/1";
/// `lab compare`.
pub const COMPARE: &str = "lab.compare/1";
/// `lab memory --growth`.
pub const MEMORY_GROWTH: &str = "lab.memory-growth/1";
/// `lab montecarlo` and `lab merge` (not the `--shard` file, which has its own `format`).
pub const MONTECARLO: &str = "lab.montecarlo/1";
/// `lab profiles` and `lab profiles NAME`.
pub const PROFILES: &str = "lab.profiles/1";
/// `lab search --list`.
pub const PROPERTIES: &str = "lab.properties/1";
/// `lab search`.
pub const SEARCH: &str = "lab.search/1";
/// `lab import`.
pub const IMPORT: &str = "lab.import/1";
/// `lab audit`.
pub const AUDIT: &str = "lab.audit/1";
/// `lab probe` and `lab probe --replay`.
pub const PROBE: &str = "lab.probe/1";

/// Every schema the lab can print, in the order `docs/json.md` documents them.
pub const SCHEMAS: &[&str] = &[
    RUN,
    MEMORY_RUN,
    EXPLAIN,
    VERIFY,
    SELFTEST,
    BREAKS,
    MEMORY_BREAKS,
    MATRIX,
    SWEEP,
    COMPARE,
    MEMORY_GROWTH,
    MONTECARLO,
    PROFILES,
    PROPERTIES,
    SEARCH,
    IMPORT,
    AUDIT,
    PROBE,
];

/// `value` as a pretty-printed JSON document: `{"schema": T::SCHEMA, ...its fields}` with a
/// final newline, written in one pass (the fields are flattened into the document, not
/// collected into a map first).
pub fn document<T: Document>(value: &T) -> String {
    #[derive(Serialize)]
    struct Doc<'a, T> {
        schema: &'static str,
        #[serde(flatten)]
        body: &'a T,
    }
    super::json(&Doc {
        schema: T::SCHEMA,
        body: value,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_schema_is_named_and_versioned_once() {
        let mut seen = std::collections::BTreeSet::new();
        for schema in SCHEMAS {
            let (name, version) = schema.split_once('/').unwrap();
            assert!(name.starts_with("lab.") && name.len() > 4, "{schema}");
            assert!(version.parse::<u32>().unwrap() >= 1, "{schema}");
            assert!(seen.insert(name), "{schema} twice");
        }
        assert_eq!(seen.len(), 18);
    }

    #[test]
    fn docs_json_md_documents_every_schema() {
        let docs = include_str!("../../docs/json.md");
        for schema in SCHEMAS {
            assert!(
                docs.contains(&format!("`{schema}`")),
                "docs/json.md does not document {schema}"
            );
        }
    }

    #[test]
    fn the_schema_comes_first_and_the_fields_keep_their_order() {
        #[derive(Serialize)]
        struct Two {
            zeta: u8,
            alpha: &'static str,
        }
        impl Document for Two {
            const SCHEMA: &'static str = "lab.two/1";
        }
        let text = document(&Two {
            zeta: 7,
            alpha: "a",
        });
        assert_eq!(
            text,
            "{\n  \"schema\": \"lab.two/1\",\n  \"zeta\": 7,\n  \"alpha\": \"a\"\n}\n"
        );
    }
}

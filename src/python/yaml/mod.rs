//! PyYAML 6.0.3 as the course's memory records meet it: the frontmatter writer and reader.
//!
//! s09 (`s09_memory/code.py`) writes a record's frontmatter with
//! `yaml.safe_dump({"name": .., "description": .., "type": ..}, sort_keys=False,
//! allow_unicode=True).strip()` and reads it back in `parse_frontmatter` with `yaml.safe_load`,
//! then takes `str(metadata.get(key) or fallback)`. File sizes are measured, so
//! [`safe_dump_str_mapping`] reproduces the pure-Python `SafeDumper` to the character for a flat
//! mapping of `str`: the implicit resolvers (a string that would load as bool, int, float, null,
//! timestamp, merge `<<` or value `=` is quoted; YAML 1.1 floats need a dot and a signed exponent,
//! so `1.5e3` stays plain), `analyze_scalar`, the plain / single-quoted / double-quoted choice,
//! `''` and backslash escapes (astral characters such as emoji are escaped in double quotes even
//! with `allow_unicode`), and folding past column 80 with continuation lines indented by 2. A value
//! with a line break is single-quoted with each break written twice; one with a tab or another
//! control character is double-quoted; keys that are empty, multi-line or 123+ characters long
//! (`check_simple_key` counts the 5 characters of the tag `!!str` too) become `? key` / `: value`
//! pairs.
//!
//! [`safe_load_mapping`] ports `yaml.safe_load` (reader, scanner, parser, composer and
//! `SafeConstructor`): block and flow mappings and sequences, plain (multi-line, folded), quoted and
//! block (`|`, `>`) scalars, comments, directives, documents markers, anchors and aliases
//! (recursive ones too), merge keys, tags (`!!str`, `!!int`, `!`, verbatim, `%TAG` handles), the
//! implicit bool / int / float / null / timestamp types, duplicate keys (last value wins, first
//! position kept, `1`, `1.0` and `True` being one key as in a Python dict). A value that is not
//! `None`, bool, int, float or str comes back as [`YamlValue::Other`] holding Python's `str()` of it
//! (the repr for lists and dicts, `2024-01-01` for a date). Only `str` keys are returned: a lookup
//! by a `str` key never finds another type. What PyYAML rejects with a `YAMLError` is
//! [`YamlError::Yaml`] (`parse_frontmatter` catches it); what it rejects with another exception
//! (`ValueError` for `!!int x` or `2024-02-30`, `KeyError` for `!!bool maybe`) is
//! [`YamlError::Python`] (it escapes `parse_frontmatter`). Not modelled, reported as
//! [`YamlError::Unsupported`] for the caller to treat like a YAML error: `!!binary`, `!!omap`,
//! `!!pairs`, `!!set`, integers beyond 128 bits, escapes naming a lone surrogate, non-ASCII text
//! handed to `int()`/`float()` by an explicit tag, and nesting deeper than `MAX_DEPTH` (100, in
//! `error.rs`; Python would raise `RecursionError` at some depth of its own).
//!
//! One file per PyYAML module, each naming the module it ports. Loading: `reader` → `scanner` →
//! `parser` → `composer` (tags from `resolver`) → `constructor` → `loaded` (Python's view of the
//! result). Dumping: `emitter` (styles checked against `resolver`). `error` holds `Mark` and the
//! errors, `repr` the Python `repr()` that messages quote with. The tests' expected values come
//! from PyYAML itself: `tools/yamlgen.py` regenerates `cases.rs`.

mod composer;
mod constructor;
mod emitter;
mod error;
mod loaded;
mod parser;
mod reader;
mod repr;
mod resolver;
mod scanner;

#[cfg(test)]
mod cases;
#[cfg(test)]
mod tests;

use composer::Composer;
use constructor::Constructor;
pub(crate) use error::YamlError;
use loaded::Loaded;
pub(crate) use loaded::YamlValue;
use parser::Parser;
use scanner::Scanner;

/// `yaml.safe_dump(dict(pairs), sort_keys=False, allow_unicode=True)`, before `.strip()`.
///
/// A repeated key keeps its first position and its last value, as `dict(pairs)` does; no pairs
/// give `{}\n`.
pub(crate) fn safe_dump_str_mapping(pairs: &[(&str, &str)]) -> String {
    // The representer is handed `dict(pairs)`.
    let mut entries: Vec<(&str, &str)> = Vec::new();
    for &(key, value) in pairs {
        match entries.iter_mut().find(|(seen, _)| *seen == key) {
            Some(entry) => entry.1 = value,
            None => entries.push((key, value)),
        }
    }
    emitter::emit_str_mapping(&entries)
}

/// `yaml.safe_load(text)` when it is a dict: its `str` keys and their values in dict order.
///
/// `Ok(None)` when the document is empty or not a mapping (a scalar, a list).
#[cfg_attr(
    not(test),
    expect(dead_code, reason = "used by tests; part of the loader's API")
)]
pub(crate) fn safe_load_mapping(text: &str) -> Result<Option<Vec<(String, YamlValue)>>, YamlError> {
    let loaded = safe_load(text)?;
    Ok(match loaded.root {
        Some(root) => loaded.mapping(root),
        None => None,
    })
}

/// `metadata = yaml.safe_load(text) or {}` followed by `isinstance(metadata, dict)`, as
/// `parse_frontmatter` does: an empty document and a falsy value (`0`, `false`, `''`, `[]`, `~`)
/// give `Some` of no pairs; a truthy non-mapping gives `None`.
pub(crate) fn load_metadata(text: &str) -> Result<Option<Vec<(String, YamlValue)>>, YamlError> {
    let loaded = safe_load(text)?;
    Ok(match loaded.root {
        None => Some(Vec::new()),
        Some(root) if !loaded.truthy(root) => Some(Vec::new()),
        Some(root) => loaded.mapping(root),
    })
}

/// `yaml.safe_load(text)`: the `SafeLoader` pipeline, reader to constructor.
fn safe_load(text: &str) -> Result<Loaded, YamlError> {
    let scanner = Scanner::new(text)?;
    let mut composer = Composer::new(Parser::new(scanner));
    let root = composer.get_single_node()?;
    let mut constructor = Constructor::new(composer.nodes);
    let root = match root {
        Some(node) => Some(constructor.construct_document(node)?),
        None => None,
    };
    Ok(Loaded {
        objects: constructor.objects,
        root,
    })
}

//! The record store of s09: the path guard, the store's file operations (through the injected
//! faults, counting every path that leaves the store), memory-main's `write_memory_file`, the
//! derived `MEMORY.md` index and the record listing (shareAI-lab/learn-claude-code
//! s09_memory/code.py @ 168fff8; negentropy 173-claude-code-memory-management.md §6, M4).
//!
//! A record is `slug(name).md` with frontmatter (name, description, type) and a body, in the
//! revision's format (`format/`). The index is rebuilt from every file after every write, so it
//! is a derivative and the files are the truth. [`path_guard`] refuses a name with a separator,
//! the index itself, a store outside the workspace, and a path that resolves out of the store
//! (`..`, a symlink). memory-site's own write and index rebuild are in `site.rs`.

use super::format;
use super::fs::{Target, path_name};
use super::record::{MEMORY_TYPES, Record};
use super::world::{PyError, World};
use crate::python::str::{py_strip, universal_newlines};

/// The index file.
pub(crate) const INDEX: &str = "MEMORY.md";

/// The path guard (MB1), `memory_path(filename, allow_index)`: the guard's verdict, or `Ok`
/// when the profile has no guard.
pub(crate) fn path_guard(world: &World, filename: &str, allow_index: bool) -> Result<(), PyError> {
    if !world.profile.switches.path_guard {
        return Ok(());
    }
    if path_name(filename) != filename {
        return Err(PyError(format!("Invalid memory filename: {filename}")));
    }
    if filename == INDEX && !allow_index {
        return Err(PyError::new("The memory index is not a memory record"));
    }
    if world.fs.root_escapes() {
        return Err(PyError::new("Memory directory escapes the workspace"));
    }
    let escapes = filename == ".." || matches!(world.fs.target(filename), Target::Outside(_));
    if escapes {
        return Err(PyError(format!(
            "Memory path escapes the store: {filename}"
        )));
    }
    Ok(())
}

/// Counts down a fault; true when this operation is the one that fails.
fn strike(slot: &mut Option<usize>) -> bool {
    match slot {
        Some(0) => {
            *slot = None;
            true
        }
        Some(n) => {
            *n -= 1;
            false
        }
        None => false,
    }
}

/// Writes a record file through the injected faults.
pub(crate) fn write_record(world: &mut World, name: &str, text: &str) -> Result<(), PyError> {
    // Python's open() refuses a path holding NUL before anything is written (memory-site's
    // slug keeps `\x00`; memory-main's replaces it).
    if name.contains('\0') {
        world.event(
            "store",
            "write",
            Some(name),
            "ValueError: embedded null byte",
        );
        return Err(PyError::new("embedded null byte"));
    }
    if strike(&mut world.faults.write_after) {
        world.event("fault", "write", Some(name), "injected write failure");
        return Err(PyError::new("[Errno 28] No space left on device"));
    }
    note_escape(world, name, "write");
    world
        .fs
        .write(name, text)
        .map_err(|e| PyError(e.to_string()))
}

/// Deletes a record file through the injected faults.
pub(crate) fn delete_record(world: &mut World, name: &str) -> Result<(), PyError> {
    if strike(&mut world.faults.delete_after) {
        world.event("fault", "delete", Some(name), "injected delete failure");
        return Err(PyError(format!("[Errno 13] Permission denied: '{name}'")));
    }
    world.fs.unlink(name).map_err(|e| PyError(e.to_string()))
}

/// Reads a file of the store, noting a read that leaves the store.
pub(crate) fn read_file(world: &mut World, name: &str) -> Result<String, PyError> {
    note_escape(world, name, "read");
    world
        .fs
        .read(name)
        .map(|text| universal_newlines(&text).into_owned())
        .map_err(|e| PyError(e.to_string()))
}

/// Counts and traces a file operation that reaches a path outside the store.
fn note_escape(world: &mut World, name: &str, what: &'static str) {
    if let Target::Outside(path) = world.fs.target(name) {
        world.counters.path_escapes += 1;
        world.event(
            "store",
            "escape",
            Some(name),
            format!("{what} of {name} reaches {path}, outside the store"),
        );
    }
}

/// memory-main's `write_memory_file`: validate, write `slug.md`, rebuild the index.
pub(crate) fn write_memory_file(
    world: &mut World,
    name: &str,
    kind: &str,
    description: &str,
    body: &str,
) -> Result<String, PyError> {
    if py_strip(name).is_empty() {
        return Err(PyError::new("Memory name cannot be empty"));
    }
    if !MEMORY_TYPES.contains(&kind) {
        return Err(PyError(format!("Unknown memory type: {kind}")));
    }
    if py_strip(description).is_empty() || py_strip(body).is_empty() {
        return Err(PyError::new("Memory description and body cannot be empty"));
    }
    let filename = format!("{}.md", format::memory_main::slug(name));
    path_guard(world, &filename, false)?;
    let text = format::memory_main::document(name, kind, description, body);
    write_record(world, &filename, &text)?;
    world.event(
        "store",
        "write",
        Some(&filename),
        format!("record `{name}` written"),
    );
    if world.profile.switches.rebuild_index {
        rebuild_index(world)?;
    } else {
        append_index_line(world, &filename, &text)?;
    }
    Ok(filename)
}

/// MB2: the index kept by hand, one appended line per write, never rebuilt.
fn append_index_line(world: &mut World, filename: &str, text: &str) -> Result<(), PyError> {
    let mut index = world.fs.read(INDEX).unwrap_or_default();
    index.push_str(&format::memory_main::index_line(text, filename));
    index.push('\n');
    world
        .fs
        .write(INDEX, &index)
        .map_err(|e| PyError(e.to_string()))
}

/// The index `rebuild_memory_index` would write now.
pub(crate) fn derived_index(world: &World) -> String {
    let mut lines = Vec::new();
    for name in world.fs.glob_md() {
        if name == INDEX || path_guard(world, &name, false).is_err() {
            continue;
        }
        let Ok(text) = world.fs.read(&name) else {
            continue;
        };
        let text = universal_newlines(&text);
        lines.push(format::index_line(world.profile.revision, &text, &name));
    }
    index_text(&lines)
}

/// The text of an index of `lines`: one line each, newline-terminated.
pub(crate) fn index_text(lines: &[String]) -> String {
    let mut out = lines.join("\n");
    if !lines.is_empty() {
        out.push('\n');
    }
    out
}

/// Writes `MEMORY.md` as both revisions' index rebuild does.
pub(crate) fn write_index(world: &mut World, index: &str) -> Result<(), PyError> {
    world
        .fs
        .write(INDEX, index)
        .map_err(|e| PyError(e.to_string()))?;
    world.event(
        "store",
        "index",
        None,
        "MEMORY.md rebuilt from every record file",
    );
    Ok(())
}

/// memory-main's `rebuild_memory_index`: every record the guard allows is read (and a read that
/// leaves the store is counted), then the derived index is written.
pub(crate) fn rebuild_index(world: &mut World) -> Result<(), PyError> {
    for name in world.fs.glob_md() {
        if name != INDEX && path_guard(world, &name, false).is_ok() {
            note_escape(world, &name, "read");
        }
    }
    let index = derived_index(world);
    path_guard(world, INDEX, true)?;
    write_index(world, &index)
}

/// `read_memory_index`: the stripped index, or empty.
pub(crate) fn read_index(world: &World) -> String {
    if path_guard(world, INDEX, true).is_err() {
        return String::new();
    }
    world
        .fs
        .read(INDEX)
        .map(|t| py_strip(&universal_newlines(&t)).to_owned())
        .unwrap_or_default()
}

/// `list_memory_files`, in the revision's format.
pub(crate) fn list_records(world: &mut World) -> Vec<Record> {
    let mut records = Vec::new();
    for filename in world.fs.glob_md() {
        if filename == INDEX || path_guard(world, &filename, false).is_err() {
            continue;
        }
        let Ok(text) = read_file(world, &filename) else {
            continue;
        };
        records.push(format::record(world.profile.revision, &filename, &text));
    }
    records
}

/// `read_memory_file`: the text, or nothing when the guard refuses or the file is missing.
pub(crate) fn read_memory_file(world: &mut World, filename: &str) -> Option<String> {
    path_guard(world, filename, false).ok()?;
    if !world.fs.is_file(filename) {
        return None;
    }
    read_file(world, filename).ok()
}

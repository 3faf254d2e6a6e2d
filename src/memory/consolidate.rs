//! memory-main's consolidation: the only deletion path of the store (s09 `consolidate_memories`;
//! negentropy 173-claude-code-memory-management.md §7, M5; findings M6-M9). memory-site's is in `site.rs`.
//!
//! It runs when a turn stored at least one record and the store has at least 10. A catalog over
//! 20000 characters raises before the model call (the pass is skipped, silently, every time:
//! the reverse gate, M8, [`reverse_gate`]). Empty or duplicate-slug results raise before anything
//! is deleted. Then: snapshot → delete every record → write the new ones → rebuild the index;
//! any failure deletes again, restores the snapshot ([`snapshot_restore`], MB4), rebuilds and
//! re-raises, and the caller prints one "skipped" line. "Keep at most 30 records" is only in the
//! prompt (M9).

use super::extract::{Candidate, validate};
use super::format::memory_main::{document, slug};
use super::recall::extract_json_array;
use super::record::Record;
use super::side_call;
use super::store::{
    INDEX, delete_record, list_records, path_guard, read_file, rebuild_index, write_record,
};
use super::world::{PyError, World};
use crate::python::json::char_len;

/// One record's entry in the consolidator's catalog.
fn entry(r: &Record) -> String {
    format!(
        "## {}\nname: {}\ntype: {}\ndescription: {}\n\n{}",
        r.filename, r.name, r.kind, r.description, r.body
    )
}

/// The catalog the consolidator is shown: every record's entry, blank-line separated.
pub(crate) fn catalog(records: &[Record]) -> String {
    records.iter().map(entry).collect::<Vec<_>>().join("\n\n")
}

/// The records in listing order, packed greedily into catalogs of at most `limit` characters;
/// `None` when one record alone is over the limit.
fn chunks(records: &[Record], limit: usize) -> Option<Vec<Vec<Record>>> {
    let mut out: Vec<Vec<Record>> = Vec::new();
    let mut size = 0;
    for record in records {
        let chars = char_len(&entry(record));
        if chars > limit {
            return None;
        }
        match out.last_mut() {
            Some(chunk) if size + 2 + chars <= limit => {
                chunk.push(record.clone());
                size += 2 + chars;
            }
            _ => {
                out.push(vec![record.clone()]);
                size = chars;
            }
        }
    }
    Some(out)
}

/// memory-main's `consolidate_memories`: the number of records written (0 when skipped).
pub(crate) fn consolidate(world: &mut World) -> usize {
    let listed = list_records(world);
    let count = listed.len();
    let catalog = catalog(&listed);
    let threshold = world.profile.constants.consolidate_threshold;
    if count < threshold {
        world.event(
            "consolidate",
            "skip",
            None,
            format!("{count} records < threshold {threshold}"),
        );
        return 0;
    }
    match pass(world, &listed, &catalog) {
        Ok(written) => {
            world.counters.consolidations += 1;
            world.event(
                "consolidate",
                "done",
                None,
                format!("[Memory: consolidated {count} to {written} records]"),
            );
            written
        }
        Err(error) => {
            world.counters.consolidations_skipped += 1;
            world.event(
                "consolidate",
                "skip",
                None,
                format!("[Memory consolidation skipped: {}]", error.0),
            );
            0
        }
    }
}

/// One consolidation pass: the reverse gate, the model calls, the result checks, then the
/// snapshot and the rewrite, restored from the snapshot if the rewrite fails.
fn pass(world: &mut World, listed: &[Record], catalog: &str) -> Result<usize, PyError> {
    let parts = reverse_gate(world, listed, catalog)?;
    let records = merged(world, &parts)?;
    let snapshot = snapshot(world)?;
    match rewrite(world, &records) {
        Ok(()) => Ok(records.len()),
        Err(error) => {
            if world.profile.switches.snapshot_restore {
                snapshot_restore(world, &snapshot);
            }
            let present = world.fs.glob_md();
            let lost = snapshot
                .iter()
                .filter(|(f, _)| !present.contains(f))
                .count();
            world.counters.records_lost += lost;
            Err(error)
        }
    }
}

/// The reverse gate (M8): a catalog over `consolidate_input` characters raises before the model
/// call, so a store that outgrows it is never consolidated again. With
/// `chunked_consolidation` on (a fix, not in the course) the records are shown in chunks under
/// the cap instead. The catalogs the consolidator is shown, one per model call.
fn reverse_gate(
    world: &mut World,
    listed: &[Record],
    catalog: &str,
) -> Result<Vec<Vec<Record>>, PyError> {
    let limit = world.profile.constants.consolidate_input;
    let too_large = || PyError::new("memory store is too large for one consolidation pass");
    if char_len(catalog) <= limit {
        return Ok(vec![listed.to_vec()]);
    }
    if !world.profile.switches.chunked_consolidation {
        return Err(too_large());
    }
    let parts = chunks(listed, limit).ok_or_else(too_large)?;
    world.event(
        "consolidate",
        "chunk",
        None,
        format!(
            "catalog of {} chars over {limit}: {} chunks under the cap",
            char_len(catalog),
            parts.len()
        ),
    );
    Ok(parts)
}

/// The consolidator's records for every catalog, validated; empty or duplicate-slug results
/// raise before anything is deleted.
fn merged(world: &mut World, parts: &[Vec<Record>]) -> Result<Vec<Candidate>, PyError> {
    let mut records: Vec<Candidate> = Vec::new();
    for part in parts {
        let reply = side_call::consolidate(world, part)?;
        records.extend(
            extract_json_array(&reply)
                .unwrap_or_default()
                .iter()
                .filter_map(|item| validate(item, false)),
        );
    }
    let slugs: Vec<String> = records.iter().map(|r| slug(&r.name)).collect();
    let mut unique = slugs.clone();
    unique.sort();
    unique.dedup();
    if records.is_empty() || unique.len() != slugs.len() {
        return Err(PyError::new(
            "consolidation returned empty or duplicate records",
        ));
    }
    Ok(records)
}

/// Every listed record's file and text, before the rewrite.
fn snapshot(world: &mut World) -> Result<Vec<(String, String)>, PyError> {
    let mut snapshot: Vec<(String, String)> = Vec::new();
    for record in list_records(world) {
        let text = read_file(world, &record.filename)?;
        snapshot.push((record.filename, text));
    }
    Ok(snapshot)
}

/// The snapshot restore (MB4): after a failed rewrite, delete every record again, write the
/// snapshot back and rebuild the index.
fn snapshot_restore(world: &mut World, snapshot: &[(String, String)]) {
    delete_records(world);
    for (filename, text) in snapshot {
        // The snapshot is written back without the fault counter.
        let _ = world.fs.write(filename, text);
    }
    let _ = rebuild_index(world);
    world.event(
        "consolidate",
        "restore",
        None,
        "snapshot restored after the failure",
    );
}

/// Deletes every record file (not the index); a refused name is skipped.
fn delete_records(world: &mut World) {
    for name in world.fs.glob_md() {
        if name == INDEX || path_guard(world, &name, false).is_err() {
            continue;
        }
        let _ = world.fs.unlink(&name);
    }
}

/// Deletes every record through the faults, writes the consolidated ones, rebuilds the index.
fn rewrite(world: &mut World, records: &[Candidate]) -> Result<(), PyError> {
    for name in world.fs.glob_md() {
        if name == INDEX || path_guard(world, &name, false).is_err() {
            continue;
        }
        delete_record(world, &name)?;
    }
    for record in records {
        let filename = format!("{}.md", slug(&record.name));
        path_guard(world, &filename, false)?;
        let text = document(
            &record.name,
            &record.kind,
            &record.description,
            &record.body,
        );
        write_record(world, &filename, &text)?;
    }
    if world.profile.switches.rebuild_index {
        rebuild_index(world)?;
    }
    Ok(())
}

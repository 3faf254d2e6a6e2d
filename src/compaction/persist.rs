//! Persistence: writing a result's original text to the spill store and replacing it in context
//! by a persisted-output block (a `Full output: {path}` line and a preview).
//!
//! Two rules, chosen by the profile's `Persist`: course s08 `persist_large_output` at f9e8b28
//! (negentropy 173-claude-code-memory-management.md §3, docs/profiles.md) writes only if the file
//! is absent, so a stale file with other text wins; the later `persisted_preview` / `save_output`
//! (docs/profiles.md) keeps a recognised pointer and otherwise always overwrites. Budget persists
//! with the profile's rule, fit builds previews, micro with `save_before_replace` saves, and Claude
//! Code's arrival writes once.

use crate::call_id::CallId;
use crate::compaction::profile::{Persist, fill};
use crate::compaction::world::World;
use crate::error::RunError;
use crate::python::json;
use crate::python::str::universal_newlines;
use crate::trace::{Event, Reason, reason};
use crate::transcript::ResultText;

/// Budget's persistence of a large result, by the profile's rule: f9e8b28's
/// `persist_large_output` (write only if absent) or the later `persisted_preview` (keep a
/// recognised pointer, else `save_output`, which overwrites).
pub(crate) fn persist(
    world: &mut World,
    message: usize,
    block: usize,
    stage: &'static str,
    why: Reason,
) -> Result<(), RunError> {
    let preview_chars = world.profile.constants.preview;
    let (text, note) = match world.profile.persist {
        Persist::WriteIfAbsent => persist_if_absent(world, message, block, preview_chars)?,
        Persist::SaveOutput => persisted_preview(world, message, block, preview_chars)?,
    };
    world.replace_result(message, block, text, stage, reason!("{note}: {why}"));
    Ok(())
}

/// The profile's persisted-output block for a file and a preview of its text.
fn persisted_block(world: &World, path: &str, preview: &str) -> String {
    fill(
        world.profile.strings.persisted,
        &[("path", path), ("preview", preview)],
    )
}

/// f9e8b28 `persist_large_output`: returns the replacement and what happened.
fn persist_if_absent(
    world: &mut World,
    message: usize,
    block: usize,
    preview_chars: usize,
) -> Result<(String, Reason), RunError> {
    let (id, content) = world.history.owned_result_at(message, block);
    let path = world.spill_path(&id);
    let note = if world.store.is_file(&path) {
        let same = world.store.read_spill(&path).as_deref() == Some(content.as_str());
        world.ledger.mark_spilled(&id, same);
        if same {
            "file existed with the same text, not rewritten"
        } else {
            "file existed with other text, not rewritten (write only if absent)"
        }
    } else {
        write_new_spill_file(world, &id, &path, &content)?;
        "written"
    };
    let preview = content.char_prefix(preview_chars);
    Ok((
        persisted_block(world, &path, preview),
        reason!("persisted to {path} ({note})"),
    ))
}

/// Later `persisted_preview(tool_use_id, output, preview_chars)`: returns the replacement and
/// what happened. It writes the file even when the caller then keeps the original.
pub(crate) fn persisted_preview(
    world: &mut World,
    message: usize,
    block: usize,
    preview_chars: usize,
) -> Result<(String, Reason), RunError> {
    let (id, content) = world.history.owned_result_at(message, block);
    if let Some(path) = world.recognised_pointer(&content) {
        // `path.open(encoding="utf-8")` reads the file back in text mode: universal newlines.
        let preview = match world.store.read_spill(&path) {
            Some(saved) => json::char_prefix(&universal_newlines(&saved), preview_chars).to_owned(),
            None => content.char_prefix(preview_chars).to_owned(),
        };
        return Ok((
            persisted_block(world, &path, &preview),
            reason!("already a pointer to {path}, previewed from that file"),
        ));
    }
    let path = save_output(world, &id, &content)?;
    let preview = content.char_prefix(preview_chars);
    Ok((
        persisted_block(world, &path, preview),
        reason!("saved to {path}"),
    ))
}

/// Later `save_output`: always writes (overwrites) `spill_dir/<safe_id>.txt`.
pub(crate) fn save_output(
    world: &mut World,
    id: &CallId,
    content: &ResultText,
) -> Result<String, RunError> {
    let path = world.spill_path(id);
    write_spill_file(world, id, &path, content)?;
    Ok(path)
}

/// Writes a spill file and marks the result as kept verbatim.
pub(crate) fn write_spill_file(
    world: &mut World,
    id: &CallId,
    path: &str,
    content: &ResultText,
) -> Result<(), RunError> {
    note_escape(world, id, path);
    let old = world.store.put_replacing(path, content.clone().into())?;
    // An overwrite with other text (later `save_output` for colliding safe ids) destroys the
    // original another result kept there: it is no longer in the spill store.
    if old.is_some_and(|old| old != *content) {
        let others: Vec<CallId> = world
            .ledger
            .results
            .keys()
            .filter(|other| other.as_str() != id && world.spill_path(other) == path)
            .cloned()
            .collect();
        for other in others {
            if let Some(record) = world.ledger.results.get_mut(&other) {
                record.spilled_verbatim = false;
            }
        }
    }
    world.ledger.mark_spilled(id, true);
    Ok(())
}

/// [`write_spill_file`] of a file the caller has just found absent (write-once and
/// write-if-absent rules): no original can be overwritten, so the store is not read first.
pub(crate) fn write_new_spill_file(
    world: &mut World,
    id: &CallId,
    path: &str,
    content: &ResultText,
) -> Result<(), RunError> {
    note_escape(world, id, path);
    world.store.put_spill(path, content.clone().into())?;
    world.ledger.mark_spilled(id, true);
    Ok(())
}

/// Traces a spill file the modelled code writes outside the spill directory (the file is kept
/// in memory).
fn note_escape(world: &mut World, id: &CallId, path: &str) {
    if !world.owns(path) {
        let reason = format!(
            "the modelled code writes {path} (= {}), outside the spill directory {}: a path \
             traversal by the tool_use id; the lab keeps the file in memory and writes nothing \
             there",
            crate::compaction::store::resolve_lexical(path),
            world.spill_dir
        );
        world.record(Event::new("store", "escape").id(id).reason(reason));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::profile::Profile;
    use crate::compaction::profile::{COURSE_LATEST, COURSE_MAIN};

    const PATH: &str = "/lab/tool-results/t0.txt";

    /// A world whose spill store already holds other text at t0's path, with t0 in context.
    fn stale_file(profile: Profile) -> World {
        let mut world = World::for_test(profile);
        world.store.write_spill(PATH, "stale".into()).unwrap();
        world.turn(&[("t0", "bash", "x".repeat(40_000))]);
        persist(&mut world, 1, 0, "budget", "why".into()).unwrap();
        world
    }

    #[test]
    fn write_if_absent_keeps_a_stale_file() {
        let world = stale_file(COURSE_MAIN);
        assert_eq!(world.store.read_spill(PATH).as_deref(), Some("stale"));
        assert!(!world.ledger.results[&CallId::new("t0")].spilled_verbatim);
        let event = world.trace.last().unwrap();
        assert_eq!(
            event.reason.to_string(),
            format!(
                "persisted to {PATH} (file existed with other text, not rewritten (write only if absent)): why"
            )
        );
    }

    /// Later `save_output` of two ids with one safe name: the second, with other text,
    /// destroys the first's original (no longer kept verbatim); the same text again destroys
    /// nothing.
    #[test]
    fn an_overwrite_with_other_text_loses_the_original_it_held() {
        let mut world = World::for_test(COURSE_LATEST);
        world.turn(&[
            ("a:b", "bash", "first".into()),
            ("a?b", "bash", "second".into()),
        ]);
        let spilled = |world: &World, id: &CallId| world.ledger.results[id].spilled_verbatim;
        let path = save_output(&mut world, &CallId::new("a:b"), &"first".into()).unwrap();
        assert!(spilled(&world, &CallId::new("a:b")));
        assert_eq!(
            save_output(&mut world, &CallId::new("a?b"), &"first".into()).unwrap(),
            path
        );
        assert!(
            spilled(&world, &CallId::new("a:b")) && spilled(&world, &CallId::new("a?b")),
            "same text"
        );
        save_output(&mut world, &CallId::new("a?b"), &"second".into()).unwrap();
        assert!(
            !spilled(&world, &CallId::new("a:b")) && spilled(&world, &CallId::new("a?b")),
            "other text"
        );
        assert_eq!(world.store.read_spill(&path).as_deref(), Some("second"));
    }

    #[test]
    fn save_output_overwrites_it() {
        let world = stale_file(COURSE_LATEST);
        assert_eq!(world.store.read_spill(PATH).map(|t| t.len()), Some(40_000));
        assert!(world.ledger.results[&CallId::new("t0")].spilled_verbatim);
        assert!(world.result("t0").unwrap().starts_with(&format!(
            "<persisted-output>\nFull output: {PATH}\nPreview:\n"
        )));
    }
}

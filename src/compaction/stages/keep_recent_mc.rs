//! Claude Code v2.1.332's KEEP-RECENT microcompact, in place of 2.1.88's time-based one. It runs
//! when the API rejects a request under the `context_hint` beta (a scenario's `context_hint`
//! step): every result of a compactable tool (the time-based microcompact's list) except the last
//! `max(1, keep_recent)` is saved to a file and replaced by a pointer to it, `<persisted-output>Tool
//! result saved to: PATH\n\nUse Read to view</persisted-output>`, or by `[Old tool result content
//! cleared]` when the file cannot be written, but only when the results to clear, not cleared or
//! persisted already, hold at least `keep_recent_min_saved` (20000) tokens. Read in the code only
//! (docs/probe.md): the scripted model server never rejects a request, so no record shows it.

use crate::call_id::CallId;
use crate::compaction::world::World;
use crate::error::RunError;
use crate::hash::FastSet;
use crate::scenario::StoreDir;
use crate::trace::{Event, reason};
use crate::transcript::ResultText;

const STAGE: &str = "keep_recent_mc";

/// A result already cleared or persisted (`isAlreadyCleared`).
fn cleared(world: &World, content: &str) -> bool {
    content == world.profile.strings.omitted || content.starts_with("<persisted-output>")
}

pub(super) fn run(world: &mut World) -> Result<(), RunError> {
    let ids = super::time_mc::compactable_ids(world.history.messages());
    let c = world.profile.constants;
    let keep = c.keep_recent.max(1);
    let clear: FastSet<CallId> = ids[..ids.len().saturating_sub(keep)]
        .iter()
        .copied()
        .collect();
    let targets: Vec<(usize, usize, CallId, ResultText)> = world
        .history
        .result_positions()
        .into_iter()
        .filter_map(|(mi, bi)| {
            let (id, content) = world.history.result_at(mi, bi);
            (clear.contains(id) && !cleared(world, content))
                .then(|| world.history.owned_result_at(mi, bi))
                .map(|(id, content)| (mi, bi, id, content))
        })
        .collect();
    let estimator = world.profile.estimator;
    let saved: usize = targets.iter().map(|t| estimator.string(&t.3)).sum();
    if saved < c.keep_recent_min_saved {
        world.record(Event::new(STAGE, "skip").before(saved).reason(reason!(
            "context_hint rejection: clearing {} results would save {saved} tokens < keep_recent_min_saved {}",
            targets.len(),
            c.keep_recent_min_saved
        )));
        return Ok(());
    }
    let count = targets.len();
    for (mi, bi, id, content) in targets {
        let name = format!("{}.txt", world.profile.safe_id(&id));
        let path = world.path_in(StoreDir::Spill, &name);
        let written = world.store.is_file(&path)
            || world.store.put_spill(&path, content.clone().into()).is_ok();
        let replacement = if written {
            world.ledger.mark_spilled(&id, true);
            format!(
                "<persisted-output>Tool result saved to: {path}\n\nUse Read to view</persisted-output>"
            )
            .into()
        } else {
            world.omitted.clone()
        };
        world.replace_result(
            mi,
            bi,
            replacement,
            STAGE,
            format!("context_hint rejection: not among the last {keep} compactable results"),
        );
    }
    world.record(Event::new(STAGE, "clear").before(saved).reason(reason!(
        "context_hint rejection: cleared {count} tool results (~{saved} tokens), kept last {}",
        ids.len().min(keep)
    )));
    Ok(())
}

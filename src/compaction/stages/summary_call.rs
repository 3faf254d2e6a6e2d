//! What both of Claude Code's compaction forms do (the whole history summarised, `autocompact`,
//! or all but the last turn, `keep_last_turn`): the summariser call, and the restore budget the
//! files read before it are counted against.

use crate::compaction::world::World;
use crate::compaction::{archive, summarizer};
use crate::scenario::StoreDir;
use crate::trace::{Event, reason};
use crate::transcript::{rough_tokens, rough_units};

/// Counts a restored file's blocks against the restore budget, `used` tokens of it spent
/// already: traced as restored (and `used` grown) when they fit, as not restored when they do
/// not. True when they fit.
pub(super) fn within_budget(
    world: &mut World,
    path: &str,
    attachment: &[String],
    used: &mut usize,
) -> bool {
    let budget = world.profile.constants.restore_budget;
    let tokens: usize = attachment.iter().map(|t| rough_tokens(t)).sum();
    let fits = *used + tokens <= budget;
    let reason = if fits {
        *used += tokens;
        format!("restored {path} ({tokens} tokens, {used} of {budget} used)")
    } else {
        format!("not restored {path}: {used} + {tokens} > budget {budget}")
    };
    world.record(
        Event::new("autocompact", "restore")
            .after(tokens)
            .reason(reason),
    );
    fits
}

/// The summariser call over the first `from` messages (`tokens` in all; `kept` messages after
/// them stay verbatim, when the form keeps any): their originals noted as compacted away into the
/// session log, the scripted summary bounded by the call's max_tokens, one model call traced.
/// Returns the session log's path (the summary message names it) and the summary text.
pub(super) fn summarise(
    world: &mut World,
    from: usize,
    tokens: usize,
    kept: Option<usize>,
) -> (std::rc::Rc<str>, String) {
    let path = archive::session_path(world)
        .unwrap_or_else(|| world.path_in(StoreDir::Transcript, "session.jsonl").into());
    super::cut::note_removed(
        world,
        0..from,
        "autocompact",
        "compacted away",
        Some(path.clone()),
    );
    let max_tokens = world.profile.summary_max_tokens();
    let bounded = summarizer::nine_sections(world, from, max_tokens);
    let summary_text = bounded.text;
    let cut = if bounded.cut {
        format!(", summary cut at the call's max_tokens {max_tokens}")
    } else {
        String::new()
    };
    let kept = kept.map_or_else(String::new, |kept| format!(", the last {kept} kept"));
    world.counters.model_calls += 1;
    world.record(
        Event::new("autocompact", "summary")
            .sizes(tokens, rough_units(bounded.units))
            .reason(reason!(
                "summariser call over {from} messages ({tokens} tokens){kept}{cut}"
            )),
    );
    (path, summary_text)
}

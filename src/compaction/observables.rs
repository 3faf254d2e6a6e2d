//! Observables: pure functions of a run's state (messages, spill store, archives, trace),
//! docs/observables.md.
//!
//! `dropped_unsaved` and `pointer_lost` follow the companion prototype's `probe` exactly (its
//! `lost_forever`): a result whose content in the final context is a no-pointer placeholder is
//! dropped unsaved when no spill file of its id exists, and has lost its pointer when one does.
//! A transcript or session log may still hold a dropped result; `unrecoverable` counts what no
//! copy holds.
//!
//! Three names of the first release are kept in the JSON for one more release, with their old
//! values ([`Deprecated`]): `lost_forever` (now `dropped_unsaved`: it alarmed about results a
//! transcript still held), `context_chars` and `peak_context_chars` (now `context_size` and
//! `peak_context_size`: they held tokens under the token-estimating profiles; the unit is the
//! run's `context_unit`).

use crate::call_id::{CallId, IdMap};
use crate::hash::{FastSet, PathSet};
use smol_str::SmolStr;
use std::borrow::Cow;

use serde::Serialize;

use crate::compaction::pointer::{Pointer, pointer_in};
use crate::compaction::profile::Strings;
use crate::compaction::store::{self, SpillFile};
use crate::compaction::world::World;
use crate::python::json::char_len;
use crate::trace::Reason;
use crate::transcript::{Content, ResultText, Role};

/// Names accepted in `expect`, in output order.
pub const OBSERVABLE_NAMES: &[&str] = &[
    "persisted_files",
    "dropped_unsaved",
    "pointer_lost",
    "unrecoverable",
    "orphan_files",
    "forged_pointers",
    "unseen_compacted",
    "placeholders",
    "pairs_intact",
    "api_valid",
    "context_size",
    "peak_context_size",
    "messages",
    "model_calls",
    "transcripts",
    "spill_chars",
    "transcript_originals",
    "transcript_placeholders",
    "claude_md_present",
    "reread_after_clear",
    "dangling_pointers",
    "compaction_churn",
    "pairs_broken_by_compaction",
    "path_escapes",
    "lost_forever",
    "context_chars",
    "peak_context_chars",
];

/// The names of the first release kept for one more (see the module docs), each with its new
/// name. Accepted wherever an observable is named; shown in JSON only.
pub const DEPRECATED_NAMES: [(&str, &str); 3] = [
    ("lost_forever", "dropped_unsaved"),
    ("context_chars", "context_size"),
    ("peak_context_chars", "peak_context_size"),
];

/// What the three loss counts mean, printed under every table that shows them.
pub const LOSS_LEGEND: &str = "dropped_unsaved: results replaced with no pointer and no spill \
file of their id (the model cannot get them back; a transcript or session log may still hold \
them); pointer_lost: replaced with no pointer while their spill file exists (orphaned); \
unrecoverable: originals held nowhere (context, spill store, transcript or session log).";

/// True for a name kept only for the JSON of one more release (tables do not show it).
pub fn is_deprecated(name: &str) -> bool {
    DEPRECATED_NAMES.iter().any(|(old, _)| *old == name)
}

/// The current name of an observable (a deprecated name maps to its replacement).
pub fn current_name(name: &str) -> &str {
    DEPRECATED_NAMES
        .iter()
        .find(|(old, _)| *old == name)
        .map_or(name, |(_, new)| new)
}

/// Everything measured at one point of a run. Field order is the output order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Observables {
    /// Sorted basenames in the spill store.
    pub persisted_files: Vec<SmolStr>,
    /// No-pointer placeholder in context and no spill file of that id (a transcript or session
    /// log may still hold the original).
    pub dropped_unsaved: usize,
    /// No-pointer placeholder in context, but a spill file of that id exists (orphaned).
    pub pointer_lost: usize,
    /// Results whose original text is nowhere: not verbatim in context, spill store or archive.
    pub unrecoverable: usize,
    /// Spill files that no pointer in the final context names.
    pub orphan_files: usize,
    /// Pointers in context naming a path outside the spill store or a missing file.
    pub forged_pointers: usize,
    /// Results replaced by a placeholder before any assistant message followed them.
    pub unseen_compacted: usize,
    /// Results in context that are placeholders (with or without a pointer).
    pub placeholders: usize,
    /// Every assistant message with tool_use is immediately followed by a tool_result message.
    pub pairs_intact: bool,
    /// Every tool_use has exactly one result in the next message and every result answers a
    /// tool_use of the previous message.
    pub api_valid: bool,
    /// The profile's estimate of the context, in the run's `context_unit`.
    pub context_size: usize,
    /// The largest estimate after any step.
    pub peak_context_size: usize,
    /// Messages in context.
    pub messages: usize,
    /// Model calls made by the context layer (summaries).
    pub model_calls: usize,
    /// Transcripts written to the archive.
    pub transcripts: usize,
    /// Characters in the spill store.
    pub spill_chars: usize,
    /// Per transcript, in order: results it holds verbatim.
    pub transcript_originals: Vec<usize>,
    /// Per transcript, in order: results it holds replaced.
    pub transcript_placeholders: Vec<usize>,
    /// The scenario's CLAUDE.md text is in what the next request sends.
    pub claude_md_present: bool,
    /// Tool calls issued again (same name, same input) while no earlier identical call's result
    /// was in context verbatim any more (`reread` events).
    pub reread_after_clear: usize,
    /// Pointers in context (in results: persisted-output and `saved at` paths; in text messages:
    /// the summary's transcript path and snip's archive marker) naming a path inside the spill or
    /// transcript directory where no file is.
    pub dangling_pointers: usize,
    /// Compactions (`compact` events of compact, reactive and autocompact, `snip` events) whose
    /// estimate after is more than 95% of the estimate before: 20 × (before − after) < before.
    pub compaction_churn: usize,
    /// Tool_use/tool_result pairs intact before a stage and split by it (`split` events).
    pub pairs_broken_by_compaction: usize,
    /// Spill writes the modelled code aims outside the run's directories (a tool_use id with
    /// `../` or an absolute path: `escape` events). The lab keeps them in memory, never on disk.
    pub path_escapes: usize,
    /// The first release's names, kept in the JSON for one more release.
    #[serde(flatten)]
    pub deprecated: Deprecated,
}

/// The observables of the first release under their old names and with their old values, kept
/// in the JSON for one release after their renaming (module docs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Deprecated {
    /// Deprecated: `dropped_unsaved`.
    pub lost_forever: usize,
    /// Deprecated: `context_size` (in `context_unit`, tokens under some profiles).
    pub context_chars: usize,
    /// Deprecated: `peak_context_size`.
    pub peak_context_chars: usize,
}

/// What the tool results in context show: the loss and pointer counts, the paths their pointers
/// name (resolved), and the ids still held verbatim (hashed sets: only looked up, never listed).
#[derive(Default)]
struct ResultScan<'a> {
    dropped_unsaved: usize,
    pointer_lost: usize,
    forged: usize,
    placeholders: usize,
    /// Pointers of results (in user messages) that name a missing file inside the run's
    /// directories ([`dangling_pointers`] adds the other messages').
    dangling: usize,
    named: PathSet<Cow<'a, str>>,
    verbatim_in_context: FastSet<CallId>,
    /// For the results' fates, when asked for: each result in context (of any message, the
    /// last block of an id), its content and what the scan found in it (issue 13: the fates
    /// read every content in context again, and looked its pointer up again).
    found: Option<IdMap<(&'a ResultText, Found)>>,
}

/// What a result's content in context holds, as its fate tells it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Found {
    /// Its original text.
    Original,
    /// A placeholder without pointer; `lost` when its spill file exists (its pointer lost).
    Placeholder { lost: bool },
    /// A pointer (a persisted-output block's or a `saved at` placeholder's) and whether its
    /// path names a file of the spill store.
    Pointer { persisted: bool, valid: bool },
    /// Another text: no pointer in it.
    Replaced,
}

/// Scans every tool result in context once; with `fates`, keeps what it found in each for
/// [`fates`].
fn scan_results<'a>(world: &'a World, spill: &[SpillFile], fates: bool) -> ResultScan<'a> {
    let strings = &world.profile.strings;
    let mut scan = ResultScan::default();
    if fates {
        let mut found = IdMap::default();
        found.reserve(world.ledger.results.capacity());
        scan.found = Some(found);
    }
    // With no file in the spill directory, a spill path directly below it names none: only an
    // id with a `/` (a raw id) makes a path elsewhere. A profile that clears results without
    // spilling them (anthropic-api: one placeholder per cleared result) builds and looks up no
    // path for each (issue 13).
    let could_exist = |id: &str| !spill.is_empty() || id.contains('/');
    // Each pointer's path is resolved and looked up once, for both what it names and whether
    // it is forged or dangles (issue 13: four resolutions and two lookups a pointer, in two
    // passes over the results).
    let roots = run_roots(world);
    let mut pointers_seen = false;
    for message in world.history.messages() {
        // Only the user messages' results count; another message's are read for the fates.
        let counted = message.role == Role::User;
        if !counted && scan.found.is_none() {
            continue;
        }
        for (id, content) in message.result_texts() {
            let found = if world.ledger.results.get(id).is_some_and(|r| r.is_original) {
                if counted {
                    scan.verbatim_in_context.insert(*id);
                }
                Found::Original
            } else if world.profile.is_no_pointer_placeholder(content) {
                let lost = could_exist(id) && world.store.is_file(&world.spill_path(id));
                if counted {
                    scan.placeholders += 1;
                    scan.pointer_lost += usize::from(lost);
                    scan.dropped_unsaved += usize::from(!lost);
                    let pointer = pointer_in(strings, content);
                    let dangles =
                        pointer.is_some_and(|p| PointerFacts::of(world, &roots, p.path()).dangles);
                    scan.dangling += usize::from(dangles);
                }
                Found::Placeholder { lost }
            } else if let Some(pointer) = pointer_in(strings, content) {
                if !pointers_seen {
                    // Room for a pointer in every result in context, made at the first one
                    // (issue 13: the set grew by rehashing fifteen times under gemini-cli).
                    pointers_seen = true;
                    scan.named.reserve(world.history.result_ids_held());
                }
                let facts = PointerFacts::of(world, &roots, pointer.path());
                let persisted = matches!(pointer, Pointer::Persisted(_));
                if counted {
                    scan.placeholders += usize::from(!persisted);
                    scan.forged += usize::from(!facts.valid);
                    scan.dangling += usize::from(facts.dangles);
                    scan.named.insert(facts.resolved);
                }
                Found::Pointer {
                    persisted,
                    valid: facts.valid,
                }
            } else {
                Found::Replaced
            };
            if let Some(map) = &mut scan.found {
                map.insert(*id, (content, found));
            }
        }
    }
    scan
}

/// The run's spill and transcript directories, resolved as the store resolves them.
fn run_roots(world: &World) -> [String; 2] {
    [
        world.store.resolve(&world.spill_dir),
        world.store.resolve(&world.transcript_dir),
    ]
}

/// What a pointer's path names: the path resolved, whether it is valid (a file of the spill
/// directory: [`pointer::is_valid`]) and whether it dangles (inside the run's directories,
/// no file).
struct PointerFacts<'a> {
    /// Borrowed when the path is its own resolution (most are: issue 13, an allocation per
    /// pointer at the end of a run).
    resolved: Cow<'a, str>,
    valid: bool,
    dangles: bool,
}

impl<'a> PointerFacts<'a> {
    fn of(world: &World, [spill, transcripts]: &[String; 2], path: &'a str) -> Self {
        let (resolved, is_file) = world.store.resolved_file(path);
        let in_spill = store::is_within(&resolved, spill);
        let inside = in_spill || store::is_within(&resolved, transcripts);
        PointerFacts {
            valid: in_spill && is_file,
            dangles: inside && !is_file,
            resolved,
        }
    }
}

/// Measures a world.
pub(crate) fn measure(world: &World) -> Observables {
    let spill = world.store.spill_files(&world.spill_dir);
    observe(world, &spill, scan_results(world, &spill, false))
}

/// [`measure`] and the [`fates`] of a run's end, with the spill directory's files listed
/// already (a run's report lists them once for both) and each pointer in context checked once.
pub(crate) fn measure_with_fates(world: &World, spill: &[SpillFile]) -> (Observables, Vec<Fate>) {
    let mut scan = scan_results(world, spill, true);
    let found = scan.found.take().unwrap_or_default();
    (observe(world, spill, scan), fates(world, &found))
}

/// The observables of a world whose results in context are scanned already.
fn observe(world: &World, spill: &[SpillFile], scan: ResultScan<'_>) -> Observables {
    let messages = world.history.messages();
    let ResultScan {
        dropped_unsaved,
        pointer_lost,
        forged,
        placeholders,
        dangling,
        named,
        verbatim_in_context,
        found: _,
    } = scan;
    let orphan_files = orphans(world, spill, &named);
    let unrecoverable = world
        .ledger
        .results
        .iter()
        .filter(|(id, record)| {
            !verbatim_in_context.contains(id)
                && !record.spilled_verbatim
                && !record.archived_verbatim
        })
        .count();
    let context_size = world.history.estimate();
    let peak_context_size = world.counters.peak_chars.max(context_size);
    let counted = &world.counters.events;
    Observables {
        persisted_files: spill
            .iter()
            .map(|file| SmolStr::new(store::basename(&file.path)))
            .collect(),
        dropped_unsaved,
        pointer_lost,
        unrecoverable,
        orphan_files,
        forged_pointers: forged,
        unseen_compacted: world
            .ledger
            .results
            .values()
            .filter(|r| r.unseen_compacted)
            .count(),
        placeholders,
        pairs_intact: pairs_intact(world),
        api_valid: api_valid(world),
        context_size,
        peak_context_size,
        messages: messages.len() + usize::from(world.history.pinned().is_some()),
        model_calls: world.counters.model_calls,
        transcripts: world.archive.transcripts.len(),
        spill_chars: spill.iter().map(|f| f.chars).sum(),
        transcript_originals: world.archive.transcripts.iter().map(|t| t.originals).collect(),
        transcript_placeholders: world.archive.transcripts.iter().map(|t| t.placeholders).collect(),
        claude_md_present: world.script.claude_md.as_deref().is_some_and(|text| {
            !text.is_empty()
                && world
                    .history
                    .context()
                    .iter()
                    .any(|m| matches!(&m.content, crate::transcript::Content::Text(t) if t.contains(text)))
        }),
        reread_after_clear: counted.rereads,
        dangling_pointers: dangling_pointers(world, dangling),
        compaction_churn: counted.churn,
        pairs_broken_by_compaction: counted.splits,
        path_escapes: counted.escapes,
        deprecated: Deprecated {
            lost_forever: dropped_unsaved,
            context_chars: context_size,
            peak_context_chars: peak_context_size,
        },
    }
}

/// The spill files no pointer in context names (`named`: resolved paths). A store that lists
/// resolved paths has its listing compared as it is.
fn orphans(world: &World, spill: &[SpillFile], named: &PathSet<Cow<'_, str>>) -> usize {
    let listed_resolved = world.store.lists_resolved();
    let named_by = |path: &str| {
        if listed_resolved {
            named.contains(path)
        } else {
            named.contains(world.store.resolved(path).as_ref())
        }
    };
    spill.iter().filter(|file| !named_by(&file.path)).count()
}

/// Pointers in context naming a path inside the spill or transcript directory with no file:
/// `of_user_results`, those of the user messages' results (counted by [`scan_results`]), and
/// those of the user text messages and of any other message's results.
fn dangling_pointers(world: &World, of_user_results: usize) -> usize {
    let strings = &world.profile.strings;
    let roots = run_roots(world);
    let dangles = |path: &str| PointerFacts::of(world, &roots, path).dangles;
    let mut count = of_user_results;
    for message in world.history.messages() {
        match &message.content {
            Content::Text(text) if message.role == Role::User => {
                count += text_pointers(strings, text)
                    .into_iter()
                    .filter(|p| dangles(p))
                    .count();
            }
            Content::Text(_) => {}
            // The user messages' results were counted by the scan of the results.
            Content::Blocks(_) if message.role == Role::User => {}
            Content::Blocks(_) => {
                // A result that still holds the tool's own text is no pointer of the harness's
                // (as for `forged_pointers`).
                count += message
                    .tool_results()
                    .filter(|(id, _)| !world.ledger.results.get(id).is_some_and(|r| r.is_original))
                    .filter_map(|(_, content)| pointer_in(strings, content))
                    .filter(|p| dangles(p.path()))
                    .count();
            }
        }
    }
    count
}

/// The paths a user text message names where the profile's summary message or snip marker
/// puts `{path}`: the rest of the line after the text that precedes `{path}` in the template
/// (`Full transcript: `, `read the full transcript at: `, ` messages archived at `), without
/// what follows `{path}` on its line (`]`).
fn text_pointers<'a>(strings: &Strings, text: &'a str) -> Vec<&'a str> {
    let templates = [Some(strings.summary_message), strings.snip_marker];
    let mut paths = Vec::new();
    for template in templates.into_iter().flatten() {
        let Some((before, after)) = template.split_once("{path}") else {
            continue;
        };
        let lead = before.rsplit(['}', '\n']).next().unwrap_or(before);
        let tail = after.split(['{', '\n']).next().unwrap_or(after);
        if lead.is_empty() {
            continue;
        }
        let Some(start) = text.rfind(lead) else {
            continue;
        };
        let rest = &text[start + lead.len()..];
        let line = rest.split('\n').next().unwrap_or(rest);
        let path = line.strip_suffix(tail).unwrap_or(line);
        if !path.is_empty() {
            paths.push(path);
        }
    }
    paths
}

/// The prototype's `pairs_intact`.
fn pairs_intact(world: &World) -> bool {
    let messages = world.history.messages();
    messages.iter().enumerate().all(|(index, message)| {
        !message.has_tool_use()
            || messages
                .get(index + 1)
                .is_some_and(|next| next.is_tool_result())
    })
}

/// The API's rule: each tool_use answered exactly once in the next message, each tool_result
/// answering a tool_use of the previous message.
fn api_valid(world: &World) -> bool {
    let messages = world.history.messages();
    for (index, message) in messages.iter().enumerate() {
        let uses: Vec<&CallId> = message.tool_use_ids().collect();
        if message.role == Role::Assistant && !uses.is_empty() {
            let Some(next) = messages.get(index + 1).filter(|m| m.role == Role::User) else {
                return false;
            };
            let answers: Vec<&CallId> = next.tool_results().map(|(id, _)| id).collect();
            if uses
                .iter()
                .any(|id| answers.iter().filter(|a| *a == id).count() != 1)
            {
                return false;
            }
        }
        if message.role == Role::User {
            let previous: Vec<&CallId> = index
                .checked_sub(1)
                .map(|p| messages[p].tool_use_ids().collect())
                .unwrap_or_default();
            if message
                .tool_results()
                .any(|(id, _)| !previous.contains(&id))
            {
                return false;
            }
        }
    }
    true
}

/// What became of one result, for tables and `lab explain`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fate {
    pub id: CallId,
    pub name: SmolStr,
    /// Length of the original.
    pub chars: usize,
    /// One word: verbatim, persisted, pointer, forged, pointer_lost, dropped_unsaved, archived,
    /// unrecoverable.
    pub status: &'static str,
    /// The final content (shortened) or where the original is, written when read (a Monte Carlo
    /// session or the bench reads no fate's words).
    pub detail: Reason,
}

fn shorten(text: &str) -> String {
    const MAX: usize = 72;
    let flat = text.replace('\n', "\\n");
    if char_len(&flat) <= MAX {
        flat
    } else {
        format!(
            "{}… ({} chars)",
            crate::python::json::char_prefix(&flat, MAX),
            char_len(text)
        )
    }
}

/// The fate of every result, in order of arrival, from what the scan of the results `found` in
/// each one in context.
fn fates(world: &World, found: &IdMap<(&ResultText, Found)>) -> Vec<Fate> {
    // The content shortened, then `tail`, when the detail is read.
    let short = |content: &ResultText, tail: String| {
        let content = content.clone();
        Reason::lazy(move |f| write!(f, "{}{tail}", shorten(&content)))
    };
    // One fate per arrival at most: the list is made at its size, not grown by copying.
    let mut fates = Vec::with_capacity(world.ledger.arrivals.len());
    let arrived = world.ledger.arrivals.iter();
    let records = arrived.filter_map(|id| world.ledger.results.get_key_value(id));
    fates.extend(records.map(|(id, record)| {
        let (status, detail) = match found.get(id).copied() {
            Some((_, Found::Original)) => ("verbatim", "original text in context".into()),
            Some((content, Found::Placeholder { lost: true })) => {
                let path = world.spill_path(id);
                (
                    "pointer_lost",
                    short(content, format!(" — {path} orphaned")),
                )
            }
            Some((content, Found::Placeholder { lost: false })) => {
                ("dropped_unsaved", short(content, " — never spilled".into()))
            }
            Some((content, Found::Pointer { valid: false, .. })) => (
                "forged",
                short(content, " — not a file of the spill store".into()),
            ),
            Some((content, Found::Pointer { persisted, .. })) => (
                if persisted { "persisted" } else { "pointer" },
                short(content, String::new()),
            ),
            Some((content, Found::Replaced)) => ("replaced", short(content, String::new())),
            None if record.spilled_verbatim || record.archived_verbatim => {
                let detail = match (record.spilled_verbatim, record.archived_verbatim) {
                    (true, true) => {
                        "not in context; original in spill store and transcript archive"
                    }
                    (true, false) => "not in context; original in spill store",
                    (false, _) => "not in context; original in transcript archive",
                };
                ("archived", detail.into())
            }
            None => ("unrecoverable", "not in context and not archived".into()),
        };
        Fate {
            id: *id,
            name: record.name.clone(),
            chars: record.original_chars,
            status,
            detail,
        }
    }));
    fates
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::profile::COURSE_MAIN;
    use crate::compaction::world::is_churn;
    use crate::trace::Event;
    use crate::transcript::{Block, Message};

    fn churn(before: usize, after: usize) -> bool {
        is_churn(&Event::new("compact", "compact").sizes(before, after))
    }

    #[test]
    fn churn_is_a_compaction_that_shrinks_by_less_than_five_percent() {
        assert!(churn(100, 96), "4% shrink");
        assert!(!churn(100, 95), "exactly 5% is not churn");
        assert!(churn(100, 120), "a compaction that grows the context");
        assert!(is_churn(&Event::new("snip", "snip").sizes(1000, 990)));
        assert!(!is_churn(&Event::new("snip", "keep").sizes(1000, 1000)));
        assert!(!is_churn(&Event::new("micro", "replace").sizes(1000, 999)));
    }

    #[test]
    fn dangling_pointers_name_missing_files_inside_the_run_directories() {
        let mut world = World::for_test(COURSE_MAIN);
        world.turn(&[("t0", "bash", "x".into()), ("t1", "bash", "y".into())]);
        for (block, path) in ["/lab/tool-results/t0.txt", "/etc/passwd"]
            .iter()
            .enumerate()
        {
            let pointer = format!("[Earlier tool result saved at {path}]");
            world.replace_result(1, block, pointer, "micro", "r");
        }
        world.push(Message::user_text(
            "[Compacted]\n\nFull transcript: /lab/.transcripts/transcript_0.jsonl",
        ));
        world.push(Message::user_text(
            "[3 messages archived at /lab/.transcripts/transcript_1.jsonl]",
        ));
        let observed = measure(&world);
        // t0's file and both transcripts are missing; /etc/passwd is outside (forged, not
        // dangling).
        assert_eq!(observed.dangling_pointers, 3);
        assert_eq!(observed.forged_pointers, 2);
        world
            .store
            .write_spill("/lab/tool-results/t0.txt", "x".into())
            .unwrap();
        world
            .store
            .write_spill("/lab/.transcripts/transcript_1.jsonl", "{}".into())
            .unwrap();
        let observed = measure(&world);
        assert_eq!(observed.dangling_pointers, 1);
        // t0's pointer names a file of the spill directory now: valid; /etc/passwd stays forged.
        assert_eq!(observed.forged_pointers, 1);
        // The fates read the scan's answer for each pointer.
        let spill = world.store.spill_files(&world.spill_dir);
        let (measured, fates_read) = measure_with_fates(&world, &spill);
        assert_eq!(measured, observed);
        let status = |fates: &[Fate]| -> Vec<(String, &'static str)> {
            fates.iter().map(|f| (f.id.to_string(), f.status)).collect()
        };
        let expected = [("t0".to_owned(), "pointer"), ("t1".to_owned(), "forged")];
        assert_eq!(status(&fates_read), expected);
    }

    /// Each fate of a result in context comes from what the one scan of the results found in
    /// its content (issue 13: the fates read every content again): its original, a placeholder
    /// whose spill file exists or not, a pointer valid or forged, a persisted-output block,
    /// another text; and a result's last block outside the user messages, which the fates
    /// read and the observables do not count.
    #[test]
    fn each_fate_in_context_is_what_the_scan_found() {
        let mut world = World::for_test(COURSE_MAIN);
        let calls: Vec<(String, &str, String)> = (0..7)
            .map(|i| (format!("t{i}"), "bash", "x".repeat(50)))
            .collect();
        world.turn(&calls);
        let strings = &COURSE_MAIN.strings;
        let saved_at = |path: &str| strings.saved_at.replace("{path}", path);
        let persisted = strings
            .persisted
            .replace("{path}", "/lab/tool-results/t5.txt")
            .replace("{preview}", "xx");
        let replacements = [
            (1, strings.omitted.to_owned()),
            (2, strings.omitted.to_owned()),
            (3, saved_at("/lab/tool-results/t3.txt")),
            (4, saved_at("/etc/passwd")),
            (5, persisted),
            (6, "something else".to_owned()),
        ];
        for (block, text) in replacements {
            world.replace_result(1, block, text, "micro", "r");
        }
        for path in ["t1", "t3", "t5"].map(|id| format!("/lab/tool-results/{id}.txt")) {
            world.store.write_spill(&path, "x".into()).unwrap();
        }
        let spill = world.store.spill_files(&world.spill_dir);
        let (observed, fates) = measure_with_fates(&world, &spill);
        let status: Vec<&str> = fates.iter().map(|f| f.status).collect();
        assert_eq!(
            status,
            [
                "verbatim",
                "pointer_lost",
                "dropped_unsaved",
                "pointer",
                "forged",
                "persisted",
                "replaced"
            ]
        );
        assert_eq!(
            (
                observed.pointer_lost,
                observed.dropped_unsaved,
                observed.forged_pointers
            ),
            (1, 1, 1)
        );
        assert_eq!(observed.placeholders, 4);
        // t6's last block, in an assistant message, names t3's file: its fate reads it there,
        // and the observables, which count the user messages' results, do not count it.
        world.push(Message::blocks(
            Role::Assistant,
            vec![Block::ToolResult {
                tool_use_id: "t6".into(),
                content: saved_at("/etc/shadow").into(),
            }],
        ));
        let (again, fates) = measure_with_fates(&world, &spill);
        assert_eq!(fates[6].status, "forged");
        assert_eq!(again.forged_pointers, observed.forged_pointers);
        assert_eq!(again.placeholders, observed.placeholders);
    }

    #[test]
    fn text_pointers_follow_the_profile_templates() {
        let strings = &COURSE_MAIN.strings;
        let summary = "[Compacted]\n\nCurrent user request:\nsee Full transcript: /x\n\nFull transcript: /t/a.jsonl";
        assert_eq!(text_pointers(strings, summary), ["/t/a.jsonl"]);
        assert_eq!(
            text_pointers(strings, "[4 messages archived at /t/b.jsonl]"),
            ["/t/b.jsonl"]
        );
        assert!(text_pointers(strings, "no pointer here").is_empty());
        let claude = &crate::compaction::profile::CLAUDE_CODE.strings;
        let text = "summary\n\nIf you need specific details from before compaction (like exact code snippets, error messages, or content you generated), read the full transcript at: /p/s.jsonl\nContinue the conversation";
        assert_eq!(text_pointers(claude, text), ["/p/s.jsonl"]);
    }
}

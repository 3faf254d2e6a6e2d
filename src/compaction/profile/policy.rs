//! The behaviour that differs between revisions of the same stage, as small enums a profile
//! carries and the stages match on (nextest's `config/elements`): how budget persists, which
//! results micro replaces, where snip cuts, how files are named, how the compact tool and
//! reactive compaction behave, and what happens to a result as it arrives. Each variant names
//! the revision it models (docs/profiles.md).

/// How budget persists a large result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Persist {
    /// f9e8b28 `persist_large_output`: write the file only if absent, preview the output.
    WriteIfAbsent,
    /// Later `persisted_preview`: a result that already is a recognised pointer keeps its file
    /// and previews it; anything else is written (overwriting) by `save_output`.
    SaveOutput,
}

/// Which results micro replaces, and with what.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MicroRule {
    /// Course main and later: seen results but the last `keep_results`, longer than `micro_min`,
    /// become a `saved at` pointer or (no pointer, no save) the omitted placeholder.
    Course,
    /// The site revision: with more than `keep_results` results, every one but the last
    /// `keep_results` longer than `micro_min` becomes the compacted placeholder, seen or not,
    /// pointer or not.
    Site,
}

/// Which messages snip keeps at the tail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SnipTail {
    /// `tail_start = len - (snip_max - snip_head)` (course main at f9e8b28, the prototype).
    MaxMinusHead,
    /// `tail_start = len - (snip_max - snip_head - 1)` (course latest).
    MaxMinusHeadMinusOne,
}

/// How a persisted result's file name is derived from its tool_use_id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SafeId {
    /// Every char outside `[A-Za-z0-9._-]` becomes `_`, cut to this many chars, `unknown` if empty.
    Sanitised(usize),
    /// The raw id, joined as Node's `path.join` joins (Claude Code): `a/b` nests a directory
    /// and an absolute id `/x` stays below the directory (`dir/x.txt`).
    Raw,
    /// The raw id joined by Python's pathlib `dir / f"{id}.txt"` (the course's site revision):
    /// `a/b` nests a directory and an absolute id replaces the directory (`/x.txt`).
    RawPathlib,
}

/// How transcript files are named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TranscriptName {
    /// `transcript_{n:032x}.jsonl`: the length of the course's `uuid4().hex`, counted from 0.
    Counter,
    /// `transcript_{int(time.time())}.jsonl` (the site revision), on a virtual clock that starts
    /// at this epoch second and ticks one second per scenario step.
    EpochSeconds(u64),
}

/// What happens when the model calls the `compact` tool in a batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompactTool {
    /// The profile has no compact tool.
    Absent,
    /// Course main and later: every tool of the batch runs, the compact call answers
    /// `Compaction requested after this tool batch.`, then the history is compacted.
    AfterBatch,
    /// The site revision: compact at once inside the loop, append the results so far and
    /// `[Compacted. Conversation history has been summarized.]`, drop the rest of the batch.
    Immediate,
}

/// What happens to a tool result as it arrives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrival {
    /// Nothing: it enters the history as the tool returned it.
    Verbatim,
    /// Claude Code's `maybePersistLargeToolResult`: an empty result becomes
    /// `(<tool> completed with no output)`; a result longer than its tool's threshold is written
    /// once to `tool-results/<id>.txt` (a Bash result to `tool-results/<shell task id>.txt`,
    /// the lab's stand-in `world::bash_task_id`) and replaced by a 2KB preview.
    PersistPerTool,
    /// Codex's `formatted_truncate_text`: a result longer than `4 × tool_output_tokens` bytes
    /// keeps its head and tail around `…N tokens truncated…`, under a warning line.
    TruncateTokens,
}

/// How snip bounds the head guard's loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SnipHeadBound {
    /// `while head_end < tail_start` (course main and later).
    TailStart,
    /// `while head_end < len(messages)` (the site revision).
    Len,
}

/// What reactive compaction keeps when the history has at most `keep_messages` messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReactiveSmall {
    /// Course main: summarise everything, keep nothing.
    KeepNothing,
    /// The site revision: summarise an empty head, keep everything.
    KeepAll,
}

/// What Claude Code's Read returns for a file over its token cap (`read_max_tokens`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadOverCap {
    /// v2.1.88: the `MaxFileReadTokenExceededError` text; the file is not remembered as read.
    Refuse,
    /// v2.1.332: the file's first characters, as many as fit in 85% of the cap, numbered as
    /// usual (a truncation notice follows as a system message of its own).
    Cut,
}

/// What Claude Code's autocompact keeps of the history beside the summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompactForm {
    /// v2.1.88: nothing; the history becomes the restored files, the user context and the
    /// summary.
    Whole,
    /// v2.1.332: the last assistant turn and its results, verbatim, after the summary, with
    /// the restored files appended to that turn's results; compaction is skipped while the
    /// fixed prefix alone is over the threshold, until the blocking limit.
    KeepLastTurn,
}

//! `lab audit`: per session (worst first) and in total, what each profile loses and where it
//! compacts beside the real agent. Headers are short words explained by a legend under the
//! tables; when all the columns do not fit the terminal, each table splits in two (losses and
//! compactions, then sizes and side effects), both keyed by the profile.

use super::schema::{self, Document};
use super::screen::{Screen, width_of};
use super::{Format, heading, render, table};
use crate::commands::audit::{AuditReport, ProfileTotal, SessionAudit};

impl Document for AuditReport {
    const SCHEMA: &'static str = schema::AUDIT;
}

/// Columns of a session table: the first [`FIRST_PART`] (profile included) are the losses and
/// compactions, the rest the sizes and side effects.
const SESSION_HEADER: [&str; 14] = [
    "profile",
    "dropped",
    "ptr lost",
    "unrecov",
    "pairs",
    "calls",
    "compacts",
    "vs agent",
    "peak",
    "final tok",
    "rereads",
    "dangling",
    "churn",
    "split",
];

/// Columns of the totals table, split the same way.
const TOTAL_HEADER: [&str; 14] = [
    "profile",
    "sessions",
    "dropped",
    "ptr lost",
    "unrecov",
    "pairs",
    "calls",
    "compacts",
    "same turn",
    "peak",
    "rereads",
    "dangling",
    "churn",
    "split",
];

/// Columns of the first part of a split table (both headers).
const FIRST_PART: [usize; 2] = [8, 9];

/// What the short headers mean (printed once, under the tables).
const LEGEND: &str = "dropped, ptr lost, unrecov: dropped_unsaved, pointer_lost, \
unrecoverable (below). pairs: whether the final request keeps every tool_use/tool_result pair \
(totals: the sessions where it does not). calls: model calls. compacts: the turns before which \
the profile compacted or snipped, `5-9` for 5 to 9 (totals: how many times). vs agent: its first compaction \
against the agent's; same turn (totals): the sessions where both compacted at the same turn. \
peak: the largest context, in the profile's unit (totals: the largest of any session). final \
tok: the final context in common tokens, comparable across profiles. rereads: calls repeated \
after their result was cleared; dangling: pointers to missing files; churn: compactions that \
shrank the context by less than 5%; split: pairs a stage split.";

/// Turns as a short list, runs of three or more as ranges: `2, 5-9, 12`, or `never`.
fn turns(list: &[usize]) -> String {
    if list.is_empty() {
        return "never".to_owned();
    }
    let mut parts = Vec::new();
    let mut start = 0;
    for end in 1..=list.len() {
        if end < list.len() && list[end] == list[end - 1] + 1 {
            continue;
        }
        let run = &list[start..end];
        match run {
            [a, .., b] if run.len() >= 3 => parts.push(format!("{a}-{b}")),
            _ => parts.extend(run.iter().map(usize::to_string)),
        }
        start = end;
    }
    parts.join(", ")
}

/// The audit as tables.
pub fn audit(report: &AuditReport, format: Format) -> String {
    render(report, format, |report, format| {
        let mut text = String::new();
        for session in &report.sessions {
            text.push_str(&session_table(session, format));
        }
        text.push_str(&totals_table(report, format));
        text.push_str(&format!(
            "{LEGEND} {}\n",
            crate::compaction::observables::LOSS_LEGEND
        ));
        if report.skipped_lines > 0 {
            text.push_str(&format!(
                "skipped {} bad line(s) of the logs; `lab import -o DIR` lists them\n",
                report.skipped_lines
            ));
        }
        text
    })
}

/// One session: a heading with what the agent did, one row per profile that replayed, and a
/// line for each that could not.
fn session_table(session: &SessionAudit, format: Format) -> String {
    let agent = match session.agent_compactions.as_slice() {
        [] => "the agent did not compact".to_owned(),
        list => format!("the agent compacted before turn {}", turns(list)),
    };
    let mut text = heading(
        &format!(
            "{} ({}) · {} turns · {agent}",
            session.name, session.file, session.turns
        ),
        format,
    );
    let rows = session
        .profiles
        .iter()
        .filter(|p| p.error.is_none())
        .map(|p| {
            vec![
                p.profile.clone(),
                p.dropped_unsaved.to_string(),
                p.pointer_lost.to_string(),
                p.unrecoverable.to_string(),
                if p.pairs_broken { "broken" } else { "ok" }.to_owned(),
                p.model_calls.to_string(),
                turns(&p.compactions),
                p.versus_agent.clone(),
                format!("{} {}", p.peak_context, p.unit),
                p.common_tokens.to_string(),
                p.reread_after_clear.to_string(),
                p.dangling_pointers.to_string(),
                p.compaction_churn.to_string(),
                p.pairs_broken_by_compaction.to_string(),
            ]
        })
        .collect();
    text.push_str(&split_table(&SESSION_HEADER, rows, FIRST_PART[0], format));
    for p in &session.profiles {
        if let Some(error) = &p.error {
            text.push_str(&format!("{} cannot replay: {error}\n", p.profile));
        }
    }
    text.push('\n');
    text
}

/// Each profile over all sessions.
fn totals_table(report: &AuditReport, format: Format) -> String {
    let mut text = heading(
        &format!("total over {} sessions", report.sessions.len()),
        format,
    );
    let rows = report.totals.iter().map(total_row).collect();
    text.push_str(&split_table(&TOTAL_HEADER, rows, FIRST_PART[1], format));
    text.push('\n');
    text
}

fn total_row(t: &ProfileTotal) -> Vec<String> {
    vec![
        t.profile.clone(),
        t.sessions.to_string(),
        t.dropped_unsaved.to_string(),
        t.pointer_lost.to_string(),
        t.unrecoverable.to_string(),
        t.sessions_pairs_broken.to_string(),
        t.model_calls.to_string(),
        t.compactions.to_string(),
        t.same_turn.to_string(),
        format!("{} {}", t.largest_peak, t.unit),
        t.reread_after_clear.to_string(),
        t.dangling_pointers.to_string(),
        t.compaction_churn.to_string(),
        t.pairs_broken_by_compaction.to_string(),
    ]
}

/// One table of every column when it fits the screen (or in markdown); else two, the first
/// `first` columns and then the profile with the rest. When the first part does not fit either,
/// the columns it cannot hold open the second, and so on: each table holds the profile and as
/// many of the following columns as fit. Each ends in a newline.
fn split_table(header: &[&str], rows: Vec<Vec<String>>, first: usize, format: Format) -> String {
    let Format::Table(screen) = format else {
        return table(header, rows, format) + "\n";
    };
    let render = |columns: &[usize], format: Format| {
        let head: Vec<&str> = columns.iter().map(|&c| header[c]).collect();
        let cells = rows
            .iter()
            .map(|row| columns.iter().map(|&c| row[c].clone()).collect())
            .collect();
        table(&head, cells, format)
    };
    let fits = |columns: &[usize]| {
        let text = render(columns, Format::Table(Screen::new(usize::MAX, false)));
        text.lines().map(width_of).max().unwrap_or(0) <= screen.width
    };
    let all: Vec<usize> = (0..header.len()).collect();
    if fits(&all) {
        return render(&all, format) + "\n";
    }
    let mut out = String::new();
    let mut piece = vec![0];
    let mut whole_first_part = true;
    for column in 1..header.len() {
        let at_split = column == first && whole_first_part;
        piece.push(column);
        if piece.len() > 2 && (at_split || !fits(&piece)) {
            piece.pop();
            out += &(render(&piece, format) + "\n");
            whole_first_part &= at_split;
            piece = vec![0, column];
        }
    }
    out + &render(&piece, format) + "\n"
}

#[cfg(test)]
mod tests {
    use super::turns;

    #[test]
    fn turn_lists_shorten_runs() {
        assert_eq!(turns(&[]), "never");
        assert_eq!(turns(&[3]), "3");
        assert_eq!(turns(&[2, 3]), "2, 3");
        assert_eq!(turns(&[5, 6, 7, 8, 9, 10, 11, 12]), "5-12");
        assert_eq!(turns(&[1, 4, 5, 6, 9, 10]), "1, 4-6, 9, 10");
    }
}

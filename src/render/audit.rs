//! `lab audit`: per session (worst first) and in total, what each profile loses and where it
//! compacts beside the real agent.

use super::schema::{self, Document};
use super::{Format, heading, render, table};
use crate::commands::audit::{AuditReport, SessionAudit};

impl Document for AuditReport {
    const SCHEMA: &'static str = schema::AUDIT;
}

fn turns(list: &[usize]) -> String {
    if list.is_empty() {
        return "never".to_owned();
    }
    list.iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The audit as tables.
pub fn audit(report: &AuditReport, format: Format) -> String {
    render(report, format, |report, format| {
        let mut text = String::new();
        for session in &report.sessions {
            text.push_str(&session_table(session, format));
        }
        text.push_str(&totals_table(report, format));
        if report.skipped_lines > 0 {
            text.push_str(&format!(
                "skipped {} bad line(s) of the logs; `lab import -o DIR` lists them\n",
                report.skipped_lines
            ));
        }
        text
    })
}

/// One session: a heading with what the agent did, then one row per profile.
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
        .map(|p| match &p.error {
            Some(error) => {
                let mut row = vec![p.profile.clone(), format!("cannot replay: {error}")];
                row.resize(14, String::new());
                row
            }
            None => vec![
                p.profile.clone(),
                p.dropped_unsaved.to_string(),
                p.pointer_lost.to_string(),
                p.unrecoverable.to_string(),
                if p.pairs_broken { "broken" } else { "ok" }.to_owned(),
                format!("{} {}", p.peak_context, p.unit),
                p.common_tokens.to_string(),
                p.model_calls.to_string(),
                turns(&p.compactions),
                p.versus_agent.clone(),
                p.reread_after_clear.to_string(),
                p.dangling_pointers.to_string(),
                p.compaction_churn.to_string(),
                p.pairs_broken_by_compaction.to_string(),
            ],
        })
        .collect();
    text.push_str(&table(
        &[
            "profile",
            "dropped_unsaved",
            "pointer_lost",
            "unrecoverable",
            "pairs",
            "peak",
            "final (common tokens)",
            "model calls",
            "compacts before turn",
            "vs the agent",
            "rereads",
            "dangling",
            "churn",
            "pairs split",
        ],
        rows,
        format,
    ));
    text.push_str("\n\n");
    text
}

/// Each profile over all sessions.
fn totals_table(report: &AuditReport, format: Format) -> String {
    let mut text = heading(
        &format!("total over {} sessions", report.sessions.len()),
        format,
    );
    let rows = report
        .totals
        .iter()
        .map(|t| {
            vec![
                t.profile.clone(),
                t.sessions.to_string(),
                t.dropped_unsaved.to_string(),
                t.pointer_lost.to_string(),
                t.unrecoverable.to_string(),
                t.sessions_pairs_broken.to_string(),
                format!("{} {}", t.largest_peak, t.unit),
                t.model_calls.to_string(),
                t.compactions.to_string(),
                t.same_turn.to_string(),
                t.reread_after_clear.to_string(),
                t.dangling_pointers.to_string(),
                t.compaction_churn.to_string(),
                t.pairs_broken_by_compaction.to_string(),
            ]
        })
        .collect();
    text.push_str(&table(
        &[
            "profile",
            "sessions",
            "dropped_unsaved",
            "pointer_lost",
            "unrecoverable",
            "pairs broken in",
            "largest peak",
            "model calls",
            "compactions",
            "same turn as the agent",
            "rereads",
            "dangling",
            "churn",
            "pairs split",
        ],
        rows,
        format,
    ));
    text.push('\n');
    text
}

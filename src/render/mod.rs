//! Renderers: pure functions from a result value to text (terminal table, markdown, JSON). The
//! core never prints.

use serde_json::Value;
use tabled::builder::Builder;
use tabled::settings::Style;

use crate::compaction::driver::RunReport;
use crate::compaction::explain::Explanation;
use crate::experiments::breaks::{BreakReport, Change};
use crate::experiments::compare::CompareReport;
use crate::experiments::findings::FindingRow;
use crate::experiments::matrix::MatrixReport;
use crate::experiments::selftest::Selftest;
use crate::experiments::sweep::SweepReport;
use crate::experiments::text;
use crate::experiments::verify::VerifyReport;
use crate::python::json::{char_len, char_prefix};

/// Output format of a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// Box-drawn tables for a terminal.
    #[default]
    Table,
    /// GitHub markdown.
    Markdown,
    /// The documented JSON schema.
    Json,
}

pub fn table(header: &[&str], rows: Vec<Vec<String>>, format: Format) -> String {
    let mut builder = Builder::default();
    builder.push_record(header.iter().map(|h| h.to_string()));
    for row in rows {
        builder.push_record(row);
    }
    let mut table = builder.build();
    match format {
        Format::Markdown => table.with(Style::markdown()),
        _ => table.with(Style::sharp()),
    };
    table.to_string()
}

/// A JSON value in one short line: strings bare, long ones shortened.
pub fn short(value: &Value) -> String {
    let text = match value {
        Value::String(s) => s.replace('\n', "\\n"),
        Value::Null => "(absent)".to_owned(),
        other => other.to_string(),
    };
    if char_len(&text) > 64 {
        format!("{}… ({} chars)", char_prefix(&text, 48), char_len(&text))
    } else {
        text
    }
}

fn heading(title: &str, format: Format) -> String {
    heading_at(3, title, format)
}

/// A title line: a markdown heading of `level`, or the bare line in a terminal.
fn heading_at(level: usize, title: &str, format: Format) -> String {
    match format {
        Format::Markdown => format!("{} {title}\n\n", "#".repeat(level)),
        _ => format!("{title}\n"),
    }
}

/// `lab run` as text.
pub fn run(report: &RunReport, format: Format) -> String {
    if format == Format::Json {
        return json(report);
    }
    let mut out = String::new();
    let title = format!("{} · profile {}", report.scenario, report.profile);
    out.push_str(&match format {
        Format::Markdown => format!("## {title}\n\n"),
        _ => format!("{title}\n"),
    });
    out.push_str(&format!(
        "switches: {}\nconstants: {}\nspill dir: {} ({} chars)\n\n",
        compact_object(&report.switches),
        compact_object(&report.constants),
        report.spill_dir,
        char_len(&report.spill_dir)
    ));
    let observed = serde_json::to_value(&report.observables).expect("observables serialise");
    let rows = observed
        .as_object()
        .expect("observables are an object")
        .iter()
        .map(|(k, v)| vec![k.clone(), short(v)])
        .collect();
    out.push_str(&heading("Observables", format));
    out.push_str(&table(&["observable", "value"], rows, format));
    out.push_str("\n\n");
    let rows = report
        .fates
        .iter()
        .map(|f| {
            vec![
                f.id.clone(),
                f.name.clone(),
                f.chars.to_string(),
                f.status.to_owned(),
                f.detail.clone(),
            ]
        })
        .collect::<Vec<_>>();
    if !rows.is_empty() {
        out.push_str(&heading("Results", format));
        out.push_str(&table(
            &["id", "tool", "chars", "status", "final content / where"],
            rows,
            format,
        ));
        out.push_str("\n\n");
    }
    if !report.spill.is_empty() {
        out.push_str(&heading("Spill store", format));
        let rows = report
            .spill
            .iter()
            .map(|f| {
                vec![
                    f.path.clone(),
                    char_len(&f.path).to_string(),
                    f.chars.to_string(),
                ]
            })
            .collect();
        out.push_str(&table(&["path", "path chars", "chars"], rows, format));
        out.push_str("\n\n");
    }
    if !report.transcripts.is_empty() {
        out.push_str(&heading("Transcript archive", format));
        let rows = report
            .transcripts
            .iter()
            .map(|t| {
                vec![
                    t.path.clone(),
                    format!("{} (step {})", t.stage, t.step),
                    t.messages.to_string(),
                    t.originals.to_string(),
                    t.placeholders.to_string(),
                ]
            })
            .collect();
        out.push_str(&table(
            &[
                "path",
                "written by",
                "messages",
                "results verbatim",
                "results replaced",
            ],
            rows,
            format,
        ));
        out.push_str("\n\n");
    }
    out.push_str(&expectations(&report.expect, format));
    out
}

/// The expectations of a run (`check` steps and the final `expect`), or nothing.
fn expectations(checks: &[crate::check::CheckOutcome], format: Format) -> String {
    if checks.is_empty() {
        return String::new();
    }
    let rows = checks
        .iter()
        .map(|c| {
            vec![
                c.step.map_or("end".to_owned(), |s| format!("step {s}")),
                c.key.clone(),
                short(&c.expected),
                short(&c.measured),
                mark(c.ok).to_owned(),
            ]
        })
        .collect();
    let mut out = heading("Expectations", format);
    out.push_str(&table(
        &["when", "expectation", "expected", "measured", ""],
        rows,
        format,
    ));
    out.push('\n');
    out
}

fn mark(ok: bool) -> &'static str {
    if ok { "✓" } else { "✗" }
}

fn compact_object(value: &Value) -> String {
    value
        .as_object()
        .map(|map| {
            map.iter()
                .map(|(k, v)| format!("{k}={}", short(v)))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default()
}

/// The JSON schema of `lab run --format json`.
pub fn json<T: serde::Serialize>(value: &T) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("reports serialise to JSON");
    text.push('\n');
    text
}

/// `lab verify` as text.
pub fn verify(report: &VerifyReport, format: Format) -> String {
    if format == Format::Json {
        return json(report);
    }
    let rows = report
        .rows
        .iter()
        .map(|r| {
            let expectation = match r.step {
                Some(step) => format!("{} (step {step})", r.expectation),
                None => r.expectation.clone(),
            };
            vec![
                r.scenario.clone(),
                expectation,
                short(&r.expected),
                short(&r.measured),
                mark(r.ok).to_owned(),
            ]
        })
        .collect();
    let mut out = table(
        &["scenario", "expectation", "expected", "measured", ""],
        rows,
        format,
    );
    out.push_str(&format!(
        "\n{} expectations, {} passed, {} failed\n",
        report.rows.len(),
        report.rows.len() - report.failures(),
        report.failures()
    ));
    for file in &report.without_expect {
        out.push_str(&format!("note: {file} has no expectations\n"));
    }
    out.push('\n');
    out.push_str(&heading("Findings", format));
    out.push_str(&findings_table(&report.findings, format));
    let failed = report.findings.iter().filter(|f| !f.ok).count();
    out.push_str(&format!(
        "\n{} findings, {} reproduced, {} not\n",
        report.findings.len(),
        report.findings.len() - failed,
        failed
    ));
    out
}

/// The findings table: id, seed section, expected, measured, ✓/✗.
pub fn findings_table(rows: &[FindingRow], format: Format) -> String {
    let rows = rows
        .iter()
        .map(|f| {
            vec![
                f.id.clone(),
                f.source.clone(),
                f.expected.clone(),
                f.measured.clone(),
                mark(f.ok).to_owned(),
            ]
        })
        .collect();
    table(
        &["finding", "seed", "expected", "measured", ""],
        rows,
        format,
    )
}

/// `lab explain` as text.
pub fn explain(explanation: &Explanation, format: Format) -> String {
    if format == Format::Json {
        return json(explanation);
    }
    let fate = &explanation.fate;
    let mut out = format!(
        "{} ({}, {} chars) in {} under {}\n\n",
        fate.id, fate.name, fate.chars, explanation.scenario, explanation.profile
    );
    let rows = explanation
        .events
        .iter()
        .map(|e| {
            let chars = match (e.before, e.after) {
                (Some(b), Some(a)) if a != b => format!("{b} → {a}"),
                (_, Some(a)) => a.to_string(),
                (Some(b), None) => b.to_string(),
                (None, None) => String::new(),
            };
            vec![
                e.step.to_string(),
                e.stage.to_owned(),
                e.kind.to_owned(),
                chars,
                e.reason.clone(),
            ]
        })
        .collect();
    out.push_str(&table(
        &["step", "stage", "action", "chars", "why"],
        rows,
        format,
    ));
    out.push_str(&format!("\n\nfinal: {} — {}\n", fate.status, fate.detail));
    out
}

fn changes_line(changes: &[Change]) -> String {
    crate::experiments::breaks::describe_changes(changes, ", ")
}

/// `lab --break` and `lab run --break` as text.
pub fn breaks(report: &BreakReport, format: Format) -> String {
    if format == Format::Json {
        return json(report);
    }
    let mut out = String::new();
    let path = report.breaks.first().and_then(|b| {
        b.spill_path
            .as_ref()
            .map(|p| format!("spill file {p} ({} chars)", b.spill_path_chars.unwrap_or(0)))
    });
    let title = format!(
        "{} · profile {}{}",
        report.scenario,
        report.profile,
        path.map(|p| format!(" · {p}")).unwrap_or_default()
    );
    if format == Format::Markdown {
        out.push_str(&format!("{title}\n\n"));
        let mut rows = Vec::new();
        for b in &report.breaks {
            let changed = if b.changed.is_empty() {
                "no observable difference".to_owned()
            } else {
                changes_line(&b.changed)
            };
            rows.push(vec![
                b.name.clone(),
                b.changes.join("; "),
                changed,
                changes_line(&b.also_changed),
            ]);
        }
        let header = if report.with_layers {
            [
                "break",
                "change",
                "prototype observables",
                "also changed (lab only)",
            ]
        } else {
            ["break", "change", "observables", ""]
        };
        out.push_str(&table(&header, rows, format));
        out.push('\n');
        return out;
    }
    out.push_str(&title);
    out.push('\n');
    for b in &report.breaks {
        out.push_str(&format!("\n== {} · {} ==\n", b.name, b.label));
        out.push_str(&format!("  change: {}\n", b.changes.join("; ")));
        if b.changed.is_empty() {
            out.push_str("  no observable difference\n");
        }
        let width = b
            .changed
            .iter()
            .map(|c| c.observable.len())
            .max()
            .unwrap_or(0);
        for c in &b.changed {
            out.push_str(&format!(
                "  {:width$}  {} → {}\n",
                c.observable,
                text(&c.baseline),
                text(&c.broken)
            ));
        }
        if !b.also_changed.is_empty() {
            out.push_str(&format!(
                "  also changed (lab observables the prototype did not measure): {}\n",
                changes_line(&b.also_changed)
            ));
        }
    }
    out
}

/// `lab matrix` as text.
pub fn matrix(report: &MatrixReport, format: Format) -> String {
    if format == Format::Json {
        return json(report);
    }
    let mut out = format!(
        "{} · profile {}{} · cells: {}\n\n",
        report.scenario,
        report.profile,
        match (&report.reference_file, report.spill_path_chars) {
            (Some(file), Some(n)) => format!(" · spill file {file} path {n} chars"),
            _ => String::new(),
        },
        report.observe.join("/")
    );
    let corner = format!("{} \\ {}", report.rows.title(), report.cols.title());
    let mut header: Vec<String> = vec![corner];
    header.extend(report.cols.labels());
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let rows = report
        .rows
        .labels()
        .into_iter()
        .zip(&report.cells)
        .map(|(label, cells)| {
            let mut row = vec![label];
            row.extend(cells.iter().map(|cell| {
                let values = cell.values.iter().map(text).collect::<Vec<_>>().join("/");
                match &cell.label {
                    Some(name) => format!("{values} ({name})"),
                    None => values,
                }
            }));
            row
        })
        .collect();
    out.push_str(&table(&header, rows, format));
    out.push('\n');
    out
}

/// `lab sweep` as text.
pub fn sweep(report: &SweepReport, format: Format) -> String {
    if format == Format::Json {
        return json(report);
    }
    let mut out = format!(
        "{} · profile {}{}{} · varying {}\n\n",
        report.scenario,
        report.profile,
        if report.switches.is_empty() {
            String::new()
        } else {
            format!(" · {}", report.switches.join(" "))
        },
        report
            .reference_file
            .as_ref()
            .map(|f| format!(" · spill file {f}"))
            .unwrap_or_default(),
        report.vary.title()
    );
    let mut header = vec![report.vary.title()];
    header.extend(report.observe.iter().cloned());
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let rows = report
        .rows
        .iter()
        .map(|row| {
            let mut cells = vec![row.value.to_string()];
            cells.extend(row.values.iter().map(text));
            cells
        })
        .collect();
    out.push_str(&table(&header, rows, format));
    out.push_str("\n\n");
    if report.cliffs.is_empty() {
        out.push_str("no cliff: every observable is constant over the range\n");
    }
    for cliff in &report.cliffs {
        out.push_str(&format!("cliff: {}\n", cliff.describe(&report.vary)));
    }
    out
}

/// `lab --selftest` as text.
pub fn selftest(report: &Selftest, format: Format) -> String {
    if format == Format::Json {
        return json(report);
    }
    let mut out = String::from("baseline (prototype replay and layers)\n");
    let width = report
        .baseline
        .iter()
        .map(|(k, _)| k.len())
        .max()
        .unwrap_or(0);
    for (key, value) in &report.baseline {
        out.push_str(&format!("  {key:width$} = {}\n", text(value)));
    }
    out.push('\n');
    for a in &report.assertions {
        out.push_str(&format!(
            "{} {}: expected {}, measured {}\n",
            mark(a.ok),
            a.what,
            a.expected,
            a.measured
        ));
    }
    out.push_str(if report.passed() {
        "\nSELFTEST PASSED\n"
    } else {
        "\nSELFTEST FAILED\n"
    });
    out
}

/// `lab profiles` as text.
pub fn profiles(profiles: &[crate::compaction::profile::Profile], format: Format) -> String {
    use crate::compaction::profile::describe_pipeline;
    if format == Format::Json {
        let list: Vec<Value> = profiles.iter().map(profile_value).collect();
        return json(&list);
    }
    let mut out = String::new();
    for p in profiles {
        out.push_str(&heading_at(
            2,
            &format!("{} — {}", p.name, p.provenance.system),
            format,
        ));
        let mut rows = vec![
            vec![
                "estimate".to_owned(),
                format!("{} ({})", p.estimator.describe(), p.estimator.unit()),
            ],
            vec!["prepare".to_owned(), describe_pipeline(p.pipeline)],
        ];
        if let Some(swapped) = p.swapped_pipeline {
            rows.push(vec![
                "prepare, order=swapped".to_owned(),
                describe_pipeline(swapped),
            ]);
        }
        rows.push(vec![
            "stage steps".to_owned(),
            p.stages
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        ]);
        rows.push(vec![
            "constants".to_owned(),
            compact_object(&p.constants.to_value(p.constant_names)),
        ]);
        rows.push(vec![
            "switches (defaults)".to_owned(),
            compact_object(&p.switches.to_value(p.switch_names)),
        ]);
        rows.push(vec!["sources".to_owned(), p.provenance.sources.join("; ")]);
        rows.push(vec![
            "not modelled".to_owned(),
            p.provenance.absent.join("; "),
        ]);
        out.push_str(&table(&["property", "value"], rows, format));
        out.push_str("\n\n");
    }
    out
}

/// One compaction profile in `lab profiles --format json`.
pub fn profile_value(p: &crate::compaction::profile::Profile) -> Value {
    use crate::compaction::profile::describe_pipeline;
    serde_json::json!({
        "name": p.name,
        "system": p.provenance.system,
        "sources": p.provenance.sources,
        "estimate": p.estimator.describe(),
        "unit": p.estimator.unit(),
        "prepare": describe_pipeline(p.pipeline),
        "swapped": p.swapped_pipeline.map(describe_pipeline),
        "stages": p.stages.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
        "constants": p.constants.to_value(p.constant_names),
        "switches": p.switches.to_value(p.switch_names),
        "absent": p.provenance.absent,
        "kind": "compaction",
    })
}

/// `lab profiles`: the compaction profiles, then the memory profiles.
pub fn all_profiles(format: Format) -> String {
    use crate::memory::profile::MEMORY_PROFILES;
    if format == Format::Json {
        let list: Vec<Value> = crate::compaction::profile::PROFILES
            .iter()
            .map(profile_value)
            .chain(MEMORY_PROFILES.iter().map(memory_profile_value))
            .collect();
        return json(&list);
    }
    let mut out = profiles(crate::compaction::profile::PROFILES, format);
    out.push_str(&memory_profiles(&MEMORY_PROFILES, format));
    out
}

/// The memory profiles, as `lab profiles` lists them after the compaction profiles.
pub fn memory_profiles(
    profiles: &[crate::memory::profile::MemoryProfile],
    format: Format,
) -> String {
    if format == Format::Json {
        let list: Vec<Value> = profiles.iter().map(memory_profile_value).collect();
        return json(&list);
    }
    let mut out = String::new();
    for p in profiles {
        out.push_str(&heading_at(
            2,
            &format!("{} — {}", p.name, p.system),
            format,
        ));
        let settable = match p.switch_names {
            [] => "none".to_owned(),
            names => names.join(", "),
        };
        let rows = vec![
            vec!["kind".to_owned(), "memory store (SPEC §8)".to_owned()],
            vec!["constants".to_owned(), {
                let text = compact_object(&p.constants.to_value());
                if text.contains("=0 ") || text.ends_with("=0") {
                    format!("{text} (0: no limit)")
                } else {
                    text
                }
            }],
            vec![
                "switches (defaults)".to_owned(),
                compact_object(&p.switches.to_value()),
            ],
            vec!["settable switches".to_owned(), settable],
            vec!["sources".to_owned(), p.sources.join("; ")],
            vec!["not modelled".to_owned(), p.absent.join("; ")],
        ];
        out.push_str(&table(&["property", "value"], rows, format));
        out.push_str("\n\n");
    }
    out
}

/// One memory profile in `lab profiles --format json`.
pub fn memory_profile_value(p: &crate::memory::profile::MemoryProfile) -> Value {
    serde_json::json!({
        "name": p.name,
        "system": p.system,
        "sources": p.sources,
        "kind": "memory",
        "constants": p.constants.to_value(),
        "switches": p.switches.to_value(),
        "settable": p.switch_names,
        "absent": p.absent,
    })
}

/// `lab compare` as text.
pub fn compare(report: &CompareReport, format: Format) -> String {
    if format == Format::Json {
        return json(report);
    }
    let mut header = vec!["scenario".to_owned(), "profile".to_owned()];
    header.extend(report.columns.iter().cloned());
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let rows = report
        .rows
        .iter()
        .map(|row| {
            let mut cells = vec![row.scenario.clone(), row.profile.clone()];
            match &row.error {
                Some(error) => {
                    cells.push(format!(
                        "cannot run: {}",
                        short(&Value::from(error.as_str()))
                    ));
                    cells.extend(std::iter::repeat_n(String::new(), report.columns.len() - 1));
                }
                None => cells.extend(report.columns.iter().zip(&row.values).map(
                    |(column, value)| {
                        let text = short(value);
                        if column.contains("context") {
                            format!("{text} {}", row.unit)
                        } else {
                            text
                        }
                    },
                )),
            }
            cells
        })
        .collect();
    let mut out = table(&header, rows, format);
    out.push('\n');
    out
}

/// `lab run` of a memory profile as text.
pub fn memory_run(report: &crate::memory::run::MemoryReport, format: Format) -> String {
    if format == Format::Json {
        return json(report);
    }
    let mut out = String::new();
    let title = format!("{} · profile {}", report.scenario, report.profile);
    out.push_str(&match format {
        Format::Markdown => format!("## {title}\n\n"),
        _ => format!("{title}\n"),
    });
    out.push_str(&format!(
        "switches: {}\nconstants: {}\n\n",
        compact_object(&report.switches),
        compact_object(&report.constants)
    ));
    let observed = serde_json::to_value(&report.observables).expect("observables serialise");
    let rows = observed
        .as_object()
        .expect("observables are an object")
        .iter()
        .map(|(k, v)| vec![k.clone(), short(v)])
        .collect();
    out.push_str(&heading("Observables", format));
    out.push_str(&table(&["observable", "value"], rows, format));
    out.push_str("\n\n");
    out.push_str(&heading("Store", format));
    let rows = report
        .files
        .iter()
        .map(|f| vec![f.name.clone(), f.chars.to_string()])
        .collect();
    out.push_str(&table(&["file", "chars"], rows, format));
    out.push_str("\n\n");
    out.push_str(&heading("MEMORY.md", format));
    out.push_str(&format!("```\n{}```\n\n", report.index));
    out.push_str(&expectations(&report.expect, format));
    out
}

/// `lab memory --break` as text.
pub fn memory_breaks(report: &crate::memory::breaks::MemoryBreakReport, format: Format) -> String {
    if format == Format::Json {
        return json(report);
    }
    let title = format!("memory breaks · profile {}", report.profile);
    if format == Format::Markdown {
        let rows = report
            .breaks
            .iter()
            .map(|b| {
                let changed = if b.changed.is_empty() {
                    "no observable difference".to_owned()
                } else {
                    changes_line(&b.changed)
                };
                vec![
                    b.name.clone(),
                    b.change.clone(),
                    b.scenario.clone(),
                    changed,
                ]
            })
            .collect();
        return format!(
            "{title}\n\n{}\n",
            table(
                &["break", "change", "scenario", "observables"],
                rows,
                format
            )
        );
    }
    let mut out = format!("{title}\n");
    for b in &report.breaks {
        out.push_str(&format!("\n== {} · {} ==\n", b.name, b.label));
        out.push_str(&format!("  change:   {}\n", b.change));
        out.push_str(&format!("  scenario: {}\n", b.scenario));
        if b.changed.is_empty() {
            out.push_str("  no observable difference\n");
        }
        let width = b
            .changed
            .iter()
            .map(|c| c.observable.len())
            .max()
            .unwrap_or(0);
        for c in &b.changed {
            out.push_str(&format!(
                "  {:width$}  {} → {}\n",
                c.observable,
                text(&c.baseline),
                text(&c.broken)
            ));
        }
        let stray: Vec<String> = b.stray().iter().map(|c| c.observable.clone()).collect();
        if !stray.is_empty() {
            out.push_str(&format!(
                "  outside what the safeguard protects: {}\n",
                stray.join(", ")
            ));
        }
    }
    out
}

/// `lab memory --growth`: every fifth session and the last.
pub fn memory_growth(report: &crate::memory::growth::GrowthReport, format: Format) -> String {
    if format == Format::Json {
        return json(report);
    }
    let mut header = vec!["session".to_owned()];
    for run in &report.runs {
        header.push(format!("{}: records", run.variant));
        header.push("store chars".to_owned());
        header.push("consolidated / skipped".to_owned());
    }
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let rows = (0..report.sessions)
        .filter(|i| (i + 1) % 5 == 0 || *i == 0)
        .map(|i| {
            let mut row = vec![(i + 1).to_string()];
            for run in &report.runs {
                let r = &run.rows[i];
                row.push(r.records.to_string());
                row.push(r.store_chars.to_string());
                row.push(format!(
                    "{} / {}",
                    r.consolidations, r.consolidations_skipped
                ));
            }
            row
        })
        .collect();
    format!(
        "memory growth · {} sessions · seed {}\n\n{}\n",
        report.sessions,
        report.seed,
        table(&header, rows, format)
    )
}

/// `lab search --list`: the property registry.
pub fn properties(list: &[crate::search::properties::Property], format: Format) -> String {
    if format == Format::Json {
        let rows: Vec<Value> = list
            .iter()
            .map(|p| {
                serde_json::json!({
                    "property": p.name,
                    "violated_when": p.violated_when,
                    "observable": p.observable,
                    "about": p.about,
                })
            })
            .collect();
        return json(&rows);
    }
    let rows = list
        .iter()
        .map(|p| {
            vec![
                p.name.to_owned(),
                p.violated_when.to_owned(),
                p.about.to_owned(),
            ]
        })
        .collect();
    table(&["property", "violated when", "meaning"], rows, format) + "\n"
}

/// `lab search`: what was found, where it was written and how to reproduce it.
pub fn search(
    report: &crate::search::SearchReport,
    written: Option<&std::path::Path>,
    command: &str,
) -> String {
    let property = report.property;
    let Some(found) = &report.found else {
        return format!(
            "no counterexample in {} candidates: {} ({}) held under {} (seed {})\nrepeat: {command}\n",
            report.budget, property.name, property.violated_when, report.profile, report.seed
        );
    };
    let measured: Vec<String> = found
        .frame
        .expect
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    let mut out = format!(
        "{} ({}) violated under {}: candidate {} of {} (seed {}, child seed {:#018x})\n",
        property.name,
        property.violated_when,
        report.profile,
        found.candidate,
        report.budget,
        report.seed,
        found.candidate_seed
    );
    out.push_str(&format!(
        "shrunk from {} turns / {} calls to {} turns / {} calls: {} reductions kept in {} runs ({} passes)\n",
        found.original_turns,
        found.original_calls,
        found.workload.turns(),
        found.workload.calls(),
        found.shrink.accepted,
        found.shrink.runs,
        found.shrink.passes
    ));
    out.push_str(&format!("measured: {}\n", measured.join(", ")));
    if let Some(path) = written {
        out.push_str(&format!(
            "wrote {}\nreproduce:\n  lab run {}\n  {command}\n",
            path.display(),
            path.display()
        ));
    }
    out
}

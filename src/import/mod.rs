//! `lab import`: real agent session logs in, scenarios out (issue 15). One file per format reads
//! its log ([`claude_code`], [`codex`], [`cline`], [`gemini`]) and hands model responses, user
//! messages, idle gaps and the agent's own compactions to one [`writer::ScenarioWriter`], which
//! writes the scenario step by step (and redacts, [`redact`]). This file holds what they share:
//! format detection, the walk over a folder, names, where scenarios go ([`Sink`]) and the report
//! of what was imported and what was skipped.
//!
//! Bad lines (not JSON, a record of an unknown shape) are reported with file and line; with
//! `strict` the first one is an error, otherwise it is skipped and counted.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Map, Value};

pub mod claude_code;
pub mod cline;
pub mod codex;
pub mod gemini;
pub mod redact;
pub mod time;
pub mod writer;

use writer::{Counts, Header, ScenarioWriter};

/// The log formats `lab import` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    ClaudeCode,
    Codex,
    Cline,
    GeminiCli,
}

impl Format {
    pub const ALL: [Format; 4] = [
        Format::ClaudeCode,
        Format::Codex,
        Format::Cline,
        Format::GeminiCli,
    ];

    /// The name `--from` takes.
    pub fn name(self) -> &'static str {
        match self {
            Format::ClaudeCode => "claude-code",
            Format::Codex => "codex",
            Format::Cline => "cline",
            Format::GeminiCli => "gemini-cli",
        }
    }

    pub fn parse(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// How to import.
#[derive(Debug, Clone, Default)]
pub struct ImportOptions {
    /// The format; detected per file when absent.
    pub from: Option<Format>,
    /// Replace every text by filler of the same size ([`redact`]).
    pub redact: bool,
    /// A bad line is an error instead of being skipped.
    pub strict: bool,
}

/// Failures of an import.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("read {path}: {source}")]
    Read {
        path: String,
        #[source]
        source: io::Error,
    },
    #[error("write {path}: {source}")]
    Write {
        path: String,
        #[source]
        source: io::Error,
    },
    /// A bad line under `--strict`.
    #[error(
        "import {file}:{line}: {message} (--strict; without it such lines are skipped and counted)"
    )]
    Bad {
        file: String,
        line: usize,
        message: String,
    },
    /// Nothing importable, or a format that cannot be told.
    #[error("import {path}: {message}")]
    Input { path: String, message: String },
}

impl ImportError {
    fn from_write(source: io::Error) -> ImportError {
        ImportError::Write {
            path: "the scenario".to_owned(),
            source,
        }
    }
}

/// A line that was skipped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    pub file: String,
    pub line: usize,
    pub message: String,
}

/// One written scenario.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SessionReport {
    pub name: String,
    pub format: Format,
    /// The log it came from (as given, below the input folder).
    pub file: String,
    pub counts: Counts,
    /// What was not replayed or was changed, by kind, counted.
    pub notes: BTreeMap<String, usize>,
}

/// Everything an import did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ImportReport {
    pub sessions: Vec<SessionReport>,
    /// The first [`MAX_PROBLEMS`] skipped lines.
    pub problems: Vec<Problem>,
    /// All skipped lines.
    pub skipped_lines: usize,
}

/// Skipped lines listed by name in a report; the rest are only counted.
pub const MAX_PROBLEMS: usize = 20;

/// Where scenarios go: one writer per scenario name.
pub trait Sink {
    fn open(&mut self, name: &str) -> io::Result<Box<dyn Write + '_>>;
    /// Where `name` went, for messages.
    fn describe(&self, name: &str) -> String;
}

/// Scenarios kept in memory (for `lab audit`, tests, and stdout).
#[derive(Debug, Default)]
pub struct MemorySink {
    pub files: Vec<(String, Vec<u8>)>,
}

impl Sink for MemorySink {
    fn open(&mut self, name: &str) -> io::Result<Box<dyn Write + '_>> {
        self.files.push((name.to_owned(), Vec::new()));
        let (_, bytes) = self.files.last_mut().expect("just pushed");
        Ok(Box::new(bytes))
    }

    fn describe(&self, name: &str) -> String {
        name.to_owned()
    }
}

/// Scenarios written as `<dir>/<name>.json` (the folder is created; nothing is written outside).
#[derive(Debug)]
pub struct DirSink {
    pub dir: PathBuf,
}

impl Sink for DirSink {
    fn open(&mut self, name: &str) -> io::Result<Box<dyn Write + '_>> {
        std::fs::create_dir_all(&self.dir)?;
        let file = std::fs::File::create(self.dir.join(format!("{name}.json")))?;
        Ok(Box::new(io::BufWriter::with_capacity(1 << 16, file)))
    }

    fn describe(&self, name: &str) -> String {
        self.dir.join(format!("{name}.json")).display().to_string()
    }
}

/// The state of one import: options, sink, names in use and the report.
pub struct Importer<'s> {
    options: ImportOptions,
    sink: &'s mut dyn Sink,
    root: PathBuf,
    names: BTreeSet<String>,
    pub report: ImportReport,
    format: Format,
}

/// A scenario being written.
pub struct Session<'w> {
    pub writer: ScenarioWriter<'w>,
    name: String,
    file: String,
    format: Format,
}

impl<'s> Importer<'s> {
    /// The file as messages name it: below the input folder, or as given.
    fn display(&self, path: &Path) -> String {
        path.strip_prefix(&self.root)
            .ok()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(path)
            .display()
            .to_string()
    }

    /// A skipped line: an error under `--strict`, else counted (the first few kept).
    fn problem(&mut self, file: &str, line: usize, message: String) -> Result<(), ImportError> {
        if self.options.strict {
            return Err(ImportError::Bad {
                file: file.to_owned(),
                line,
                message,
            });
        }
        self.report.skipped_lines += 1;
        if self.report.problems.len() < MAX_PROBLEMS {
            self.report.problems.push(Problem {
                file: file.to_owned(),
                line,
                message,
            });
        }
        Ok(())
    }

    /// A name not used yet: `name`, else `name-2`, `name-3`, ...
    fn unique(&mut self, name: &str) -> String {
        let clean: String = name
            .chars()
            .map(|c| {
                if c.is_alphanumeric() || "._-".contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let mut candidate = clean.clone();
        let mut n = 2;
        while self.names.contains(&candidate) {
            candidate = format!("{clean}-{n}");
            n += 1;
        }
        self.names.insert(candidate.clone());
        candidate
    }

    /// Starts a scenario named (a unique form of) `header.name`.
    fn begin(
        &mut self,
        name: &str,
        file: &str,
        header: &Header,
    ) -> Result<Session<'_>, ImportError> {
        let name = self.unique(name);
        let header = Header {
            name: name.clone(),
            ..header.clone()
        };
        let target = self.sink.describe(&name);
        let out = self.sink.open(&name).map_err(|source| ImportError::Write {
            path: target.clone(),
            source,
        })?;
        let writer =
            ScenarioWriter::begin(out, &header, self.options.redact).map_err(|source| {
                ImportError::Write {
                    path: target,
                    source,
                }
            })?;
        Ok(Session {
            writer,
            name,
            file: file.to_owned(),
            format: self.format,
        })
    }
}

impl Session<'_> {
    /// Closes the scenario; the report goes to [`Importer::report`] once the writer is gone.
    fn finish(self, notes: BTreeMap<String, usize>) -> Result<SessionReport, ImportError> {
        let Session {
            writer,
            name,
            file,
            format,
        } = self;
        let counts = writer.finish().map_err(|source| ImportError::Write {
            path: name.clone(),
            source,
        })?;
        Ok(SessionReport {
            name,
            format,
            file,
            counts,
            notes,
        })
    }
}

/// Imports `input` (a log, or a folder searched for logs) into `sink`.
pub fn import(
    input: &Path,
    options: &ImportOptions,
    sink: &mut dyn Sink,
) -> Result<ImportReport, ImportError> {
    let files = log_files(input)?;
    let root = if input.is_dir() {
        input.to_path_buf()
    } else {
        input.parent().map(Path::to_path_buf).unwrap_or_default()
    };
    let mut importer = Importer {
        options: options.clone(),
        sink,
        root,
        names: BTreeSet::new(),
        report: ImportReport::default(),
        format: Format::ClaudeCode,
    };
    for path in &files {
        let shown = importer.display(path);
        let format = match options.from {
            Some(format) => format,
            None => detect(path).map_err(|message| ImportError::Input {
                path: shown.clone(),
                message,
            })?,
        };
        importer.format = format;
        let base = base_name(path);
        match format {
            Format::ClaudeCode => claude_code::import(path, &base, &mut importer)?,
            Format::Codex => codex::import(path, &base, &mut importer)?,
            Format::Cline => cline::import(path, &base, &mut importer)?,
            Format::GeminiCli => gemini::import(path, &base, &mut importer)?,
        }
    }
    Ok(importer.report)
}

/// The logs of `input`: the file itself, or every `*.jsonl` and `*messages.json` below a folder,
/// in path order.
fn log_files(input: &Path) -> Result<Vec<PathBuf>, ImportError> {
    let shown = input.display().to_string();
    let meta = std::fs::metadata(input).map_err(|source| ImportError::Read {
        path: shown.clone(),
        source,
    })?;
    if !meta.is_dir() {
        return Ok(vec![input.to_path_buf()]);
    }
    let mut files = Vec::new();
    let mut stack = vec![input.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|source| ImportError::Read {
            path: dir.display().to_string(),
            source,
        })?;
        for entry in entries {
            let path = entry
                .map_err(|source| ImportError::Read {
                    path: dir.display().to_string(),
                    source,
                })?
                .path();
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if path.is_dir() {
                stack.push(path);
            } else if name.ends_with(".jsonl") || name.ends_with("messages.json") {
                files.push(path);
            }
        }
    }
    files.sort();
    if files.is_empty() {
        return Err(ImportError::Input {
            path: shown,
            message: "no session logs here (looked for *.jsonl and *messages.json)".to_owned(),
        });
    }
    Ok(files)
}

/// A scenario name for a log: its stem; a Claude Code subagent file
/// (`<session>/subagents/agent-<id>.jsonl`) is `<session>.agent-<id>`.
fn base_name(path: &Path) -> String {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "session".to_owned());
    let stem = stem.strip_suffix(".messages").unwrap_or(&stem).to_owned();
    let parent = path.parent();
    if parent
        .and_then(Path::file_name)
        .is_some_and(|n| n == "subagents")
    {
        if let Some(session) = parent.and_then(Path::parent).and_then(Path::file_name) {
            return format!("{}.{stem}", session.to_string_lossy());
        }
    }
    stem
}

/// Tells the format of a log from its first records.
pub fn detect(path: &Path) -> Result<Format, String> {
    use std::io::BufRead;
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read it: {e}"))?;
    let name = path.to_string_lossy();
    if name.ends_with(".json") {
        return Ok(Format::Cline);
    }
    let reader = io::BufReader::new(file);
    for line in reader.lines().take(50) {
        let line = line.map_err(|e| format!("cannot read it: {e}"))?;
        let Ok(Value::Object(record)) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        if let Some(format) = detect_record(&record) {
            return Ok(format);
        }
    }
    Err(format!(
        "cannot tell its format from its first 50 lines; name it with --from ({})",
        Format::ALL.map(Format::name).join(", ")
    ))
}

fn detect_record(record: &Map<String, Value>) -> Option<Format> {
    let kind = str_field(record, "type");
    if record.contains_key("payload")
        && matches!(
            kind,
            Some("session_meta" | "response_item" | "event_msg" | "turn_context" | "compacted")
        )
    {
        return Some(Format::Codex);
    }
    if record.contains_key("projectHash")
        || record.contains_key("$rewindTo")
        || matches!(kind, Some("gemini" | "info" | "warning" | "error"))
    {
        return Some(Format::GeminiCli);
    }
    if record.contains_key("parentUuid")
        || record.contains_key("uuid")
        || matches!(
            kind,
            Some("summary" | "queue-operation" | "file-history-snapshot")
        )
    {
        return Some(Format::ClaudeCode);
    }
    None
}

/// A string field of a record.
pub(crate) fn str_field<'a>(map: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    map.get(key).and_then(Value::as_str)
}

/// The message of a line that is not JSON: serde_json's, with the column.
pub(crate) fn record_error(error: serde_json::Error) -> String {
    let text = error.to_string();
    let message = text.split(" at line ").next().unwrap_or(&text);
    format!("not JSON ({message} at column {})", error.column())
}

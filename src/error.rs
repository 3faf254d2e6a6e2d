//! Errors, one enum per area. Messages read after "failed to ..." and carry their context (file,
//! step, tool_use_id). Exit codes: 2 for bad input or usage, 1 for a failed expectation or check.

use std::io;

/// A scenario that cannot be read or would not run.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    /// The file could not be read.
    #[error("read {file}: {source}")]
    Read {
        file: String,
        #[source]
        source: io::Error,
    },
    /// The file is not JSON; `message` is serde_json's, without its position.
    #[error("parse {file}: invalid JSON at line {line}, column {column}: {message}")]
    Json {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    /// The JSON is not a valid scenario, or names what the profile lacks; `location` is
    /// `top level`, `step N (kind)`, `expect`, `constants.NAME`, ...
    #[error("load {file}: {location}: {message}")]
    Invalid {
        file: String,
        location: String,
        message: String,
    },
}

/// A failure while a scenario runs (the store could not be written).
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A file of the store (a spill, an archive, a memory file) could not be written.
    #[error("write {path}: {source}")]
    Store {
        path: String,
        #[source]
        source: io::Error,
    },
    /// The temporary directory of a store could not be created.
    #[error("create a temporary store directory: {0}")]
    TempDir(#[source] io::Error),
    /// A file of the store could not be deleted (a `remove_file` step).
    #[error("remove {path}: {source}")]
    Remove {
        path: String,
        #[source]
        source: io::Error,
    },
}

impl RunError {
    /// The [`RunError::Store`] of a failed write of `path`, for `map_err`.
    pub(crate) fn store(path: &str) -> impl FnOnce(io::Error) -> RunError + '_ {
        move |source| RunError::Store {
            path: path.to_owned(),
            source,
        }
    }
}

/// Any error of a `lab` command.
#[derive(Debug, thiserror::Error)]
pub enum LabError {
    /// A scenario that cannot be loaded (exit code 2).
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    /// A store failure during a run (exit code 2: an input the store refused or could not take).
    #[error(transparent)]
    Run(#[from] RunError),
    /// Bad usage or input of any other command, as its full message (the catch-all the
    /// architecture review §11 would split into one enum per area).
    #[error("{0}")]
    Usage(String),
    /// A file other than a scenario could not be read (the message says `read`).
    #[error("read {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: io::Error,
    },
    /// A session log could not be imported (exit code 2).
    #[error(transparent)]
    Import(#[from] crate::import::ImportError),
    /// An output file could not be written.
    #[error("write {path}: {source}")]
    Write {
        path: String,
        #[source]
        source: io::Error,
    },
    /// `lab probe`: the server, the agent or a plan failed (exit code 2).
    #[error(transparent)]
    Probe(#[from] crate::probe::ProbeError),
}

impl LabError {
    /// 2 for bad input or usage, including a store failure during a run (audit D10); exit code 1
    /// (a failed expectation or check) is decided by the command's result, not by an error.
    pub fn exit_code(&self) -> u8 {
        2
    }
}

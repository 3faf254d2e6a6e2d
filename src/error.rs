//! Errors, one enum per area. Messages read after "failed to ..." and carry their context (file,
//! step, tool_use_id). Exit codes: 2 for bad input or usage, 1 for a failed expectation or check.

use std::io;

/// A scenario that cannot be read or would not run.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    #[error("read {file}: {source}")]
    Read {
        file: String,
        #[source]
        source: io::Error,
    },
    #[error("parse {file}: invalid JSON at line {line}, column {column}: {message}")]
    Json {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
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
    #[error("write {path}: {source}")]
    Store {
        path: String,
        #[source]
        source: io::Error,
    },
    #[error("create a temporary store directory: {0}")]
    TempDir(#[source] io::Error),
}

/// Any error of a `lab` command.
#[derive(Debug, thiserror::Error)]
pub enum LabError {
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    #[error(transparent)]
    Run(#[from] RunError),
    #[error("{0}")]
    Usage(String),
    #[error("read {path}: {source}")]
    Io {
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
}

impl LabError {
    /// 2 for bad input or usage; 1 for a store failure during a run.
    pub fn exit_code(&self) -> u8 {
        match self {
            LabError::Run(_) => 1,
            _ => 2,
        }
    }
}

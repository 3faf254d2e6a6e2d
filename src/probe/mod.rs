//! `lab probe`: conformance against the real agent. A scenario is played to the installed Claude
//! Code, Codex ([`codex`]) or Gemini CLI ([`gemini_cli`]) through a scripted model server on
//! 127.0.0.1 ([`server`], answers from [`script`] in the wire forms of [`sse`], [`responses`]
//! and [`gemini`]); what the agent sends is normalised into a conformance record and compared
//! with what the profile predicts. Method and
//! measurements: docs/probe.md.

pub mod agent;
pub mod codex;
pub mod codex_record;
pub mod compare;
pub mod gemini;
pub mod gemini_cli;
pub mod gemini_record;
pub mod install;
pub mod plan;
pub mod record;
pub mod render;
pub mod responses;
pub mod script;
pub mod server;
pub mod session;
pub mod sse;

/// A failure of the probe machinery (the server, the agent run, a record).
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// The scripted model server could not start.
    #[error("start the scripted model server: {0}")]
    Server(String),
    /// A file or process operation of the probe failed; the string says which.
    #[error("{0}: {1}")]
    Io(String, #[source] std::io::Error),
    /// The agent did not run as it should.
    #[error("run the agent: {0}")]
    Agent(String),
    /// The scenario cannot be played to the agent.
    #[error("plan {file}: {location}: {message}")]
    Plan {
        file: String,
        location: String,
        message: String,
    },
}

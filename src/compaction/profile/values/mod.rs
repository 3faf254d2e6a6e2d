//! The profile values, one file each. `course_main` is written in full and is the base the
//! other course revisions (the older site revision, the later ce8f9f18-era revision and the
//! prototype that copies f9e8b28) are written against, so each of them shows only what it
//! changes; `claude_code` is a different system and is written in full, and
//! `claude_code_2_1_332` as its differences.

mod anthropic_api;
mod claude_code;
mod claude_code_2_1_332;
mod cline;
mod codex;
mod codex_remote;
mod course_latest;
mod course_main;
mod course_site;
mod gemini_cli;
mod opencode;
mod openhands;
mod prototype;

pub use anthropic_api::ANTHROPIC_API;
pub use claude_code::CLAUDE_CODE;
pub use claude_code_2_1_332::CLAUDE_CODE_2_1_332;
pub use cline::CLINE;
pub use codex::CODEX;
pub use codex_remote::CODEX_REMOTE;
pub use course_latest::COURSE_LATEST;
pub use course_main::COURSE_MAIN;
pub use course_site::COURSE_SITE;
pub use gemini_cli::GEMINI_CLI;
pub use opencode::{KILO, OPENCODE, OPENCODE_V2};
pub use openhands::OPENHANDS;
pub use prototype::PROTOTYPE;

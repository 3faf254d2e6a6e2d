//! Gemini CLI chats (`<project temp>/chats/session-*.jsonl`; google-gemini/gemini-cli @ 5411f113
//! packages/core/src/services/chatRecordingService.ts). The research describes the record shapes
//! from `chatRecordingService.ts`, but there is no real log to check an importer against yet, so
//! the lab does not guess one: `--from gemini-cli` and a detected Gemini log are refused with this
//! explanation (listed under "not modelled").

use std::path::Path;

use super::{ImportError, Importer};

pub(super) fn import(path: &Path, _base: &str, importer: &mut Importer) -> Result<(), ImportError> {
    Err(ImportError::Input {
        path: importer.display(path),
        message: "Gemini CLI chats are not imported yet: their format is known only from the \
                  recorder's source, with no real log to check an importer against"
            .to_owned(),
    })
}

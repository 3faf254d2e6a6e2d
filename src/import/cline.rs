//! Placeholder, filled in below.

use std::path::Path;

use super::{ImportError, Importer};

pub(super) fn import(
    path: &Path,
    _base: &str,
    _importer: &mut Importer,
) -> Result<(), ImportError> {
    Err(ImportError::Input {
        path: path.display().to_string(),
        message: "not yet".to_owned(),
    })
}

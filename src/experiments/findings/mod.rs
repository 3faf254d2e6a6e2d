//! The findings that `lab verify` and `lab report` check: a registry of every finding of
//! docs/findings.md (`registry`, data) and the runs that measure each one against its expected
//! values (`evaluate`).

mod evaluate;
mod field;
mod registry;

pub use evaluate::{FindingRow, evaluate_all};
pub use field::FIELD;
pub use registry::{Check, FINDINGS, Finding};

//! Consolidation: the only deletion path of the store (s09 `consolidate_memories`; seed 000 §7,
//! M5; findings M6-M9).
//!
//! It runs when a turn stored at least one record and the store has at least 10. A catalog over
//! 20000 characters raises before the model call (the pass is skipped, silently, every time:
//! the reverse gate, M8). Empty or duplicate-slug results raise before anything is deleted. Then:
//! snapshot → delete every record → write the new ones → rebuild the index; any failure deletes
//! again, restores the snapshot, rebuilds and re-raises, and the caller prints one "skipped" line.
//! "Keep at most 30 records" is only in the prompt (M9).

use super::extract::{Candidate, validate};
use super::profile::Revision;
use super::recall::extract_json_array;
use super::store::{INDEX, Record, document, slug};
use super::world::{MemoryWorld, PyError};
use crate::python::json::char_len;

/// One record's entry in the consolidator's catalog.
fn entry(r: &Record) -> String {
    format!(
        "## {}\nname: {}\ntype: {}\ndescription: {}\n\n{}",
        r.filename, r.name, r.kind, r.description, r.body
    )
}

/// The records in listing order, packed greedily into catalogs of at most `limit` characters;
/// `None` when one record alone is over the limit.
fn chunks(records: &[Record], limit: usize) -> Option<Vec<Vec<Record>>> {
    let mut out: Vec<Vec<Record>> = Vec::new();
    let mut size = 0;
    for record in records {
        let chars = char_len(&entry(record));
        if chars > limit {
            return None;
        }
        match out.last_mut() {
            Some(chunk) if size + 2 + chars <= limit => {
                chunk.push(record.clone());
                size += 2 + chars;
            }
            _ => {
                out.push(vec![record.clone()]);
                size = chars;
            }
        }
    }
    Some(out)
}

impl MemoryWorld {
    /// `consolidate_memories`: the number of records written (0 when skipped).
    pub fn consolidate(&mut self) -> usize {
        let listed = self.list_records();
        let count = listed.len();
        let catalog = listed.iter().map(entry).collect::<Vec<_>>().join("\n\n");
        if count < self.profile.constants.consolidate_threshold {
            self.event(
                "consolidate",
                "skip",
                None,
                format!(
                    "{count} records < threshold {}",
                    self.profile.constants.consolidate_threshold
                ),
            );
            return 0;
        }
        match self.consolidate_inner(&listed, &catalog) {
            Ok(written) => {
                self.consolidations += 1;
                self.event(
                    "consolidate",
                    "done",
                    None,
                    format!("[Memory: consolidated {count} to {written} records]"),
                );
                written
            }
            Err(error) => {
                self.consolidations_skipped += 1;
                self.event(
                    "consolidate",
                    "skip",
                    None,
                    format!("[Memory consolidation skipped: {}]", error.0),
                );
                0
            }
        }
    }

    fn consolidate_inner(&mut self, listed: &[Record], catalog: &str) -> Result<usize, PyError> {
        let limit = self.profile.constants.consolidate_input;
        let too_large = || PyError::new("memory store is too large for one consolidation pass");
        let parts = if char_len(catalog) <= limit {
            vec![listed.to_vec()]
        } else if self.profile.switches.chunked_consolidation {
            let parts = chunks(listed, limit).ok_or_else(too_large)?;
            self.event(
                "consolidate",
                "chunk",
                None,
                format!(
                    "catalog of {} chars over {limit}: {} chunks under the cap",
                    char_len(catalog),
                    parts.len()
                ),
            );
            parts
        } else {
            return Err(too_large());
        };
        let mut records: Vec<Candidate> = Vec::new();
        for part in &parts {
            let reply = self.call_consolidator(part)?;
            records.extend(
                extract_json_array(&reply)
                    .unwrap_or_default()
                    .iter()
                    .filter_map(|item| validate(item, false)),
            );
        }
        let slugs: Vec<String> = records
            .iter()
            .map(|r| slug(Revision::Main, &r.name))
            .collect();
        let mut unique = slugs.clone();
        unique.sort();
        unique.dedup();
        if records.is_empty() || unique.len() != slugs.len() {
            return Err(PyError::new(
                "consolidation returned empty or duplicate records",
            ));
        }
        let mut snapshot: Vec<(String, String)> = Vec::new();
        for record in self.list_records() {
            let text = self.read_file(&record.filename)?;
            snapshot.push((record.filename, text));
        }
        match self.rewrite(&records) {
            Ok(()) => Ok(records.len()),
            Err(error) => {
                if self.profile.switches.snapshot_restore {
                    self.delete_records();
                    for (filename, text) in &snapshot {
                        // The snapshot is written back without the fault counter.
                        let _ = self.fs.write(filename, text);
                    }
                    let _ = self.rebuild_index();
                    self.event(
                        "consolidate",
                        "restore",
                        None,
                        "snapshot restored after the failure",
                    );
                }
                let present = self.fs.glob_md();
                let lost = snapshot
                    .iter()
                    .filter(|(f, _)| !present.contains(f))
                    .count();
                self.records_lost += lost;
                Err(error)
            }
        }
    }

    /// Deletes every record file (not the index); a refused name is skipped.
    fn delete_records(&mut self) {
        for name in self.fs.glob_md() {
            if name == INDEX || self.memory_path(&name, false).is_err() {
                continue;
            }
            let _ = self.fs.unlink(&name);
        }
    }

    fn rewrite(&mut self, records: &[Candidate]) -> Result<(), PyError> {
        for name in self.fs.glob_md() {
            if name == INDEX || self.memory_path(&name, false).is_err() {
                continue;
            }
            self.delete_record(&name)?;
        }
        for record in records {
            let filename = format!("{}.md", slug(Revision::Main, &record.name));
            self.memory_path(&filename, false)?;
            let text = document(
                &record.name,
                &record.kind,
                &record.description,
                &record.body,
            );
            self.write_record(&filename, &text)?;
        }
        if self.profile.switches.rebuild_index {
            self.rebuild_index()?;
        }
        Ok(())
    }
}

//! Claude Code's readFileState as the lab keeps it: the files a `Read` call returned, each with
//! the text it returned, the newest read last (a file read again moves to the end). Autocompact
//! restores the newest of them; the scripted summary lists them.
//!
//! Kept in order of reading with an index by path, so that a read or a forgotten file costs a
//! lookup rather than a scan of every file read so far (which grew with the session: issue 13).

use std::collections::BTreeMap;

use crate::hash::FastMap;

use crate::transcript::ResultText;

/// The files read, in order of their last read.
#[derive(Debug, Default, Clone)]
pub(crate) struct ReadFiles {
    /// `(path, text)` by the sequence number of the file's last read.
    by_read: BTreeMap<u64, (String, ResultText)>,
    /// The sequence number of each path's last read.
    by_path: FastMap<String, u64>,
    next: u64,
}

impl ReadFiles {
    /// Records a read of `path` that returned `text`: the file becomes the newest.
    pub(crate) fn read(&mut self, path: String, text: impl Into<ResultText>) {
        let text = text.into();
        self.forget(&path);
        self.by_path.insert(path.clone(), self.next);
        self.by_read.insert(self.next, (path, text));
        self.next += 1;
    }

    /// Forgets `path` (a refused read).
    pub(crate) fn forget(&mut self, path: &str) {
        if let Some(seq) = self.by_path.remove(path) {
            self.by_read.remove(&seq);
        }
    }

    /// Replaces the text kept for `path` without making it the newest (Claude Code v2.1.332
    /// keeps the part of an over-cap file its Read returned).
    pub(crate) fn set_text(&mut self, path: &str, text: impl Into<ResultText>) {
        let text = text.into();
        if let Some(seq) = self.by_path.get(path) {
            if let Some(file) = self.by_read.get_mut(seq) {
                file.1 = text;
            }
        }
    }

    /// Keeps only the files whose path `keep` accepts.
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(&str) -> bool) {
        let by_path = &mut self.by_path;
        self.by_read.retain(|_, (path, _)| {
            let kept = keep(path);
            if !kept {
                by_path.remove(path.as_str());
            }
            kept
        });
    }

    /// Forgets every file.
    pub(crate) fn clear(&mut self) {
        self.by_read.clear();
        self.by_path.clear();
    }

    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.by_read.is_empty()
    }

    /// `(path, text)` of each file, oldest read first.
    pub(crate) fn iter(&self) -> impl DoubleEndedIterator<Item = (&String, &ResultText)> {
        self.by_read.values().map(|(path, text)| (path, text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file read again moves to the end; a forgotten one is gone; the order is the order of
    /// the last reads, as the Vec the lab kept before (retain, then push) had it.
    #[test]
    fn a_file_read_again_becomes_the_newest() {
        let mut files = ReadFiles::default();
        let mut reference: Vec<(String, ResultText)> = Vec::new();
        let mut read = |files: &mut ReadFiles, path: &str, text: &str| {
            reference.retain(|(p, _)| p != path);
            reference.push((path.to_owned(), text.into()));
            files.read(path.to_owned(), text.to_owned());
            let listed: Vec<(String, ResultText)> =
                files.iter().map(|(p, t)| (p.clone(), t.clone())).collect();
            assert_eq!(listed, reference);
        };
        read(&mut files, "/a", "1");
        read(&mut files, "/b", "2");
        read(&mut files, "/a", "3");
        read(&mut files, "/c", "4");
        files.forget("/b");
        let paths: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(paths, ["/a", "/c"]);
        let newest: Vec<&str> = files.iter().rev().map(|(_, t)| t.as_str()).collect();
        assert_eq!(newest, ["4", "3"]);
        files.forget("/x");
        // A new text keeps the file's place; retain forgets the paths it refuses, index too.
        files.read("/d".to_owned(), "5".to_owned());
        files.set_text("/a", "3 cut".to_owned());
        files.set_text("/b", "gone".to_owned());
        let listed: Vec<(&str, &str)> = files
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_str()))
            .collect();
        assert_eq!(listed, [("/a", "3 cut"), ("/c", "4"), ("/d", "5")]);
        files.retain(|p| p != "/c");
        files.read("/c".to_owned(), "6".to_owned());
        let paths: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(paths, ["/a", "/d", "/c"]);
        files.clear();
        assert!(files.is_empty());
    }
}

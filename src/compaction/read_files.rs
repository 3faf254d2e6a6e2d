//! Claude Code's readFileState as the lab keeps it: the files a `Read` call returned, each with
//! the text it returned, the newest read last (a file read again moves to the end). Autocompact
//! restores the newest of them; the scripted summary lists them.
//!
//! Kept in order of reading with an index by path, so that a read or a forgotten file costs a
//! lookup rather than a scan of every file read so far (which grew with the session: issue 13).

use std::collections::{BTreeMap, HashMap};

/// The files read, in order of their last read.
#[derive(Debug, Default)]
pub(crate) struct ReadFiles {
    /// `(path, text)` by the sequence number of the file's last read.
    by_read: BTreeMap<u64, (String, String)>,
    /// The sequence number of each path's last read.
    by_path: HashMap<String, u64>,
    next: u64,
}

impl ReadFiles {
    /// Records a read of `path` that returned `text`: the file becomes the newest.
    pub(crate) fn read(&mut self, path: String, text: String) {
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
    pub(crate) fn iter(&self) -> impl DoubleEndedIterator<Item = (&String, &String)> {
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
        let mut reference: Vec<(String, String)> = Vec::new();
        let mut read = |files: &mut ReadFiles, path: &str, text: &str| {
            reference.retain(|(p, _)| p != path);
            reference.push((path.to_owned(), text.to_owned()));
            files.read(path.to_owned(), text.to_owned());
            let listed: Vec<(String, String)> =
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
        files.clear();
        assert!(files.is_empty());
    }
}

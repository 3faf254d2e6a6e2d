//! The run's sandbox: what the modelled code writes outside the run's directories is modelled,
//! never written (issue 11, item 1).
//!
//! Course-site and Claude Code name a spill file after the raw tool_use id, so an id such as
//! `../../x` makes the real code write `x.txt` two directories above its spill directory. The
//! lab keeps modelling that (the file exists for the rest of the run, a pointer to it resolves,
//! `path_escapes` counts the write) but keeps the file in memory: nothing is created, read or
//! deleted outside the spill and transcript directories, whichever store is behind. Paths are
//! compared component by component after lexical resolution, the same rule for both stores, so
//! that both report the same observables.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io;
use std::rc::Rc;

use crate::compaction::paths::Roots;
use crate::compaction::store::{Checked, SpillFile, SpillText, Store, lexical, resolve_lexical};
use crate::python::json::Dialect;
use crate::transcript::{Message, ResultText};

/// A store that lets `inner` see only paths inside `roots` and keeps the rest in memory.
pub(crate) struct Sandbox {
    inner: Box<dyn Store>,
    /// The run's directories, resolved lexically.
    roots: Roots,
    /// Files the modelled code wrote outside `roots`, by resolved path.
    outside: BTreeMap<String, SpillText>,
    /// The last transcript path appended to that lies inside `roots`: a session transcript is
    /// appended to at every message, and its path need not be checked each time (issue 13).
    appended_inside: String,
}

impl Sandbox {
    pub(crate) fn new(inner: Box<dyn Store>, roots: &[&str]) -> Self {
        Sandbox {
            inner,
            roots: Roots::new(roots),
            outside: BTreeMap::new(),
            appended_inside: String::new(),
        }
    }

    fn escapes(&self, path: &str) -> bool {
        !self.roots.hold(path)
    }

    /// Writes a spill file inside the roots through the inner store, with the path checked
    /// here (it is not checked again), or outside them in memory; with `replacing`, returns
    /// what the file held.
    fn write_either(
        &mut self,
        path: &str,
        content: SpillText,
        replacing: bool,
    ) -> io::Result<Option<ResultText>> {
        let Some(key) = self.roots.resolve(path) else {
            let old = self.outside.insert(resolve_lexical(path), content);
            return Ok(old.filter(|_| replacing).map(|old| old.text()));
        };
        let checked = Checked { path, key: &key };
        self.inner.write_checked(checked, content, replacing)
    }
}

impl Store for Sandbox {
    fn is_file(&self, path: &str) -> bool {
        if self.escapes(path) {
            return self.outside.contains_key(lexical(path).as_ref());
        }
        self.inner.is_file(path)
    }

    fn write_spill(&mut self, path: &str, content: SpillText) -> io::Result<()> {
        self.write_either(path, content, false).map(drop)
    }

    fn replace_spill(&mut self, path: &str, content: SpillText) -> io::Result<Option<ResultText>> {
        self.write_either(path, content, true)
    }

    /// The inner store's: a path that escapes is written here, not there, so the inner
    /// store's last key is never its text unless an earlier write inside had the same text,
    /// which is all that sharing needs.
    fn shared_path(&self, path: &str) -> Rc<str> {
        self.inner.shared_path(path)
    }

    fn read_spill(&self, path: &str) -> Option<ResultText> {
        if self.escapes(path) {
            return self
                .outside
                .get(lexical(path).as_ref())
                .map(SpillText::text);
        }
        self.inner.read_spill(path)
    }

    fn spill_files(&self, dir: &str) -> Vec<SpillFile> {
        self.inner.spill_files(dir)
    }

    fn expect_files(&mut self, spill: usize, transcripts: usize) {
        self.inner.expect_files(spill, transcripts);
    }

    /// The listing is the inner store's, of a directory inside the roots: resolved as it
    /// resolves them.
    fn lists_resolved(&self) -> bool {
        self.inner.lists_resolved()
    }

    fn write_transcript(
        &mut self,
        path: &str,
        messages: &[Message],
        dialect: Dialect,
        chars: usize,
    ) -> io::Result<usize> {
        let Some(key) = self.roots.resolve(path) else {
            return Ok(chars);
        };
        let checked = Checked { path, key: &key };
        self.inner
            .write_transcript_checked(checked, messages, dialect, chars)
    }

    fn append_transcript(
        &mut self,
        path: &str,
        messages: &[Message],
        chars: usize,
    ) -> io::Result<()> {
        if path != self.appended_inside {
            if self.escapes(path) {
                return Ok(());
            }
            path.clone_into(&mut self.appended_inside);
        }
        self.inner.append_transcript(path, messages, chars)
    }

    fn resolve(&self, path: &str) -> String {
        if self.escapes(path) {
            // Outside the run's directories nothing on the host is looked at, not even links.
            return resolve_lexical(path);
        }
        self.inner.resolve(path)
    }

    fn resolved<'a>(&self, path: &'a str) -> Cow<'a, str> {
        if self.escapes(path) {
            return lexical(path);
        }
        self.inner.resolved(path)
    }

    fn resolved_file<'a>(&self, path: &'a str) -> (Cow<'a, str>, bool) {
        if self.escapes(path) {
            let resolved = lexical(path);
            let is_file = self.outside.contains_key(resolved.as_ref());
            return (resolved, is_file);
        }
        self.inner.resolved_file(path)
    }

    fn remove(&mut self, path: &str) -> io::Result<bool> {
        if self.escapes(path) {
            return Ok(self.outside.remove(&resolve_lexical(path)).is_some());
        }
        self.inner.remove(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::paths::is_inside;
    use crate::compaction::store::{DirStore, MemoryStore, join};

    /// `resolved` is `resolve`, borrowed or not, in either store behind the sandbox, for paths
    /// inside and outside the run's directories, resolved already or not; in memory an
    /// already resolved path is borrowed.
    #[test]
    fn resolved_is_resolve() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("run/res").to_string_lossy().into_owned();
        let paths = [
            join(&root, "a.txt"),
            join(&root, "./b/../a.txt"),
            join(&root, "../../x.txt"),
            "/elsewhere/y.txt".to_owned(),
        ];
        let stores: [Box<dyn Store>; 2] = [
            Box::new(Sandbox::new(Box::new(MemoryStore::new()), &[&root])),
            Box::new(Sandbox::new(Box::new(DirStore::new(&[&root])), &[&root])),
        ];
        for store in &stores {
            for path in &paths {
                assert_eq!(store.resolved(path), store.resolve(path), "{path}");
            }
        }
        assert!(matches!(stores[0].resolved(&paths[0]), Cow::Borrowed(_)));
    }

    /// `resolved_file` is `resolved` and `is_file` of the same path, for files inside the roots
    /// and outside them, written or not, under both stores.
    #[test]
    fn resolved_file_is_resolved_and_is_file() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("run/res").to_string_lossy().into_owned();
        let mut stores: [Box<dyn Store>; 2] = [
            Box::new(Sandbox::new(Box::new(MemoryStore::new()), &[&root])),
            Box::new(Sandbox::new(Box::new(DirStore::new(&[&root])), &[&root])),
        ];
        let written = [join(&root, "a.txt"), join(&root, "../../x.txt")];
        let paths = [
            join(&root, "a.txt"),
            join(&root, "./b/../a.txt"),
            join(&root, "../../x.txt"),
            join(&root, "missing.txt"),
            "/elsewhere/y.txt".to_owned(),
        ];
        // On disk `b/..` does not resolve where `b` does not exist: the directory store finds
        // one file less, by both methods.
        for (store, expected) in stores.iter_mut().zip([3, 2]) {
            for path in &written {
                store.write_spill(path, "x".into()).unwrap();
            }
            let mut files = 0;
            for path in &paths {
                let (resolved, is_file) = store.resolved_file(path);
                assert_eq!(resolved, store.resolved(path), "{path}");
                assert_eq!(is_file, store.is_file(path), "{path}");
                files += usize::from(is_file);
            }
            assert_eq!(files, expected);
        }
    }

    /// A store that says its listing is resolved lists each file as `resolved` gives it, for
    /// files written by paths that were not resolved; the directory store does not say so.
    #[test]
    fn a_listing_said_resolved_is_resolved() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("run/res").to_string_lossy().into_owned();
        let mut stores: [Box<dyn Store>; 2] = [
            Box::new(Sandbox::new(
                Box::new(MemoryStore::within(&[&root])),
                &[&root],
            )),
            Box::new(Sandbox::new(Box::new(DirStore::new(&[&root])), &[&root])),
        ];
        for store in &mut stores {
            for name in ["a.txt", "./b/../c.txt", ".//d.txt"] {
                store.write_spill(&join(&root, name), "x".into()).unwrap();
            }
            let files = store.spill_files(&root);
            assert_eq!(files.len(), 3);
            if store.lists_resolved() {
                for file in &files {
                    assert_eq!(store.resolved(&file.path), &*file.path);
                }
            }
        }
        assert!(stores[0].lists_resolved() && !stores[1].lists_resolved());
    }

    #[test]
    fn an_escaping_write_is_kept_in_memory_and_an_inside_one_reaches_the_disk() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("run/tool-results");
        let root = root.to_string_lossy().into_owned();
        let mut store = Sandbox::new(Box::new(DirStore::new(&[&root])), &[&root]);

        let outside = join(&root, "../../victim.txt");
        store.write_spill(&outside, "original".into()).unwrap();
        assert!(!dir.path().join("victim.txt").exists());
        assert!(store.is_file(&outside));
        assert_eq!(store.read_spill(&outside).as_deref(), Some("original"));
        assert_eq!(store.resolve(&outside), resolve_lexical(&outside));
        assert!(store.spill_files(&root).is_empty());
        assert!(store.remove(&outside).unwrap());
        assert!(!store.is_file(&outside));

        let inside = join(&root, "t0.txt");
        store.write_spill(&inside, "kept".into()).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("run/tool-results/t0.txt")).unwrap(),
            "kept"
        );
        assert_eq!(store.spill_files(&root).len(), 1);
    }

    /// A write the sandbox checked is the inner store's write, in either store: keyed by the
    /// path's resolution, returning what it replaced when asked, refusing a name over
    /// `NAME_MAX`; a transcript likewise.
    #[test]
    fn a_checked_write_is_the_inner_stores_write() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("run/res").to_string_lossy().into_owned();
        let stores: [Box<dyn Store>; 2] = [
            Box::new(Sandbox::new(
                Box::new(MemoryStore::within(&[&root])),
                &[&root],
            )),
            Box::new(Sandbox::new(Box::new(DirStore::new(&[&root])), &[&root])),
        ];
        for mut store in stores {
            let (unresolved, resolved) = (join(&root, "./d/../t.txt"), join(&root, "t.txt"));
            store.write_spill(&unresolved, "one".into()).unwrap();
            let old = store.replace_spill(&unresolved, "three".into()).unwrap();
            assert_eq!(old.as_deref(), Some("one"));
            let chars = store.write_transcript(&join(&root, "s.jsonl"), &[], Dialect::Json, 0);
            assert_eq!(chars.unwrap(), 0);
            let listed: Vec<(String, usize)> = store
                .spill_files(&root)
                .into_iter()
                .map(|file| (file.path.to_string(), file.chars))
                .collect();
            assert_eq!(listed, [(join(&root, "s.jsonl"), 0), (resolved, 5)]);
            let long = join(&root, &"n".repeat(256));
            assert!(store.write_spill(&long, "x".into()).is_err());
            assert!(store.replace_spill(&long, "x".into()).is_err());
        }
    }

    /// A transcript appended to outside the run's directories never reaches the store behind,
    /// before or after appends inside them (the sandbox remembers the last path inside).
    #[test]
    fn an_escaping_append_is_dropped_between_appends_inside() {
        let root = "/lab/res";
        let mut store = Sandbox::new(Box::new(MemoryStore::within(&[root])), &[root]);
        let message = Message::user_text("x");
        let inside = join(root, "s.jsonl");
        let outside = join(root, "../s.jsonl");
        for (path, chars) in [(&inside, 5), (&outside, 7), (&inside, 3), (&outside, 11)] {
            store
                .append_transcript(path, std::slice::from_ref(&message), chars)
                .unwrap();
        }
        let files = store.spill_files(root);
        assert_eq!(files.len(), 1);
        assert_eq!((&*files[0].path, files[0].chars), (inside.as_str(), 8));
        assert!(store.spill_files("/lab").is_empty());
    }

    #[test]
    fn the_root_itself_a_sibling_with_its_prefix_and_nul_are_outside() {
        let roots = ["/lab/res"];
        assert!(is_inside(&roots, "/lab/res/a.txt"));
        assert!(is_inside(&roots, "/lab/res/sub/../a.txt"));
        assert!(!is_inside(&roots, "/lab/res"));
        assert!(!is_inside(&roots, "/lab/resx/a.txt"));
        assert!(!is_inside(&roots, "/lab/res/../x.txt"));
        assert!(!is_inside(&roots, "/lab/res/a\0b.txt"));
    }
}

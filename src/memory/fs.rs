//! The memory directory as the course's code sees it, behind one interface with two backends.
//!
//! s09 keeps records as files in `WORKDIR/.memory/`. [`MemFs`] holds them in memory (the
//! default, deterministic); [`DirFs`] uses a real temporary directory, where a symlink that points
//! out of the store is a real symlink. Names are file names inside the store; a symlink target is
//! an absolute path of the virtual machine (`/lab/work/...` inside the workspace, anything else
//! outside it), mapped under the temporary directory by `DirFs`.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

use crate::limits::MAX_SYMLINK_HOPS;

/// The virtual workspace and memory directory (the course's `WORKDIR` and `MEMORY_DIR`).
pub const WORKDIR: &str = "/lab/work";
/// `WORKDIR/.memory`.
pub const MEMORY_DIR: &str = "/lab/work/.memory";

/// Where a name of the store leads once symlinks are followed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A file of the store (or the store itself, for `""`).
    Inside,
    /// A path outside the store.
    Outside(String),
}

/// File operations on the memory directory.
pub trait MemoryFs {
    /// Names in the store matching `*.md`, sorted as Python sorts paths.
    fn glob_md(&self) -> Vec<String>;
    /// Reads a file (following a symlink).
    fn read(&self, name: &str) -> io::Result<String>;
    /// Writes a file (through a symlink to its target).
    fn write(&mut self, name: &str, text: &str) -> io::Result<()>;
    /// Removes a name (a symlink itself, not its target).
    fn unlink(&mut self, name: &str) -> io::Result<()>;
    /// True if the name exists and is (or leads to) a file.
    fn is_file(&self, name: &str) -> bool;
    /// Where the name leads.
    fn target(&self, name: &str) -> Target;
    /// True if the memory directory itself leads out of the workspace.
    fn root_escapes(&self) -> bool;
    /// Creates an outside file with `text` and a symlink `name` to it (`name` `.` links the
    /// memory directory itself).
    fn symlink(&mut self, name: &str, target: &str, text: &str) -> io::Result<()>;
    /// Every regular file of the store with its text (symlinks left out), sorted.
    fn files(&self) -> Vec<(String, String)>;
    /// Text of an outside path, if it exists.
    fn outside(&self, path: &str) -> Option<String>;
}

/// Python `Path(name).name`: the last part after `/`, ignoring empty and `.` parts.
pub fn path_name(name: &str) -> &str {
    name.split('/')
        .rfind(|part| !part.is_empty() && *part != ".")
        .unwrap_or("")
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Entry {
    File(String),
    Link(String),
}

/// In-memory memory directory.
#[derive(Debug, Default)]
pub struct MemFs {
    entries: BTreeMap<String, Entry>,
    outside: BTreeMap<String, String>,
    root_link: Option<String>,
}

impl MemFs {
    /// An empty store with nothing outside it.
    pub fn new() -> Self {
        Self::default()
    }

    /// Follows inside links from `name` to the name of a file (present or not) or an outside
    /// path, at most [`MAX_SYMLINK_HOPS`] links, as the kernel does: a loop is `ELOOP`.
    fn resolve<'a>(&'a self, name: &'a str) -> io::Result<Resolved<'a>> {
        let mut current = name;
        for _ in 0..=MAX_SYMLINK_HOPS {
            match self.entries.get(current) {
                Some(Entry::Link(target)) => match inside_name(target) {
                    Some(inner) => current = inner,
                    None => return Ok(Resolved::Outside(target)),
                },
                _ => return Ok(Resolved::File(current)),
            }
        }
        Err(io::Error::other(format!(
            "[Errno 40] Too many levels of symbolic links: '{name}'"
        )))
    }

    fn link_target(&self, name: &str) -> Option<&String> {
        match self.entries.get(name) {
            Some(Entry::Link(target)) => Some(target),
            _ => None,
        }
    }
}

/// Where a name of the in-memory store ends after its links.
enum Resolved<'a> {
    /// A name of the store that is not a link.
    File(&'a str),
    /// An outside path.
    Outside(&'a str),
}

fn not_found(name: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::NotFound,
        format!("[Errno 2] No such file or directory: '{name}'"),
    )
}

fn inside_name(target: &str) -> Option<&str> {
    target
        .strip_prefix(MEMORY_DIR)
        .and_then(|rest| rest.strip_prefix('/'))
        .filter(|rest| !rest.is_empty() && !rest.contains('/'))
}

impl MemoryFs for MemFs {
    fn glob_md(&self) -> Vec<String> {
        self.entries
            .keys()
            .filter(|name| name.ends_with(".md"))
            .cloned()
            .collect()
    }

    fn read(&self, name: &str) -> io::Result<String> {
        match self.resolve(name)? {
            Resolved::File(inner) => match self.entries.get(inner) {
                Some(Entry::File(text)) => Ok(text.clone()),
                _ => Err(not_found(name)),
            },
            Resolved::Outside(target) => self
                .outside
                .get(target)
                .cloned()
                .ok_or_else(|| not_found(name)),
        }
    }

    fn write(&mut self, name: &str, text: &str) -> io::Result<()> {
        match self.resolve(name)? {
            Resolved::Outside(target) => {
                let target = target.to_owned();
                self.outside.insert(target, text.to_owned());
            }
            Resolved::File(inner) => {
                let inner = inner.to_owned();
                self.entries.insert(inner, Entry::File(text.to_owned()));
            }
        }
        Ok(())
    }

    fn unlink(&mut self, name: &str) -> io::Result<()> {
        self.entries
            .remove(name)
            .map(|_| ())
            .ok_or_else(|| not_found(name))
    }

    fn is_file(&self, name: &str) -> bool {
        match self.resolve(name) {
            Ok(Resolved::File(inner)) => matches!(self.entries.get(inner), Some(Entry::File(_))),
            Ok(Resolved::Outside(target)) => self.outside.contains_key(target),
            Err(_) => false,
        }
    }

    fn target(&self, name: &str) -> Target {
        match self.link_target(name) {
            Some(target) if inside_name(target).is_none() => Target::Outside(target.clone()),
            _ => Target::Inside,
        }
    }

    fn root_escapes(&self) -> bool {
        self.root_link
            .as_deref()
            .is_some_and(|target| !crate::compaction::store::is_within(target, WORKDIR))
    }

    fn symlink(&mut self, name: &str, target: &str, text: &str) -> io::Result<()> {
        if inside_name(target).is_none() {
            self.outside.insert(target.to_owned(), text.to_owned());
        }
        if name == "." {
            self.root_link = Some(target.to_owned());
        } else {
            self.entries
                .insert(name.to_owned(), Entry::Link(target.to_owned()));
        }
        Ok(())
    }

    fn files(&self) -> Vec<(String, String)> {
        self.entries
            .iter()
            .filter_map(|(name, entry)| match entry {
                Entry::File(text) => Some((name.clone(), text.clone())),
                Entry::Link(_) => None,
            })
            .collect()
    }

    fn outside(&self, path: &str) -> Option<String> {
        self.outside.get(path).cloned()
    }
}

/// A real memory directory under a temporary root: the workspace is `root/work`, the store
/// `root/work/.memory`, and a virtual absolute path `/x/y` is `root/x/y`.
#[derive(Debug)]
pub struct DirFs {
    root: PathBuf,
    store: PathBuf,
}

impl DirFs {
    /// Makes the store directory under `root`.
    pub fn new(root: &Path) -> io::Result<Self> {
        let store = root.join("lab/work/.memory");
        fs::create_dir_all(&store)?;
        Ok(DirFs {
            root: root.to_path_buf(),
            store,
        })
    }

    /// The real path of a virtual absolute path: always under the root, or refused.
    fn real(&self, virtual_path: &str) -> io::Result<PathBuf> {
        Ok(self
            .root
            .join(contained(virtual_path.trim_start_matches('/'))?))
    }

    /// The real path of a store name: always under the store, or refused.
    fn path(&self, name: &str) -> io::Result<PathBuf> {
        Ok(self.store.join(contained(name)?))
    }

    fn canonical_store(&self) -> PathBuf {
        fs::canonicalize(&self.store).unwrap_or_else(|_| self.store.clone())
    }
}

impl MemoryFs for DirFs {
    fn glob_md(&self) -> Vec<String> {
        let Ok(entries) = fs::read_dir(&self.store) else {
            return Vec::new();
        };
        let mut names: Vec<String> = entries
            .filter_map(Result::ok)
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|name| name.ends_with(".md"))
            .collect();
        names.sort();
        names
    }

    fn read(&self, name: &str) -> io::Result<String> {
        fs::read_to_string(self.path(name)?)
    }

    fn write(&mut self, name: &str, text: &str) -> io::Result<()> {
        fs::write(self.path(name)?, text)
    }

    fn unlink(&mut self, name: &str) -> io::Result<()> {
        fs::remove_file(self.path(name)?)
    }

    fn is_file(&self, name: &str) -> bool {
        self.path(name).is_ok_and(|p| p.is_file())
    }

    fn target(&self, name: &str) -> Target {
        let Ok(path) = self.path(name) else {
            return Target::Inside;
        };
        let Ok(real) = fs::canonicalize(&path) else {
            return Target::Inside;
        };
        if real.starts_with(self.canonical_store()) {
            Target::Inside
        } else {
            let canonical_root = fs::canonicalize(&self.root).unwrap_or_else(|_| self.root.clone());
            let shown = real
                .strip_prefix(&canonical_root)
                .map(|rest| format!("/{}", rest.display()))
                .unwrap_or_else(|_| real.display().to_string());
            Target::Outside(shown)
        }
    }

    fn root_escapes(&self) -> bool {
        let work = fs::canonicalize(self.root.join("lab/work")).unwrap_or_default();
        !self.canonical_store().starts_with(work)
    }

    fn symlink(&mut self, name: &str, target: &str, text: &str) -> io::Result<()> {
        let real_target = self.real(target)?;
        if inside_name(target).is_none() {
            if let Some(parent) = real_target.parent() {
                fs::create_dir_all(parent)?;
            }
            if name == "." {
                fs::create_dir_all(&real_target)?;
            } else {
                fs::write(&real_target, text)?;
            }
        }
        if name == "." {
            // The store moves out and a link takes its place: the records are still listed,
            // as on the in-memory backend, but every path now resolves outside the workspace.
            for entry in fs::read_dir(&self.store)? {
                let entry = entry?;
                fs::rename(entry.path(), real_target.join(entry.file_name()))?;
            }
            fs::remove_dir(&self.store)?;
            link(&real_target, &self.store)
        } else {
            link(&real_target, &self.path(name)?)
        }
    }

    fn files(&self) -> Vec<(String, String)> {
        self.glob_all()
            .into_iter()
            .filter(|name| {
                self.path(name)
                    .and_then(fs::symlink_metadata)
                    .is_ok_and(|m| m.file_type().is_file())
            })
            .filter_map(|name| {
                self.path(&name)
                    .and_then(fs::read_to_string)
                    .ok()
                    .map(|t| (name, t))
            })
            .collect()
    }

    fn outside(&self, path: &str) -> Option<String> {
        self.real(path).and_then(fs::read_to_string).ok()
    }
}

impl DirFs {
    fn glob_all(&self) -> Vec<String> {
        let Ok(entries) = fs::read_dir(&self.store) else {
            return Vec::new();
        };
        let mut names: Vec<String> = entries
            .filter_map(Result::ok)
            .filter_map(|e| e.file_name().into_string().ok())
            .collect();
        names.sort();
        names
    }
}

/// `relative` as a path that stays below the directory it is joined to: only normal components
/// (no `..`, no root, no NUL); anything else is refused with the name in the error, so that the
/// real-directory store never reaches outside its root (issue 11).
fn contained(relative: &str) -> io::Result<&Path> {
    let path = Path::new(relative);
    let escapes = relative.contains('\0')
        || path
            .components()
            .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir));
    if escapes {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!("'{relative}' leaves the store's root; the lab writes nothing outside it"),
        ));
    }
    Ok(path)
}

#[cfg(unix)]
fn link(target: &Path, at: &Path) -> io::Result<()> {
    std::os::unix::fs::symlink(target, at)
}

#[cfg(not(unix))]
fn link(_target: &Path, _at: &Path) -> io::Result<()> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "symlinks need a Unix file system",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_name_is_pythons() {
        assert_eq!(path_name("a.md"), "a.md");
        assert_eq!(path_name("a/b.md"), "b.md");
        assert_eq!(path_name("x/"), "x");
        assert_eq!(path_name(""), "");
        assert_eq!(path_name("."), "");
        assert_eq!(path_name(".."), "..");
        assert_eq!(path_name("/"), "");
        assert_eq!(path_name("./a"), "a");
    }

    fn exercise(fs: &mut dyn MemoryFs) {
        fs.write("b.md", "bee").unwrap();
        fs.write("a.md", "ay").unwrap();
        fs.write("notes.txt", "x").unwrap();
        assert_eq!(fs.glob_md(), vec!["a.md", "b.md"]);
        assert_eq!(fs.read("a.md").unwrap(), "ay");
        fs.symlink("evil.md", "/home/lab/.ssh/config", "Host *")
            .unwrap();
        assert_eq!(fs.read("evil.md").unwrap(), "Host *");
        assert_eq!(
            fs.target("evil.md"),
            Target::Outside("/home/lab/.ssh/config".into())
        );
        assert_eq!(fs.target("a.md"), Target::Inside);
        fs.write("evil.md", "pwned").unwrap();
        assert_eq!(
            fs.outside("/home/lab/.ssh/config").as_deref(),
            Some("pwned")
        );
        fs.unlink("evil.md").unwrap();
        assert_eq!(
            fs.outside("/home/lab/.ssh/config").as_deref(),
            Some("pwned")
        );
        assert!(!fs.is_file("evil.md"));
        assert_eq!(
            fs.files(),
            vec![
                ("a.md".to_owned(), "ay".to_owned()),
                ("b.md".to_owned(), "bee".to_owned()),
                ("notes.txt".to_owned(), "x".to_owned())
            ]
        );
        assert!(!fs.root_escapes());
    }

    #[test]
    fn memory_and_directory_backends_agree() {
        exercise(&mut MemFs::new());
        let dir = tempfile::tempdir().unwrap();
        exercise(&mut DirFs::new(dir.path()).unwrap());
    }
}

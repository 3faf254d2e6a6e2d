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

/// Where a name given to the store lands, by Python's rules for `MEMORY_DIR / name`: an
/// absolute name replaces the directory, `..` climbs out of it. The one rule both backends
/// follow, so that they agree on every name (issue 11, item 5).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Place {
    /// A file directly in the store, by its name.
    Store(String),
    /// A virtual absolute path outside the store (`/lab/work/x.md`, `/etc/x`).
    Outside(String),
}

/// Linux's `NAME_MAX`: the longest file name (one path component), in bytes.
const NAME_MAX: usize = 255;

fn locate(name: &str) -> io::Result<Place> {
    if name.contains('\0') {
        // Python's open() refuses it before touching the file system.
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "ValueError: embedded null byte",
        ));
    }
    if name.split('/').any(|part| part.len() > NAME_MAX) {
        // The file system refuses a component over NAME_MAX bytes, whatever the operation.
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("[Errno 36] File name too long: '{name}'"),
        ));
    }
    let joined = if name.starts_with('/') {
        name.to_owned()
    } else {
        format!("{MEMORY_DIR}/{name}")
    };
    let path = crate::compaction::store::resolve_lexical(&joined);
    match path
        .strip_prefix(MEMORY_DIR)
        .and_then(|rest| rest.strip_prefix('/'))
    {
        Some(rest) if !rest.contains('/') => Ok(Place::Store(rest.to_owned())),
        // A name in a subdirectory of the store: none exists, so Python's open() fails.
        Some(_) => Err(not_found(name)),
        // The store itself or a directory above it (`..` is the workspace).
        None if crate::compaction::store::is_within(MEMORY_DIR, &path) => Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            format!("[Errno 21] Is a directory: '{name}'"),
        )),
        None => Ok(Place::Outside(path)),
    }
}

/// The store name a scenario's `symlink` step plants: only a file directly in the store (the
/// lab plants links, the modelled code does not, so an outside name is the scenario's error).
fn link_name(name: &str) -> io::Result<String> {
    match locate(name)? {
        Place::Store(inner) if !inner.is_empty() => Ok(inner),
        _ => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("a symlink step plants a link directly in the store, not at '{name}'"),
        )),
    }
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

    /// [`locate`], and an outside path directly inside the directory the store is linked to
    /// (a `symlink` step named `.`) is a file of the store, as the kernel would find it.
    fn place(&self, name: &str) -> io::Result<Place> {
        Ok(match locate(name)? {
            Place::Outside(path) => self.hop(&path),
            inside => inside,
        })
    }

    /// Where a link's target leads: a file of the store when it names one directly (by the
    /// store's own path, or by the directory the store is linked to), else an outside path.
    fn hop(&self, target: &str) -> Place {
        if let Some(inner) = inside_name(target) {
            return Place::Store(inner.to_owned());
        }
        let in_root_link = self.root_link.as_deref().and_then(|root| {
            target
                .strip_prefix(root)
                .and_then(|rest| rest.strip_prefix('/'))
                .filter(|rest| !rest.is_empty() && !rest.contains('/'))
        });
        match in_root_link {
            Some(inner) => Place::Store(inner.to_owned()),
            None => Place::Outside(target.to_owned()),
        }
    }

    /// Follows inside links from `name` to the name of a file (present or not) or an outside
    /// path, at most [`MAX_SYMLINK_HOPS`] links, as the kernel does: a loop is `ELOOP`.
    fn resolve(&self, name: &str) -> io::Result<Resolved> {
        let mut current = match self.place(name)? {
            Place::Store(inner) => inner,
            Place::Outside(path) => return Ok(Resolved::Outside(path)),
        };
        for _ in 0..=MAX_SYMLINK_HOPS {
            match self.entries.get(&current) {
                Some(Entry::Link(target)) => match self.hop(target) {
                    Place::Store(inner) => current = inner,
                    Place::Outside(path) => return Ok(Resolved::Outside(path)),
                },
                _ => return Ok(Resolved::File(current)),
            }
        }
        Err(io::Error::other(format!(
            "[Errno 40] Too many levels of symbolic links: '{name}'"
        )))
    }

    /// The error the kernel gives for a file at `path` in the outside world: a directory there
    /// (`EISDIR`) or a file where a directory of its path should be (`ENOTDIR`).
    fn outside_conflict(&self, path: &str) -> Option<io::Error> {
        let below = format!("{path}/");
        if self.root_link.as_deref() == Some(path)
            || self.outside.keys().any(|p| p.starts_with(&below))
        {
            return Some(is_a_directory(path));
        }
        let mut parent = path;
        while let Some((up, _)) = parent.rsplit_once('/') {
            if self.outside.contains_key(up) {
                return Some(not_a_directory(path));
            }
            parent = up;
        }
        None
    }
}

/// Where a name of the in-memory store ends after its links.
enum Resolved {
    /// A name of the store that is not a link.
    File(String),
    /// An outside path.
    Outside(String),
}

fn not_found(name: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::NotFound,
        format!("[Errno 2] No such file or directory: '{name}'"),
    )
}

fn exists(name: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!("[Errno 17] File exists: '{name}'"),
    )
}

/// The store can be linked anywhere but into itself (a scenario's `symlink` step with name `.`),
/// and once: a second link would move a store that is already a link (the directory store's
/// rename finds no directory there), so both stores refuse it.
fn root_link_target(target: &str, linked: bool) -> io::Result<()> {
    if linked {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!(
                "the store is already linked elsewhere; it cannot be linked again to '{target}'"
            ),
        ));
    }
    let resolved = crate::compaction::store::resolve_lexical(target);
    if crate::compaction::store::is_within(&resolved, MEMORY_DIR) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("the store cannot be linked into itself: '{target}'"),
        ));
    }
    Ok(())
}

fn not_a_directory(name: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::NotADirectory,
        format!("[Errno 20] Not a directory: '{name}'"),
    )
}

fn is_a_directory(name: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::IsADirectory,
        format!("[Errno 21] Is a directory: '{name}'"),
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
            Resolved::File(inner) => match self.entries.get(&inner) {
                Some(Entry::File(text)) => Ok(text.clone()),
                _ => Err(not_found(name)),
            },
            Resolved::Outside(target) => self
                .outside
                .get(&target)
                .cloned()
                .ok_or_else(|| not_found(name)),
        }
    }

    fn write(&mut self, name: &str, text: &str) -> io::Result<()> {
        match self.resolve(name)? {
            Resolved::Outside(target) => {
                if let Some(error) = self.outside_conflict(&target) {
                    return Err(error);
                }
                self.outside.insert(target, text.to_owned());
            }
            Resolved::File(inner) => {
                self.entries.insert(inner, Entry::File(text.to_owned()));
            }
        }
        Ok(())
    }

    fn unlink(&mut self, name: &str) -> io::Result<()> {
        let removed = match self.place(name)? {
            Place::Store(inner) => self.entries.remove(&inner).is_some(),
            Place::Outside(path) => self.outside.remove(&path).is_some(),
        };
        if removed {
            Ok(())
        } else {
            Err(not_found(name))
        }
    }

    fn is_file(&self, name: &str) -> bool {
        match self.resolve(name) {
            Ok(Resolved::File(inner)) => matches!(self.entries.get(&inner), Some(Entry::File(_))),
            Ok(Resolved::Outside(target)) => self.outside.contains_key(&target),
            Err(_) => false,
        }
    }

    fn target(&self, name: &str) -> Target {
        // By name, as the directory store judges it: a name that leaves the memory directory
        // escapes even when the store is linked to where it lands.
        // Through every link, as Python's `resolve()` follows a chain: `MEMORY.md -> loop.md`
        // leads out once `loop.md` is linked out. A loop resolves nowhere, as the directory
        // store's `canonicalize` fails on `ELOOP`.
        let inner = match locate(name) {
            Ok(Place::Store(inner)) => inner,
            Ok(Place::Outside(path)) => return Target::Outside(path),
            Err(_) => return Target::Inside,
        };
        match self.resolve(&inner) {
            Ok(Resolved::Outside(path)) => Target::Outside(path),
            Ok(Resolved::File(_)) | Err(_) => Target::Inside,
        }
    }

    fn root_escapes(&self) -> bool {
        self.root_link
            .as_deref()
            .is_some_and(|target| !crate::compaction::store::is_within(target, WORKDIR))
    }

    fn symlink(&mut self, name: &str, target: &str, text: &str) -> io::Result<()> {
        if name == "." {
            root_link_target(target, self.root_link.is_some())?;
        } else if self.entries.contains_key(&link_name(name)?) {
            return Err(exists(name));
        }
        let conflict = self.outside_conflict(target);
        if name == "." && (conflict.is_some() || self.outside.contains_key(target)) {
            return Err(exists(target));
        }
        if let (None, Some(error)) = (inside_name(target), conflict) {
            return Err(error);
        }
        if inside_name(target).is_none() && name != "." {
            // Linking the store itself makes its target a directory, not a file.
            self.outside.insert(target.to_owned(), text.to_owned());
        }
        if name == "." {
            self.root_link = Some(target.to_owned());
        } else {
            let inner = link_name(name)?;
            self.entries.insert(inner, Entry::Link(target.to_owned()));
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

    /// The real path of a name: a file of the store, or an outside virtual path mapped under
    /// the root (never a path outside the root).
    fn path(&self, name: &str) -> io::Result<PathBuf> {
        match locate(name)? {
            Place::Store(inner) => Ok(self.store.join(contained(&inner)?)),
            Place::Outside(path) => self.real(&path),
        }
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
        let path = self.path(name)?;
        if let (Place::Outside(_), Some(parent)) = (locate(name)?, path.parent()) {
            // As the in-memory backend: the outside world has the directories it names.
            fs::create_dir_all(parent)?;
        }
        fs::write(path, text)
    }

    fn unlink(&mut self, name: &str) -> io::Result<()> {
        fs::remove_file(self.path(name)?)
    }

    fn is_file(&self, name: &str) -> bool {
        self.path(name).is_ok_and(|p| p.is_file())
    }

    fn target(&self, name: &str) -> Target {
        if let Ok(Place::Outside(path)) = locate(name) {
            return Target::Outside(path);
        }
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
        if name == "." {
            let linked = fs::symlink_metadata(&self.store).is_ok_and(|m| m.is_symlink());
            root_link_target(target, linked)?;
        } else if fs::symlink_metadata(self.store.join(contained(&link_name(name)?)?)).is_ok() {
            return Err(exists(name));
        }
        let real_target = self.real(target)?;
        if name == "." && fs::symlink_metadata(&real_target).is_ok() {
            return Err(exists(target));
        }
        if inside_name(target).is_none() && real_target.is_dir() {
            return Err(is_a_directory(target));
        }
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
            link(
                &real_target,
                &self.store.join(contained(&link_name(name)?)?),
            )
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
mod tests;

//! Unit tests of the memory stores: both backends, name by name.

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

/// `MEMORY.md -> loop.md`, then `loop.md -> outside`: the first link now leads out, as
/// Python's `(root / "MEMORY.md").resolve()` follows the whole chain (s09 `memory_path`),
/// so the path guard refuses it in both stores. The in-memory store used to look one link
/// deep and call it inside (the 2000-case fuzz campaign's last disagreement).
fn chain(fs: &mut dyn MemoryFs) -> (Target, Target, String, Option<String>) {
    fs.symlink("MEMORY.md", "/lab/work/.memory/loop.md", "")
        .unwrap();
    let before = fs.target("MEMORY.md");
    fs.symlink("loop.md", "/home/lab/notes", "old").unwrap();
    let after = fs.target("MEMORY.md");
    fs.write("MEMORY.md", "index").unwrap();
    (
        after,
        before,
        fs.read("loop.md").unwrap(),
        fs.outside("/home/lab/notes"),
    )
}

#[test]
fn a_link_to_a_name_linked_out_later_leads_out_in_both_stores() {
    let expected = (
        Target::Outside("/home/lab/notes".into()),
        Target::Inside,
        "index".to_owned(),
        Some("index".to_owned()),
    );
    assert_eq!(chain(&mut MemFs::new()), expected);
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(chain(&mut DirFs::new(dir.path()).unwrap()), expected);
}

/// The store linked out twice (a 2000-case campaign): the directory store's second move
/// found a link where the store was (`ENOTDIR`) while the in-memory one re-pointed it; both
/// now refuse the second link and keep the first.
#[test]
fn the_store_is_linked_out_once_in_both_stores() {
    let relink = |fs: &mut dyn MemoryFs| {
        fs.write("a.md", "ay").unwrap();
        fs.symlink(".", "/home/lab/first", "").unwrap();
        let error = fs.symlink(".", "/home/lab/second", "").unwrap_err();
        (
            error.to_string(),
            fs.read("a.md").unwrap(),
            fs.root_escapes(),
        )
    };
    let expected = (
        "the store is already linked elsewhere; it cannot be linked again to \
         '/home/lab/second'"
            .to_owned(),
        "ay".to_owned(),
        true,
    );
    assert_eq!(relink(&mut MemFs::new()), expected);
    let dir = tempfile::tempdir().unwrap();
    let mut real = DirFs::new(dir.path()).unwrap();
    assert_eq!(relink(&mut real), expected);
    assert!(dir.path().join("home/lab/first/a.md").is_file());
    assert!(!dir.path().join("home/lab/second").exists());
}

/// What each operation gives for `name`, errors as their messages.
fn outcomes(fs: &mut dyn MemoryFs, name: &str) -> Vec<String> {
    let shown = |r: io::Result<String>| match r {
        Ok(text) => format!("ok {text}"),
        Err(e) => format!("err {e}"),
    };
    vec![
        shown(fs.write(name, "text").map(|()| String::new())),
        shown(fs.read(name)),
        format!("{}", fs.is_file(name)),
        format!("{:?}", fs.target(name)),
        shown(fs.symlink(name, "/home/lab/t", "t").map(|()| String::new())),
        shown(fs.unlink(name).map(|()| String::new())),
        format!("{}", fs.is_file(name)),
    ]
}

#[test]
fn both_backends_agree_on_every_odd_name_and_the_directory_stays_in_its_root() {
    let names = [
        "a.md",
        "./a.md",
        "x/../y.md",
        "../x.md",
        "../../../etc/passwd",
        "/etc/cron.d/job",
        "/lab/work/.memory/z.md",
        "sub/a.md",
        "a\0b.md",
        "..",
        "",
    ];
    let outer = tempfile::tempdir().unwrap();
    let root = outer.path().join("root");
    let mut dir = DirFs::new(&root).unwrap();
    let mut memory = MemFs::new();
    for name in names {
        assert_eq!(
            outcomes(&mut memory, name),
            outcomes(&mut dir, name),
            "{name:?}"
        );
    }
    assert_eq!(
        memory.outside("/etc/cron.d/job").as_deref(),
        dir.outside("/etc/cron.d/job").as_deref()
    );
    assert_eq!(memory.files(), dir.files());
    let beside: Vec<_> = fs::read_dir(outer.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(beside, vec![std::ffi::OsString::from("root")]);
    assert_eq!(
        locate("../x.md").unwrap(),
        Place::Outside("/lab/work/x.md".into())
    );
    assert_eq!(locate("/etc/x").unwrap(), Place::Outside("/etc/x".into()));
    assert_eq!(locate("x/../y.md").unwrap(), Place::Store("y.md".into()));
    // NAME_MAX: 255 bytes in one component are a name, 256 are ENAMETOOLONG in both stores
    // (the in-memory store used to take them; audit D11).
    let longest = format!("{}.md", "n".repeat(252));
    let too_long = format!("{}.md", "n".repeat(253));
    assert_eq!(locate(&longest).unwrap(), Place::Store(longest.clone()));
    let error = locate(&too_long).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("[Errno 36] File name too long: 'nnn")
    );
    for (name, written) in [(&longest, "ok "), (&too_long, "err [Errno 36] File name")] {
        let seen = outcomes(&mut memory, name);
        assert!(seen[0].starts_with(written), "{seen:?}");
        assert_eq!(seen, outcomes(&mut dir, name), "{name}");
    }
}

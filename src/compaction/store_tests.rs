//! The stores' tests: private temporary directories, the name limit, sizing, listings and their
//! order, and the directory store's files and refusals.

use super::*;
use crate::compaction::paths::name_order_key;

#[cfg(unix)]
#[test]
fn temporary_run_directories_are_private_and_removed() {
    use std::os::unix::fs::PermissionsExt;
    let temp = private_temp_dir().unwrap();
    let path = temp.path().to_path_buf();
    let mode = fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o700);
    drop(temp);
    assert!(!path.exists());
}

#[test]
fn a_component_over_name_max_is_refused_however_long_the_path() {
    let name = |n: usize| "n".repeat(n);
    assert!(name_max(&format!("/r/{}", name(255))).is_ok());
    assert!(name_max(&format!("/r/{}", name(256))).is_err());
    assert!(name_max(&format!("/{}/x", name(256))).is_err());
    // Long paths of short components pass: only a component counts.
    let deep = format!("/{}", vec![name(200); 5].join("/"));
    assert!(deep.len() > 1000 && name_max(&deep).is_ok());
}

#[test]
fn a_store_told_how_many_files_makes_room_once_it_holds_a_few() {
    let mut store = MemoryStore::new();
    store.expect_files(500, 300);
    for i in 0..=ROOM_AFTER {
        store.write_spill(&format!("/d/{i}"), "x".into()).unwrap();
        store
            .write_transcript(&format!("/t/{i}"), &[], Dialect::Json, 1)
            .unwrap();
        let sized = i == ROOM_AFTER;
        assert_eq!(store.spill.capacity() >= 500, sized, "{i}");
        assert_eq!(store.transcripts.capacity() >= 300, sized, "{i}");
    }
}

#[test]
fn memory_store_lists_only_its_directory() {
    let mut store = MemoryStore::new();
    store.write_spill("/lab/res/a.txt", "aaa".into()).unwrap();
    store.write_spill("/lab/res/sub/b.txt", "b".into()).unwrap();
    store.write_spill("/lab/other/c.txt", "c".into()).unwrap();
    let files = store.spill_files("/lab/res");
    assert_eq!(
        files,
        vec![SpillFile {
            path: "/lab/res/a.txt".into(),
            chars: 3
        }]
    );
    assert!(store.is_file("/lab/res/../res/a.txt"));
    assert!(!store.is_file("/lab/res/zzz.txt"));
    assert!(store.remove("/lab/res/./a.txt").unwrap());
    assert!(!store.is_file("/lab/res/a.txt"));
    assert!(!store.remove("/lab/res/a.txt").unwrap());
    // The files are kept by hash: the listing is sorted by path all the same.
    let names: Vec<String> = (0..200).rev().map(|i| format!("t{i}.txt")).collect();
    for name in &names {
        store
            .write_spill(&join("/lab/res", name), "x".into())
            .unwrap();
    }
    let listed: Vec<String> = store
        .spill_files("/lab/res")
        .into_iter()
        .map(|file| file.path.to_string())
        .collect();
    let mut sorted: Vec<String> = names.iter().map(|name| join("/lab/res", name)).collect();
    sorted.sort();
    assert_eq!(listed, sorted);
}

#[test]
fn name_keys_order_names_as_their_bytes_do() {
    // Names around the key's 16 bytes: shorter, equal up to it and past it, a prefix of
    // another, with NUL and high bytes (a zero byte and the padding weigh the same).
    let mut names: Vec<Vec<u8>> = Vec::new();
    for len in [0, 1, 8, 15, 16, 17, 30] {
        for last in [0u8, b'0', b'a', 0xc3, 0xff] {
            let mut name = vec![b'n'; len];
            name.push(last);
            names.push(name.clone());
            name.insert(0, b'a');
            names.push(name);
        }
        names.push(vec![b'n'; len]);
    }
    for a in &names {
        for b in &names {
            let (key_a, key_b) = (name_order_key(a), name_order_key(b));
            if key_a != key_b {
                assert_eq!(key_a.cmp(&key_b), a.cmp(b), "{a:?} {b:?}");
            }
        }
    }
    // Names that share their first 16 bytes are listed in order too.
    let mut store = MemoryStore::new();
    let stem = "x".repeat(16);
    for name in ["b", "", "a", "ab", "\u{e9}", "aa"] {
        let path = format!("/lab/res/{stem}{name}");
        store.write_spill(&path, "x".into()).unwrap();
    }
    let listed: Vec<String> = store
        .spill_files("/lab/res")
        .into_iter()
        .map(|file| file.path[9 + 16..].to_owned())
        .collect();
    assert_eq!(listed, ["", "a", "aa", "ab", "b", "\u{e9}"]);
    // Names that share 16, 31, 32, 33 or 47 bytes, end there or go on with a NUL, a low,
    // a high byte: listed as their bytes order them, a transcript after the spill file at
    // the same path.
    let mut store = MemoryStore::new();
    let mut expected = Vec::new();
    for shared in [16, 31, 32, 33, 47] {
        let nuls = format!("{}z", "\0".repeat(17));
        for end in ["", "\0", "\0a", "0", "a", "\u{e9}", &nuls] {
            let name = format!("{}{end}", "s".repeat(shared));
            store
                .write_spill(&format!("/d/{name}"), "x".into())
                .unwrap();
            expected.push(name);
        }
    }
    let shared = "s".repeat(32);
    store
        .append_transcript(&format!("/d/{shared}"), &[Message::user_text("t")], 9)
        .unwrap();
    expected.push(shared.clone());
    expected.sort();
    let listed: Vec<(String, usize)> = store
        .spill_files("/d")
        .into_iter()
        .map(|file| (file.path[3..].to_owned(), file.chars))
        .collect();
    let names: Vec<&str> = listed.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names, expected);
    let at = names.iter().position(|name| **name == shared).unwrap();
    assert_eq!(
        (listed[at].1, listed[at + 1].1),
        (1, 9),
        "spill file, then transcript"
    );
}

#[test]
fn dir_store_writes_real_files() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_string_lossy().into_owned();
    let mut store = DirStore::new(&[&root]);
    let path = join(&root, "res/x.txt");
    assert!(!store.is_file(&path));
    store.write_spill(&path, "中文".into()).unwrap();
    assert!(store.is_file(&path));
    assert_eq!(store.read_spill(&path).as_deref(), Some("中文"));
    let files = store.spill_files(&join(&root, "res"));
    assert_eq!(files.len(), 1);
    assert_eq!(files[0].chars, 2);
    assert!(store.remove(&path).unwrap());
    assert!(!store.is_file(&path));
    assert!(!store.remove(&path).unwrap());
    let messages = [Message::user_text("hi")];
    let chars = store
        .write_transcript(
            &join(&root, "t/transcript.jsonl"),
            &messages,
            Dialect::Json,
            0,
        )
        .unwrap();
    // len('{"role": "user", "content": "hi"}') == 33, plus the newline.
    assert_eq!(chars, 34);
}

/// Audit D2: a raw tool_use id such as `../../x` or a symlink in the spill directory must not
/// take a write outside the run's directories.
#[test]
fn dir_store_refuses_paths_outside_its_roots() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().to_string_lossy().into_owned();
    let root = join(&base, "res");
    let mut store = DirStore::new(&[&root]);
    let escape = join(&root, "../../victim/spilled.txt");
    let error = store.write_spill(&escape, "x".into()).unwrap_err();
    assert_eq!(error.kind(), io::ErrorKind::PermissionDenied);
    assert!(!Path::new(&join(&base, "victim")).exists());
    assert!(store.write_spill("/abs/x.txt", "x".into()).is_err());
    assert!(
        store
            .write_spill(&join(&base, "res2/x.txt"), "x".into())
            .is_err()
    );
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(join(&base, "keep.txt"), "mine").unwrap();
    std::os::unix::fs::symlink(join(&base, "keep.txt"), join(&root, "t.txt")).unwrap();
    assert!(
        store
            .write_spill(&join(&root, "t.txt"), "overwrite".into())
            .is_err()
    );
    assert_eq!(
        std::fs::read_to_string(join(&base, "keep.txt")).unwrap(),
        "mine"
    );
    assert_eq!(store.read_spill(&join(&root, "t.txt")), None);
}

/// The path of the file just written is the store's own key, shared; any other path, a path
/// of the same file written differently included, is a copy of its text; and the listing shares
/// the key too.
#[test]
fn the_path_just_written_is_shared_with_the_stores_key() {
    let mut store = MemoryStore::new();
    store.write_spill("/lab/res/a.txt", "a".into()).unwrap();
    let listed = store.spill_files("/lab/res");
    let shared = store.shared_path("/lab/res/a.txt");
    assert!(Rc::ptr_eq(&shared, &listed[0].path), "the key itself");
    let other = store.shared_path("/lab/res/./a.txt");
    assert_eq!(&*other, "/lab/res/./a.txt", "the text as written");
    assert!(!Rc::ptr_eq(&other, &shared));
    store.write_spill("/lab/res/b.txt", "b".into()).unwrap();
    let earlier = store.shared_path("/lab/res/a.txt");
    assert_eq!(&*earlier, "/lab/res/a.txt");
    assert!(!Rc::ptr_eq(&earlier, &shared), "only the last key is kept");
    assert!(Rc::ptr_eq(
        &store.shared_path("/lab/res/b.txt"),
        &store.spill_files("/lab/res")[1].path
    ));
    // An overwrite shares the key the store kept from the first write.
    store.write_spill("/lab/res/a.txt", "again".into()).unwrap();
    assert!(Rc::ptr_eq(&store.shared_path("/lab/res/a.txt"), &shared));
}

/// A path written over a kept buffer is the path `join_normal` makes of the name, whatever the
/// buffer held, and below the root too.
#[test]
fn a_path_joined_into_a_buffer_replaces_what_it_held() {
    let mut path = String::from("/old/path/that/was/longer.txt");
    join_normal_into(&mut path, "/lab/res", 5, |name| name.push_str("x_1.txt"));
    assert_eq!(path, join_normal("/lab/res", "x_1.txt"));
    join_normal_into(&mut path, "/", 1, |name| name.push('y'));
    assert_eq!(path, "/y");
}

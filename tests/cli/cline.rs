//! Cline's `basic` compaction replayed on Cline sessions: the lab's fold of a session's
//! messages must give the messages Cline itself wrote (`basic.compaction.json`). Our own
//! hand-made session in `tests/fixtures/cline-basic/`, and Cline's real fixture session from
//! `cline/cline` `sdk/packages/core/fixtures/session/` when the shared copy is present.

use std::path::{Path, PathBuf};

use lab::compaction::profile::cline_tokens;
use lab::compaction::{ClineMode, cline_budget, cline_fold};
use lab::import::cline::session_messages;
use lab::transcript::Message;

/// Folds `session.messages.json` of `dir` as a manual compaction (`/compact`, the fixture's
/// `reason: manual_compaction`) on Cline's default 128000-token input and returns it with the
/// messages of `basic.compaction.json`.
fn replay(dir: &Path) -> (Vec<Message>, Vec<Message>) {
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap();
    let session = session_messages(&read("session.messages.json")).unwrap();
    let want = session_messages(&read("basic.compaction.json")).unwrap();
    let total = session.iter().map(cline_tokens).sum();
    let (_, target) = cline_budget(128_000, ClineMode::Manual, total);
    let folded = cline_fold(&session, target).expect("the session folds");
    (folded, want)
}

fn assert_same(got: &[Message], want: &[Message]) {
    assert_eq!(got.len(), want.len(), "{got:#?}");
    for (index, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(g, w, "message {index}");
    }
}

#[test]
fn basic_compaction_of_our_fixture_session() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cline-basic");
    let (got, want) = replay(&dir);
    assert_same(&got, &want);
}

/// The shared copy of Cline's fixture: `LAB_CLINE_FIXTURE`, else `shared/fixtures/sessions/cline`
/// next to the checkout or its parent (worktrees live one level deeper).
fn shared_fixture() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("LAB_CLINE_FIXTURE") {
        return Some(PathBuf::from(dir));
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    ["..", "../.."]
        .iter()
        .map(|up| root.join(up).join("shared/fixtures/sessions/cline"))
        .find(|dir| dir.join("session.messages.json").is_file())
}

#[test]
fn basic_compaction_of_clines_own_fixture_session() {
    let Some(dir) = shared_fixture() else {
        eprintln!("skipped: Cline's fixture session is not present (set LAB_CLINE_FIXTURE)");
        return;
    };
    let (got, want) = replay(&dir);
    // 32 messages fold into 10 (messagesRemoved 22 in the fixture's metadata).
    assert_eq!(got.len(), 10);
    assert_same(&got, &want);
}

//! The growth experiment (M8, the reverse gate): sixty simulated sessions, each storing a few
//! new records, under memory-main as the course has it and under the `chunked_consolidation`
//! variant. Once the consolidator's catalog passes 20000 characters memory-main raises before
//! the model call on every pass, says nothing, and the store only grows; the variant keeps
//! consolidating in chunks under the cap.
//!
//! The sessions come from a seeded ChaCha8 stream (three records a session on one of six topics;
//! a third of them restate an earlier fact, which the storage gates refuse when the body is the
//! same). The consolidator is a scripted merge policy: per topic in the catalog it shows, one
//! record holding the topic's distinct facts, at most [`KEEP_FACTS`] of them, the newest kept
//! ("remove outdated"), so a merge is lossy by design and the experiment counts what it drops.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use super::fs::MemFs;
use super::profile::{MEMORY_MAIN, MemoryProfile};
use super::record::Record;
use super::store::list_records;
use super::world::{Reply, World};
use super::{consolidate, extract, observables, recall};
use crate::python::json::char_len;
use crate::transcript::{Block, Message, Role};

/// Sessions simulated.
pub const SESSIONS: usize = 60;
/// Records proposed per session.
pub const PER_SESSION: usize = 3;
/// Facts the merge policy keeps per topic and chunk.
pub const KEEP_FACTS: usize = 12;
/// The seed of the session stream.
pub const SEED: u64 = 8;

const TOPICS: [&str; 6] = ["build", "style", "deploy", "testing", "docs", "team"];
const WORDS: [&str; 16] = [
    "the", "service", "always", "config", "branch", "release", "cache", "review", "before",
    "merging", "staging", "keys", "owner", "pipeline", "never", "format",
];

/// One proposed record: its topic and fact number (restated facts reuse an earlier number).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Fact {
    topic: usize,
    number: usize,
    text: String,
}

/// `rng % n`, the same on every platform.
fn below(rng: &mut ChaCha8Rng, n: usize) -> usize {
    (rng.next_u64() % n as u64) as usize
}

/// The facts proposed in each session.
fn sessions() -> Vec<Vec<Fact>> {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let mut known: Vec<Fact> = Vec::new();
    let mut out = Vec::new();
    for _ in 0..SESSIONS {
        let mut session = Vec::new();
        for _ in 0..PER_SESSION {
            let topic = below(&mut rng, TOPICS.len());
            let earlier: Vec<&Fact> = known.iter().filter(|f| f.topic == topic).collect();
            if !earlier.is_empty() && below(&mut rng, 3) == 0 {
                session.push(earlier[below(&mut rng, earlier.len())].clone());
                continue;
            }
            let number = known.len() + 1;
            let target = 200 + below(&mut rng, 201);
            let mut text = format!("{} fact {number}:", TOPICS[topic]);
            while char_len(&text) < target {
                text.push(' ');
                text.push_str(WORDS[below(&mut rng, WORDS.len())]);
            }
            text.push('.');
            let fact = Fact {
                topic,
                number,
                text,
            };
            known.push(fact.clone());
            session.push(fact);
        }
        out.push(session);
    }
    out
}

/// The extractor's reply for one session's facts.
fn extract_reply(session: usize, facts: &[Fact]) -> String {
    let items: Vec<serde_json::Value> = facts
        .iter()
        .enumerate()
        .map(|(i, f)| {
            serde_json::json!({
                "name": format!("{} note {}-{}", TOPICS[f.topic], session + 1, i + 1),
                "type": "project",
                "scope": "persistent",
                "description": format!("{} fact {}", TOPICS[f.topic], f.number),
                "body": f.text,
            })
        })
        .collect();
    serde_json::Value::Array(items).to_string()
}

/// Eight hex digits of the sha256 of a file name: tells the chunks of one pass apart in a
/// merged record's name without nesting the earlier names in it (a name built from the whole
/// earlier name grew by one name per pass, past the 255 bytes a file name may have).
fn short_tag(filename: &str) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(filename.as_bytes());
    digest[..4].iter().map(|b| format!("{b:02x}")).collect()
}

/// The merge policy: per topic, the distinct fact lines of its records, the newest
/// [`KEEP_FACTS`] kept, as one record named after the topic and a tag of the chunk's first file.
fn merge(records: &[Record]) -> String {
    let mut items = Vec::new();
    for (index, topic) in TOPICS.iter().enumerate() {
        let mut facts: Vec<&str> = Vec::new();
        for record in records.iter().filter(|r| r.name.starts_with(topic)) {
            for line in record.body.lines() {
                if !line.is_empty() && !facts.contains(&line) {
                    facts.push(line);
                }
            }
        }
        if facts.is_empty() {
            continue;
        }
        // Oldest first by fact number, whatever the file order.
        facts.sort_by_key(|line| fact_number(line));
        let kept = &facts[facts.len().saturating_sub(KEEP_FACTS)..];
        let tag = records
            .first()
            .map_or(String::new(), |r| short_tag(&r.filename));
        items.push(serde_json::json!({
            "name": format!("{topic} notes {} {tag}", index + 1),
            "type": "project",
            "description": format!("{} {topic} facts", kept.len()),
            "body": kept.join("\n"),
        }));
    }
    serde_json::Value::Array(items).to_string()
}

/// The store after one session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SessionRow {
    pub session: usize,
    pub records: usize,
    pub store_chars: usize,
    /// Characters of the catalog the consolidator would be shown now.
    pub catalog_chars: usize,
    pub consolidations: usize,
    pub consolidations_skipped: usize,
    pub model_calls: usize,
    /// Distinct facts in the store, and distinct facts ever stored.
    pub facts_kept: usize,
    pub facts_stored: usize,
}

/// One variant over all sessions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GrowthRun {
    pub variant: String,
    pub rows: Vec<SessionRow>,
}

/// The experiment: memory-main against the chunked variant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GrowthReport {
    pub seed: u64,
    pub sessions: usize,
    pub runs: Vec<GrowthRun>,
}

/// The number of a fact line (`build fact 12: ...`).
fn fact_number(line: &str) -> Option<usize> {
    let (_, rest) = line.split_once(" fact ")?;
    rest.split(':').next()?.parse().ok()
}

/// Fact numbers found in the store.
fn facts_in(world: &mut World) -> Vec<usize> {
    let mut numbers: Vec<usize> = list_records(world)
        .iter()
        .flat_map(|r| r.body.lines().filter_map(fact_number).collect::<Vec<_>>())
        .collect();
    numbers.sort_unstable();
    numbers.dedup();
    numbers
}

/// One session on memory-main's agent loop: a user turn (recall), a reply without tool calls
/// (extraction of the session's facts), then consolidation if anything was stored.
fn run_session(world: &mut World, session: usize, facts: &[Fact]) {
    world.step = session + 1;
    world.messages.clear();
    world.messages.push(Message::user_text(format!(
        "Session {}: please remember what we settled today.",
        session + 1
    )));
    recall::recall(world);
    world
        .replies
        .extract
        .push_back(Reply::Text(extract_reply(session, facts)));
    world.messages.push(Message::blocks(
        Role::Assistant,
        vec![Block::Text {
            text: "Noted.".to_owned(),
        }],
    ));
    if extract::extract(world) > 0 {
        consolidate::consolidate(world);
    }
    world.replies.select.clear();
    world.replies.extract.clear();
}

fn run_variant(profile: MemoryProfile, variant: &str, plan: &[Vec<Fact>]) -> GrowthRun {
    let mut world = World::new(profile, Box::new(MemFs::new()));
    world.replies.consolidator = Some(Box::new(|records: &[Record]| merge(records)));
    let mut ever: Vec<usize> = Vec::new();
    let mut rows = Vec::new();
    for (session, facts) in plan.iter().enumerate() {
        run_session(&mut world, session, facts);
        for number in facts_in(&mut world) {
            if !ever.contains(&number) {
                ever.push(number);
            }
        }
        let listed = list_records(&mut world);
        let catalog_chars = char_len(&consolidate::catalog(&listed));
        let observed = observables::measure(&mut world);
        rows.push(SessionRow {
            session: session + 1,
            records: observed.records,
            store_chars: observed.store_chars,
            catalog_chars,
            consolidations: observed.consolidations,
            consolidations_skipped: observed.consolidations_skipped,
            model_calls: observed.model_calls,
            facts_kept: facts_in(&mut world).len(),
            facts_stored: ever.len(),
        });
    }
    GrowthRun {
        variant: variant.to_owned(),
        rows,
    }
}

/// Runs both variants.
pub fn run() -> GrowthReport {
    let plan = sessions();
    let mut chunked = MEMORY_MAIN;
    chunked.switches.chunked_consolidation = true;
    GrowthReport {
        seed: SEED,
        sessions: SESSIONS,
        runs: vec![
            run_variant(MEMORY_MAIN, "memory-main", &plan),
            run_variant(chunked, "memory-main + chunked_consolidation", &plan),
        ],
    }
}

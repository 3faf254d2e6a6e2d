//! The side model calls of s09 (the selector of recall, the extractor, the consolidator),
//! answered by the scenario's scripted replies instead of a model; an unscripted call answers
//! `[]`, and the growth experiment's merge policy answers consolidation calls nothing scripted.

use super::record::Record;
use super::world::{PyError, Reply, World};

/// Which side call a reply is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Call {
    Select,
    Extract,
    Consolidate,
}

/// One side model call: the next scripted reply (the default answers `[]`).
pub(crate) fn call(world: &mut World, call: Call) -> Result<String, PyError> {
    world.counters.model_calls += 1;
    let queue = match call {
        Call::Select => &mut world.replies.select,
        Call::Extract => &mut world.replies.extract,
        Call::Consolidate => &mut world.replies.consolidate,
    };
    match queue.pop_front() {
        Some(Reply::Text(text)) => Ok(text),
        Some(Reply::Raise(message)) => Err(PyError(message)),
        None => Ok("[]".to_owned()),
    }
}

/// A consolidation call shown `records`: the next scripted reply, else the policy, else `[]`.
pub(crate) fn consolidate(world: &mut World, records: &[Record]) -> Result<String, PyError> {
    if world.replies.consolidate.is_empty() {
        if let Some(policy) = world.replies.consolidator.as_mut() {
            world.counters.model_calls += 1;
            return Ok(policy(records));
        }
    }
    call(world, Call::Consolidate)
}

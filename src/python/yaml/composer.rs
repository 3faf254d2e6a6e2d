//! PyYAML's `composer.py` (with the node types of `nodes.py`): events to a graph of nodes.
//!
//! An alias shares the node of its anchor, so a recursive document is a graph with a cycle.
//! Plain scalars get their tag from the implicit resolvers here, as `Composer.compose_scalar_node`
//! does through `Resolver.resolve`.

use std::collections::HashMap;

use super::error::{MAX_DEPTH, Mark, YamlError, yaml_error};
use super::parser::{Ev, Parser};
use super::repr::str_repr;
use super::resolver::{MAP_TAG, SEQ_TAG, STR_TAG, resolve_implicit};

/// A node's content; children are indices into the composer's nodes.
#[derive(Debug, Clone)]
pub(super) enum NodeValue {
    Scalar(String),
    Sequence(Vec<usize>),
    Mapping(Vec<(usize, usize)>),
}

/// A node with its resolved tag.
#[derive(Debug, Clone)]
pub(super) struct Node {
    pub(super) tag: String,
    pub(super) value: NodeValue,
    pub(super) start: Mark,
}

impl Node {
    /// `Node.id`, for messages.
    pub(super) fn id(&self) -> &'static str {
        match self.value {
            NodeValue::Scalar(_) => "scalar",
            NodeValue::Sequence(_) => "sequence",
            NodeValue::Mapping(_) => "mapping",
        }
    }
}

pub(super) struct Composer {
    parser: Parser,
    /// Every node composed so far; a node is its index.
    pub(super) nodes: Vec<Node>,
    anchors: HashMap<String, usize>,
    /// Collections being composed, for the depth limit.
    open: Vec<usize>,
}

impl Composer {
    pub(super) fn new(parser: Parser) -> Self {
        Self {
            parser,
            nodes: Vec::new(),
            anchors: HashMap::new(),
            open: Vec::new(),
        }
    }

    fn at_stream_end(&mut self) -> Result<bool, YamlError> {
        Ok(matches!(self.parser.peek_event()?.ev, Ev::StreamEnd))
    }

    pub(super) fn get_single_node(&mut self) -> Result<Option<usize>, YamlError> {
        self.parser.get_event()?;
        let mut document = None;
        if !self.at_stream_end()? {
            document = Some(self.compose_document()?);
        }
        if !self.at_stream_end()? {
            let event = self.parser.get_event()?;
            return Err(yaml_error(
                "ComposerError",
                "expected a single document in the stream, but found another document",
                event.start,
            ));
        }
        self.parser.get_event()?;
        Ok(document)
    }

    fn compose_document(&mut self) -> Result<usize, YamlError> {
        self.parser.get_event()?;
        let node = self.compose_node()?;
        self.parser.get_event()?;
        self.anchors.clear();
        Ok(node)
    }

    fn new_node(
        &mut self,
        tag: String,
        value: NodeValue,
        start: Mark,
        anchor: Option<String>,
    ) -> usize {
        let id = self.nodes.len();
        self.nodes.push(Node { tag, value, start });
        if let Some(anchor) = anchor {
            self.anchors.insert(anchor, id);
        }
        id
    }

    fn compose_node(&mut self) -> Result<usize, YamlError> {
        let event = self.parser.get_event()?;
        let anchor = match &event.ev {
            Ev::Alias(name) => {
                return self.anchors.get(name).copied().ok_or_else(|| {
                    yaml_error(
                        "ComposerError",
                        format!("found undefined alias {}", str_repr(name)),
                        event.start,
                    )
                });
            }
            Ev::Scalar { anchor, .. }
            | Ev::SequenceStart { anchor, .. }
            | Ev::MappingStart { anchor, .. } => anchor.clone(),
            _ => return Err(YamlError::Unsupported("node event expected".to_owned())),
        };
        if let Some(name) = &anchor {
            if self.anchors.contains_key(name) {
                return Err(yaml_error(
                    "ComposerError",
                    format!(
                        "found duplicate anchor {}; first occurrence ... second occurrence",
                        str_repr(name)
                    ),
                    event.start,
                ));
            }
        }
        match event.ev {
            Ev::Scalar {
                tag,
                plain_implicit,
                value,
                ..
            } => {
                let tag = match tag {
                    Some(tag) if tag != "!" => tag,
                    _ if plain_implicit => resolve_implicit(&value).to_owned(),
                    _ => STR_TAG.to_owned(),
                };
                Ok(self.new_node(tag, NodeValue::Scalar(value), event.start, anchor))
            }
            Ev::SequenceStart { tag, .. } => {
                let tag = tag
                    .filter(|t| t != "!")
                    .unwrap_or_else(|| SEQ_TAG.to_owned());
                let id = self.new_node(tag, NodeValue::Sequence(Vec::new()), event.start, anchor);
                self.enter(id)?;
                let mut items = Vec::new();
                while !matches!(self.parser.peek_event()?.ev, Ev::SequenceEnd) {
                    items.push(self.compose_node()?);
                }
                self.parser.get_event()?;
                self.nodes[id].value = NodeValue::Sequence(items);
                self.open.pop();
                Ok(id)
            }
            Ev::MappingStart { tag, .. } => {
                let tag = tag
                    .filter(|t| t != "!")
                    .unwrap_or_else(|| MAP_TAG.to_owned());
                let id = self.new_node(tag, NodeValue::Mapping(Vec::new()), event.start, anchor);
                self.enter(id)?;
                let mut pairs = Vec::new();
                while !matches!(self.parser.peek_event()?.ev, Ev::MappingEnd) {
                    let key = self.compose_node()?;
                    let value = self.compose_node()?;
                    pairs.push((key, value));
                }
                self.parser.get_event()?;
                self.nodes[id].value = NodeValue::Mapping(pairs);
                self.open.pop();
                Ok(id)
            }
            _ => Err(YamlError::Unsupported("node event expected".to_owned())),
        }
    }

    fn enter(&mut self, id: usize) -> Result<(), YamlError> {
        self.open.push(id);
        if self.open.len() > MAX_DEPTH {
            return Err(YamlError::Unsupported(format!(
                "nesting deeper than {MAX_DEPTH}"
            )));
        }
        Ok(())
    }
}

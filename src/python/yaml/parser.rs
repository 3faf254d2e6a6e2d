//! PyYAML's `parser.py` (with the event types of `events.py`): tokens to events.
//!
//! A state machine with an explicit stack of states, as in Python; each `parse_*` method is the
//! Python method of the same name. The parser resolves tag handles (`!!`, `%TAG`) but leaves the
//! implicit resolution of plain scalars to the composer.

use std::collections::BTreeMap;

use super::error::{Mark, YamlError, yaml_error};
use super::repr::str_repr;
use super::scanner::{Directive, Scanner, Tok};

/// A `ParserError`.
fn parser_error(problem: impl Into<String>, mark: Mark) -> YamlError {
    yaml_error("ParserError", problem, mark)
}

/// The event types of `events.py`, with what the composer reads.
#[derive(Debug, Clone)]
pub(super) enum Ev {
    StreamStart,
    StreamEnd,
    DocumentStart,
    DocumentEnd,
    Alias(String),
    Scalar {
        anchor: Option<String>,
        tag: Option<String>,
        /// `implicit[0]`: resolve the tag as for a plain scalar.
        plain_implicit: bool,
        value: String,
    },
    SequenceStart {
        anchor: Option<String>,
        tag: Option<String>,
    },
    SequenceEnd,
    MappingStart {
        anchor: Option<String>,
        tag: Option<String>,
    },
    MappingEnd,
}

/// An event and where it starts.
#[derive(Debug, Clone)]
pub(super) struct Event {
    pub(super) ev: Ev,
    pub(super) start: Mark,
}

/// The parser's states: the Python methods `self.state` may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    ImplicitDocumentStart,
    DocumentStart,
    DocumentEnd,
    DocumentContent,
    BlockNode,
    BlockSequenceFirstEntry,
    BlockSequenceEntry,
    IndentlessSequenceEntry,
    BlockMappingFirstKey,
    BlockMappingKey,
    BlockMappingValue,
    FlowSequenceFirstEntry,
    FlowSequenceEntry,
    FlowSequenceEntryMappingKey,
    FlowSequenceEntryMappingValue,
    FlowSequenceEntryMappingEnd,
    FlowMappingFirstKey,
    FlowMappingKey,
    FlowMappingValue,
    FlowMappingEmptyValue,
}

pub(super) struct Parser {
    scanner: Scanner,
    current: Option<Event>,
    started: bool,
    state: Option<State>,
    states: Vec<State>,
    tag_handles: BTreeMap<String, String>,
}

fn default_tag_handles() -> BTreeMap<String, String> {
    BTreeMap::from([
        ("!".to_owned(), "!".to_owned()),
        ("!!".to_owned(), "tag:yaml.org,2002:".to_owned()),
    ])
}

impl Parser {
    pub(super) fn new(scanner: Scanner) -> Self {
        Self {
            scanner,
            current: None,
            started: false,
            state: None,
            states: Vec::new(),
            tag_handles: BTreeMap::new(),
        }
    }

    fn check(&mut self, matches: fn(&Tok) -> bool) -> Result<bool, YamlError> {
        Ok(matches(&self.scanner.peek_token()?.tok))
    }

    fn pop_state(&mut self) {
        self.state = self.states.pop();
    }

    pub(super) fn peek_event(&mut self) -> Result<&Event, YamlError> {
        if self.current.is_none() {
            let event = self.next_event()?;
            self.current = Some(event);
        }
        self.current
            .as_ref()
            .ok_or_else(|| YamlError::Unsupported("read past the end of the stream".to_owned()))
    }

    pub(super) fn get_event(&mut self) -> Result<Event, YamlError> {
        self.peek_event()?;
        self.current
            .take()
            .ok_or_else(|| YamlError::Unsupported("read past the end of the stream".to_owned()))
    }

    fn next_event(&mut self) -> Result<Event, YamlError> {
        if !self.started {
            self.started = true;
            let token = self.scanner.get_token()?;
            self.state = Some(State::ImplicitDocumentStart);
            return Ok(Event {
                ev: Ev::StreamStart,
                start: token.start,
            });
        }
        let state = self
            .state
            .ok_or_else(|| YamlError::Unsupported("read past the end of the stream".to_owned()))?;
        match state {
            State::ImplicitDocumentStart => self.parse_implicit_document_start(),
            State::DocumentStart => self.parse_document_start(),
            State::DocumentEnd => self.parse_document_end(),
            State::DocumentContent => self.parse_document_content(),
            State::BlockNode => self.parse_node(true, false),
            State::BlockSequenceFirstEntry => {
                self.scanner.get_token()?;
                self.parse_block_sequence_entry()
            }
            State::BlockSequenceEntry => self.parse_block_sequence_entry(),
            State::IndentlessSequenceEntry => self.parse_indentless_sequence_entry(),
            State::BlockMappingFirstKey => {
                self.scanner.get_token()?;
                self.parse_block_mapping_key()
            }
            State::BlockMappingKey => self.parse_block_mapping_key(),
            State::BlockMappingValue => self.parse_block_mapping_value(),
            State::FlowSequenceFirstEntry => {
                self.scanner.get_token()?;
                self.parse_flow_sequence_entry(true)
            }
            State::FlowSequenceEntry => self.parse_flow_sequence_entry(false),
            State::FlowSequenceEntryMappingKey => self.parse_flow_sequence_entry_mapping_key(),
            State::FlowSequenceEntryMappingValue => self.parse_flow_sequence_entry_mapping_value(),
            State::FlowSequenceEntryMappingEnd => {
                self.state = Some(State::FlowSequenceEntry);
                let start = self.scanner.peek_token()?.start;
                Ok(Event {
                    ev: Ev::MappingEnd,
                    start,
                })
            }
            State::FlowMappingFirstKey => {
                self.scanner.get_token()?;
                self.parse_flow_mapping_key(true)
            }
            State::FlowMappingKey => self.parse_flow_mapping_key(false),
            State::FlowMappingValue => self.parse_flow_mapping_value(),
            State::FlowMappingEmptyValue => {
                self.state = Some(State::FlowMappingKey);
                let mark = self.scanner.peek_token()?.start;
                Ok(empty_scalar(mark))
            }
        }
    }

    fn parse_implicit_document_start(&mut self) -> Result<Event, YamlError> {
        if self.check(|t| matches!(t, Tok::Directive(_) | Tok::DocumentStart | Tok::StreamEnd))? {
            return self.parse_document_start();
        }
        self.tag_handles = default_tag_handles();
        let start = self.scanner.peek_token()?.start;
        self.states.push(State::DocumentEnd);
        self.state = Some(State::BlockNode);
        Ok(Event {
            ev: Ev::DocumentStart,
            start,
        })
    }

    fn parse_document_start(&mut self) -> Result<Event, YamlError> {
        while self.check(|t| matches!(t, Tok::DocumentEnd))? {
            self.scanner.get_token()?;
        }
        if self.check(|t| matches!(t, Tok::StreamEnd))? {
            let token = self.scanner.get_token()?;
            self.state = None;
            return Ok(Event {
                ev: Ev::StreamEnd,
                start: token.start,
            });
        }
        let start = self.scanner.peek_token()?.start;
        self.process_directives()?;
        let token = self.scanner.peek_token()?;
        if !matches!(token.tok, Tok::DocumentStart) {
            return Err(parser_error(
                format!(
                    "expected '<document start>', but found {}",
                    str_repr(token.tok.id())
                ),
                token.start,
            ));
        }
        self.scanner.get_token()?;
        self.states.push(State::DocumentEnd);
        self.state = Some(State::DocumentContent);
        Ok(Event {
            ev: Ev::DocumentStart,
            start,
        })
    }

    fn parse_document_end(&mut self) -> Result<Event, YamlError> {
        let start = self.scanner.peek_token()?.start;
        if self.check(|t| matches!(t, Tok::DocumentEnd))? {
            self.scanner.get_token()?;
        }
        self.state = Some(State::DocumentStart);
        Ok(Event {
            ev: Ev::DocumentEnd,
            start,
        })
    }

    fn parse_document_content(&mut self) -> Result<Event, YamlError> {
        if self.check(|t| {
            matches!(
                t,
                Tok::Directive(_) | Tok::DocumentStart | Tok::DocumentEnd | Tok::StreamEnd
            )
        })? {
            let mark = self.scanner.peek_token()?.start;
            self.pop_state();
            return Ok(empty_scalar(mark));
        }
        self.parse_node(true, false)
    }

    fn process_directives(&mut self) -> Result<(), YamlError> {
        let mut seen_version = false;
        self.tag_handles = BTreeMap::new();
        while self.check(|t| matches!(t, Tok::Directive(_)))? {
            let token = self.scanner.get_token()?;
            match token.tok {
                Tok::Directive(Directive::Yaml { major_is_one }) => {
                    if seen_version {
                        return Err(parser_error("found duplicate YAML directive", token.start));
                    }
                    if !major_is_one {
                        return Err(parser_error(
                            "found incompatible YAML document (version 1.* is required)",
                            token.start,
                        ));
                    }
                    seen_version = true;
                }
                Tok::Directive(Directive::Tag { handle, prefix }) => {
                    if self.tag_handles.contains_key(&handle) {
                        return Err(parser_error(
                            format!("duplicate tag handle {}", str_repr(&handle)),
                            token.start,
                        ));
                    }
                    self.tag_handles.insert(handle, prefix);
                }
                _ => {}
            }
        }
        for (handle, prefix) in default_tag_handles() {
            self.tag_handles.entry(handle).or_insert(prefix);
        }
        Ok(())
    }

    fn parse_node(&mut self, block: bool, indentless_sequence: bool) -> Result<Event, YamlError> {
        if self.check(|t| matches!(t, Tok::Alias(_)))? {
            let token = self.scanner.get_token()?;
            self.pop_state();
            let Tok::Alias(name) = token.tok else {
                return Err(YamlError::Unsupported("alias token expected".to_owned()));
            };
            return Ok(Event {
                ev: Ev::Alias(name),
                start: token.start,
            });
        }
        let (anchor, tag, start) = self.parse_node_properties()?;
        let implicit = tag.as_deref().is_none_or(|t| t == "!");
        if indentless_sequence && self.check(|t| matches!(t, Tok::BlockEntry))? {
            self.state = Some(State::IndentlessSequenceEntry);
            return Ok(Event {
                ev: Ev::SequenceStart { anchor, tag },
                start,
            });
        }
        let token = self.scanner.peek_token()?;
        let (ev, next) = match &token.tok {
            Tok::Scalar { .. } => {
                let token = self.scanner.get_token()?;
                let Tok::Scalar { value, plain } = token.tok else {
                    return Err(YamlError::Unsupported("scalar token expected".to_owned()));
                };
                let plain_implicit = (plain && tag.is_none()) || tag.as_deref() == Some("!");
                self.pop_state();
                return Ok(Event {
                    ev: Ev::Scalar {
                        anchor,
                        tag,
                        plain_implicit,
                        value,
                    },
                    start,
                });
            }
            Tok::FlowSequenceStart => (
                Ev::SequenceStart { anchor, tag },
                State::FlowSequenceFirstEntry,
            ),
            Tok::FlowMappingStart => (Ev::MappingStart { anchor, tag }, State::FlowMappingFirstKey),
            Tok::BlockSequenceStart if block => (
                Ev::SequenceStart { anchor, tag },
                State::BlockSequenceFirstEntry,
            ),
            Tok::BlockMappingStart if block => (
                Ev::MappingStart { anchor, tag },
                State::BlockMappingFirstKey,
            ),
            _ if anchor.is_some() || tag.is_some() => {
                // An empty scalar with properties.
                self.pop_state();
                return Ok(Event {
                    ev: Ev::Scalar {
                        anchor,
                        tag,
                        plain_implicit: implicit,
                        value: String::new(),
                    },
                    start,
                });
            }
            other => {
                let kind = if block { "block" } else { "flow" };
                return Err(parser_error(
                    format!(
                        "while parsing a {kind} node: expected the node content, but found {}",
                        str_repr(other.id())
                    ),
                    token.start,
                ));
            }
        };
        self.state = Some(next);
        Ok(Event { ev, start })
    }

    /// The anchor and tag in front of a node (either order), the tag's handle resolved, and
    /// where the node starts (at its first property, else at its content).
    fn parse_node_properties(
        &mut self,
    ) -> Result<(Option<String>, Option<String>, Mark), YamlError> {
        let mut anchor = None;
        let mut tag_token = None;
        let mut start = None;
        let mut tag_mark = None;
        if self.check(|t| matches!(t, Tok::Anchor(_)))? {
            let token = self.scanner.get_token()?;
            start = Some(token.start);
            if let Tok::Anchor(name) = token.tok {
                anchor = Some(name);
            }
            if self.check(|t| matches!(t, Tok::Tag(..)))? {
                let token = self.scanner.get_token()?;
                tag_mark = Some(token.start);
                if let Tok::Tag(handle, suffix) = token.tok {
                    tag_token = Some((handle, suffix));
                }
            }
        } else if self.check(|t| matches!(t, Tok::Tag(..)))? {
            let token = self.scanner.get_token()?;
            start = Some(token.start);
            tag_mark = Some(token.start);
            if let Tok::Tag(handle, suffix) = token.tok {
                tag_token = Some((handle, suffix));
            }
            if self.check(|t| matches!(t, Tok::Anchor(_)))? {
                if let Tok::Anchor(name) = self.scanner.get_token()?.tok {
                    anchor = Some(name);
                }
            }
        }
        let tag = match tag_token {
            Some((Some(handle), suffix)) => match self.tag_handles.get(&handle) {
                Some(prefix) => Some(format!("{prefix}{suffix}")),
                None => {
                    return Err(parser_error(
                        format!(
                            "while parsing a node: found undefined tag handle {}",
                            str_repr(&handle)
                        ),
                        tag_mark.unwrap_or_default(),
                    ));
                }
            },
            Some((None, suffix)) => Some(suffix),
            None => None,
        };
        let start = match start {
            Some(mark) => mark,
            None => self.scanner.peek_token()?.start,
        };
        Ok((anchor, tag, start))
    }

    fn parse_block_sequence_entry(&mut self) -> Result<Event, YamlError> {
        if self.check(|t| matches!(t, Tok::BlockEntry))? {
            let token = self.scanner.get_token()?;
            if !self.check(|t| matches!(t, Tok::BlockEntry | Tok::BlockEnd))? {
                self.states.push(State::BlockSequenceEntry);
                return self.parse_node(true, false);
            }
            self.state = Some(State::BlockSequenceEntry);
            return Ok(empty_scalar(token.end));
        }
        let token = self.scanner.get_token()?;
        if !matches!(token.tok, Tok::BlockEnd) {
            return Err(parser_error(
                format!(
                    "while parsing a block collection: expected <block end>, but found {}",
                    str_repr(token.tok.id())
                ),
                token.start,
            ));
        }
        self.pop_state();
        Ok(Event {
            ev: Ev::SequenceEnd,
            start: token.start,
        })
    }

    fn parse_indentless_sequence_entry(&mut self) -> Result<Event, YamlError> {
        if self.check(|t| matches!(t, Tok::BlockEntry))? {
            let token = self.scanner.get_token()?;
            if !self
                .check(|t| matches!(t, Tok::BlockEntry | Tok::Key | Tok::Value | Tok::BlockEnd))?
            {
                self.states.push(State::IndentlessSequenceEntry);
                return self.parse_node(true, false);
            }
            self.state = Some(State::IndentlessSequenceEntry);
            return Ok(empty_scalar(token.end));
        }
        let start = self.scanner.peek_token()?.start;
        self.pop_state();
        Ok(Event {
            ev: Ev::SequenceEnd,
            start,
        })
    }

    fn parse_block_mapping_key(&mut self) -> Result<Event, YamlError> {
        if self.check(|t| matches!(t, Tok::Key))? {
            let token = self.scanner.get_token()?;
            if !self.check(|t| matches!(t, Tok::Key | Tok::Value | Tok::BlockEnd))? {
                self.states.push(State::BlockMappingValue);
                return self.parse_node(true, true);
            }
            self.state = Some(State::BlockMappingValue);
            return Ok(empty_scalar(token.end));
        }
        let token = self.scanner.get_token()?;
        if !matches!(token.tok, Tok::BlockEnd) {
            return Err(parser_error(
                format!(
                    "while parsing a block mapping: expected <block end>, but found {}",
                    str_repr(token.tok.id())
                ),
                token.start,
            ));
        }
        self.pop_state();
        Ok(Event {
            ev: Ev::MappingEnd,
            start: token.start,
        })
    }

    fn parse_block_mapping_value(&mut self) -> Result<Event, YamlError> {
        if self.check(|t| matches!(t, Tok::Value))? {
            let token = self.scanner.get_token()?;
            if !self.check(|t| matches!(t, Tok::Key | Tok::Value | Tok::BlockEnd))? {
                self.states.push(State::BlockMappingKey);
                return self.parse_node(true, true);
            }
            self.state = Some(State::BlockMappingKey);
            return Ok(empty_scalar(token.end));
        }
        self.state = Some(State::BlockMappingKey);
        let mark = self.scanner.peek_token()?.start;
        Ok(empty_scalar(mark))
    }

    fn parse_flow_sequence_entry(&mut self, first: bool) -> Result<Event, YamlError> {
        if !self.check(|t| matches!(t, Tok::FlowSequenceEnd))? {
            if !first {
                if self.check(|t| matches!(t, Tok::FlowEntry))? {
                    self.scanner.get_token()?;
                } else {
                    let token = self.scanner.peek_token()?;
                    return Err(parser_error(
                        format!(
                            "while parsing a flow sequence: expected ',' or ']', but got {}",
                            str_repr(token.tok.id())
                        ),
                        token.start,
                    ));
                }
            }
            if self.check(|t| matches!(t, Tok::Key))? {
                let start = self.scanner.peek_token()?.start;
                self.state = Some(State::FlowSequenceEntryMappingKey);
                return Ok(Event {
                    ev: Ev::MappingStart {
                        anchor: None,
                        tag: None,
                    },
                    start,
                });
            }
            if !self.check(|t| matches!(t, Tok::FlowSequenceEnd))? {
                self.states.push(State::FlowSequenceEntry);
                return self.parse_node(false, false);
            }
        }
        let token = self.scanner.get_token()?;
        self.pop_state();
        Ok(Event {
            ev: Ev::SequenceEnd,
            start: token.start,
        })
    }

    fn parse_flow_sequence_entry_mapping_key(&mut self) -> Result<Event, YamlError> {
        let token = self.scanner.get_token()?;
        if !self.check(|t| matches!(t, Tok::Value | Tok::FlowEntry | Tok::FlowSequenceEnd))? {
            self.states.push(State::FlowSequenceEntryMappingValue);
            return self.parse_node(false, false);
        }
        self.state = Some(State::FlowSequenceEntryMappingValue);
        Ok(empty_scalar(token.end))
    }

    fn parse_flow_sequence_entry_mapping_value(&mut self) -> Result<Event, YamlError> {
        if self.check(|t| matches!(t, Tok::Value))? {
            let token = self.scanner.get_token()?;
            if !self.check(|t| matches!(t, Tok::FlowEntry | Tok::FlowSequenceEnd))? {
                self.states.push(State::FlowSequenceEntryMappingEnd);
                return self.parse_node(false, false);
            }
            self.state = Some(State::FlowSequenceEntryMappingEnd);
            return Ok(empty_scalar(token.end));
        }
        self.state = Some(State::FlowSequenceEntryMappingEnd);
        let mark = self.scanner.peek_token()?.start;
        Ok(empty_scalar(mark))
    }

    fn parse_flow_mapping_key(&mut self, first: bool) -> Result<Event, YamlError> {
        if !self.check(|t| matches!(t, Tok::FlowMappingEnd))? {
            if !first {
                if self.check(|t| matches!(t, Tok::FlowEntry))? {
                    self.scanner.get_token()?;
                } else {
                    let token = self.scanner.peek_token()?;
                    return Err(parser_error(
                        format!(
                            "while parsing a flow mapping: expected ',' or '}}', but got {}",
                            str_repr(token.tok.id())
                        ),
                        token.start,
                    ));
                }
            }
            if self.check(|t| matches!(t, Tok::Key))? {
                let token = self.scanner.get_token()?;
                if !self
                    .check(|t| matches!(t, Tok::Value | Tok::FlowEntry | Tok::FlowMappingEnd))?
                {
                    self.states.push(State::FlowMappingValue);
                    return self.parse_node(false, false);
                }
                self.state = Some(State::FlowMappingValue);
                return Ok(empty_scalar(token.end));
            }
            if !self.check(|t| matches!(t, Tok::FlowMappingEnd))? {
                self.states.push(State::FlowMappingEmptyValue);
                return self.parse_node(false, false);
            }
        }
        let token = self.scanner.get_token()?;
        self.pop_state();
        Ok(Event {
            ev: Ev::MappingEnd,
            start: token.start,
        })
    }

    fn parse_flow_mapping_value(&mut self) -> Result<Event, YamlError> {
        if self.check(|t| matches!(t, Tok::Value))? {
            let token = self.scanner.get_token()?;
            if !self.check(|t| matches!(t, Tok::FlowEntry | Tok::FlowMappingEnd))? {
                self.states.push(State::FlowMappingKey);
                return self.parse_node(false, false);
            }
            self.state = Some(State::FlowMappingKey);
            return Ok(empty_scalar(token.end));
        }
        self.state = Some(State::FlowMappingKey);
        let mark = self.scanner.peek_token()?.start;
        Ok(empty_scalar(mark))
    }
}

fn empty_scalar(mark: Mark) -> Event {
    Event {
        ev: Ev::Scalar {
            anchor: None,
            tag: None,
            plain_implicit: true,
            value: String::new(),
        },
        start: mark,
    }
}

//! PyYAML's `scanner.py` (with the token types of `tokens.py`): characters to tokens.
//!
//! The same methods in the same order as the Python class: the token queue, simple keys,
//! indentation, the fetchers that `fetch_more_tokens` dispatches to, and the scanners of
//! directives, anchors, tags, block scalars, flow (quoted) scalars and plain scalars. Error
//! messages are PyYAML's `context: problem`, positioned at its `problem_mark`.

use std::collections::{BTreeMap, VecDeque};

use super::error::{Mark, YamlError, python_error, yaml_error};
use super::reader::{Reader, Z_BLANK_BREAK, one_of};
use super::repr::char_repr;

/// No blanks: what ends a directive, tag or block-scalar header.
const Z_SPACE_BREAK: &str = "\0 \r\n\u{85}\u{2028}\u{2029}";
const Z_BREAK: &str = "\0\r\n\u{85}\u{2028}\u{2029}";
const BREAK: &str = "\r\n\u{85}\u{2028}\u{2029}";

/// A `ScannerError`.
fn scanner_error(problem: impl Into<String>, mark: Mark) -> YamlError {
    yaml_error("ScannerError", problem, mark)
}

/// A `%YAML` or `%TAG` directive (other directives are ignored).
#[derive(Debug, Clone)]
pub(super) enum Directive {
    Yaml { major_is_one: bool },
    Tag { handle: String, prefix: String },
    Other,
}

/// The token types of `tokens.py`, with the values the parser reads.
#[derive(Debug, Clone)]
pub(super) enum Tok {
    StreamStart,
    StreamEnd,
    Directive(Directive),
    DocumentStart,
    DocumentEnd,
    BlockSequenceStart,
    BlockMappingStart,
    BlockEnd,
    FlowSequenceStart,
    FlowMappingStart,
    FlowSequenceEnd,
    FlowMappingEnd,
    BlockEntry,
    FlowEntry,
    Key,
    Value,
    Alias(String),
    Anchor(String),
    Tag(Option<String>, String),
    Scalar { value: String, plain: bool },
}

impl Tok {
    /// PyYAML's `Token.id`, for messages.
    pub(super) fn id(&self) -> &'static str {
        match self {
            Self::StreamStart => "<stream start>",
            Self::StreamEnd => "<stream end>",
            Self::Directive(_) => "<directive>",
            Self::DocumentStart => "<document start>",
            Self::DocumentEnd => "<document end>",
            Self::BlockSequenceStart => "<block sequence start>",
            Self::BlockMappingStart => "<block mapping start>",
            Self::BlockEnd => "<block end>",
            Self::FlowSequenceStart => "[",
            Self::FlowMappingStart => "{",
            Self::FlowSequenceEnd => "]",
            Self::FlowMappingEnd => "}",
            Self::BlockEntry => "-",
            Self::FlowEntry => ",",
            Self::Key => "?",
            Self::Value => ":",
            Self::Alias(_) => "<alias>",
            Self::Anchor(_) => "<anchor>",
            Self::Tag(..) => "<tag>",
            Self::Scalar { .. } => "<scalar>",
        }
    }
}

/// A token and where it starts and ends.
#[derive(Debug, Clone)]
pub(super) struct Token {
    pub(super) tok: Tok,
    pub(super) start: Mark,
    pub(super) end: Mark,
}

/// A place where a simple key (one without `?`) may start.
#[derive(Debug, Clone, Copy)]
struct SimpleKey {
    token_number: usize,
    required: bool,
    index: usize,
    line: usize,
    column: usize,
    mark: Mark,
}

pub(super) struct Scanner {
    reader: Reader,
    done: bool,
    /// Python lets a stray `]` or `}` take it below 0.
    flow_level: isize,
    tokens: VecDeque<Token>,
    tokens_taken: usize,
    indent: isize,
    indents: Vec<isize>,
    allow_simple_key: bool,
    possible_simple_keys: BTreeMap<isize, SimpleKey>,
}

impl Scanner {
    pub(super) fn new(text: &str) -> Result<Self, YamlError> {
        let mut scanner = Self {
            reader: Reader::new(text)?,
            done: false,
            flow_level: 0,
            tokens: VecDeque::new(),
            tokens_taken: 0,
            indent: -1,
            indents: Vec::new(),
            allow_simple_key: true,
            possible_simple_keys: BTreeMap::new(),
        };
        let mark = scanner.mark();
        scanner.push(Tok::StreamStart, mark, mark);
        Ok(scanner)
    }

    // The reader's interface.

    fn peek(&self, index: usize) -> char {
        self.reader.peek(index)
    }

    fn prefix(&self, length: usize) -> String {
        self.reader.prefix(length)
    }

    fn forward(&mut self, length: usize) {
        self.reader.forward(length);
    }

    fn mark(&self) -> Mark {
        self.reader.mark()
    }

    fn col(&self) -> isize {
        self.reader.col()
    }

    fn push(&mut self, tok: Tok, start: Mark, end: Mark) {
        self.tokens.push_back(Token { tok, start, end });
    }

    // The token queue.

    fn ensure_token(&mut self) -> Result<(), YamlError> {
        while self.need_more_tokens()? {
            self.fetch_more_tokens()?;
        }
        Ok(())
    }

    pub(super) fn peek_token(&mut self) -> Result<&Token, YamlError> {
        self.ensure_token()?;
        self.tokens
            .front()
            .ok_or_else(|| YamlError::Unsupported("read past the end of the stream".to_owned()))
    }

    pub(super) fn get_token(&mut self) -> Result<Token, YamlError> {
        self.ensure_token()?;
        let token = self
            .tokens
            .pop_front()
            .ok_or_else(|| YamlError::Unsupported("read past the end of the stream".to_owned()))?;
        self.tokens_taken += 1;
        Ok(token)
    }

    fn need_more_tokens(&mut self) -> Result<bool, YamlError> {
        if self.done {
            return Ok(false);
        }
        if self.tokens.is_empty() {
            return Ok(true);
        }
        self.stale_possible_simple_keys()?;
        Ok(self.next_possible_simple_key() == Some(self.tokens_taken))
    }

    fn fetch_more_tokens(&mut self) -> Result<(), YamlError> {
        self.scan_to_next_token();
        self.stale_possible_simple_keys()?;
        self.unwind_indent(self.col());
        let ch = self.peek(0);
        let block = self.flow_level == 0;
        match ch {
            '\0' => self.fetch_stream_end(),
            '%' if self.reader.column == 0 => self.fetch_directive(),
            '-' if self.check_document_indicator("---") => {
                self.fetch_document_indicator(Tok::DocumentStart)
            }
            '.' if self.check_document_indicator("...") => {
                self.fetch_document_indicator(Tok::DocumentEnd)
            }
            '[' => self.fetch_flow_collection_start(Tok::FlowSequenceStart),
            '{' => self.fetch_flow_collection_start(Tok::FlowMappingStart),
            ']' => self.fetch_flow_collection_end(Tok::FlowSequenceEnd),
            '}' => self.fetch_flow_collection_end(Tok::FlowMappingEnd),
            ',' => self.fetch_flow_entry(),
            '-' if one_of(self.peek(1), Z_BLANK_BREAK) => self.fetch_block_entry(),
            '?' if !block || one_of(self.peek(1), Z_BLANK_BREAK) => self.fetch_key(),
            ':' if !block || one_of(self.peek(1), Z_BLANK_BREAK) => self.fetch_value(),
            '*' => self.fetch_anchor_or_alias(true),
            '&' => self.fetch_anchor_or_alias(false),
            '!' => self.fetch_tag(),
            '|' | '>' if block => self.fetch_block_scalar(ch == '>'),
            '\'' | '"' => self.fetch_flow_scalar(ch == '"'),
            _ if self.check_plain() => self.fetch_plain(),
            _ => Err(scanner_error(
                format!(
                    "while scanning for the next token: found character {} that cannot start any token",
                    char_repr(ch)
                ),
                self.mark(),
            )),
        }
    }

    // Simple keys.

    fn next_possible_simple_key(&self) -> Option<usize> {
        self.possible_simple_keys
            .values()
            .map(|key| key.token_number)
            .min()
    }

    fn stale_possible_simple_keys(&mut self) -> Result<(), YamlError> {
        let levels: Vec<isize> = self.possible_simple_keys.keys().copied().collect();
        for level in levels {
            let key = self.possible_simple_keys[&level];
            if key.line != self.reader.line || self.reader.pointer - key.index > 1024 {
                if key.required {
                    return Err(scanner_error(
                        "while scanning a simple key: could not find expected ':'",
                        self.mark(),
                    ));
                }
                self.possible_simple_keys.remove(&level);
            }
        }
        Ok(())
    }

    fn save_possible_simple_key(&mut self) -> Result<(), YamlError> {
        let required = self.flow_level == 0 && self.indent == self.col();
        if self.allow_simple_key {
            self.remove_possible_simple_key()?;
            let key = SimpleKey {
                token_number: self.tokens_taken + self.tokens.len(),
                required,
                index: self.reader.pointer,
                line: self.reader.line,
                column: self.reader.column,
                mark: self.mark(),
            };
            self.possible_simple_keys.insert(self.flow_level, key);
        }
        Ok(())
    }

    fn remove_possible_simple_key(&mut self) -> Result<(), YamlError> {
        if let Some(key) = self.possible_simple_keys.remove(&self.flow_level) {
            if key.required {
                return Err(scanner_error(
                    "while scanning a simple key: could not find expected ':'",
                    self.mark(),
                ));
            }
        }
        Ok(())
    }

    // Indentation.

    fn unwind_indent(&mut self, column: isize) {
        if self.flow_level != 0 {
            return;
        }
        while self.indent > column {
            let mark = self.mark();
            self.indent = self.indents.pop().unwrap_or(-1);
            self.push(Tok::BlockEnd, mark, mark);
        }
    }

    fn add_indent(&mut self, column: isize) -> bool {
        if self.indent < column {
            self.indents.push(self.indent);
            self.indent = column;
            return true;
        }
        false
    }

    // Fetchers.

    fn fetch_stream_end(&mut self) -> Result<(), YamlError> {
        self.unwind_indent(-1);
        self.remove_possible_simple_key()?;
        self.allow_simple_key = false;
        self.possible_simple_keys.clear();
        let mark = self.mark();
        self.push(Tok::StreamEnd, mark, mark);
        self.done = true;
        Ok(())
    }

    fn fetch_directive(&mut self) -> Result<(), YamlError> {
        self.unwind_indent(-1);
        self.remove_possible_simple_key()?;
        self.allow_simple_key = false;
        let token = self.scan_directive()?;
        self.tokens.push_back(token);
        Ok(())
    }

    fn check_document_indicator(&self, indicator: &str) -> bool {
        self.reader.column == 0
            && self.prefix(3) == indicator
            && one_of(self.peek(3), Z_BLANK_BREAK)
    }

    fn fetch_document_indicator(&mut self, tok: Tok) -> Result<(), YamlError> {
        self.unwind_indent(-1);
        self.remove_possible_simple_key()?;
        self.allow_simple_key = false;
        let start = self.mark();
        self.forward(3);
        let end = self.mark();
        self.push(tok, start, end);
        Ok(())
    }

    fn fetch_flow_collection_start(&mut self, tok: Tok) -> Result<(), YamlError> {
        self.save_possible_simple_key()?;
        self.flow_level += 1;
        self.allow_simple_key = true;
        self.fetch_one_char(tok);
        Ok(())
    }

    fn fetch_flow_collection_end(&mut self, tok: Tok) -> Result<(), YamlError> {
        self.remove_possible_simple_key()?;
        self.flow_level -= 1;
        self.allow_simple_key = false;
        self.fetch_one_char(tok);
        Ok(())
    }

    fn fetch_one_char(&mut self, tok: Tok) {
        let start = self.mark();
        self.forward(1);
        let end = self.mark();
        self.push(tok, start, end);
    }

    fn fetch_flow_entry(&mut self) -> Result<(), YamlError> {
        self.allow_simple_key = true;
        self.remove_possible_simple_key()?;
        self.fetch_one_char(Tok::FlowEntry);
        Ok(())
    }

    fn fetch_block_entry(&mut self) -> Result<(), YamlError> {
        if self.flow_level == 0 {
            if !self.allow_simple_key {
                return Err(scanner_error(
                    "sequence entries are not allowed here",
                    self.mark(),
                ));
            }
            if self.add_indent(self.col()) {
                let mark = self.mark();
                self.push(Tok::BlockSequenceStart, mark, mark);
            }
        }
        self.allow_simple_key = true;
        self.remove_possible_simple_key()?;
        self.fetch_one_char(Tok::BlockEntry);
        Ok(())
    }

    fn fetch_key(&mut self) -> Result<(), YamlError> {
        if self.flow_level == 0 {
            if !self.allow_simple_key {
                return Err(scanner_error(
                    "mapping keys are not allowed here",
                    self.mark(),
                ));
            }
            if self.add_indent(self.col()) {
                let mark = self.mark();
                self.push(Tok::BlockMappingStart, mark, mark);
            }
        }
        self.allow_simple_key = self.flow_level == 0;
        self.remove_possible_simple_key()?;
        self.fetch_one_char(Tok::Key);
        Ok(())
    }

    fn fetch_value(&mut self) -> Result<(), YamlError> {
        if let Some(key) = self.possible_simple_keys.remove(&self.flow_level) {
            let at = key.token_number - self.tokens_taken;
            self.tokens.insert(
                at,
                Token {
                    tok: Tok::Key,
                    start: key.mark,
                    end: key.mark,
                },
            );
            if self.flow_level == 0 && self.add_indent(key.column as isize) {
                self.tokens.insert(
                    at,
                    Token {
                        tok: Tok::BlockMappingStart,
                        start: key.mark,
                        end: key.mark,
                    },
                );
            }
            self.allow_simple_key = false;
        } else {
            if self.flow_level == 0 {
                if !self.allow_simple_key {
                    return Err(scanner_error(
                        "mapping values are not allowed here",
                        self.mark(),
                    ));
                }
                if self.add_indent(self.col()) {
                    let mark = self.mark();
                    self.push(Tok::BlockMappingStart, mark, mark);
                }
            }
            self.allow_simple_key = self.flow_level == 0;
            self.remove_possible_simple_key()?;
        }
        self.fetch_one_char(Tok::Value);
        Ok(())
    }

    fn fetch_anchor_or_alias(&mut self, alias: bool) -> Result<(), YamlError> {
        self.save_possible_simple_key()?;
        self.allow_simple_key = false;
        let token = self.scan_anchor(alias)?;
        self.tokens.push_back(token);
        Ok(())
    }

    fn fetch_tag(&mut self) -> Result<(), YamlError> {
        self.save_possible_simple_key()?;
        self.allow_simple_key = false;
        let token = self.scan_tag()?;
        self.tokens.push_back(token);
        Ok(())
    }

    fn fetch_block_scalar(&mut self, folded: bool) -> Result<(), YamlError> {
        self.allow_simple_key = true;
        self.remove_possible_simple_key()?;
        let token = self.scan_block_scalar(folded)?;
        self.tokens.push_back(token);
        Ok(())
    }

    fn fetch_flow_scalar(&mut self, double: bool) -> Result<(), YamlError> {
        self.save_possible_simple_key()?;
        self.allow_simple_key = false;
        let token = self.scan_flow_scalar(double)?;
        self.tokens.push_back(token);
        Ok(())
    }

    fn fetch_plain(&mut self) -> Result<(), YamlError> {
        self.save_possible_simple_key()?;
        self.allow_simple_key = false;
        let token = self.scan_plain();
        self.tokens.push_back(token);
        Ok(())
    }

    fn check_plain(&self) -> bool {
        let ch = self.peek(0);
        !one_of(ch, "\0 \t\r\n\u{85}\u{2028}\u{2029}-?:,[]{}#&*!|>'\"%@`")
            || (!one_of(self.peek(1), Z_BLANK_BREAK)
                && (ch == '-' || (self.flow_level == 0 && one_of(ch, "?:"))))
    }

    // Scanners.

    fn scan_to_next_token(&mut self) {
        if self.reader.pointer == 0 && self.peek(0) == '\u{feff}' {
            self.forward(1);
        }
        loop {
            while self.peek(0) == ' ' {
                self.forward(1);
            }
            if self.peek(0) == '#' {
                while !one_of(self.peek(0), Z_BREAK) {
                    self.forward(1);
                }
            }
            if self.scan_line_break().is_empty() {
                break;
            }
            if self.flow_level == 0 {
                self.allow_simple_key = true;
            }
        }
    }

    fn scan_line_break(&mut self) -> String {
        let ch = self.peek(0);
        if one_of(ch, "\r\n\u{85}") {
            if self.prefix(2) == "\r\n" {
                self.forward(2);
            } else {
                self.forward(1);
            }
            "\n".to_owned()
        } else if one_of(ch, "\u{2028}\u{2029}") {
            self.forward(1);
            ch.to_string()
        } else {
            String::new()
        }
    }

    fn scan_directive(&mut self) -> Result<Token, YamlError> {
        let start = self.mark();
        self.forward(1);
        let name = self.scan_directive_name()?;
        let directive = match name.as_str() {
            "YAML" => {
                while self.peek(0) == ' ' {
                    self.forward(1);
                }
                let major = self.scan_directive_number()?;
                if self.peek(0) != '.' {
                    return Err(scanner_error(
                        format!(
                            "while scanning a directive: expected a digit or '.', but found {}",
                            char_repr(self.peek(0))
                        ),
                        self.mark(),
                    ));
                }
                self.forward(1);
                self.scan_directive_number()?;
                if !one_of(self.peek(0), Z_SPACE_BREAK) {
                    return Err(scanner_error(
                        format!(
                            "while scanning a directive: expected a digit or ' ', but found {}",
                            char_repr(self.peek(0))
                        ),
                        self.mark(),
                    ));
                }
                Directive::Yaml {
                    major_is_one: major.trim_start_matches('0') == "1",
                }
            }
            "TAG" => {
                while self.peek(0) == ' ' {
                    self.forward(1);
                }
                let handle = self.scan_tag_handle("directive")?;
                if self.peek(0) != ' ' {
                    return Err(scanner_error(
                        format!(
                            "while scanning a directive: expected ' ', but found {}",
                            char_repr(self.peek(0))
                        ),
                        self.mark(),
                    ));
                }
                while self.peek(0) == ' ' {
                    self.forward(1);
                }
                let prefix = self.scan_tag_uri("directive")?;
                if !one_of(self.peek(0), Z_SPACE_BREAK) {
                    return Err(scanner_error(
                        format!(
                            "while scanning a directive: expected ' ', but found {}",
                            char_repr(self.peek(0))
                        ),
                        self.mark(),
                    ));
                }
                Directive::Tag { handle, prefix }
            }
            _ => {
                while !one_of(self.peek(0), Z_BREAK) {
                    self.forward(1);
                }
                Directive::Other
            }
        };
        let end = self.mark();
        // scan_directive_ignored_line
        while self.peek(0) == ' ' {
            self.forward(1);
        }
        if self.peek(0) == '#' {
            while !one_of(self.peek(0), Z_BREAK) {
                self.forward(1);
            }
        }
        if !one_of(self.peek(0), Z_BREAK) {
            return Err(scanner_error(
                format!(
                    "while scanning a directive: expected a comment or a line break, but found {}",
                    char_repr(self.peek(0))
                ),
                self.mark(),
            ));
        }
        self.scan_line_break();
        Ok(Token {
            tok: Tok::Directive(directive),
            start,
            end,
        })
    }

    fn scan_directive_name(&mut self) -> Result<String, YamlError> {
        let mut length = 0;
        while is_word_char(self.peek(length)) {
            length += 1;
        }
        if length == 0 {
            return Err(scanner_error(
                format!(
                    "while scanning a directive: expected alphabetic or numeric character, but found {}",
                    char_repr(self.peek(0))
                ),
                self.mark(),
            ));
        }
        let value = self.prefix(length);
        self.forward(length);
        if !one_of(self.peek(0), Z_SPACE_BREAK) {
            return Err(scanner_error(
                format!(
                    "while scanning a directive: expected alphabetic or numeric character, but found {}",
                    char_repr(self.peek(0))
                ),
                self.mark(),
            ));
        }
        Ok(value)
    }

    fn scan_directive_number(&mut self) -> Result<String, YamlError> {
        if !self.peek(0).is_ascii_digit() {
            return Err(scanner_error(
                format!(
                    "while scanning a directive: expected a digit, but found {}",
                    char_repr(self.peek(0))
                ),
                self.mark(),
            ));
        }
        let mut length = 0;
        while self.peek(length).is_ascii_digit() {
            length += 1;
        }
        let value = self.prefix(length);
        self.forward(length);
        Ok(value)
    }

    fn scan_anchor(&mut self, alias: bool) -> Result<Token, YamlError> {
        let start = self.mark();
        let name = if alias { "alias" } else { "anchor" };
        self.forward(1);
        let mut length = 0;
        while is_word_char(self.peek(length)) {
            length += 1;
        }
        if length == 0 {
            return Err(scanner_error(
                format!(
                    "while scanning an {name}: expected alphabetic or numeric character, but found {}",
                    char_repr(self.peek(0))
                ),
                self.mark(),
            ));
        }
        let value = self.prefix(length);
        self.forward(length);
        if !one_of(self.peek(0), "\0 \t\r\n\u{85}\u{2028}\u{2029}?:,]}%@`") {
            return Err(scanner_error(
                format!(
                    "while scanning an {name}: expected alphabetic or numeric character, but found {}",
                    char_repr(self.peek(0))
                ),
                self.mark(),
            ));
        }
        let end = self.mark();
        let tok = if alias {
            Tok::Alias(value)
        } else {
            Tok::Anchor(value)
        };
        Ok(Token { tok, start, end })
    }

    fn scan_tag(&mut self) -> Result<Token, YamlError> {
        let start = self.mark();
        let mut ch = self.peek(1);
        let (handle, suffix) = if ch == '<' {
            self.forward(2);
            let suffix = self.scan_tag_uri("tag")?;
            if self.peek(0) != '>' {
                return Err(scanner_error(
                    format!(
                        "while parsing a tag: expected '>', but found {}",
                        char_repr(self.peek(0))
                    ),
                    self.mark(),
                ));
            }
            self.forward(1);
            (None, suffix)
        } else if one_of(ch, Z_BLANK_BREAK) {
            self.forward(1);
            (None, "!".to_owned())
        } else {
            let mut length = 1;
            let mut use_handle = false;
            while !one_of(ch, Z_SPACE_BREAK) {
                if ch == '!' {
                    use_handle = true;
                    break;
                }
                length += 1;
                ch = self.peek(length);
            }
            let handle = if use_handle {
                self.scan_tag_handle("tag")?
            } else {
                self.forward(1);
                "!".to_owned()
            };
            (Some(handle), self.scan_tag_uri("tag")?)
        };
        if !one_of(self.peek(0), Z_SPACE_BREAK) {
            return Err(scanner_error(
                format!(
                    "while scanning a tag: expected ' ', but found {}",
                    char_repr(self.peek(0))
                ),
                self.mark(),
            ));
        }
        let end = self.mark();
        Ok(Token {
            tok: Tok::Tag(handle, suffix),
            start,
            end,
        })
    }

    fn scan_block_scalar(&mut self, folded: bool) -> Result<Token, YamlError> {
        let start = self.mark();
        self.forward(1);
        let (chomping, increment) = self.scan_block_scalar_indicators()?;
        // scan_block_scalar_ignored_line
        while self.peek(0) == ' ' {
            self.forward(1);
        }
        if self.peek(0) == '#' {
            while !one_of(self.peek(0), Z_BREAK) {
                self.forward(1);
            }
        }
        if !one_of(self.peek(0), Z_BREAK) {
            return Err(scanner_error(
                format!(
                    "while scanning a block scalar: expected a comment or a line break, but found {}",
                    char_repr(self.peek(0))
                ),
                self.mark(),
            ));
        }
        self.scan_line_break();

        let min_indent = (self.indent + 1).max(1);
        let (mut breaks, mut end, indent) = match increment {
            None => {
                let (breaks, max_indent, end) = self.scan_block_scalar_indentation();
                (breaks, end, min_indent.max(max_indent))
            }
            Some(increment) => {
                let indent = min_indent + increment - 1;
                let (breaks, end) = self.scan_block_scalar_breaks(indent);
                (breaks, end, indent)
            }
        };
        let mut chunks: Vec<String> = Vec::new();
        let mut line_break = String::new();
        while self.col() == indent && self.peek(0) != '\0' {
            chunks.append(&mut breaks);
            let leading_non_space = !one_of(self.peek(0), " \t");
            let mut length = 0;
            while !one_of(self.peek(length), Z_BREAK) {
                length += 1;
            }
            chunks.push(self.prefix(length));
            self.forward(length);
            line_break = self.scan_line_break();
            (breaks, end) = self.scan_block_scalar_breaks(indent);
            if self.col() == indent && self.peek(0) != '\0' {
                if folded && line_break == "\n" && leading_non_space && !one_of(self.peek(0), " \t")
                {
                    if breaks.is_empty() {
                        chunks.push(" ".to_owned());
                    }
                } else {
                    chunks.push(line_break.clone());
                }
            } else {
                break;
            }
        }
        if chomping != Some(false) {
            chunks.push(line_break);
        }
        if chomping == Some(true) {
            chunks.append(&mut breaks);
        }
        Ok(Token {
            tok: Tok::Scalar {
                value: chunks.concat(),
                plain: false,
            },
            start,
            end,
        })
    }

    fn scan_block_scalar_indicators(&mut self) -> Result<(Option<bool>, Option<isize>), YamlError> {
        let bad_zero = |scanner: &Self| {
            scanner_error(
                "while scanning a block scalar: expected indentation indicator in the range 1-9, but found 0",
                scanner.mark(),
            )
        };
        let mut chomping = None;
        let mut increment = None;
        let ch = self.peek(0);
        if one_of(ch, "+-") {
            chomping = Some(ch == '+');
            self.forward(1);
            let ch = self.peek(0);
            if let Some(digit) = ch.to_digit(10).filter(|_| ch.is_ascii_digit()) {
                if digit == 0 {
                    return Err(bad_zero(self));
                }
                increment = Some(digit as isize);
                self.forward(1);
            }
        } else if let Some(digit) = ch.to_digit(10).filter(|_| ch.is_ascii_digit()) {
            if digit == 0 {
                return Err(bad_zero(self));
            }
            increment = Some(digit as isize);
            self.forward(1);
            let ch = self.peek(0);
            if one_of(ch, "+-") {
                chomping = Some(ch == '+');
                self.forward(1);
            }
        }
        if !one_of(self.peek(0), Z_SPACE_BREAK) {
            return Err(scanner_error(
                format!(
                    "while scanning a block scalar: expected chomping or indentation indicators, but found {}",
                    char_repr(self.peek(0))
                ),
                self.mark(),
            ));
        }
        Ok((chomping, increment))
    }

    fn scan_block_scalar_indentation(&mut self) -> (Vec<String>, isize, Mark) {
        let mut chunks = Vec::new();
        let mut max_indent = 0;
        let mut end = self.mark();
        while one_of(self.peek(0), " \r\n\u{85}\u{2028}\u{2029}") {
            if self.peek(0) != ' ' {
                chunks.push(self.scan_line_break());
                end = self.mark();
            } else {
                self.forward(1);
                max_indent = max_indent.max(self.col());
            }
        }
        (chunks, max_indent, end)
    }

    fn scan_block_scalar_breaks(&mut self, indent: isize) -> (Vec<String>, Mark) {
        let mut chunks = Vec::new();
        let mut end = self.mark();
        while self.col() < indent && self.peek(0) == ' ' {
            self.forward(1);
        }
        while one_of(self.peek(0), BREAK) {
            chunks.push(self.scan_line_break());
            end = self.mark();
            while self.col() < indent && self.peek(0) == ' ' {
                self.forward(1);
            }
        }
        (chunks, end)
    }

    fn scan_flow_scalar(&mut self, double: bool) -> Result<Token, YamlError> {
        let start = self.mark();
        let quote = self.peek(0);
        self.forward(1);
        let mut chunks = String::new();
        self.scan_flow_scalar_non_spaces(double, &mut chunks)?;
        while self.peek(0) != quote {
            self.scan_flow_scalar_spaces(double, &mut chunks)?;
            self.scan_flow_scalar_non_spaces(double, &mut chunks)?;
        }
        self.forward(1);
        let end = self.mark();
        Ok(Token {
            tok: Tok::Scalar {
                value: chunks,
                plain: false,
            },
            start,
            end,
        })
    }

    fn scan_flow_scalar_non_spaces(
        &mut self,
        double: bool,
        chunks: &mut String,
    ) -> Result<(), YamlError> {
        loop {
            let mut length = 0;
            while !one_of(self.peek(length), "'\"\\\0 \t\r\n\u{85}\u{2028}\u{2029}") {
                length += 1;
            }
            if length > 0 {
                chunks.push_str(&self.prefix(length));
                self.forward(length);
            }
            let ch = self.peek(0);
            if !double && ch == '\'' && self.peek(1) == '\'' {
                chunks.push('\'');
                self.forward(2);
            } else if (double && ch == '\'') || (!double && one_of(ch, "\"\\")) {
                chunks.push(ch);
                self.forward(1);
            } else if double && ch == '\\' {
                self.forward(1);
                let ch = self.peek(0);
                if let Some(replacement) = scanner_escape(ch) {
                    chunks.push(replacement);
                    self.forward(1);
                } else if let Some(length) = match ch {
                    'x' => Some(2),
                    'u' => Some(4),
                    'U' => Some(8),
                    _ => None,
                } {
                    self.forward(1);
                    for k in 0..length {
                        if !self.peek(k).is_ascii_hexdigit() {
                            return Err(scanner_error(
                                format!(
                                    "while scanning a double-quoted scalar: expected escape sequence of {length} hexadecimal numbers, but found {}",
                                    char_repr(self.peek(k))
                                ),
                                self.mark(),
                            ));
                        }
                    }
                    let digits = self.prefix(length);
                    let code = u32::from_str_radix(&digits, 16)
                        .map_err(|_| YamlError::Unsupported(format!("escape \\{digits}")))?;
                    // chr() takes a C int: past 2**31 - 1 it overflows before the range check.
                    if code > 0x7fff_ffff {
                        return Err(python_error(
                            "OverflowError",
                            "Python int too large to convert to C int",
                        ));
                    }
                    if code > 0x10ffff {
                        return Err(python_error(
                            "ValueError",
                            "chr() arg not in range(0x110000)",
                        ));
                    }
                    let decoded = char::from_u32(code).ok_or_else(|| {
                        YamlError::Unsupported(format!("escape of the lone surrogate U+{code:04X}"))
                    })?;
                    chunks.push(decoded);
                    self.forward(length);
                } else if one_of(ch, BREAK) {
                    self.scan_line_break();
                    self.scan_flow_scalar_breaks(chunks)?;
                } else {
                    return Err(scanner_error(
                        format!(
                            "while scanning a double-quoted scalar: found unknown escape character {}",
                            char_repr(ch)
                        ),
                        self.mark(),
                    ));
                }
            } else {
                return Ok(());
            }
        }
    }

    fn scan_flow_scalar_spaces(
        &mut self,
        _double: bool,
        chunks: &mut String,
    ) -> Result<(), YamlError> {
        let mut length = 0;
        while one_of(self.peek(length), " \t") {
            length += 1;
        }
        let whitespaces = self.prefix(length);
        self.forward(length);
        let ch = self.peek(0);
        if ch == '\0' {
            return Err(scanner_error(
                "while scanning a quoted scalar: found unexpected end of stream",
                self.mark(),
            ));
        }
        if one_of(ch, BREAK) {
            let line_break = self.scan_line_break();
            let mut breaks = String::new();
            self.scan_flow_scalar_breaks(&mut breaks)?;
            if line_break != "\n" {
                chunks.push_str(&line_break);
            } else if breaks.is_empty() {
                chunks.push(' ');
            }
            chunks.push_str(&breaks);
        } else {
            chunks.push_str(&whitespaces);
        }
        Ok(())
    }

    fn scan_flow_scalar_breaks(&mut self, chunks: &mut String) -> Result<(), YamlError> {
        loop {
            let prefix = self.prefix(3);
            if (prefix == "---" || prefix == "...") && one_of(self.peek(3), Z_BLANK_BREAK) {
                return Err(scanner_error(
                    "while scanning a quoted scalar: found unexpected document separator",
                    self.mark(),
                ));
            }
            while one_of(self.peek(0), " \t") {
                self.forward(1);
            }
            if one_of(self.peek(0), BREAK) {
                let line_break = self.scan_line_break();
                chunks.push_str(&line_break);
            } else {
                return Ok(());
            }
        }
    }

    fn scan_plain(&mut self) -> Token {
        let mut chunks = String::new();
        let start = self.mark();
        let mut end = start;
        let indent = self.indent + 1;
        let mut spaces: Vec<String> = Vec::new();
        loop {
            let mut length = 0;
            if self.peek(0) == '#' {
                break;
            }
            loop {
                let ch = self.peek(length);
                let after = self.peek(length + 1);
                let ends_value = ch == ':'
                    && (one_of(after, Z_BLANK_BREAK)
                        || (self.flow_level != 0 && one_of(after, ",[]{}")));
                if one_of(ch, Z_BLANK_BREAK)
                    || ends_value
                    || (self.flow_level != 0 && one_of(ch, ",?[]{}"))
                {
                    break;
                }
                length += 1;
            }
            if length == 0 {
                break;
            }
            self.allow_simple_key = false;
            chunks.push_str(&spaces.concat());
            chunks.push_str(&self.prefix(length));
            self.forward(length);
            end = self.mark();
            spaces = self.scan_plain_spaces();
            if spaces.is_empty()
                || self.peek(0) == '#'
                || (self.flow_level == 0 && self.col() < indent)
            {
                break;
            }
        }
        Token {
            tok: Tok::Scalar {
                value: chunks,
                plain: true,
            },
            start,
            end,
        }
    }

    /// `scan_plain_spaces`; Python's `None` (a document separator) is the empty list too.
    fn scan_plain_spaces(&mut self) -> Vec<String> {
        let mut chunks = Vec::new();
        let mut length = 0;
        while self.peek(length) == ' ' {
            length += 1;
        }
        let whitespaces = self.prefix(length);
        self.forward(length);
        let separator = |scanner: &Self| {
            let prefix = scanner.prefix(3);
            (prefix == "---" || prefix == "...") && one_of(scanner.peek(3), Z_BLANK_BREAK)
        };
        if one_of(self.peek(0), BREAK) {
            let line_break = self.scan_line_break();
            self.allow_simple_key = true;
            if separator(self) {
                return Vec::new();
            }
            let mut breaks = Vec::new();
            while one_of(self.peek(0), " \r\n\u{85}\u{2028}\u{2029}") {
                if self.peek(0) == ' ' {
                    self.forward(1);
                } else {
                    breaks.push(self.scan_line_break());
                    if separator(self) {
                        return Vec::new();
                    }
                }
            }
            if line_break != "\n" {
                chunks.push(line_break);
            } else if breaks.is_empty() {
                chunks.push(" ".to_owned());
            }
            chunks.extend(breaks);
        } else if !whitespaces.is_empty() {
            chunks.push(whitespaces);
        }
        chunks
    }

    fn scan_tag_handle(&mut self, name: &str) -> Result<String, YamlError> {
        let ch = self.peek(0);
        if ch != '!' {
            return Err(scanner_error(
                format!(
                    "while scanning a {name}: expected '!', but found {}",
                    char_repr(ch)
                ),
                self.mark(),
            ));
        }
        let mut length = 1;
        let mut ch = self.peek(length);
        if ch != ' ' {
            while is_word_char(ch) {
                length += 1;
                ch = self.peek(length);
            }
            if ch != '!' {
                self.forward(length);
                return Err(scanner_error(
                    format!(
                        "while scanning a {name}: expected '!', but found {}",
                        char_repr(ch)
                    ),
                    self.mark(),
                ));
            }
            length += 1;
        }
        let value = self.prefix(length);
        self.forward(length);
        Ok(value)
    }

    fn scan_tag_uri(&mut self, name: &str) -> Result<String, YamlError> {
        let mut chunks = String::new();
        let mut length = 0;
        let mut ch = self.peek(length);
        while ch.is_ascii_alphanumeric() || one_of(ch, "-;/?:@&=+$,_.!~*'()[]%") {
            if ch == '%' {
                chunks.push_str(&self.prefix(length));
                self.forward(length);
                length = 0;
                let decoded = self.scan_uri_escapes(name)?;
                chunks.push_str(&decoded);
            } else {
                length += 1;
            }
            ch = self.peek(length);
        }
        if length > 0 {
            chunks.push_str(&self.prefix(length));
            self.forward(length);
        }
        if chunks.is_empty() {
            return Err(scanner_error(
                format!(
                    "while parsing a {name}: expected URI, but found {}",
                    char_repr(ch)
                ),
                self.mark(),
            ));
        }
        Ok(chunks)
    }

    fn scan_uri_escapes(&mut self, name: &str) -> Result<String, YamlError> {
        let mut codes = Vec::new();
        let mark = self.mark();
        while self.peek(0) == '%' {
            self.forward(1);
            for k in 0..2 {
                if !self.peek(k).is_ascii_hexdigit() {
                    return Err(scanner_error(
                        format!(
                            "while scanning a {name}: expected URI escape sequence of 2 hexadecimal numbers, but found {}",
                            char_repr(self.peek(k))
                        ),
                        self.mark(),
                    ));
                }
            }
            let byte = u8::from_str_radix(&self.prefix(2), 16)
                .map_err(|_| YamlError::Unsupported("URI escape".to_owned()))?;
            codes.push(byte);
            self.forward(2);
        }
        String::from_utf8(codes)
            .map_err(|error| scanner_error(format!("while scanning a {name}: {error}"), mark))
    }
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_'
}

/// The scanner's `ESCAPE_REPLACEMENTS` for `\x` in double quotes.
fn scanner_escape(c: char) -> Option<char> {
    Some(match c {
        '0' => '\0',
        'a' => '\x07',
        'b' => '\x08',
        't' | '\t' => '\t',
        'n' => '\n',
        'v' => '\x0b',
        'f' => '\x0c',
        'r' => '\r',
        'e' => '\x1b',
        ' ' => ' ',
        '"' => '"',
        '\\' => '\\',
        '/' => '/',
        'N' => '\u{85}',
        '_' => '\u{a0}',
        'L' => '\u{2028}',
        'P' => '\u{2029}',
        _ => return None,
    })
}

#!/usr/bin/env python3
"""Regenerate src/python/yaml/cases.rs: what PyYAML 6.0.3 says for the yaml port's test cases.

What it generates: the four tables the tests in src/python/yaml/tests.rs check the port against,
each input below paired with PyYAML's answer:
  DUMP_CASES      {"name": "x", "description": value, "type": "user"} through
                  yaml.safe_dump(..., sort_keys=False, allow_unicode=True) (how s09 writes a
                  record's frontmatter), and what yaml.safe_load reads back as the description;
  KEY_CASES       dict(pairs) through the same safe_dump (keys that must be quoted or complex);
  LOAD_CASES      yaml.safe_load(text), spelled as `describe` in tests.rs spells a result: the str
                  keys with their Python type and str(), or the exception and its position;
  METADATA_CASES  `yaml.safe_load(text) or {}` followed by isinstance(..., dict), as
                  parse_frontmatter does.

How to run it, from the repository root:

    python3 tools/yamlgen.py | rustfmt --edition 2024 > src/python/yaml/cases.rs
    git diff --exit-code src/python/yaml/cases.rs    # no output: the committed cases are PyYAML's

    python3 tools/yamlgen.py --json    # the same tables as JSON, which the ignored test
                                       # `cases_are_pyyamls` in tests.rs compares with cases.rs:
                                       # cargo test --lib -- --ignored cases_are_pyyamls

To add a case, add its input below, regenerate, and check the new expected value by hand.

What it needs: python3 with PyYAML 6.0.3 (`pip install PyYAML==6.0.3`; the pure-Python loader and
dumper are used, libyaml or not). Other versions are refused unless given --any-version.
"""
import json
import sys

import yaml

WANTED = "6.0.3"

PREFERS = (
    "Prefers concise answers with code examples first, then a short explanation of trade-offs"
    " involved."
)
MIGRATING = (
    "User is migrating the billing service from Python 2.7 to Python 3.11 and wants every change"
    " reviewed for unicode handling, integer division semantics, and dictionary ordering"
    " assumptions; keep notes short."
)

# (label, description value): plain, quoted and folded styles, the indicators and the YAML 1.1
# implicit types that force quotes, and the characters that force double quotes.
DUMP = [
    ("ascii words", "prefers-tabs"),
    ("words with spaces", "User prefers tabs over spaces"),
    ("longer than 80", PREFERS),
    ("longer than 160", MIGRATING),
    ("one long word", "x" * 120),
    ("colon space", "note: remember this"),
    ("colon inside a word", "a:b"),
    ("colon at the end", "ends with:"),
    ("dash space", "- a list-like start"),
    ("dash word", "-flag"),
    ("lone dash", "-"),
    ("hash", "# not a comment"),
    ("space hash", "issue #12 fixed"),
    ("hash in a word", "C# and F#"),
    ("single quote first", "'quoted' start"),
    ("double quote first", '"quoted" start'),
    ("bracket", "[draft] plan"),
    ("brace", "{a}"),
    ("comma inside", "a, b"),
    ("question space", "? maybe"),
    ("question word", "?maybe"),
    ("ampersand", "&anchor"),
    ("star", "*alias"),
    ("bang", "!important"),
    ("percent", "%TAG"),
    ("at", "@user"),
    ("backtick", "`cmd`"),
    ("pipe", "| literal"),
    ("greater", "> folded"),
    ("document start", "--- doc"),
    ("document end", "... more"),
    ("yes", "yes"),
    ("No", "No"),
    ("on", "on"),
    ("True", "True"),
    ("y stays plain", "y"),
    ("null", "null"),
    ("NULL", "NULL"),
    ("tilde", "~"),
    ("int", "123"),
    ("signed int", "+1"),
    ("hex", "0x1F"),
    ("octal", "0755"),
    ("underscore int", "1_000"),
    ("sexagesimal", "1:30"),
    ("float", "1.5"),
    ("float with signed exponent", "1.5e+3"),
    ("exponent without sign stays plain", "1.5e3"),
    ("inf", ".inf"),
    ("nan", ".NaN"),
    ("date", "2024-01-01"),
    ("datetime", "2001-12-14 21:59:43.10 -5"),
    ("one-digit month stays plain", "2001-1-1"),
    ("merge", "<<"),
    ("value", "="),
    ("trailing space", "ends with space "),
    ("leading space", " starts with space"),
    ("double space inside", "a  b"),
    ("empty", ""),
    ("chinese", "用户偏好简洁的回答，先给代码"),
    ("emoji", "ship it 🚀 today"),
    ("apostrophes", "it's the user's choice"),
    ("apostrophe and colon", "user's rule: no tabs"),
    ("newline", "line one\nline two"),
    ("trailing newline", "line\n"),
    ("blank line", "a\n\nb"),
    ("space before newline", "a \nb"),
    ("space after newline", "a\n b"),
    ("crlf", "a\r\nb"),
    ("tab", "col1\tcol2"),
    ("tab and emoji", "tab\tand 🚀"),
    ("bell", "a\x07b"),
    ("delete", "a\x7fb"),
    ("byte order mark", "a\ufeffb"),
    ("no-break space", "a\xa0b"),
    ("next line", "a\x85b"),
    ("line separator", "a\u2028b"),
    ("long quoted", "'" + PREFERS + " " + PREFERS),
    ("long double quoted", "tab\t" + MIGRATING),
    ("long with newline", PREFERS + "\n" + PREFERS),
    ("long chinese", "用户偏好" * 30),
]

# (label, pairs): check_simple_key's limit is 128 characters counting the 5 of the tag `!!str`.
KEYS = [
    ("no pairs", []),
    ("repeated key", [("name", "a"), ("type", "t"), ("name", "b")]),
    ("keys needing quotes", [("yes", "1"), ("a b", "c")]),
    ("longest simple key", [("k" * 122, "v")]),
    ("shortest complex key", [("k" * 123, "v")]),
    ("complex keys", [("k" * 130, "long key"), ("", "empty key"), ("two\nlines", "v")]),
]

# (label, text): what agent-written frontmatter may hold, and how each error surfaces.
LOAD = [
    ("frontmatter", "\nname: prefers-tabs\ndescription: User prefers tabs\ntype: user\n"),
    (
        "folded plain",
        "name: x\ndescription: a long\n  folded line\n\n  new paragraph\ntype: user\n",
    ),
    ("single quoted", "a: 'it''s'\nb: 'one\n  two\n\n  three'\n"),
    (
        "double quoted escapes",
        'a: "t\\tn\\nu\\u00e9x\\x41U\\U0001F680q\\"b\\\\"\nb: "fold\\\n  \\ ed"\n',
    ),
    ("comments and blank lines", "# top\nname: x # trailing\n\n# middle\n\ntype: user\n"),
    ("duplicate keys", "name: a\ntype: t\nname: b\n"),
    (
        "implicit types",
        "a: yes\nb: No\nc: 0x1F\nd: 1_000\ne: 1.5\nf: .inf\ng: ~\nh:\ni: 2024-01-01\nj: 1:30\n"
        "k: 0755\nl: -.5\nm: 1e5\nn: +12\no: -0.0\np: 0b101\nq: 1:30.5\nr: .NaN\ns: -.inf\n"
        "t: 1.0e+400\n",
    ),
    ("flow sequence", "tags: [a, 'b c', 1, null, {k: v}]\nname: x\n"),
    ("flow sequence pair", "a: [b: c]\n"),
    ("nested mapping", "name:\n  first: a\n  last: b\ntype: t\n"),
    ("block sequence", "items:\n- a\n- b\nempty:\n  -\n"),
    ("block scalars", "a: |\n  x\n  y\nb: >-\n  p\n  q\n\n  r\nc: |+\n  keep\n\nd: x\n"),
    ("anchor and alias", "a: &x hello\nb: *x\n"),
    ("merge key", "base: &b {k: 1, j: 0}\nd:\n  <<: *b\n  j: 2\n"),
    (
        "explicit tags",
        "a: !!str 123\nb: !!int '7'\nc: !!float 1\nd: ! 12\ne: !!null x\nf: !!bool 'ON'\n"
        "g: !<tag:yaml.org,2002:str> 5\nh: !!str\n",
    ),
    ("empty flow collections", "a: {}\nb: []\nc: ''\n"),
    ("non-str keys dropped", "1: a\nname: x\ntrue: b\n~: c\n2024-01-01: d\n"),
    ("equal number keys", "1: a\nTrue: b\n1.0: c\nname: x\n"),
    ("equal number keys nested", "a: {1: a, True: b, 1.0: c, '1': d}\n"),
    ("date inside a list", "a: [1, {b: 2001-01-01}]\n"),
    (
        "datetime",
        "a: 2001-12-14 21:59:43.10 -5\nb: 2001-12-14t21:59:43Z\n"
        "c: [2001-12-14 21:59:43 +05:30, 2002-01-01 00:00:00]\n",
    ),
    ("big int", "a: 12345678901234567890123\n"),
    ("recursive list", "a: &x [*x]\nb: &y {k: *y}\n"),
    ("document markers", "---\nname: x\n...\n"),
    ("directive", "%YAML 1.1\n%TAG !e! tag:example.com,2000:\n---\na: !!str 1\n"),
    ("crlf line ends", "name: x\r\ntype: y\r\n"),
    ("byte order mark", "\ufeffname: x\n"),
    ("quoted keys", "'na me': x\n\"k\\t\": y\n"),
    ("complex key", "? a\n: b\n"),
    ("unicode", "name: 用户 🚀\ndescription: café\n"),
    ("hash inside a word", "a: x#y\nb: c #d\n"),
    ("colon inside a word", "a: b:c\nurl: http://x.y/z\n"),
    (
        "dumped long value",
        "name: x\ndescription: Prefers concise answers with code examples first, then a short"
        " explanation\n  of trade-offs involved.\ntype: user\n",
    ),
    ("dumped newline", "description: 'line one\n\n  line two'\n"),
    ("value tag key", "a: !!str {=: v, k: 1}\n"),
    ("indented mapping", "  name: x\n  type: y\n"),
    ("nested value indicator", "a: b: c"),
    ("unclosed flow sequence", "name: [unclosed"),
    ("unclosed flow mapping", "name: {a: 1"),
    ("tab before a value", "a:\tb"),
    ("unterminated quote", "a: 'open\n"),
    ("key without value", "a: x\nb\n"),
    ("bad indentation", "name: x\n  bad: y\n"),
    ("sequence then mapping", "- a\nb: c\n"),
    ("two documents", "a: 1\n---\nb: 2\n"),
    ("unknown tag", "a: !foo x\n"),
    ("undefined tag handle", "a: !e!x y\n"),
    ("value scalar", "a: =\n"),
    ("merge of a scalar", "<<: x\n"),
    ("unhashable key", "? [a]\n: b\n"),
    ("control character", "a: \x01\n"),
    ("undefined alias", "a: *nope\n"),
    ("duplicate anchor", "a: &x 1\nb: &x 2\n"),
    ("unknown escape", 'a: "\\q"\n'),
    ("bad yaml directive", "%YAML 2.0\n---\na: 1\n"),
    ("stray closing bracket", "a: ]\n"),
    ("int of a word", "a: !!int x\n"),
    ("impossible date", "a: 2024-02-30\n"),
    ("bool of a word", "a: !!bool maybe\n"),
    ("empty binary int", "a: 0b_\n"),
    ("timestamp of a word", "a: !!timestamp junk\n"),
    ("escape beyond unicode", 'a: "\\U00110000"\n'),
    ("offset of a day", "a: 2001-12-14 21:59:43 +24\n"),
    ("plain scalar", "just text"),
    ("list", "- a\n- b\n"),
    ("empty", ""),
    ("only a comment", "# nothing\n"),
    ("number", "42"),
    ("empty list", "[]"),
    ("empty mapping", "{}"),
]

# Texts whose safe_load is falsy or not a dict.
METADATA = ["0", "false", "''", "[]", "~", "", "abc", "[1]", "a: 1", "{}"]


def safe_dump(mapping):
    return yaml.safe_dump(mapping, sort_keys=False, allow_unicode=True)


def python_type(value):
    """The YamlValue variant the port gives a loaded value (an int beyond i64 is Other)."""
    if value is None:
        return "Null"
    if isinstance(value, bool):
        return "Bool"
    if isinstance(value, int):
        return "Int" if -(2**63) <= value < 2**63 else "Other"
    if isinstance(value, float):
        return "Float"
    if isinstance(value, str):
        return "Str"
    return "Other"


def describe_load(text):
    """yaml.safe_load(text) as tests.rs `describe` spells the port's result."""
    try:
        loaded = yaml.safe_load(text)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark
        return f"YAMLError {type(error).__name__} {mark.line + 1}:{mark.column + 1}"
    except yaml.YAMLError as error:  # ReaderError: no problem_mark
        return f"YAMLError {type(error).__name__}"
    except Exception as error:  # what parse_frontmatter's `except yaml.YAMLError` lets escape
        return f"Python {type(error).__name__}"
    if not isinstance(loaded, dict):
        return "not a mapping"
    return "; ".join(
        f"{key}: {python_type(value)}({value})"
        for key, value in loaded.items()
        if isinstance(key, str)
    )


def tables():
    dump = []
    for label, value in DUMP:
        dumped = safe_dump({"name": "x", "description": value, "type": "user"})
        dump.append([label, value, dumped, yaml.safe_load(dumped)["description"]])
    keys = [
        [label, [list(pair) for pair in pairs], safe_dump(dict(pairs))] for label, pairs in KEYS
    ]
    load = [[label, text, describe_load(text)] for label, text in LOAD]
    metadata = [
        [text, "dict" if isinstance(yaml.safe_load(text) or {}, dict) else "not a dict"]
        for text in METADATA
    ]
    return {"dump": dump, "keys": keys, "load": load, "metadata": metadata}


def rust_str(text):
    """A Rust string literal as `{:?}` writes it (what rustfmt leaves alone)."""
    out = ['"']
    for c in text:
        if c in '"\\':
            out.append("\\" + c)
        elif c in "\n\r\t\0":
            out.append({"\n": "\\n", "\r": "\\r", "\t": "\\t", "\0": "\\0"}[c])
        elif c.isprintable():
            # Rust's Debug escapes the same categories (Cc, Cf, Cs, Co, Cn, Zl, Zp, Zs but the
            # space) plus combining marks, which no case holds.
            out.append(c)
        else:
            out.append(f"\\u{{{ord(c):x}}}")
    out.append('"')
    return "".join(out)


def rust_tuple(*items):
    return "(" + ", ".join(items) + ")"


def rust_source(t):
    lines = [
        f"//! Expected values from PyYAML {yaml.__version__}, generated by `tools/yamlgen.py`;"
        " do not edit by hand:",
        "//! add a case to the script and regenerate (see its docstring). Dumps are",
        "//! `yaml.safe_dump(..., sort_keys=False, allow_unicode=True)`, loads `yaml.safe_load`.",
        "",
        '/// `{"name": "x", "description": value, "type": "user"}` dumped: (label, value, dumped,'
        " what",
        "/// `safe_load` reads back: the value except for U+0085).",
        "pub(super) const DUMP_CASES: &[(&str, &str, &str, &str)] = &[",
    ]
    lines += [f"    {rust_tuple(*map(rust_str, row))}," for row in t["dump"]]
    lines += [
        "];",
        "",
        "/// (label, pairs, dumped)",
        "pub(super) type KeyCase = (",
        "    &'static str,",
        "    &'static [(&'static str, &'static str)],",
        "    &'static str,",
        ");",
        "/// `dict(pairs)` dumped.",
        "pub(super) const KEY_CASES: &[KeyCase] = &[",
    ]
    for label, pairs, dumped in t["keys"]:
        pairs = "&[" + ", ".join(rust_tuple(*map(rust_str, pair)) for pair in pairs) + "]"
        lines.append(f"    {rust_tuple(rust_str(label), pairs, rust_str(dumped))},")
    lines += [
        "];",
        "",
        "/// `yaml.safe_load(text)`: (label, text, the result as `describe` in tests.rs spells"
        " it).",
        "pub(super) const LOAD_CASES: &[(&str, &str, &str)] = &[",
    ]
    lines += [f"    {rust_tuple(*map(rust_str, row))}," for row in t["load"]]
    lines += [
        "];",
        "",
        "/// `yaml.safe_load(text) or {}` then `isinstance(..., dict)`.",
        "pub(super) const METADATA_CASES: &[(&str, &str)] = &[",
    ]
    lines += [f"    {rust_tuple(*map(rust_str, row))}," for row in t["metadata"]]
    lines.append("];")
    return "\n".join(lines) + "\n"


def main():
    if yaml.__version__ != WANTED and "--any-version" not in sys.argv[1:]:
        sys.exit(
            f"yamlgen.py: the port follows PyYAML {WANTED}, this is {yaml.__version__}"
            " (pass --any-version to see what it says)"
        )
    t = tables()
    if "--json" in sys.argv[1:]:
        text = json.dumps(t, indent=1) + "\n"  # ASCII, whatever the locale
    else:
        text = rust_source(t)
    sys.stdout.buffer.write(text.encode("utf-8"))


if __name__ == "__main__":
    main()

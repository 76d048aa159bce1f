"""PyYAML's syntax errors as ``line:col: not valid YAML: <a sentence>``, the way schema
errors read: where the parser stopped, what is most likely wrong there in plain words,
and the parser's own words after it for a search engine. The pure-Python parser and
libyaml (the C loader cassettes are read with) word their errors differently; both are
understood."""

from __future__ import annotations

import re
from typing import Callable

import yaml

Mark = tuple[int, int]  # 1-based line and column

_EXPECTED_CLOSE = re.compile(r"expected ',' or '([\]}])'")
_BLOCK_END = ("expected <block end>", "did not find expected key", "did not find expected '-' indicator")

Sentence = Callable[[str, str, "Mark | None", str], str]  # (problem, context, where it opened, the character stopped at)


def yaml_error_message(error: yaml.YAMLError, text: str) -> tuple[Mark, str]:
    """``(line, col)`` and the sentence for ``error``, raised while reading ``text``."""
    if isinstance(error, yaml.reader.ReaderError):
        mark = _mark_of_offset(text, error.position)
        code = error.character if isinstance(error.character, int) else ord(str(error.character)[:1] or "\0")
        return mark, (
            f"not valid YAML: a control character (U+{code:04X}) that YAML does not allow in a file; "
            "remove it, or write it as an escape such as \"\\x07\" inside double quotes"
        )
    problem = str(getattr(error, "problem", None) or getattr(error, "context", None) or error).strip()
    stop = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    opened = getattr(error, "context_mark", None)
    at: Mark = (stop.line + 1, stop.column + 1) if stop else (1, 1)
    since: Mark | None = (opened.line + 1, opened.column + 1) if opened else None
    context = str(getattr(error, "context", None) or "")
    char = _char_at(text, stop.index) if stop else ""
    sentence = next((say(problem, context, since, char) for test, say in _SENTENCES if test(problem, context)), None)
    if sentence is None:
        return at, f"not valid YAML: {problem}"
    return at, f"not valid YAML: {sentence} (the parser says: {problem})"


def _char_at(text: str, index: int) -> str:
    return text[index] if 0 <= index < len(text) else ""


def _mark_of_offset(text: str, offset: int) -> Mark:
    before = text[:offset]
    return before.count("\n") + 1, offset - (before.rfind("\n") + 1) + 1


def _line(since: Mark | None) -> str:
    return f"line {since[0]}, column {since[1]}" if since else "earlier"


def _start_token(problem: str, context: str, since: Mark | None, char: str) -> str:
    if char == "\t" or "tab character" in problem:
        return "a tab character; YAML indents with spaces only"
    return f"a plain value cannot start with {char!r}; put the value in quotes"


def _unclosed(problem: str, context: str, since: Mark | None, char: str) -> str:
    found = _EXPECTED_CLOSE.search(problem)
    close = found.group(1) if found else "]"
    opener = "[" if close == "]" else "{"
    return f"the {opener!r} opened on {_line(since)} is not closed before this point: a missing {close!r} or ','"


def _block_end(problem: str, context: str, since: Mark | None, char: str) -> str:
    if char == "-":
        return (
            f"a list item ('-') where the mapping that began on {_line(since)} expects a key; "
            "indent the item under its key, or line it up with the other items"
        )
    if char in ("}", "]"):
        return f"a closing {char!r} with no opening one before it"
    return f"this line is indented differently from the block that began on {_line(since)}; line it up with its siblings"


_SENTENCES: list[tuple[Callable[[str, str], bool], Sentence]] = [
    (
        lambda p, c: "mapping values are not allowed" in p,
        lambda p, c, s, ch: "a ': ' where YAML cannot start a key; put quotes around a value that contains ': ', "
        "or line the key up with the keys above it (a key also needs a space after its ':')",
    ),
    (lambda p, c: "cannot start any token" in p or "tab character" in p, _start_token),
    (
        lambda p, c: "end of stream" in p and "quoted scalar" in c,
        lambda p, c, s, ch: f"the quote opened on {_line(s)} is never closed",
    ),
    (
        lambda p, c: "end of stream" in p,
        lambda p, c, s, ch: f"the file ends inside something opened on {_line(s)}",
    ),
    (lambda p, c: bool(_EXPECTED_CLOSE.search(p)), _unclosed),
    (lambda p, c: any(words in p for words in _BLOCK_END), _block_end),
    (
        lambda p, c: "could not find expected ':'" in p,
        lambda p, c, s, ch: f"{f'line {s[0]}' if s else 'a line above'} is neither a key with a ':' nor part of a value "
        "(a multi-line value must be indented under its key)",
    ),
    (
        lambda p, c: "undefined alias" in p,
        lambda p, c, s, ch: "an alias (*name) with no anchor (&name) defined before it",
    ),
    (
        lambda p, c: "unknown escape character" in p,
        lambda p, c, s, ch: "a backslash escape YAML does not know inside double quotes; double the backslash, "
        "or use single quotes",
    ),
    (
        lambda p, c: "duplicate anchor" in c,
        lambda p, c, s, ch: f"the same anchor (&name) is defined twice, first on {_line(s)}",
    ),
    (
        lambda p, c: "unknown directive" in p,
        lambda p, c, s, ch: "a line starting with '%' is a YAML directive; put quotes around a value that starts with '%'",
    ),
    (
        lambda p, c: "another document" in p,
        lambda p, c, s, ch: "a second document ('---'); the file must hold exactly one",
    ),
    (
        lambda p, c: "could not determine a constructor for the tag" in p,
        lambda p, c, s, ch: "a tag (!!name or !name) this loader does not run; remove it, or quote the value",
    ),
]

"""Where each message of a request body's ``messages`` array ends in the body's bytes, so
that two requests can be compared message by message as bytes (``memcmp``) rather than as
parsed values.

    offsets(data)                     read the whole body: a JSON object with one key
                                      "messages" whose value is an array; None otherwise
    continued(data, earlier, shared)  the same, read only where ``data`` differs from the
                                      body ``earlier`` was read from: ``data`` must be those
                                      bytes up to the end of their message ``shared``,
                                      then more messages closing the array, then those
                                      bytes' rest (what follows the array) byte for byte

JSON is read left to right, so text that is the same up to a point parses to the same
values up to there: when ``continued`` answers, the first ``shared`` messages of ``data``
are those of the earlier body, as values, and its one ``"messages"`` key is the same key
(the rest of the object being the earlier body's, which had no other). A body whose bytes
are not UTF-8, or that is not what these shapes say, gets None: the caller compares values.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from json.scanner import make_scanner

_SCAN = make_scanner(json.JSONDecoder())  # the C scanner: (value, end) of the JSON value at an index
_SPACE = " \t\n\r"


@dataclass(frozen=True, slots=True)
class MessageOffsets:
    """``data``, a request body, with ``ends[i]`` the offset just after message ``i`` of its
    ``messages`` array and ``tail`` the offset just after the array."""

    data: bytes
    ends: list[int]
    tail: int


def offsets(data: bytes) -> MessageOffsets | None:
    """The offsets of ``data``'s messages, reading the whole body (see the module)."""
    try:
        text = data.decode("utf-8")
        return _object(data, text)
    except (ValueError, StopIteration, RecursionError, IndexError):
        return None


def continued(data: bytes, earlier: MessageOffsets, shared: int) -> MessageOffsets | None:
    """The offsets of ``data``'s messages if it continues ``earlier``'s body after its first
    ``shared`` messages (``shared`` ≥ 1; see the module), reading only the bytes between."""
    old = memoryview(earlier.data)
    start, rest = earlier.ends[shared - 1], len(earlier.data) - earlier.tail
    stop = len(data) - rest
    if stop < start or not data.endswith(old[earlier.tail:]) or not data.startswith(old[:start]):
        return None
    try:
        text = data[start:stop].decode("utf-8")
        ends, end = _elements(text, 0, _ByteIndex(text, start), first=False)
    except (ValueError, StopIteration, RecursionError, IndexError):
        return None
    if end != len(text):
        return None
    return MessageOffsets(data, earlier.ends[:shared] + ends, stop)


def _object(data: bytes, text: str) -> MessageOffsets | None:
    """The top-level object: its keys, the "messages" array read element by element."""
    found: MessageOffsets | None = None
    at = _skip(text, 0)
    if text[at] != "{":
        return None
    at = _skip(text, at + 1)
    while text[at] != "}":
        key, at = _SCAN(text, at)
        at = _skip(text, at)
        if not isinstance(key, str) or text[at] != ":":
            return None
        at = _skip(text, at + 1)
        if key == "messages":
            if found is not None or text[at] != "[":
                return None
            byte_at = _ByteIndex(text, 0)
            ends, at = _elements(text, at + 1, byte_at, first=True)
            found = MessageOffsets(data, ends, byte_at(at))
        else:
            at = _SCAN(text, at)[1]
        at = _skip(text, at)
        if text[at] == ",":
            at = _skip(text, at + 1)
        elif text[at] != "}":
            return None
    return found if _skip(text, at + 1) == len(text) else None


def _elements(text: str, at: int, byte_at: _ByteIndex, *, first: bool) -> tuple[list[int], int]:
    """The byte ends of the array elements from ``at`` in ``text``, up to and past the
    closing bracket: (ends, the index after ``]``). ``first``: ``at`` is just inside ``[``;
    else just after an element (a comma comes next)."""
    ends: list[int] = []
    at = _skip(text, at)
    while text[at] != "]":
        if not first:
            if text[at] != ",":
                raise ValueError("expected , or ]")
            at = _skip(text, at + 1)
        first = False
        at = _SCAN(text, at)[1]
        ends.append(byte_at(at))
        at = _skip(text, at)
    return ends, at + 1


class _ByteIndex:
    """The byte offset of a character of ``text`` (UTF-8, its index 0 at byte ``base``),
    asked in increasing order."""

    def __init__(self, text: str, base: int) -> None:
        self.text, self.base, self.ascii = text, base, text.isascii()
        self.at, self.byte = 0, base

    def __call__(self, at: int) -> int:
        if self.ascii:
            return self.base + at
        self.byte += len(self.text[self.at:at].encode("utf-8"))
        self.at = at
        return self.byte


def _skip(text: str, at: int) -> int:
    """The index of the first character from ``at`` that is not JSON whitespace."""
    while at < len(text) and text[at] in _SPACE:
        at += 1
    return at

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
import re
from collections.abc import Iterable
from json.scanner import make_scanner

_SCAN = make_scanner(json.JSONDecoder())  # the C scanner: (value, end) of the JSON value at an index
_SPACE = re.compile(r"[ \t\n\r]*")


class MessageOffsets:
    """``data``, a request body whose ``messages`` array holds ``count`` messages, with
    ``ends[n]`` the offset just after its first ``n`` messages (for some n from 1: all after
    ``offsets``, the last few after ``continued`` and ``keeping``) and ``tail`` the offset
    just after the array."""

    __slots__ = ("data", "count", "ends", "tail")

    def __init__(self, data: bytes, count: int, ends: dict[int, int], tail: int) -> None:
        self.data, self.count, self.ends, self.tail = data, count, ends, tail

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MessageOffsets) and (self.data, self.count, self.ends, self.tail) == (
            other.data, other.count, other.ends, other.tail)

    __hash__ = None  # type: ignore[assignment] -- compared by value, never a key

    def keeping(self, counts: Iterable[int]) -> MessageOffsets:
        """The same offsets with only the ends after these numbers of messages."""
        return MessageOffsets(self.data, self.count, {n: self.ends[n] for n in counts if n in self.ends}, self.tail)


def offsets(data: bytes) -> MessageOffsets | None:
    """The offsets of ``data``'s messages, reading the whole body (see the module)."""
    try:
        text = data.decode("utf-8")
        return _object(data, text)
    except (ValueError, StopIteration, RecursionError, IndexError):
        return None


def continued(data: bytes, earlier: MessageOffsets, shared: int) -> MessageOffsets | None:
    """The offsets of ``data``'s messages if it continues ``earlier``'s body after its first
    ``shared`` messages (``shared`` in ``earlier.ends``; see the module), reading only the
    bytes between; its ``ends`` are ``earlier``'s up to ``shared`` and the new messages'."""
    old = memoryview(earlier.data)
    start, rest = earlier.ends[shared], len(earlier.data) - earlier.tail
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
    kept = {n: at for n, at in earlier.ends.items() if n <= shared}
    return MessageOffsets(data, shared + len(ends), kept | dict(enumerate(ends, start=shared + 1)), stop)


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
            found = MessageOffsets(data, len(ends), dict(enumerate(ends, start=1)), byte_at(at))
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
    return _SPACE.match(text, at).end()  # type: ignore[union-attr] -- it matches the empty string too

"""Views: a text derived from its parent's text, with a map from each of its characters
back to the parent — a JSON string's characters to their (possibly escaped) source, an
SSE content block's reassembled text to the delta fragments it came from.
``to_root(view, start, end)`` turns a span of a view into runs of the root text, so a
secret found in a decoded view can be replaced where it really is, in every fragment.

The map is a list of segments ``(view start, parent start, parent length)``: a segment
is either a run copied as is (same length on both sides) or one escape unit (one
character from ``\\n``, ``\\u0061`` or a ``\\ud83d\\ude00`` pair). An *opaque* view
(base64 text) maps as a whole onto its source and has an ``encode`` to write itself back.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass

ESCAPE = re.compile(r'\\(?:u([0-9a-fA-F]{4})(?:\\u([dD][c-fC-F][0-9a-fA-F]{2}))?|(["\\/bfnrt]))')
_SIMPLE = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


Segments = tuple[list[int], list[int], list[int]]  # view starts, parent starts, parent lengths


@dataclass(eq=False)
class View:
    """A text and where each of its characters comes from in ``parent.text``; the map
    (``segments``) is built on first use (most views are never mapped back)."""

    text: str
    parent: View | None = None
    build: Callable[[], Segments] | None = None
    key: str = ""  # the JSON member (or YAML key) whose value this is
    kind: str = "text"  # json, unescaped, text_delta, thinking_delta, input_json_delta, sse-data, base64…
    encode: Callable[[str], str] | None = None  # opaque views only: new text → new parent text
    _segments: Segments | None = None

    @property
    def segments(self) -> Segments:
        if self._segments is None:
            self._segments = self.build() if self.build else ([], [], [])
        return self._segments


def root(text: str) -> View:
    return View(text)


def child(parent: View, raw: str, base: int, *, kind: str, key: str = "", json_string: bool = False) -> View:
    """The view of ``raw`` (found at ``parent.text[base:]``) with JSON escapes decoded;
    a backslash that starts no JSON escape is kept as it is. A ``json_string`` (the
    inside of a valid JSON string) is decoded by ``json``, anything else by regex."""
    if "\\" not in raw:
        return View(raw, parent, lambda: ([0], [base], [len(raw)]) if raw else ([], [], []), key, kind)
    text = json.loads(f'"{raw}"') if json_string else ESCAPE.sub(lambda m: "".join(c for c, _ in _units(m)), raw)
    return View(text, parent, lambda: _escape_segments(raw, base), key, kind)


def _units(match: re.Match[str]) -> list[tuple[str, int]]:
    """The characters one escape match stands for, each with its source length."""
    high, low, simple = match.groups()
    if simple:
        return [(_SIMPLE[simple], 2)]
    if low and 0xD800 <= int(high, 16) <= 0xDBFF:
        return [(chr(0x10000 + ((int(high, 16) - 0xD800) << 10) + int(low, 16) - 0xDC00), 12)]
    return [(chr(int(high, 16)), 6)] + ([(chr(int(low, 16)), 6)] if low else [])


def _escape_segments(raw: str, base: int) -> Segments:
    vstart: list[int] = []
    pstart: list[int] = []
    plen: list[int] = []
    n = pos = 0
    for match in ESCAPE.finditer(raw):
        if match.start() > pos:
            vstart.append(n), pstart.append(base + pos), plen.append(match.start() - pos)
            n += match.start() - pos
        at = base + match.start()
        for _, length in _units(match):
            vstart.append(n), pstart.append(at), plen.append(length)
            n, at = n + 1, at + length
        pos = match.end()
    if pos < len(raw):
        vstart.append(n), pstart.append(base + pos), plen.append(len(raw) - pos)
    return vstart, pstart, plen


def concat(parent: View, fragments: list[View], *, kind: str) -> View:
    """One view of several fragments of ``parent`` read in order (an SSE content block)."""

    def build() -> Segments:
        vstart: list[int] = []
        pstart: list[int] = []
        plen: list[int] = []
        offset = 0
        for fragment in fragments:
            starts, parents, lengths = fragment.segments
            vstart += [offset + v for v in starts]
            pstart += parents
            plen += lengths
            offset += len(fragment.text)
        return vstart, pstart, plen

    return View("".join(f.text for f in fragments), parent, build, kind=kind)


def opaque(parent: View, text: str, encode: Callable[[str], str]) -> View:
    """A view that stands for the whole of ``parent.text`` (decoded base64)."""
    return View(text, parent, lambda: ([0], [0], [len(parent.text)]), parent.key, "base64", encode)


def to_parent(view: View, start: int, end: int) -> list[tuple[int, int]]:
    """The runs of ``view.parent.text`` that ``view.text[start:end]`` comes from."""
    vstart, pstart, plen = view.segments
    if view.encode is not None:
        return [(pstart[0], pstart[0] + plen[0])]
    runs: list[tuple[int, int]] = []
    count = len(vstart)
    i = max(bisect_right(vstart, start) - 1, 0)
    while i < count and vstart[i] < end:
        v0 = vstart[i]
        v1 = vstart[i + 1] if i + 1 < count else len(view.text)
        if v1 - v0 == plen[i]:
            s, e = pstart[i] + max(start, v0) - v0, pstart[i] + min(end, v1) - v0
        else:
            s, e = pstart[i], pstart[i] + plen[i]
        if runs and runs[-1][1] == s:
            runs[-1] = (runs[-1][0], e)
        else:
            runs.append((s, e))
        i += 1
    return runs


def to_root(view: View, start: int, end: int) -> list[tuple[int, int]]:
    """The runs of the root text that ``view.text[start:end]`` comes from, in order."""
    runs = [(start, end)]
    while view.parent is not None:
        mapped: list[tuple[int, int]] = []
        for s, e in runs:
            for run in to_parent(view, s, e):
                if mapped and mapped[-1][1] == run[0]:
                    mapped[-1] = (mapped[-1][0], run[1])
                else:
                    mapped.append(run)
        runs, view = mapped, view.parent
    return runs

"""The text layer of the YAML reader: lines and columns, and the scalars that span
lines — single- and double-quoted (escapes, folding), plain (folding, comments) — and
the folding and chomping of block scalars, each as PyYAML's scanner does it, with the
line each character came from (``marks``: ``(offset in value, line)``).
"""

from __future__ import annotations

import re
from bisect import bisect_right

_ESCAPES = {"0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v", "f": "\f", "r": "\r",
            "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85", "_": "\xa0", "L": "\u2028",
            "P": "\u2029"}
_HEX = {"x": 2, "u": 4, "U": 8}
_RUN = {"'": re.compile(r"[^'\r\n]+"), '"': re.compile(r'[^"\\\r\n]+')}
Marks = list[tuple[int, int]]


class Text:
    """A YAML text and the scalar scanners that need only the text."""

    def __init__(self, text: str) -> None:
        self.t, self.n = text, len(text)
        self.starts = [0] + [m.end() for m in re.finditer(r"\n", text)]

    def line(self, pos: int) -> int:
        return bisect_right(self.starts, pos)

    def column(self, pos: int) -> int:
        return pos - self.starts[self.line(pos) - 1]

    def next_line(self, pos: int) -> int:
        end = self.t.find("\n", pos)
        return self.n if end < 0 else end + 1

    def quoted(self, k: int) -> tuple[str, Marks, int]:
        t, quote = self.t, self.t[k]
        chunks: list[str] = []
        marks = [(0, self.line(k))]
        size, i = 0, k + 1
        while i < self.n and not (t[i] == quote and not t.startswith("''", i) if quote == "'" else t[i] == quote):
            run = _RUN[quote].match(t, i)
            if run:
                piece, i = run.group(), run.end()
                if i < self.n and t[i] in "\r\n":
                    piece = piece.rstrip(" \t")
            elif t[i] == "'":
                piece, i = "'", i + 2
            elif t[i] == "\\" and i + 1 < self.n and t[i + 1] not in "\r\n":
                code = t[i + 1]
                width = _HEX.get(code, 0)
                piece = _hex_char(t[i + 2 : i + 2 + width], t[i : i + 2 + width]) if width else _ESCAPES.get(code, code)
                i += 2 + width
            else:
                escaped = t[i] == "\\"
                i, breaks = self.breaks(i + 1 if escaped else i)
                piece = "\n" * breaks if breaks or escaped else " "
                marks.append((size + len(piece), self.line(i)))
            chunks.append(piece)
            size += len(piece)
        return "".join(chunks), marks, i + 1

    def breaks(self, i: int) -> tuple[int, int]:
        """Past the line break at ``i`` and any empty lines: (position, empty lines)."""
        t, count = self.t, 0
        i += 2 if t.startswith("\r\n", i) else 1
        while True:
            while i < self.n and t[i] in " \t":
                i += 1
            if i < self.n and t[i] in "\r\n":
                i += 2 if t.startswith("\r\n", i) else 1
                count += 1
            else:
                return i, count

    def plain(self, k: int, indent: int, *, flow: bool) -> tuple[str, Marks, int]:
        t, stops = self.t, " \t\r\n" + (",[]{}" if flow else "")
        chunks: list[str] = []
        marks = [(0, self.line(k))]
        size, i, end, gap = 0, k, k, ""
        while i < self.n:
            j = i
            while j < self.n and t[j] not in stops and not (t[j] == ":" and t[j + 1 : j + 2] in ("", *stops)):
                j += 1
            if j == i:
                break
            chunks += [gap, t[i:j]]
            size += len(gap) + j - i
            end = i = j
            while i < self.n and t[i] in " \t":
                i += 1
            if i >= self.n or t[i] == "#" or (t[i] in ",[]{}:" and flow):
                break
            if t[i] not in "\r\n":
                gap = t[end:i]
                continue
            i, breaks = self.breaks(i)
            if i >= self.n or t[i] == "#" or (not flow and self.column(i) <= indent):
                break
            if self.column(i) == 0 and t.startswith(("---", "..."), i) and t[i + 3 : i + 4].strip() == "":
                break
            gap = "\n" * breaks if breaks else " "
            marks.append((size + len(gap), self.line(i)))
        return "".join(chunks), marks, end


def fold(lines: list[tuple[str, int]], folded: bool, chomp: str) -> tuple[str, Marks]:
    """A block scalar's value from its content lines ('' for an empty line), as PyYAML
    folds and chomps it, with the line of each content line."""
    chunks: list[str] = []
    marks: Marks = []
    size, idx, line_break = 0, 0, ""
    breaks = []
    while idx < len(lines) and not lines[idx][0]:
        breaks.append("\n")
        idx += 1
    while idx < len(lines):
        text, number = lines[idx]
        chunks += breaks
        size += len(breaks)
        marks.append((size, number))
        chunks.append(text)
        size += len(text)
        idx, line_break, breaks = idx + 1, "\n", []
        while idx < len(lines) and not lines[idx][0]:
            breaks.append("\n")
            idx += 1
        if idx < len(lines):
            joined = folded and text[:1] not in (" ", "\t") and lines[idx][0][:1] not in (" ", "\t")
            piece = (" " if not breaks else "") if joined else line_break
            chunks.append(piece)
            size += len(piece)
    if chomp != "-":
        chunks.append(line_break)
    if chomp == "+":
        chunks += breaks
    return "".join(chunks), marks


def _hex_char(digits: str, raw: str) -> str:
    """The character a ``\\xNN``/``\\uNNNN``/``\\UNNNNNNNN`` escape names; an escape that
    names none (not hex, past U+10FFFF) is kept as written, so its text is still scanned."""
    try:
        return chr(int(digits, 16))
    except ValueError:
        return raw

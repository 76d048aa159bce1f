"""Every scalar of a YAML text with the line each of its characters came from, without
a YAML library: block mappings and sequences (indentless ones too), flow collections,
plain, single- and double-quoted scalars folded over lines, literal and folded block
scalars, tags (``!!binary``), anchors, aliases and comments — what vcrpy cassettes and
scenario files are made of. Values are what PyYAML composes (the tests compare them on
every cassette); for a construct it does not know it keeps going, and the scanner's
line-by-line pass still reads the raw text.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from harness.cassette.redaction.yaml_text import Text, fold

_BLOCK_HEADER = re.compile(r"[|>]([+-]?)([1-9]?)([+-]?)")
_KEY_END = re.compile(r"[ \t]*:(?=[ \t\r\n]|$)")


@dataclass(frozen=True)
class Scalar:
    """A scalar's value, its tag (``!!binary`` …), the keys above it and, in ``marks``,
    ``(offset in value, line)`` wherever a new source line starts."""

    value: str
    marks: tuple[tuple[int, int], ...]
    path: tuple[str, ...]
    is_key: bool
    tag: str

    @property
    def line(self) -> int:
        return self.marks[0][1]

    def line_at(self, offset: int) -> int:
        """The 1-based line of ``value[offset]``."""
        return self.marks[max(bisect_right([m[0] for m in self.marks], offset) - 1, 0)][1]


def scalars(text: str) -> list[Scalar]:
    """The scalars of every document in ``text``, in order."""
    reader = _Reader(text)
    reader.read()
    return reader.out


class _Reader(Text):
    """Block structure: which key each scalar is under."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.stack: list[tuple[int, str | None]] = []
        self.out: list[Scalar] = []

    def path(self) -> tuple[str, ...]:
        return tuple(key for _, key in self.stack if key is not None)

    def emit(self, value: str, marks: list[tuple[int, int]], path: tuple[str, ...], is_key: bool, tag: str) -> None:
        self.out.append(Scalar(value, tuple(marks), path, is_key, tag))

    def read(self) -> None:
        pos = 0
        while pos < self.n:
            end = self.next_line(pos)
            line = self.t[pos:end].rstrip("\r\n")
            body = line.lstrip(" ")
            if not body.strip() or body.startswith("#") or line.startswith("%"):
                pos = end
            elif line[:3] in ("---", "...") and line[3:4] in ("", " ", "\t"):
                self.stack = []
                rest = len(line) - len(line[3:].lstrip())
                pos = self.node(pos + rest, -1, "") if line[3:].strip() and line[rest] != "#" else end
            else:
                pos = self.block(pos + len(line) - len(body), len(line) - len(body))

    def block(self, j: int, col: int) -> int:
        """One block-context line whose content starts at ``j`` (column ``col``)."""
        t = self.t
        while t.startswith("-", j) and (j + 1 >= self.n or t[j + 1] in " \t\r\n"):
            self.stack = [(i, k) for i, k in self.stack if i < col or (i == col and k is not None)]
            self.stack.append((col, None))
            k = j + 1
            while k < self.n and t[k] in " \t":
                k += 1
            if k >= self.n or t[k] in "\r\n#":
                return self.next_line(j)
            col, j = col + k - j, k
        if t[j] in "?:" and t[j + 1 : j + 2] in ("", " ", "\t", "\r", "\n"):  # explicit key / its value
            k = j + 1
            while k < self.n and t[k] in " \t":
                k += 1
            if t[j] == "?":
                self.stack = [(i, key) for i, key in self.stack if i < col]
            if k >= self.n or t[k] in "\r\n#":
                return self.next_line(j)
            if t[j] == ":":
                return self.block(k, col + k - j)
            pos = self.node(k, col, "", is_key=True)
            self.stack.append((col, self.out[-1].value if self.out and self.out[-1].is_key else ""))
            return pos
        key = self.key(j)
        if key is None:
            return self.node(j, self.stack[-1][0] if self.stack else -1, "")
        value, marks, after = key
        self.stack = [(i, k) for i, k in self.stack if i < col]
        self.emit(value, marks, self.path(), True, "")
        self.stack.append((col, value))
        while after < self.n and t[after] in " \t":
            after += 1
        if after >= self.n or t[after] in "\r\n#":
            return self.next_line(j)
        return self.node(after, col, "")

    def key(self, j: int) -> tuple[str, list[tuple[int, int]], int] | None:
        """A mapping key at ``j``: its value, marks and the position after its colon."""
        t = self.t
        if t[j] in "'\"":
            value, marks, end = self.quoted(j)
            colon = _KEY_END.match(t, end)
            return (value, marks, colon.end()) if colon else None
        if t[j] in "#&*!|>%@`[]{}," or (t[j] in "-:?" and t[j + 1 : j + 2] in ("", " ", "\t", "\r", "\n")):
            return None
        line_end = self.next_line(j)
        colon = _KEY_END.search(t, j, line_end)
        comment = t.find(" #", j, line_end)
        if colon is None or (0 <= comment < colon.start()):
            return None
        return t[j : colon.start()], [(0, self.line(j))], colon.end()

    def node(self, k: int, indent: int, tag: str, *, is_key: bool = False) -> int:
        """The node at ``k`` in block context; continuation lines are deeper than ``indent``."""
        t = self.t
        while t[k] in "!&":
            end = k
            while end < self.n and t[end] not in " \t\r\n":
                end += 1
            tag = t[k:end] if t[k] == "!" else tag
            while end < self.n and t[end] in " \t":
                end += 1
            if end >= self.n or t[end] in "\r\n#":
                return self.next_line(k)
            k = end
        if t[k] == "*":
            return self.next_line(k)
        if t[k] in "|>":
            return self.block_scalar(k, indent, tag)
        if t[k] in "[{":
            return self.next_line(self.flow(k, self.path()) - 1)
        if t[k] in "'\"":
            value, marks, end = self.quoted(k)
        else:
            value, marks, end = self.plain(k, indent, flow=False)
        self.emit(value, marks, self.path(), is_key, tag)
        return self.next_line(max(end - 1, k))

    def block_scalar(self, k: int, indent: int, tag: str) -> int:
        header = _BLOCK_HEADER.match(self.t, k)
        assert header is not None
        chomp = header.group(1) or header.group(3)
        content = indent + int(header.group(2)) if header.group(2) else None
        lines: list[tuple[str, int]] = []
        pos = self.next_line(k)
        while pos < self.n:
            end = self.next_line(pos)
            line = self.t[pos:end].rstrip("\r\n")
            width = len(line) - len(line.lstrip(" "))
            if not line.strip(" ") and (content is None or len(line) <= content):
                lines.append(("", self.line(pos)))
            elif width <= indent or (content is not None and width < content):
                break
            else:
                content = width if content is None else content
                lines.append((line[content:], self.line(pos)))
            pos = end
        value, marks = fold(lines, header.group()[0] == ">", chomp)
        self.emit(value, [(0, self.line(k))] + marks, self.path(), False, tag)
        return pos

    def flow(self, k: int, path: tuple[str, ...]) -> int:
        """A flow collection at ``k``; returns the position after its closing bracket."""
        t, close = self.t, "]" if self.t[k] == "[" else "}"
        i, key = k + 1, ""
        while i < self.n:
            c = t[i]
            if c in " \t\r\n,":
                key = "" if c == "," else key
                i += 1
            elif c == "#":
                i = self.next_line(i)
            elif c == close:
                return i + 1
            elif c in "[{":
                i = self.flow(i, path + ((key,) if key else ()))
            elif c in "?:" and t[i + 1 : i + 2] in ("", " ", "\t", "\r", "\n", ",", "]", "}"):
                i += 1
            elif c in "!&*":
                while i < self.n and t[i] not in " \t\r\n,]}":
                    i += 1
            else:
                start = i
                value, marks, i = self.quoted(i) if c in "'\"" else self.plain(i, -1, flow=True)
                i = max(i, start + 1)
                after = i
                while after < self.n and t[after] in " \t":
                    after += 1
                is_key = t[after : after + 1] == ":"
                self.emit(value, marks, path + ((key,) if key and not is_key else ()), is_key, "")
                key = value if is_key else key
        return i

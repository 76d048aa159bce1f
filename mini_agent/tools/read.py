"""Read: a text file's lines, numbered like ``cat -n``.

Only regular files are read: a FIFO, a socket or a device (``/dev/zero``) is refused
before anything waits on it (the file is opened non-blocking, then checked). The file
is streamed, never loaded whole: a line keeps at most ``MAX_LINE_BYTES`` (the rest is
counted, not kept), and one call reads at most ``MAX_READ_BYTES`` of the file, so a
2 GB file of one line costs kilobytes of memory.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import IO, Any

from .paths import resolve

DEFAULT_LIMIT = 2000
MAX_LINE_BYTES = 100_000
MAX_READ_BYTES = 64 * 1024 * 1024
_CHUNK = 1024 * 1024


class Read:
    """Return lines ``offset`` … ``offset + limit - 1`` of a file, numbered from 1."""

    name = "Read"
    description = (
        "Read a text file. Returns its lines numbered like `cat -n` (number, tab, line). "
        f"Reads up to {DEFAULT_LIMIT} lines from the start; for long files pass `offset` "
        "(the 1-based line number to start at) and `limit` (how many lines)."
    )
    input_schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "file_path": {
                "type": "string",
                "description": "Path of the file, absolute or relative to the working directory",
            },
            "offset": {"type": "integer", "description": "1-based line number to start at"},
            "limit": {"type": "integer", "description": "Number of lines to read"},
        },
        "required": ["file_path"],
        "additionalProperties": False,
    }

    def run(self, args: dict[str, Any], cwd: Path) -> str:
        """Read the lines asked for; a missing file or a directory raises."""
        path = resolve(args["file_path"], cwd)
        offset = int(args.get("offset", 1))
        limit = int(args.get("limit", DEFAULT_LIMIT))
        if offset < 1 or limit < 1:
            raise ValueError(f"offset and limit must be at least 1, got {offset} and {limit}")
        with _open_regular(path) as file:
            # one line more than asked for, to tell whether the file goes on
            lines, stopped = _lines(file, offset, limit + 1)
        if not lines and stopped:
            return f"(stopped after reading {MAX_READ_BYTES:,} bytes before line {offset}; the file is too big to read this far)"
        if not lines:
            empty = "(the file is empty)"
            return empty if offset == 1 else f"(the file has fewer than {offset} lines)"
        numbered = [f"{number:6}\t{line}" for number, line in enumerate(lines[:limit], offset)]
        if len(lines) > limit:
            numbered.append(f"(more lines follow; continue with offset={offset + limit})")
        elif stopped:
            numbered.append(f"(stopped after reading {MAX_READ_BYTES:,} bytes; continue with offset={offset + len(lines)})")
        return "\n".join(numbered)


def _open_regular(path: Path) -> IO[bytes]:
    """``path`` opened for reading if it is a regular file; raises saying what it is otherwise."""
    if not path.exists():
        raise FileNotFoundError(f"File does not exist: {path}")
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a directory, not a file")
    mode = path.stat().st_mode  # a socket cannot even be opened: say what it is first
    if not stat.S_ISREG(mode):
        raise OSError(f"{path} is {_kind(mode)}, not a regular file; Read only reads files")
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise OSError(f"{path} is {_kind(mode)}, not a regular file; Read only reads files")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb", buffering=_CHUNK)
    except BaseException:
        os.close(fd)
        raise


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device")):
        if test(mode):
            return name
    return "not a regular file"


def _lines(file: IO[bytes], offset: int, count: int) -> tuple[list[str], bool]:
    """Up to ``count`` lines from line ``offset`` on, each cut at ``MAX_LINE_BYTES``;
    and whether ``MAX_READ_BYTES`` ran out first."""
    lines: list[str] = []
    number, budget = 1, MAX_READ_BYTES
    while len(lines) < count and budget > 0:
        head = file.readline(min(MAX_LINE_BYTES, budget))
        if not head:
            return lines, False
        budget -= len(head)
        dropped = 0
        while not head.endswith(b"\n") and len(head) + dropped >= MAX_LINE_BYTES and budget > 0:
            rest = file.readline(min(_CHUNK, budget))  # the rest of a long line: counted, not kept
            if not rest:
                break
            budget -= len(rest)
            dropped += len(rest) - rest.endswith(b"\n")
            if rest.endswith(b"\n"):
                head += b"\n"
                break
        if number >= offset:
            text = head.decode("utf-8", errors="replace").removesuffix("\n").removesuffix("\r")
            lines.append(text + (f"… [{dropped:,} more bytes in this line]" if dropped else ""))
        number += 1
    return lines, budget <= 0

"""Files written whole or not at all, and the temporaries a killed writer left behind.

``write_atomically(path, text)`` writes a temporary file beside ``path`` (named
``.NAME.PID.RANDOM.tmp``), fsyncs it and renames it over ``path``: a reader sees the old
file or the new one, never half of one. The temporary is removed on every exit path
Python sees (an error, Ctrl+C, SIGTERM turned into SystemExit by the CLI). Only SIGKILL
or a power cut can leave one; ``sweep_stale`` removes those — the ones whose writing
process is gone — and every write starts with it, as does every command that writes a
file (``sweep_stale_of``, from ``harness.cli``). ``is_temporary`` tells a reader
(``harness scan``) to pass one by: it is half of a file.
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
from pathlib import Path
from typing import BinaryIO

from harness.wire.errors import HarnessError

_TEMPORARY = re.compile(r"^\.(?P<name>.+)\.(?P<pid>\d+)\.[A-Za-z0-9_]+\.tmp$")


def write_atomically(path: Path, text: str | bytes, *, mode: int | None = None) -> None:
    """Write ``text`` to ``path`` so that readers see the old file or the new one, whole.
    ``mode``: the new file's permissions (default: the old file's, else as ``open`` would)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    sweep_stale(path.parent, path.name)
    data = text.encode("utf-8") if isinstance(text, str) else text
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as stream:
            if hasattr(os, "fchmod"):
                os.fchmod(stream.fileno(), mode if mode is not None else _mode_of(path))
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    _fsync_folder(path.parent)


def sweep_stale(folder: Path, name: str | None = None) -> list[Path]:
    """Remove the temporaries in ``folder`` (of file ``name``, or of any file) whose
    writing process no longer runs; returns what was removed."""
    removed = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        match = _TEMPORARY.match(entry.name)
        if not match or (name is not None and match["name"] != name) or _alive(int(match["pid"])):
            continue
        try:
            if entry.is_file(follow_symlinks=False):
                os.unlink(entry.path)
                removed.append(Path(entry.path))
        except OSError:
            pass
    return removed


def sweep_stale_of(path: Path) -> list[Path]:
    """Remove the stale temporaries of the file ``path`` (see ``sweep_stale``)."""
    path = Path(path)
    return sweep_stale(path.parent, path.name)


def is_temporary(name: str) -> bool:
    """Whether a file name is one of ``write_atomically``'s temporaries (``.NAME.PID.RANDOM.tmp``)."""
    return _TEMPORARY.match(name) is not None


def temporaries(folder: Path) -> list[Path]:
    """The temporaries of ``write_atomically`` in ``folder``, live or stale."""
    try:
        return sorted(Path(e.path) for e in os.scandir(folder) if _TEMPORARY.match(e.name))
    except OSError:
        return []


def file_identity(path: Path) -> tuple[int, int, int] | None:
    """What tells a rewritten file from the old one (inode, size, mtime); None if absent."""
    try:
        stat = Path(path).stat()
    except OSError:
        return None
    return stat.st_ino, stat.st_size, stat.st_mtime_ns


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _mode_of(path: Path) -> int:
    try:
        return path.stat().st_mode & 0o777
    except OSError:
        mask = os.umask(0o022)
        os.umask(mask)
        return 0o666 & ~mask


def _fsync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class NotReadable(HarnessError, OSError):
    """A path that is not a regular file, or one too big to read."""


def read_regular(path: Path, *, max_bytes: int) -> bytes:
    """The bytes of the regular file at ``path``. A folder, a FIFO, a socket or a device
    raises NotReadable before anything waits on it (it is opened non-blocking, then
    checked), and so does a file over ``max_bytes``; other OSErrors pass through."""
    with open_regular(path, max_bytes=max_bytes) as stream:
        data = stream.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise NotReadable(f"{path} has more than the {max_bytes:,} bytes allowed")
    return data


def open_regular(path: Path, *, max_bytes: int) -> BinaryIO:
    """The regular file at ``path`` opened for reading in binary, checked as
    ``read_regular`` checks it: for a reader that takes a large file in pieces."""
    path = Path(path)
    if path.is_dir():
        raise NotReadable(f"{path} is a folder, not a file")
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotReadable(f"{path} is not a regular file (a FIFO, a socket or a device)")
        if info.st_size > max_bytes:
            raise NotReadable(f"{path} has {info.st_size:,} bytes, more than the {max_bytes:,} allowed")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise

"""Write: create or overwrite a file with the given text, whole or not at all.

The text goes to a temporary file beside the target (``.NAME.PID.RANDOM.tmp``), which is
then renamed over it: Ctrl+C or a crash midway leaves the old file (or none), never half
of the new one, and the temporary is removed on every exit path Python sees. One left by
a process that was killed outright is swept by the next Write into that folder.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path
from typing import Any

from .paths import resolve

_TEMPORARY = re.compile(r"^\.(?P<name>.+)\.(?P<pid>\d+)\.[A-Za-z0-9_]+\.tmp$")


class Write:
    """Write ``content`` to ``file_path`` as UTF-8, creating parent directories."""

    name = "Write"
    description = (
        "Write a file with the given content, replacing it if it exists and creating "
        "missing parent directories."
    )
    input_schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "file_path": {
                "type": "string",
                "description": "Path of the file, absolute or relative to the working directory",
            },
            "content": {"type": "string", "description": "The complete new content of the file"},
        },
        "required": ["file_path", "content"],
        "additionalProperties": False,
    }

    def run(self, args: dict[str, Any], cwd: Path) -> str:
        """Write the file and say how many bytes went where."""
        path = resolve(args["file_path"], cwd)
        data = args["content"].encode("utf-8")
        if path.is_dir():
            raise IsADirectoryError(f"{path} is a directory, not a file")
        target = path.resolve()  # write through a symlink, as plain open() would
        target.parent.mkdir(parents=True, exist_ok=True)
        sweep_stale(target.parent)
        replace_whole(target, data)
        return f"Wrote {len(data)} bytes to {path}"


def replace_whole(target: Path, data: bytes) -> None:
    """``data`` into ``target`` through a temporary file and a rename."""
    fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.{os.getpid()}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as stream:
            os.fchmod(stream.fileno(), _mode_of(target))
            stream.write(data)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def sweep_stale(folder: Path) -> None:
    """Remove the temporaries in ``folder`` whose writing process is gone."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        match = _TEMPORARY.match(entry.name)
        if match and not _alive(int(match["pid"])):
            try:
                os.unlink(entry.path)
            except OSError:
                pass


def _alive(pid: int) -> bool:
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

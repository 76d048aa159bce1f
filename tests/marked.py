"""The processes a command of this test process started and left alive, found by the mark
in their environment (mini_agent's ``MINI_AGENT_RUN``, the careful example's shell tag)."""

from __future__ import annotations

import os
import select
import time
from pathlib import Path

GRACE = 10.0  # seconds a process already sent SIGKILL may take to end on a busy machine


def carrying(variable: str, separator: str, *, grace: float = GRACE) -> list[int]:
    """Live (not zombie) processes whose environment has ``variable`` set to a value of this
    process (its pid, then ``separator``). A process killed a moment ago may not have
    ended yet: each one found is waited for (on its pidfd, up to ``grace`` seconds in all),
    so only one that outlives that is returned."""
    deadline = time.monotonic() + grace
    for pid in _carrying(variable, separator):
        ended(pid, max(0.0, deadline - time.monotonic()))
    return _carrying(variable, separator)


def ended(pid: int, limit: float) -> bool:
    """True once ``pid`` has ended (a zombie has), waiting on its pidfd for ``limit`` seconds
    at most; False if it still runs then."""
    try:
        handle = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        return bool(select.select([handle], [], [], limit)[0])
    finally:
        os.close(handle)


def _carrying(variable: str, separator: str) -> list[int]:
    prefix = f"{variable}={os.getpid()}{separator}".encode()
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            if entry.joinpath("stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                continue
            if any(v.startswith(prefix) for v in entry.joinpath("environ").read_bytes().split(b"\0")):
                found.append(int(entry.name))
        except (OSError, IndexError):
            continue
    return found

"""The processes a command of this test process started and left alive, found by the mark
in their environment (mini_agent's ``MINI_AGENT_RUN``, the careful example's shell tag)."""

from __future__ import annotations

import os
from pathlib import Path


def carrying(variable: str, separator: str) -> list[int]:
    """Live (not zombie) processes whose environment has ``variable`` set to a value of this
    process (its pid, then ``separator``)."""
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

"""The stop-failure hook, like Claude Code's StopFailure event: a shell command run when a
turn ends because of an API error, given the error as JSON on stdin. Whatever it does,
it never breaks the session: a failure or a timeout comes back as a line to show. When
it ends, times out or Ctrl+C stops it, every process it started is killed, ``setsid``'d
ones included (``mini_agent.tools.processes``)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from .tools import processes


def run_stop_failure_hook(command: str, payload: dict[str, Any], *, cwd: Path, timeout: float) -> str | None:
    """Run ``command`` with ``payload`` on stdin; None when it succeeded, else why not."""
    try:
        process, mark = processes.start(
            command, shell=True, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
    except OSError as error:
        return f"the stop-failure hook could not run: {error}"
    try:
        stdout, stderr = process.communicate(json.dumps(payload).encode(), timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"the stop-failure hook timed out after {timeout:g}s"
    finally:
        processes.kill_everything(process, mark)
    if process.returncode != 0:
        detail = (stderr or stdout).decode("utf-8", "replace").strip().splitlines()
        return f"the stop-failure hook exited with {process.returncode}" + (f": {detail[-1]}" if detail else "")
    return None

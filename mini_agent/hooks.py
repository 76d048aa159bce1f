"""The stop-failure hook, like Claude Code's StopFailure event: a shell command run when a
turn ends because of an API error, given the error as JSON on stdin. Whatever it does,
it never breaks the session: a failure or a timeout comes back as a line to show."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any


def run_stop_failure_hook(command: str, payload: dict[str, Any], *, cwd: Path, timeout: float) -> str | None:
    """Run ``command`` with ``payload`` on stdin; None when it succeeded, else why not."""
    try:
        done = subprocess.run(
            command,
            shell=True,
            cwd=cwd,
            input=json.dumps(payload),
            text=True,
            capture_output=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return f"the stop-failure hook timed out after {timeout:g}s"
    except OSError as error:
        return f"the stop-failure hook could not run: {error}"
    if done.returncode != 0:
        detail = (done.stderr or done.stdout).strip().splitlines()
        return f"the stop-failure hook exited with {done.returncode}" + (f": {detail[-1]}" if detail else "")
    return None

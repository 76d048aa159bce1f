"""The stop-failure hook, like Claude Code's StopFailure event: a shell command run when a
turn ends because of an API error, given the error as JSON on stdin. Whatever it does,
it never breaks the session: a failure or a timeout comes back as a line to show. When
it ends, times out or Ctrl+C stops it, every process it started is killed, ``setsid``'d
ones included (``mini_agent.tools.processes``)."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

from .tools import processes
from .tools.bash import Capture

OUTPUT_KEPT = 64_000  # bytes of each stream kept, for the last line of a failure


def run_stop_failure_hook(command: str, payload: dict[str, Any], *, cwd: Path, timeout: float) -> str | None:
    """Run ``command`` with ``payload`` on stdin; None when it succeeded, else why not."""
    mark, process = processes.new_mark(), None
    try:  # from before the start: a Ctrl+C that lands at any point still kills the hook
        try:
            process = processes.start(
                command, mark, shell=True, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
            )
        except OSError as error:
            return f"the stop-failure hook could not run: {error}"
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        stdout, stderr = Capture(process.stdout, OUTPUT_KEPT), Capture(process.stderr, OUTPUT_KEPT)
        try:
            process.stdin.write(json.dumps(payload).encode())
            process.stdin.close()
        except BrokenPipeError:
            pass  # a hook that does not read its input
        process.wait(timeout)  # the hook's own process, not whoever still holds its pipes
    except subprocess.TimeoutExpired:
        return f"the stop-failure hook timed out after {timeout:g}s"
    finally:
        processes.kill_everything(process, mark)
    drained = time.monotonic() + 1.0
    if process.returncode != 0:
        detail = (stderr.text(drained) or stdout.text(drained)).strip().splitlines()
        return f"the stop-failure hook exited with {process.returncode}" + (f": {detail[-1]}" if detail else "")
    return None

"""Bash: run a command in its own session; its output and exit code are data.

A nonzero exit code is not an error: the model reads it. When the command ends, times
out or is interrupted by Ctrl+C, every process it started is killed -- its session,
its descendants, and those that left with ``setsid`` (``processes``) -- so background
children (``sleep 100 &``) neither outlive it nor keep its pipes open, nor write a file
after the model was told the command is over. On timeout the output produced so far
comes back with ``[timed out after Ns]``.
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from pathlib import Path
from typing import IO, Any

from . import processes

DEFAULT_TIMEOUT = 120.0
MAX_TIMEOUT = 600.0
DRAIN_GRACE = 2.0
"""Seconds to wait for the pipes to close after the command's processes were killed;
only one that escaped (``setsid env -i …``, see ``processes``) can hold them open that long."""


class Bash:
    """Run ``bash -c COMMAND`` in the working directory with a timeout in seconds."""

    name = "Bash"
    description = (
        "Run a bash command in the working directory and return its stdout, stderr and "
        f"exit code. `timeout` is in seconds (default {DEFAULT_TIMEOUT:g}, at most "
        f"{MAX_TIMEOUT:g}). Background processes are killed when the command ends; "
        "stdin is empty."
    )
    input_schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": "The command to run with bash -c"},
            "timeout": {"type": "number", "description": "Seconds before the command is killed"},
        },
        "required": ["command"],
        "additionalProperties": False,
    }

    def __init__(
        self, default_timeout: float = DEFAULT_TIMEOUT, *, max_capture: int = 1_000_000
    ) -> None:
        """``max_capture``: bytes kept per stream (its head and tail halves)."""
        if default_timeout <= 0:
            raise ValueError(f"default_timeout must be positive, got {default_timeout}")
        self.default_timeout = default_timeout
        self.max_capture = max_capture

    def run(self, args: dict[str, Any], cwd: Path) -> str:
        """Run the command; return its labelled output and exit code (or the timeout)."""
        timeout = min(float(args.get("timeout", self.default_timeout)), MAX_TIMEOUT)
        if timeout <= 0:
            raise ValueError(f"timeout must be positive, got {timeout:g}")
        mark, process = processes.new_mark(), None
        try:  # from before the start: a Ctrl+C that lands at any point still kills the command
            process = processes.start(
                ["bash", "-c", args["command"]],
                mark,
                cwd=cwd,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
            assert process.stdout is not None and process.stderr is not None
            stdout = Capture(process.stdout, self.max_capture)
            stderr = Capture(process.stderr, self.max_capture)
            try:
                process.wait(timeout)
                timed_out = False
            except subprocess.TimeoutExpired:
                timed_out = True
        finally:
            processes.kill_everything(process, mark)
        drained = time.monotonic() + DRAIN_GRACE
        ending = f"[timed out after {timeout:g}s]" if timed_out else f"exit code: {process.returncode}"
        return _report(stdout.text(drained), stderr.text(drained), ending)


def _report(stdout: str, stderr: str, ending: str) -> str:
    """``[stdout]`` and ``[stderr]`` sections (when not empty), then ``ending``."""
    sections = [("stdout", stdout), ("stderr", stderr)]
    parts = [f"[{label}]\n" + text.removesuffix("\n") for label, text in sections if text]
    return "\n".join([*parts, ending])


class Capture:
    """Read one pipe on a thread, keeping its first and last ``limit // 2`` bytes."""

    def __init__(self, pipe: IO[bytes], limit: int) -> None:
        self._half = max(limit // 2, 1)
        self._head = bytearray()
        self._tail = bytearray()
        self._dropped = 0
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._pump, args=(pipe,), daemon=True)
        self._thread.start()

    def _pump(self, pipe: IO[bytes]) -> None:
        with pipe:
            while chunk := os.read(pipe.fileno(), 65536):
                with self._lock:
                    room = self._half - len(self._head)
                    self._head += chunk[:room]
                    self._tail += chunk[room:]
                    excess = len(self._tail) - self._half
                    if excess > 0:
                        del self._tail[:excess]
                        self._dropped += excess

    def text(self, deadline: float) -> str:
        """What was read, decoded; waits until ``deadline`` (monotonic) for the pipe to close."""
        self._thread.join(max(deadline - time.monotonic(), 0))
        with self._lock:
            data = bytes(self._head)
            if self._dropped:
                data += f"\n... [{self._dropped:,} bytes dropped] ...\n".encode()
            data += self._tail
        return data.decode("utf-8", errors="replace")

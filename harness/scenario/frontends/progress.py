"""Progress and Ctrl+C for long runs.

``Progress`` writes one line per finished item to standard error (``[ 12/71] pass
scenarios/stream/cut.yaml 0.05s``), or keeps one line up to date on a terminal.
``CtrlC`` counts Ctrl+C presses and still raises KeyboardInterrupt where each lands: an
agent under test may be meant to meet one (a scenario's own command can send SIGINT to
the process, as a terminal would). The run loop tells the user's Ctrl+C from such a one
by what it did: it escaped the scenario, or spoiled its verdict.
"""

from __future__ import annotations

import signal
import sys
import threading
from types import FrameType
from typing import Any, TextIO

EXIT_INTERRUPTED = 130


class Progress:
    """``[done/total] verdict item seconds`` on ``stream`` (default: standard error)."""

    def __init__(self, total: int, *, stream: TextIO | None = None, live: bool | None = None) -> None:
        self.total = total
        self.stream = stream or sys.stderr
        self.live = self.stream.isatty() if live is None else live  # one line, redrawn
        self.done = 0
        self.enabled = True

    def started(self, item: str) -> None:
        if self.enabled and self.live:
            self._write(f"\r\x1b[2K[{self.done + 1:>{len(str(self.total))}}/{self.total}] {item} …")

    def finished(self, item: str, verdict: str, seconds: float) -> None:
        self.done += 1
        if not self.enabled:
            return
        head = f"[{self.done:>{len(str(self.total))}}/{self.total}] {verdict:<5} {item} {seconds:.2f}s"
        self._write(f"\r\x1b[2K{head}" if self.live else head + "\n")

    def say(self, text: str) -> None:
        if self.enabled:
            self._write(("\r\x1b[2K" if self.live else "") + text + "\n")

    def close(self) -> None:
        if self.enabled and self.live and self.done:
            self._write("\r\x1b[2K")

    def _write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()


class CtrlC:
    """A context counting SIGINTs in ``presses``; each still raises KeyboardInterrupt
    (``raises=False``: only counted, for code that must not be broken off mid-read).
    Outside the main thread it does nothing."""

    def __init__(self, *, raises: bool = True) -> None:
        self.presses = 0
        self.raises = raises
        self._previous: Any = None

    def __enter__(self) -> CtrlC:
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._pressed)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)

    def _pressed(self, number: int, frame: FrameType | None) -> None:
        self.presses += 1
        if self.raises:
            raise KeyboardInterrupt

"""The request log of the fault server: one entry per request, as a line for people and
as JSON Lines for tools."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import asdict, dataclass, field
from os import PathLike
from typing import IO, Any, Callable


@dataclass
class LogEntry:
    """One request as the log tells it: what came in, what went out, what the oracle said."""

    number: int
    time: float  # Unix time
    elapsed: float  # seconds since the server started
    method: str
    path: str
    peer: str  # the client's address and port: the same for requests on one connection
    session: str | None
    streaming: bool
    status: int | None  # None: no HTTP response at all (a connection fault)
    answer: str  # Reply.describe(), or what the server answered by itself
    fault: str | None  # the plan's connection fault or non-complete ending
    violations: list[str] = field(default_factory=list)
    checked: bool = True  # whether the oracle looked at this request

    @property
    def verdict(self) -> str:
        """``ok``, ``not checked``, or the violations."""
        if not self.checked:
            return "not checked"
        return "; ".join(self.violations) if self.violations else "ok"

    def line(self) -> str:
        """One line, e.g.
        ``12:00:01.234 #3 POST /v1/messages (stream) → 200 text · cut after event 5 (FIN) · fault fin · oracle ok``
        """
        clock = time.strftime("%H:%M:%S", time.localtime(self.time)) + f".{int(self.time % 1 * 1000):03d}"
        session = f" [{_shorten(self.session)}]" if self.session else ""
        stream = " (stream)" if self.streaming else ""
        status = self.status if self.status is not None else "no response"
        fault = f" · fault {self.fault}" if self.fault else ""
        return (
            f"{clock} #{self.number}{session} {self.method} {self.path}{stream} → {status} "
            f"{self.answer}{fault} · oracle {self.verdict}"
        )


class RequestLog:
    """Numbers the entries, keeps them, and writes each as it is complete: a line to
    ``log`` (a callable or a text stream) and JSON to ``path``."""

    def __init__(
        self, log: Callable[[str], Any] | IO[str] | None = None, path: str | PathLike[str] | None = None
    ) -> None:
        self.entries: list[LogEntry] = []
        self._log = log
        self._path = path
        self._file: IO[str] | None = None
        self._lock = threading.Lock()
        self._numbered = 0
        self._started = time.monotonic()

    def open(self) -> None:
        """Start the clock of ``elapsed`` and open the JSON Lines file."""
        self._started = time.monotonic()
        if self._path is not None and self._file is None:
            self._file = open(self._path, "a", encoding="utf-8")  # noqa: SIM115 -- closed in close()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def entry(self, method: str, path: str, peer: str, *, status: int | None, answer: str, checked: bool = True) -> LogEntry:
        """A numbered entry, to be filled in and then written."""
        with self._lock:
            self._numbered += 1
            number = self._numbered
        return LogEntry(
            number, time.time(), time.monotonic() - self._started, method, path, peer, None, False, status, answer,
            None, checked=checked,
        )

    def write(self, entry: LogEntry) -> None:
        with self._lock:
            self.entries.append(entry)
            if callable(self._log):
                self._log(entry.line())
            elif self._log is not None:
                self._log.write(entry.line() + "\n")
                self._log.flush()
            if self._file is not None:
                self._file.write(json.dumps(asdict(entry) | {"verdict": entry.verdict}) + "\n")
                self._file.flush()


def _shorten(text: str, width: int = 40) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"

"""The request log of the fault server: one entry per request, as a line for people when
it arrives and as a JSON line for tools when its answer is over.

With a ``scrub`` the JSON line also holds the request's and the answer's headers and
bodies, as ``scrub`` lets them through; ``harness serve`` passes the cassette scrubber
(``harness.cassette.log_scrub``), so a log keeps exactly what a cassette would keep:
no key, no token, no cookie. Without one, no header or body is written at all.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import asdict, dataclass, field
from os import PathLike
from typing import IO, Any, Callable, Mapping, Protocol

from harness.wire.http11 import Request
from harness.wire.plan import WirePlan


class Scrub(Protocol):
    """What may be logged of one side of an exchange: ``(headers, body text)``."""

    def __call__(self, side: str, headers: Mapping[str, str], body: bytes) -> tuple[dict[str, Any], str | None]: ...


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
    ended: float | None = None  # seconds since the server started, when the answer was over
    request: dict[str, Any] | None = None  # {"headers", "body"}, scrubbed; None without a scrub
    response: dict[str, Any] | None = None  # {"headers", "body"}, scrubbed; None without a scrub
    retry_count: int | None = None  # the client's own count of its retries (``x-stainless-retry-count``)
    limited: str | None = None  # the rate limit whose 429 answered it
    usage: dict[str, Any] | None = None  # the usage the answer reported
    side: str | None = None  # the side-request rule it matched (``--side-requests``): not the scenario's conversation

    @property
    def served(self) -> str:
        """How the answer went: ``whole``, ``cut (FIN)``, ``cut (RST)``, ``stalled``,
        ``cut (Ctrl+C)``, or ``no response (refused)`` and the other connection faults."""
        if self.fault is None:
            return "whole"
        endings = {"fin": "cut (FIN)", "rst": "cut (RST)", "stall": "stalled", "interrupt": "cut (Ctrl+C)"}
        return endings.get(self.fault, f"no response ({self.fault})")

    @property
    def verdict(self) -> str:
        """``ok``, ``not checked``, or the violations."""
        if not self.checked:
            return "not checked"
        return "; ".join(self.violations) if self.violations else "ok"

    def to_json(self) -> dict[str, Any]:
        """The entry for the journal (``/__harness/journal``): no headers or bodies."""
        kept = {k: v for k, v in asdict(self).items() if k not in ("request", "response", "peer")}
        return kept | {"served": self.served, "verdict": self.verdict}

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
    """Numbers the entries and keeps them; writes each one's line to ``log`` (a callable
    or a text stream) when it starts and its JSON to ``path`` when it is over."""

    def __init__(
        self, log: Callable[[str], Any] | IO[str] | None = None, path: str | PathLike[str] | None = None,
        scrub: Scrub | None = None,
    ) -> None:
        self.entries: list[LogEntry] = []
        self._log = log
        self._path = path
        self._scrub = scrub
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
        with self._lock:
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

    def forget(self, session: str) -> None:
        """Drop the entries of ``session`` (``""``: the default one) from ``entries``."""
        with self._lock:
            self.entries = [e for e in self.entries if (e.session or "") != session]

    def started(self, entry: LogEntry) -> None:
        """Keep the entry and write its line."""
        with self._lock:
            self.entries.append(entry)
            if callable(self._log):
                self._log(entry.line())
            elif self._log is not None:
                self._log.write(entry.line() + "\n")
                self._log.flush()

    def finished(self, entry: LogEntry, request: Request | None = None, plan: WirePlan | None = None) -> None:
        """The answer is over: write the entry's JSON line, headers and bodies scrubbed."""
        entry.ended = time.monotonic() - self._started
        if self._scrub is not None and request is not None and plan is not None:
            entry.request = _side(self._scrub, "request", request.headers, request.body)
            if plan.connection is None:
                entry.response = _side(self._scrub, "response", plan.headers, plan.body) | {"status": plan.status}
        with self._lock:
            if self._file is not None:
                self._file.write(json.dumps(asdict(entry) | {"verdict": entry.verdict}, ensure_ascii=False) + "\n")
                self._file.flush()


def _side(scrub: Scrub, side: str, headers: Mapping[str, str], body: bytes) -> dict[str, Any]:
    kept, text = scrub(side, headers, body)
    return {"headers": kept, "body": text}


def _shorten(text: str, width: int = 40) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"

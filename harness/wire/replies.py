"""What the fake API answers to one request: a message, an error, or a broken connection,
with faults applied to the stream.

Events and bytes are counted from 1 in every field: ``after_event: 3`` means three
whole events reach the client first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

CONNECTION_FAULTS = ("refused", "connect_timeout", "read_timeout", "empty", "garbage")


@dataclass(frozen=True)
class Cut:
    """The connection drops mid-body: by FIN (clean close) or RST (reset)."""

    after_event: int | None = None
    in_event: int | None = None
    after_bytes: int | None = None
    in_char: int | None = None  # inside the first multi-byte UTF-8 character from event k on
    how: Literal["fin", "rst"] = "fin"


@dataclass(frozen=True)
class ErrorEvent:
    """An ``event: error`` inside the 200 stream, after event k."""

    after_event: int
    type: str = "overloaded_error"
    message: str = "Overloaded"


@dataclass(frozen=True)
class Stall:
    """The server stops sending after event k; the client's read times out."""

    after_event: int
    seconds: float = 600.0


@dataclass(frozen=True)
class Drip:
    """The body arrives in chunks of ``chunk`` bytes, ``delay`` seconds apart."""

    chunk: int = 16
    delay: float = 0.05


@dataclass(frozen=True)
class Insert:
    """A raw event inserted after event k (0 = before the first)."""

    after_event: int
    event: dict[str, Any]


@dataclass(frozen=True)
class Reply:
    """One answer to one request. Exactly one of ``message``, ``events``, ``error``,
    ``connection`` says what it is; the stream faults apply to ``message``/``events``."""

    message: dict[str, Any] | None = None
    events: list[dict[str, Any]] | None = None
    error: str | int | None = None
    connection: str | None = None
    message_text: str | None = None  # overrides the error's usual message
    body: str | None = None  # raw error body (an HTML 502 page)
    headers: dict[str, str] = field(default_factory=dict)
    cut: Cut | None = None
    error_event: ErrorEvent | None = None
    end_early: int | None = None
    bad_data: int | None = None
    stall: Stall | None = None
    drip: Drip | None = None
    pings: int = 0
    insert: tuple[Insert, ...] = ()
    duplicate: int | None = None
    swap: int | None = None
    interrupt: int | None = None  # Ctrl+C while streaming, after event k
    line: int | None = None  # where the reply stands in its scenario file
    unstreamed: Reply | None = None  # served instead to a request that does not stream

    @property
    def kind(self) -> str:
        """``message``, ``events``, ``error`` or ``connection``."""
        if self.error is not None:
            return "error"
        if self.connection is not None:
            return "connection"
        if self.events is not None:
            return "events"
        return "message"

    def describe(self) -> str:
        """A short label for timelines: ``529 overloaded``, ``text+tool_use · cut after event 5``."""
        if self.kind == "error":
            head = f"error {self.error}"
        elif self.kind == "connection":
            head = f"connection {self.connection}"
        elif self.kind == "events":
            head = f"{len(self.events or [])} raw events"
        else:
            parts = [k for k in ("thinking", "text", "tool_use", "content") if (self.message or {}).get(k) is not None]
            stop = (self.message or {}).get("stop_reason")
            head = "+".join(parts) or "empty message"
            head += f" ({stop})" if stop else ""
        return " · ".join([head, *self.fault_labels()])

    def fault_labels(self) -> list[str]:
        """The stream faults of this reply, in words."""
        labels = []
        if self.cut:
            where = next(
                f"{k.replace('_', ' ')} {v}"
                for k, v in (
                    ("after_event", self.cut.after_event),
                    ("in_event", self.cut.in_event),
                    ("after_bytes", self.cut.after_bytes),
                    ("in_char", self.cut.in_char),
                )
                if v is not None
            )
            labels.append(f"cut {where} ({self.cut.how.upper()})")
        if self.error_event:
            labels.append(f"event: error {self.error_event.type} after event {self.error_event.after_event}")
        if self.end_early is not None:
            labels.append(f"clean end after event {self.end_early}")
        if self.bad_data is not None:
            labels.append(f"non-JSON data after event {self.bad_data}")
        if self.stall:
            labels.append(f"stall {self.stall.seconds:g}s after event {self.stall.after_event}")
        if self.drip:
            labels.append(f"drip {self.drip.chunk}B/{self.drip.delay:g}s")
        if self.pings:
            labels.append(f"{self.pings} pings")
        if self.insert:
            labels.append(f"{len(self.insert)} inserted events")
        if self.duplicate is not None:
            labels.append(f"event {self.duplicate} twice")
        if self.swap is not None:
            labels.append(f"events {self.swap} and {self.swap + 1} swapped")
        if self.interrupt is not None:
            labels.append(f"Ctrl+C after event {self.interrupt}")
        if self.unstreamed is not None:
            labels.append(f"unstreamed: {self.unstreamed.describe()}")
        return labels

"""What the fake API answers to one request: a message, an error, or a broken connection,
with faults applied to the stream (``harness.wire.faults``, one module a kind).

Events and bytes are counted from 1 in every field: ``after_event: 3`` means three
whole events reach the client first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeVar

from harness.wire.faults.base import Fault

CONNECTION_FAULTS = ("refused", "connect_timeout", "read_timeout", "empty", "garbage")
F = TypeVar("F", bound=Fault)
_THINKING_TYPES = ("thinking", "redacted_thinking")


def empty_answer(message: dict[str, Any]) -> bool:
    """A message spec with no text but whitespace and no tool call: the "empty response"
    the stop-reason docs tell a client it may ask to go on from (with ``end_turn``; one
    that hit a stop sequence at once is as empty). Thinking is no answer: with thinking on,
    every answer opens with it, an empty one too."""
    blocks = message.get("content") or []
    return not message.get("tool_use") and not str(message.get("text") or "").strip() and empty_blocks(blocks)


def empty_blocks(blocks: Any) -> bool:
    """Whether ``blocks`` (a message's ``content``) hold nothing but thinking and blank text."""
    return isinstance(blocks, list) and all(
        isinstance(b, dict) and (b.get("type") in _THINKING_TYPES or b.get("type") == "text" and not str(b.get("text", "")).strip())
        for b in blocks)


@dataclass(frozen=True)
class Reply:
    """One answer to one request. Exactly one of ``message``, ``events``, ``error``,
    ``connection`` says what it is; the stream faults apply to ``message``/``events``
    (a cut also to an error's body). ``faults`` holds at most one fault of each kind and
    is kept in pipeline order."""

    message: dict[str, Any] | None = None
    events: list[dict[str, Any]] | None = None
    error: str | int | None = None
    connection: str | None = None
    message_text: str | None = None  # overrides the error's usual message
    body: str | None = None  # raw error body (an HTML 502 page)
    headers: dict[str, str] = field(default_factory=dict)
    faults: tuple[Fault, ...] = ()
    line: int | None = None  # where the reply stands in its scenario file
    unstreamed: Reply | None = None  # served instead to a request that does not stream
    as_written: bool = False  # served even where the real API could not answer so (thinking never asked for)

    def __post_init__(self) -> None:
        if len(self.faults) > 1 or type(self.faults) is not tuple:
            ordered = tuple(sorted(self.faults, key=lambda fault: fault.rank))
            if len({type(fault) for fault in ordered}) < len(ordered):
                raise ValueError(f"a reply has at most one fault of each kind: {', '.join(f.key for f in ordered)}")
            object.__setattr__(self, "faults", ordered)

    def fault(self, kind: type[F]) -> F | None:
        """This reply's fault of ``kind`` (``reply.fault(Cut)``), or None."""
        for fault in self.faults:
            if type(fault) is kind:
                return fault  # type: ignore[return-value]
        return None

    @property
    def thinks(self) -> bool:
        """Whether the reply holds a thinking block (written, raw or recorded)."""
        message = self.message or {}
        if message.get("thinking") is not None:
            return True
        starts = (e.get("content_block") for e in self.events or () if isinstance(e, dict))
        blocks = [*(message.get("content") or []), *starts]
        return any(isinstance(b, dict) and b.get("type") in _THINKING_TYPES for b in blocks)

    @property
    def stop_reason(self) -> Any:
        """The stop reason a message or raw-events reply gives (None: none)."""
        if self.message is not None:
            return self.message.get("stop_reason")
        for event in self.events or ():
            delta = event.get("delta") if isinstance(event, dict) and event.get("type") == "message_delta" else None
            if isinstance(delta, dict) and delta.get("stop_reason") is not None:
                return delta["stop_reason"]
        return None

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
        labels = [label for fault in self.faults if (label := fault.label()) is not None]
        if self.unstreamed is not None:
            labels.append(f"unstreamed: {self.unstreamed.describe()}")
        return labels

"""What goes on the wire for one request, as data (``WirePlan``), and the small changes
byte faults make to one: the body cut after a byte, the body in drops.
``harness.wire.planner`` makes plans from replies; the transports (in-process and
socket) carry them out.

Pure: no I/O, no clock.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from harness.wire.api_errors import error_body
from harness.wire.errors import HarnessError

Ending = Literal["complete", "fin", "rst", "stall", "interrupt"]
CLIENT_READ_TIMEOUT = 600.0
"""Seconds a client waits for the next bytes unless it sets its own: the SDKs' read timeout."""


@dataclass
class WirePlan:
    """What the server does for one request.

    ``connection`` set: no HTTP response at all (refused, timeout, empty, garbage).
    Otherwise ``status``/``headers`` after ``head_delay`` seconds, then ``chunks``, each
    after ``delays[i]`` seconds, and the body ends as ``ending`` says (after
    ``stall_seconds`` for a stall).
    """

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    chunks: list[bytes] = field(default_factory=list)
    delays: list[float] = field(default_factory=list)
    ending: Ending = "complete"
    stall_seconds: float = 0.0
    connection: str | None = None
    events: list[dict[str, Any]] = field(default_factory=list)
    form: str | None = None  # which form of a stream fault a request without ``stream`` got
    head_delay: float = 0.0  # seconds from the request to the status line (a recorded pace)

    @property
    def body(self) -> bytes:
        """Every byte that reaches the client."""
        return b"".join(self.chunks)

    def longest_silence(self) -> float:
        """The longest the client waits with nothing coming: before the status line,
        between two chunks, in a stall; a connection that times out, for ever."""
        if self.connection in ("connect_timeout", "read_timeout"):
            return float("inf")
        stall = self.stall_seconds if self.ending == "stall" else 0.0
        return max([self.head_delay, stall, *self.delays])


class NoJsonForm(HarnessError, ValueError):
    """A stream fault that a JSON body cannot carry (a request without ``stream``)."""


def json_plan(status: int, body: Any, request_id: str) -> WirePlan:
    """A plain JSON answer (an error the harness itself gives)."""
    data = json.dumps(body).encode()
    return WirePlan(status, {"content-type": "application/json", "request-id": request_id}, [data], [0.0])


def harness_error_plan(message: str, request_id: str) -> WirePlan:
    """The 500 the harness itself answers when it cannot serve a request (no reply left,
    a reply it cannot serve, its own bug), marked ``x-should-retry: false``: sending the
    same request again cannot change it."""
    plan = json_plan(500, error_body("api_error", message, request_id), request_id)
    plan.headers["x-should-retry"] = "false"
    return plan


def cut_after(plan: WirePlan, offset: int) -> None:
    """Keep only the first ``offset`` bytes of the plan's chunks."""
    chunks, delays, taken = [], [], 0
    for chunk, delay in zip(plan.chunks, plan.delays):
        if taken >= offset:
            break
        piece = chunk[: offset - taken]
        chunks.append(piece)
        delays.append(delay)
        taken += len(piece)
    plan.chunks, plan.delays = chunks, delays


def in_drops(plan: WirePlan, size: int, delay: float) -> None:
    """The plan's body again, in chunks of ``size`` bytes ``delay`` seconds apart."""
    body = plan.body
    plan.chunks = [body[i : i + size] for i in range(0, len(body), size)]
    plan.delays = [delay] * len(plan.chunks)


def frame_spans(frames: list[bytes]) -> list[tuple[int, int]]:
    """Where each frame starts and ends in the body they make."""
    spans, offset = [], 0
    for frame in frames:
        spans.append((offset, offset + len(frame)))
        offset += len(frame)
    return spans

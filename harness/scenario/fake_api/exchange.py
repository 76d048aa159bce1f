"""One request as the fake API saw it, and what it answered: what every check reads."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from harness.oracle import Violation
from harness.oracle.betas import request_betas
from harness.wire.plan import WirePlan
from harness.wire.replies import Reply


@dataclass
class Exchange:
    """One request as the server saw it, and what it answered.

    ``conversation`` is the whole conversation the request stands for: its body, or for
    a ``continue`` in a message thread the stored thread and then its new messages.
    ``refused`` names an answer the fake API gave by itself, before any reply of the
    scenario (``invalid_json``, ``not_an_object``, a thread error code such as
    ``thread_not_found``); ``violations`` are the oracle's. ``limited`` names the rate
    limit whose 429 answered it (``requests``, ``input_tokens``, ``output_tokens``,
    ``tokens``, ``acceleration``, ``spend_cap``: ``rate_limits``).
    """

    number: int
    time: float
    method: str
    path: str
    headers: dict[str, str]
    body: Any
    label: str
    mark: int = 0
    reply: Reply | None = None
    plan: WirePlan | None = None
    violations: list[Violation] = field(default_factory=list)
    finished: float | None = None  # when the answer was over: the body read, or the connection failed
    written: Reply | None = None  # the scripted reply as the scenario wrote it (the standard tool names)
    agent_wall: float | None = None  # the agent's own wall clock when the request came (None: not known)
    side: str | None = None  # the side-request rule it matched: not the scenario's conversation
    repeated: bool = False  # a final error served again: the request came after the turn's replies ran out
    conversation: Any = None
    refused: str | None = None
    session: str | None = None
    limited: str | None = None
    scale: float = 1.0  # real seconds a planned second took: a socket server's time_scale (0: nothing waited)
    timed_out: bool = False  # the client's read timeout ended a wait of the answer's before it was whole
    stream_broken: tuple[WirePlan, bool] | None = field(default=None, repr=False, compare=False)  # served.failed's, once a plan

    def ended(self, at: float) -> None:
        """Note when the answer was over (the first time only)."""
        if self.finished is None:
            self.finished = at

    @property
    def streaming(self) -> bool:
        """Whether the client asked for a stream."""
        return isinstance(self.body, dict) and bool(self.body.get("stream"))

    @property
    def betas(self) -> list[str]:
        """The request's ``anthropic-beta`` values."""
        return request_betas(self.headers) or []

    @property
    def whole(self) -> Any:
        """The whole conversation when known, else the body as sent."""
        return self.conversation if self.conversation is not None else self.body

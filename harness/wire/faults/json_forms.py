"""What a stream fault becomes for a request without ``stream`` (``Fault.json_form``): a
JSON body has no events, so each kind says which of these forms it takes, and
``harness.wire.planner`` combines the forms of a reply's faults, the strongest first.

    form       what the request gets                                      e.g.
    AsStatus   the same error as an HTTP status, with the API's error     an event: error
               body; nothing else applies
    CutBody    the JSON body cut at the share of the stream that had      a cut, a clean end
               arrived (or after ``after_bytes`` of the body), then FIN,  before message_stop,
               RST or Ctrl+C; the latest in the pipeline wins             Ctrl+C
    Silence    the headers, then silence                                  a stall
    Whole      the message whole: there are no events to change           pings
    Late       the headers and the body as late as the stream's first     a pace
               and last events would have come
    Drops      the body as the forms above left it, in drops              a drip

A kind with ``no_json_form`` (a frame that is not JSON) has none: the planner raises
NoJsonForm, and a scenario says what to serve instead with ``unstreamed:``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class JsonForm:
    """A fault's non-streaming form."""


@dataclass(frozen=True)
class AsStatus(JsonForm):
    """An HTTP error instead of the message; ``cause`` ends the plan's ``form`` note."""

    status: int
    error_type: str
    message: str
    cause: str


@dataclass(frozen=True)
class CutBody(JsonForm):
    """The body cut: after ``after_bytes`` of it, or at the share ``delivered`` bytes are
    of the whole stream."""

    how: Literal["fin", "rst", "interrupt"]
    delivered: int | None = None
    after_bytes: int | None = None


@dataclass(frozen=True)
class Silence(JsonForm):
    """The headers, then nothing for ``seconds``."""

    seconds: float


@dataclass(frozen=True)
class Whole(JsonForm):
    """The message served whole."""


@dataclass(frozen=True)
class Drops(JsonForm):
    """The body in chunks of ``chunk`` bytes, ``delay`` seconds apart."""

    chunk: int
    delay: float


@dataclass(frozen=True)
class Late(JsonForm):
    """The headers after ``headers`` seconds, the whole body ``body`` seconds after them."""

    headers: float
    body: float

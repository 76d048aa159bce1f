"""Strategies for one failed attempt (an HTTP error, a broken connection or stream),
and what each failure must do to a retry loop."""

from __future__ import annotations

import email.utils
import functools
import http
from dataclasses import dataclass, replace
from typing import Any, Callable, Mapping, Sequence

from hypothesis import event
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from hypothesis.strategies import SearchStrategy

from harness.oracle.retry import (
    error_type_is_transient,
    requested_wait,
    retried_by_the_sdks_only,
    status_is_retryable,
)
from harness.strategies.built import BOOLEANS, integers, once, texts
from harness.strategies.replies import plain_events
from harness.wire.api_errors import API_ERRORS, api_error
from harness.wire.clock import EPOCH_ORIGIN
from harness.wire.faults.base import Fault, fault_kinds, kind_for, sampled
from harness.wire.faults.error_event import ErrorEvent
from harness.wire.faults.stall import Stall
from harness.wire.plan import CLIENT_READ_TIMEOUT
from harness.wire.replies import CONNECTION_FAULTS, Reply
from harness.wire.sse_parse import tool_json_breaks

GIVE_UP_RETRY_AFTER = "2600000"
"""Seconds (30 days, as a monthly spend cap may ask): over any budget a generated scenario
sets, and under the longest wait a client can sleep (the SDK caps its sleep at 2**32 ms)."""
READ_TIMEOUT = CLIENT_READ_TIMEOUT
"""The read timeout a generated scenario's agent runs with (the SDK's default)."""


def _gateway_page(status: int) -> str:
    """The HTML page a proxy in front of the API answers with (``502 Bad Gateway``)."""
    title = f"{status} {http.HTTPStatus(status).phrase}"
    return f"<html><head><title>{title}</title></head><body><center><h1>{title}</h1></center></body></html>"


_RAISING_TOOL_JSON = (
    (" ", '{"file_path": "README.md"}'),  # a whitespace-only first piece
    ("", "nope"),
    ("", '{"file_path" "README.md"}'),
    ("", "{]"),
    ("", "[1,,2]"),
    ('{"command": "echo hi"', ", ,}"),
    ("", "tru"),
)


@dataclass(frozen=True)
class Effect:
    """What a fault does to the agent's retry loop, as the design says it must."""

    retryable: bool
    seconds: float = 0.0  # virtual time that passes before the failure shows (timeouts, stalls)
    retry_after: float | None = None  # what the server asks for
    sdk_rule_only: bool = False  # retryable by the official SDKs' rule only (a 408, a 409, x-should-retry: true)


def fault_effect(reply: Reply, *, timeout: float = READ_TIMEOUT) -> Effect:
    """Whether ``reply``'s failure must be retried, and the time it costs (DESIGN §3)."""
    if reply.connection is not None:
        slow = reply.connection in ("connect_timeout", "read_timeout")
        return Effect(True, timeout if slow else 0.0)
    if reply.error is not None:
        status = api_error(reply.error).status
        return Effect(status_is_retryable(status, reply.headers), 0.0, requested_wait(reply.headers, received_at=EPOCH_ORIGIN),
                      retried_by_the_sdks_only(status, reply.headers))
    error_event, stall = reply.fault(ErrorEvent), reply.fault(Stall)
    if error_event is not None:
        return Effect(error_type_is_transient(error_event.type))
    if stall is not None:
        return Effect(True, stall.seconds)
    return Effect(True)


def parser_dependent(reply: Reply) -> bool:
    """A failure only some clients see: tool-input JSON the SDK's partial parser gives up on,
    in a stream that otherwise arrives whole. A client that reads the input once its block
    stops, as the streaming docs say, may find it valid, or answer the call with an error
    result as the docs advise for invalid JSON: how the turn goes on is the client's."""
    calls = (reply.message or {}).get("tool_use") or []
    calls = calls if isinstance(calls, list) else [calls]
    if reply.error is not None or reply.connection is not None or reply.faults:
        return False
    return any(isinstance(call, dict) and "json" in call for call in calls) and tool_json_breaks(plain_events(reply))


@functools.cache
def _retry_headers() -> SearchStrategy[dict[str, str]]:
    seconds = st.integers(0, 10)
    return st.one_of(
        seconds.map(lambda s: {"retry-after": str(s)}),
        st.sampled_from(["0.5", "1.5", "soon"]).map(lambda s: {"retry-after": s}),
        st.integers(0, 10_000).map(lambda ms: {"retry-after-ms": str(ms)}),
        seconds.map(lambda s: {"retry-after": email.utils.formatdate(EPOCH_ORIGIN + s, usegmt=True)}),
    )


GATEWAY_STATUSES = (502, 503, 504)
"""What a proxy in front of the API answers by itself (an HTML 502 page, a 503, a gateway
timeout): with the API's own errors, every status a client can meet there."""


@functools.cache
def _error_names_or_statuses() -> SearchStrategy[str | int]:
    return st.sampled_from(sorted(API_ERRORS)) | st.sampled_from(GATEWAY_STATUSES)


@functools.cache
def _final_error_names() -> SearchStrategy[str]:
    return st.sampled_from([n for n in sorted(API_ERRORS) if not fault_effect(Reply(error=n)).retryable])


@st.composite
def http_errors(draw: st.DrawFn, *, retryable: bool | None) -> Reply:
    error: str | int = draw(_error_names_or_statuses())
    headers: dict[str, str] = {}
    if draw(BOOLEANS):
        headers |= draw(_retry_headers())
    if retryable is False:
        if draw(BOOLEANS):
            headers["x-should-retry"] = "false"
        else:
            error = draw(_final_error_names())
            headers.pop("x-should-retry", None)
            if draw(integers(0, 3)) == 0:
                headers["retry-after"] = GIVE_UP_RETRY_AFTER  # a 4xx with retry-after is still final
    elif draw(integers(0, 5)) == 0:
        headers["x-should-retry"] = draw(sampled(("true", "false")))
    reply = Reply(error=error, headers=headers)
    status = api_error(error).status
    if status in GATEWAY_STATUSES and draw(integers(0, 2)) == 0:  # a proxy's page, not the API's
        reply = replace(reply, body=_gateway_page(status))
    elif draw(integers(0, 6)) == 0:
        reply = replace(reply, message_text=draw(texts(30)))
    if retryable and not fault_effect(reply).retryable:
        reply = replace(reply, headers={**reply.headers, "x-should-retry": "true"})
    return reply


def failure_kinds() -> tuple[str, ...]:
    """What ``faults()`` draws from: an HTTP error, a connection fault, each registered
    fault kind whose role is ``failure`` (by its key), and tool-input JSON the SDK cannot parse."""
    return ("http", "connection", *(kind.key for kind in fault_kinds() if kind.role == "failure"), "bad_tool_json")


FINAL_KINDS = ("http", ErrorEvent.key)
"""The kinds that can fail in a way a client must not retry (a status, an error type)."""


@st.composite
def faults(
    draw: st.DrawFn,
    *,
    message: Mapping[str, Any] | None = None,
    kinds: Sequence[str] | None = None,
    retryable: bool | None = None,
) -> Reply:
    """One failed attempt at ``message`` (the answer the model was giving), from the whole
    vocabulary (``failure_kinds()``, or ``kinds``): an HTTP error by name or status
    (retry-after, x-should-retry, an HTML body), a connection fault, each stream fault
    kind that fails an attempt (a cut, ``event: error``, a clean end before
    ``message_stop``, a ``data:`` line that is not JSON, a stall …), tool-input JSON the
    SDK cannot parse. ``retryable`` keeps only faults the agent must retry (True) or
    must not (False)."""
    message = dict(message or {"text": "Working on it."})
    kinds = [k for k in kinds or failure_kinds() if retryable is not False or k in FINAL_KINDS]
    if not kinds:
        raise InvalidArgument("no fault kind left to draw from")
    kind = draw(sampled(tuple(kinds)))
    event(f"fault: {kind}")
    if kind == "http":
        return draw(once(http_errors, retryable=retryable))
    if kind == "connection":
        return Reply(connection=draw(sampled(tuple(CONNECTION_FAULTS))))
    if kind == "bad_tool_json":
        name = (message.get("tool_use") or [{"name": "Read"}])
        name = name[0]["name"] if isinstance(name, list) else name["name"]
        broken = {"name": name, "json": list(draw(sampled(tuple(_RAISING_TOOL_JSON))))}
        return Reply(message={k: v for k, v in message.items() if k not in ("tool_use", "stop_reason")} | {"tool_use": broken})
    reply = Reply(message=message)
    strategy = kind_for(kind).strategy(plain_events(reply), keep=_keeping(message, retryable))  # type: ignore[union-attr]
    if strategy is None:
        raise InvalidArgument(f"no {kind} fault fits this message")
    return replace(reply, faults=(draw(strategy),))


def _keeping(message: dict[str, Any], retryable: bool | None) -> Callable[[Fault], bool] | None:
    """For a kind whose values differ in it: keep those the agent must retry (or not)."""
    if retryable is None:
        return None
    return lambda fault: fault_effect(Reply(message=message, faults=(fault,))).retryable == retryable

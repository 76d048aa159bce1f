"""JSON outputs: to a request whose ``output_config.format`` (or the beta's top-level
``output_format``) is a ``json_schema``, the real API answers text that is JSON meeting
the schema, "guaranteed" but for a refusal (``stop_reason: refusal``) and an answer cut
by ``max_tokens`` (a prefix of it; as one cut by the context window): the structured
outputs docs.

A scenario's text, and a recording's, is written for any agent. To such a request the
fake API writes it as the schema's example with the text in its first plain string
(``json_schema.example``), delta for delta as the text came, so that every fault that
names an event lands where it did. Text that already is such JSON, or marked
``as_written``, is served as written. A reply it cannot so write is not for that agent
(``capabilities``): a raw text block that is not such JSON, a fault placed by bytes (the
JSON is longer), a schema it builds no value of, an empty answer (JSON is never empty:
what an agent does after one is a question for a request without JSON outputs), a fault
that leaves a text that is not such JSON (a duplicated or swapped delta).

    output_schema(request) -> Mapping | None      the schema a request's text must meet
    unwritable(reply, request) -> str | None      why reply cannot be served to it as JSON
    as_json_output(reply, request) -> Reply       reply with its text written as JSON
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any

from harness.scenario.fake_api.json_schema import Unbuildable, breach, example
from harness.wire.blocks import text_pieces
from harness.wire.errors import HarnessError
from harness.wire.faults.base import EventFault, RawFrame
from harness.wire.faults.moving import names_bytes
from harness.wire.planner import stream_events
from harness.wire.replies import Reply, empty_answer
from harness.wire.sse_parse import final_message

ASKS = "the request asks for JSON that meets its schema (output_config.format)"
CUT_SHORT = ("max_tokens", "model_context_window_exceeded")
"""The stop reasons of an answer cut while it was written: its JSON is a prefix."""


def output_schema(request: Any) -> Mapping[str, Any] | None:
    """The JSON schema ``request`` holds the text of its answer to, or None."""
    if not isinstance(request, Mapping):
        return None
    config = request.get("output_config")
    form = config.get("format") if isinstance(config, Mapping) else None
    form = request.get("output_format") if form is None else form
    if isinstance(form, Mapping) and form.get("type") == "json_schema" and isinstance(form.get("schema"), Mapping):
        return form["schema"]
    return None


class Unwritable(HarnessError, ValueError):
    """The reply's text cannot be written as the JSON the request asks for: why."""


def unwritable(reply: Reply, request: Any) -> str | None:
    """Why ``reply`` cannot be served to ``request`` as the JSON it asks for (None: it can,
    or it asks for none)."""
    try:
        _rewritten(reply, request)
    except Unwritable as error:
        return f"{ASKS}{error}"
    return None


def as_json_output(reply: Reply, request: Any) -> Reply:
    """``reply`` as the real API answers ``request``: its text written as JSON meeting the
    request's schema, where the request asks for one and the text is not (else as it is,
    also when it cannot be written: ``unwritable`` says why)."""
    try:
        return _rewritten(reply, request) or reply
    except Unwritable:
        return reply


def _rewritten(reply: Reply, request: Any) -> Reply | None:
    """``reply`` with its texts written as JSON; None when nothing is to be written."""
    schema = output_schema(request)
    if schema is None or reply.as_written or reply.stop_reason == "refusal":
        return None
    cut = reply.stop_reason in CUT_SHORT
    try:
        if reply.events is not None:
            changed = _events_written(reply.events, schema, cut)
            rewritten = dataclasses.replace(reply, events=changed) if changed is not None else None
        else:
            rewritten = _message_written(reply, schema, cut)
    except Unbuildable as error:
        raise Unwritable(f", and the fake API builds no value of it: {error}") from None
    if rewritten is not None and any(map(names_bytes, reply.faults)):
        raise Unwritable(": the text is written as JSON, longer, and a fault placed by bytes would land elsewhere")
    if not cut:
        _check_faulted(rewritten or reply, schema)
    return rewritten


def _check_faulted(reply: Reply, schema: Mapping[str, Any]) -> None:
    """Unwritable when the reply's event faults leave a message whose text is not such JSON
    (a duplicated delta or block start, swapped deltas): served on purpose, it meets an
    agent that trusts the guarantee where the API never does."""
    changing = [fault for fault in reply.faults if isinstance(fault, EventFault) and not fault.breaks_message]
    if not changing or reply.kind not in ("message", "events"):
        return
    try:
        message = final_message([e for e in stream_events(reply, message_id="msg_check", model="m")
                                 if not isinstance(e, RawFrame)])
    except (ValueError, KeyError, TypeError, IndexError):
        return  # no message comes: the stream is broken for every client, not the JSON
    texts = [b.get("text", "") for b in message.get("content") or [] if isinstance(b, Mapping) and b.get("type") == "text"]
    broken = next((text for text in texts if _free(text, schema)), None)
    if broken is not None:
        labels = ", ".join(fault.label() or fault.key for fault in changing)
        raise Unwritable(f": the reply's fault ({labels}) leaves text that is not such JSON: {_shown(broken)}")


def _message_written(reply: Reply, schema: Mapping[str, Any], cut: bool) -> Reply | None:
    message = reply.message or {}
    raw = [b.get("text") for b in message.get("content") or [] if isinstance(b, Mapping) and b.get("type") == "text"]
    free = [text for text in raw if not isinstance(text, str) or _free(text, schema)]
    if free:
        raise Unwritable(f" and a raw text block of the reply is not such JSON: {_shown(str(free[0]))}")
    text = message.get("text")
    if not isinstance(text, str) or not _free(text, schema):
        return None
    if empty_answer(message) and reply.stop_reason in (None, "end_turn", "stop_sequence"):
        raise Unwritable(": the reply is an empty answer, and the API's JSON is never empty (whether an agent asks "
                         "the model to go on after one is for a request without JSON outputs)")
    own = text_pieces(text)
    pieces = _written(own, schema, cut and not message.get("tool_use"))
    if reply.faults and len(pieces) != len(own):
        raise Unwritable(": its JSON comes in fewer pieces than the text's deltas, which the reply's faults count")
    return dataclasses.replace(reply, message={**message, "text": pieces})


def _events_written(events: list[dict[str, Any]], schema: Mapping[str, Any], cut: bool) -> list[dict[str, Any]] | None:
    """Recorded events with each text block that is not such JSON written as JSON, delta
    for delta (None: none is to be written)."""
    deltas: dict[Any, list[int]] = {}
    for n, event in enumerate(events):
        delta = event.get("delta") if isinstance(event, Mapping) else None
        if isinstance(delta, Mapping) and delta.get("type") == "text_delta" and isinstance(delta.get("text"), str):
            deltas.setdefault(event.get("index"), []).append(n)
        block = event.get("content_block") if isinstance(event, Mapping) else None
        if isinstance(block, Mapping) and block.get("type") == "text" and block.get("text"):
            raise Unwritable(f" and a recorded text block starts with text: {_shown(str(block['text']))}")
    last = max((e.get("index") for e in events if isinstance(e, Mapping) and isinstance(e.get("index"), int)), default=None)
    changed = list(events)
    for index, numbers in deltas.items():
        own = [events[n]["delta"]["text"] for n in numbers]
        if not _free("".join(own), schema):
            continue
        pieces = _written(own, schema, cut and index == last)
        if len(pieces) != len(own):
            raise Unwritable(f": a recorded text ({_shown(''.join(own))}) has more deltas than its JSON has characters")
        for n, piece in zip(numbers, pieces):
            changed[n] = {**events[n], "delta": {**events[n]["delta"], "text": piece}}
    return changed if changed != events else None


def _written(own: list[str], schema: Mapping[str, Any], cut: bool) -> list[str]:
    """A text's deltas (``own``) written as the schema's JSON holding the text, in as many
    deltas where it can; ``cut``: a prefix of it, as an answer cut by max_tokens."""
    written = example(schema, "".join(own))
    if written.around is None or not own:
        whole = written.json[:-1] if cut and len(written.json) > 1 else written.json
        count = max(1, min(len(own), len(whole)))
        return [whole[len(whole) * n // count : len(whole) * (n + 1) // count] for n in range(count)]
    before, after = written.around
    pieces = [json.dumps(piece, ensure_ascii=False)[1:-1] for piece in own]
    pieces[0] = before + pieces[0]
    if not cut:
        pieces[-1] += after
    return pieces


def _free(text: str, schema: Mapping[str, Any]) -> bool:
    """Whether ``text`` is not JSON meeting ``schema`` (as far as it is read)."""
    try:
        value = json.loads(text)
    except ValueError:
        return True
    return breach(schema, value, "the text") is not None


def _shown(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:37] + "...")

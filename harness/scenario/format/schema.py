"""The scenario format as one description (``scenario_spec()``): it checks a file with
errors at ``line:col`` naming the valid choices, and it is exported as the JSON Schema.
A reply's faults are described by their kinds (``harness.wire.faults``): each registered
kind is one key of a reply, its form read from its fields (``fault_spec``)."""

from __future__ import annotations

import functools
from typing import Any

from harness.scenario.format.limits import LIMITS_SPEC
from harness.scenario.format.pattern import Pattern
from harness.scenario.format.policy_names import POLICIES
from harness.scenario.format.spec import (
    Choice,
    Either,
    ListOf,
    MapOf,
    Obj,
    Scalar,
    Spec,
    show,
)
from harness.wire.api_errors import API_ERRORS
from harness.wire.faults.base import Fault, Setting, fault_kinds, settings_of
from harness.wire.replies import CONNECTION_FAULTS

STRING, INTEGER, NUMBER, BOOLEAN, ANY = (Scalar(k) for k in ("string", "integer", "number", "boolean", "any"))
COUNT = Scalar("integer", minimum=0)
POSITIVE = Scalar("integer", minimum=1)
SECONDS = Scalar("number", "seconds", minimum=0)
MAX_RETRIES = 1_000
MAX_TURNS = 500  # the conversation grows each turn: checking it is quadratic in its length
MAX_REPLIES = 1_000
STOP_REASONS = ("end_turn", "tool_use", "max_tokens", "stop_sequence", "pause_turn", "refusal", "model_context_window_exceeded")
END_REASONS = (*STOP_REASONS, "error", "interrupted", "internal_error", "context_window", "max_steps", "empty", "none")
END_ALIASES = {"model_context_window_exceeded": "context_window"}
"""A turn's end as the API's stop reason names it, and the name ``expect.end`` gives it."""
MESSAGE_FIELDS = ("text", "tool_use", "thinking", "content", "stop_reason", "stop_sequence", "usage")
KIND_FIELDS = ("error", "connection", "events", "recorded")


def _one_kind(reply: dict[str, Any]) -> str | None:
    message_keys = [k for k in MESSAGE_FIELDS if k in reply]
    kinds = [k for k in KIND_FIELDS if k in reply] + ([f"a message ({', '.join(message_keys)})"] if message_keys else [])
    if len(kinds) > 1:
        return f"a reply is one thing, but this one is {' and '.join(kinds)}"
    if not kinds:
        return f"a reply needs one of: {', '.join(KIND_FIELDS)}, or message keys ({', '.join(MESSAGE_FIELDS)})"
    return None


EVENT_PARTS = {  # type → (part, what it must be, whether it must be there): what the harness reads of a raw event
    "message_start": (("message", dict, False),),
    "content_block_start": (("index", int, False), ("content_block", dict, True)),
    "content_block_delta": (("index", int, True), ("delta", dict, True)),
    "content_block_stop": (("index", int, False),),
    "message_delta": (("delta", dict, False), ("usage", dict, False)),
    "error": (("error", dict, False),),
}
DELTA_TEXT = {"text_delta": "text", "thinking_delta": "thinking", "input_json_delta": "partial_json", "signature_delta": "signature"}


def event_parts(event: dict[str, Any]) -> str | None:
    """A raw event of a known type whose parts are not what the API sends: an ``index``
    that is not an integer, a ``delta`` that is not a mapping, a text delta without text."""
    kind = event["type"]
    for part, expected, needed in EVENT_PARTS.get(kind, ()):
        value = event.get(part)
        if (part in event or needed) and (not isinstance(value, expected) or isinstance(value, bool)):
            return f"the {kind} event's `{part}` must be {'an integer' if expected is int else 'a mapping'}, got {show(value)}"
    part = {"content_block_start": "content_block", "content_block_delta": "delta"}.get(kind)
    inner = event.get(part) or {} if part else {}
    if "type" in inner and not isinstance(inner["type"], str):
        return f"the {kind} event's `{part}.type` must be a string, got {show(inner['type'])}"
    key = DELTA_TEXT.get(inner.get("type", "")) if kind == "content_block_delta" else None
    if key and not isinstance(inner.get(key), str):
        return f"the {inner['type']}'s `{key}` must be a string, got {show(inner.get(key))}"
    return None


TOOL_USE = Obj(
    {"name": STRING, "input": ANY, "json": Either((STRING, ListOf(STRING))), "id": STRING},
    required=("name",),
    description="A tool call; `json` sends raw input JSON fragments verbatim instead of `input`.",
    what="tool_use",
)
THINKING = Either((STRING, Obj({"thinking": STRING, "signature": STRING}, required=("thinking",), what="thinking block")))
REPLY_FIELDS = {
    "text": STRING,
    "tool_use": Either((TOOL_USE, ListOf(TOOL_USE))),
    "thinking": Either((THINKING, ListOf(THINKING))),
    "content": ListOf(MapOf(ANY), description="raw content blocks"),
    "stop_reason": Scalar("string", f"usually one of: {', '.join(STOP_REASONS)}"),
    "stop_sequence": STRING,
    "usage": MapOf(COUNT),
    "events": ListOf(
        MapOf(ANY, needs={"type": STRING}, rules=(event_parts,)),
        description="raw stream events, each with its `type`: the escape hatch (the parts of the known types typed as the API types them)",
    ),
    "recorded": Scalar("integer", "interaction N (from 1) of the scenario's cassette, as recorded; faults overlay it", minimum=1),
    "error": Either(
        (Choice(tuple(API_ERRORS)), Scalar("integer", "an HTTP status", minimum=100, maximum=599)),
        "an API error by name, or any HTTP status",
    ),
    "message": Scalar("string", "the error's message, instead of the API's usual one"),
    "body": Scalar("string", "a raw error body (an HTML 502 page)"),
    "connection": Choice(CONNECTION_FAULTS, "the connection fails before any response"),
    "headers": MapOf(STRING),
    "as_written": Scalar("boolean", "serve the reply even where the real API could not answer so (thinking a request did not turn on)"),
}
USAGE_BOUNDS = ("requests", "input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens",
                "cost_usd")
PRICE = Obj(
    {name: Scalar("number", "USD per million tokens", minimum=0)
     for name in ("input", "output", "cache_write", "cache_write_1h", "cache_read")},
    required=("input", "output"),
    what="price",
)
USAGE_EXPECT = Obj(
    {
        **{name: Scalar("integer", f"at most this many {name.replace('_', ' ')}", minimum=0) for name in USAGE_BOUNDS[:-1]},
        "cost_usd": Scalar("number", "at most this much, priced from the price table", minimum=0),
        "prices": MapOf(PRICE, "a price table of your own, by model name prefix, over the built-in one"),
    },
    what="usage",
    description="upper bounds on what the agent used, retries included (harness.scenario.checks.budgets)",
)
NOTICE_PATTERN = Pattern()
_TURN_CHECKS = {
    "requests": Scalar("integer", "requests the agent made in this turn", minimum=0),
    "sleeps": ListOf(Either((SECONDS, ListOf(SECONDS, min_items=2))), description="waits asked of the clock: exact seconds, or [min, max]"),
    "notices": ListOf(NOTICE_PATTERN, description="agent notices, each after the one before (needs agent events)"),
    "no_notices": BOOLEAN,
    "end": Choice(END_REASONS),
    "tools": ListOf(STRING, description="the tool calls the agent answered, by standard name, in order"),
    "tool_results": ListOf(Obj({"error": BOOLEAN, "contains": Pattern()}, what="tool result expectation")),
    "text": Pattern("the model text shown in this turn contains this (or matches /regex/)"),
    "usage": USAGE_EXPECT,
    "idle_timeout": Scalar("number", "the agent gives up a stream that sends nothing for longer than this, seconds",
                           minimum=0),
}
FILE_EXPECT = Either((STRING, Obj({"contains": Pattern(), "absent": BOOLEAN}, what="file expectation")))
SCENARIO_CHECKS = {"files": MapOf(FILE_EXPECT), "requests": Scalar("integer", minimum=0), "usage": USAGE_EXPECT}


def policy_blocks(checks: dict[str, Any], depth: int = 3) -> Obj:
    """``policies:``: a block of expectations per policy, checked only for an agent that
    declares it; a block may hold a ``policies:`` of its own (``depth`` levels in all) for
    what hangs on several policies at once."""
    inner = {"policies": policy_blocks(checks, depth - 1)} if depth > 1 else {}
    return Obj(
        {name: Obj({**checks, **inner}, what=f"{name} expectations", description=f"checked for an agent that {kind.summary}")
         for name, kind in POLICIES.items()},
        what="policies",
        description="expectations of a policy, checked only for an agent that declares it (harness_policies)",
    )


POLICY_CHECKS = policy_blocks(_TURN_CHECKS)
TURN_EXPECT = Obj(
    {**_TURN_CHECKS, "policies": POLICY_CHECKS,
     "mini_agent": Obj(_TURN_CHECKS, what="mini_agent expectations", description="checked for mini_agent only")},
    what="expect",
)
INTERRUPT = Obj(
    {
        "at_event": Scalar("integer", "the turn's k-th event, counted from 1", minimum=1),
        "tool": Scalar("string", "when the named tool is called"),
        "close": Scalar("boolean", "close the turn's generator instead of pressing Ctrl+C"),
    },
    rules=(lambda i: None if ("at_event" in i) != ("tool" in i) else "an interrupt needs exactly one of: at_event, tool",),
    what="interrupt",
)
SETTINGS = Obj(
    {
        "model": STRING,
        "max_tokens": POSITIVE,
        "max_retries": Scalar("integer", "retries of one request", minimum=0, maximum=MAX_RETRIES),
        "retry_budget": SECONDS,
        "max_tool_output": POSITIVE,
        "max_steps": POSITIVE,
        "fallbacks": BOOLEAN,
        "system": STRING,
        "fallback_model": Scalar("string", "the model to switch to after `fallback_after` 529s in a row"),
        "fallback_after": POSITIVE,
        "api_timeout": Scalar("number", "seconds a request may take", minimum=0.001),
        "stop_failure_hook": Scalar("string", "a shell command run (JSON on stdin) when a turn ends on an API error"),
        "hook_timeout": Scalar("number", "seconds the hook may take", minimum=0.001),
    },
    what="settings",
)


def scenario_spec() -> Obj:
    """The format of a whole scenario file, with every registered fault kind."""
    return _scenario_spec(fault_kinds())


def reply_spec() -> Obj:
    """The format of one reply, with every registered fault kind."""
    return _reply_spec(fault_kinds())


@functools.cache
def _reply_spec(kinds: tuple[type[Fault], ...]) -> Obj:
    reply_fields = {**REPLY_FIELDS, **{kind.key: fault_spec(kind) for kind in kinds}}
    unstreamed = Obj(
        {k: v for k, v in reply_fields.items() if k != "recorded"},
        rules=(_one_kind,),
        what="unstreamed reply",
        description="what a request without `stream` gets instead (for faults a JSON body cannot carry)",
    )
    return Obj({**reply_fields, "unstreamed": unstreamed}, rules=(_one_kind,), what="reply")


@functools.cache
def _scenario_spec(kinds: tuple[type[Fault], ...]) -> Obj:
    reply = _reply_spec(kinds)
    turn = Obj(
        {"user": STRING, "replies": ListOf(reply, max_items=MAX_REPLIES), "interrupt": INTERRUPT, "expect": TURN_EXPECT},
        required=("user",),
        what="turn",
    )
    return Obj(
        {
            "name": STRING,
            "about": Scalar("string", "why this scenario exists"),
            "settings": SETTINGS,
            "workspace": MapOf(STRING, description="files created in a fresh temporary directory, the tools' cwd"),
            "turns": ListOf(turn, min_items=1, max_items=MAX_TURNS),
            "expect": Obj(
                {
                    **SCENARIO_CHECKS,
                    "transcript": Scalar("string", "a golden transcript file, relative to the scenario"),
                    "policies": policy_blocks(SCENARIO_CHECKS),
                },
                what="expect",
            ),
            "probe": Scalar("boolean", "after the last turn, check that one more turn still works (default true)"),
            "cassette": Scalar("string", "a vcrpy cassette, relative to the scenario, that `recorded: N` replies come from"),
            "agent": Scalar("string", "run only for this agent (its adapter's harness_agent_name): `mini_agent` for its own features"),
            "threads": Choice(
                ("supported", "unsupported"),
                "message threads: `unsupported` answers every threaded request with thread_unsupported_request",
            ),
            "limits": LIMITS_SPEC,
        },
        required=("name", "about", "turns"),
        what="scenario",
    )


def json_schema() -> dict[str, Any]:
    """The JSON Schema of the scenario format, for editors."""
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "Fault scenario", **scenario_spec().json_schema()}


def fault_spec(kind: type[Fault]) -> Spec:
    """A fault kind's YAML form, read from its fields: a bare value for its shorthand
    field (``cut: 5``), a mapping of its fields (``cut: {in_event: 4}``), or either."""
    settings = settings_of(kind)
    if not kind.mapping:
        shorthand = next(s for s in settings if s.name == kind.shorthand)
        return _setting_spec(shorthand, kind.key, kind.description or shorthand.description)
    if kind.shorthand is None:
        return _mapping(settings, kind.key, kind.rules, kind.description)
    shorthand = next(s for s in settings if s.name == kind.shorthand)
    return Either((_setting_spec(shorthand, kind.key), _mapping(settings, kind.key, kind.rules)), kind.description)


def _mapping(settings: tuple[Setting, ...], what: str, rules: tuple = (), description: str = "") -> Obj:
    fields = {s.name: _setting_spec(s, what) for s in settings}
    required = tuple(s.name for s in settings if s.required)
    return Obj(fields, required=required, rules=rules, description=description, what=what)


def _setting_spec(setting: Setting, what: str, description: str | None = None) -> Spec:
    words = setting.description if description is None else description
    if setting.kind == "choice":
        return Choice(setting.choices, words)
    if setting.kind == "mapping":
        return MapOf(ANY, words)
    if setting.kind == "list" and setting.item is not None:
        return ListOf(_mapping(settings_of(setting.item), what), description=words)
    if setting.kind == "list":
        return ListOf(Scalar(setting.item_kind, minimum=setting.minimum, maximum=setting.maximum), description=words)
    return Scalar(setting.kind, words, minimum=setting.minimum, maximum=setting.maximum)

"""Tool calls the real API does not make to the request that asked: more than one when
``tool_choice.disable_parallel_tool_use`` asks for one at most (the parallel tool use
docs), and, to a tool declared ``strict: true``, input that breaks its ``input_schema``
("guarantees Claude's tool inputs match your JSON Schema by constraining the model's token
sampling": the strict tool use docs), unless the answer was cut by ``max_tokens``. A
reply that makes such a call is not for that agent (``capabilities``): an agent that
trusts the guarantee would fail where the API never puts it.

The schema is read for what it states plainly (``type``, ``enum``, ``const``,
``required``, ``properties``, ``additionalProperties: false``, ``items``, ``anyOf``);
anything else is taken as met, so a breach named here is one.

    call_breach(reply, request, tool_map) -> str | None
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from harness.scenario.fake_api.tool_map import ToolMap
from harness.wire.replies import Reply

TYPES: dict[str, Any] = {
    "object": lambda v: isinstance(v, dict), "array": lambda v: isinstance(v, list), "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool), "null": lambda v: v is None,
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
}
NOT_JSON = object()


def call_breach(reply: Reply, request: Any, tool_map: ToolMap) -> str | None:
    """What in ``reply``'s tool calls the real API would not send to ``request``, or None."""
    if not isinstance(request, Mapping):
        return None
    calls = _calls(tool_map.reply_for_agent(reply))
    choice = request.get("tool_choice")
    if isinstance(choice, Mapping) and choice.get("disable_parallel_tool_use") is True and len(calls) > 1:
        return (f"the request allows one tool call at most (tool_choice.disable_parallel_tool_use) and the reply "
                f"makes {len(calls)}")
    if (reply.message or {}).get("stop_reason") == "max_tokens":
        return None  # cut while it wrote: no schema holds a half-written input
    tools = {t.get("name"): t for t in request.get("tools") or [] if isinstance(t, Mapping)}
    for name, given in calls:
        tool = tools.get(name)
        if not (isinstance(tool, Mapping) and tool.get("strict") is True):
            continue
        breach = "it is not JSON" if given is NOT_JSON else schema_breach(tool.get("input_schema"), given, "input")
        if breach is not None:
            return f"the agent's tool {name} is strict (strict: true) and the reply's input to it breaks its schema: {breach}"
    return None


def schema_breach(schema: Any, value: Any, where: str) -> str | None:
    """How ``value`` breaks ``schema`` at ``where``, or None (also for what is not read)."""
    if not isinstance(schema, Mapping):
        return None
    kinds = schema.get("type")
    kinds = [kinds] if isinstance(kinds, str) else kinds if isinstance(kinds, list) else []
    known = [TYPES[k] for k in kinds if k in TYPES]
    if known and not any(test(value) for test in known):
        return f"{where} is {_shown(value)}, not {' or '.join(map(str, kinds))}"
    if isinstance(schema.get("enum"), list) and value not in schema["enum"]:
        return f"{where} is {_shown(value)}, none of {schema['enum']}"
    if "const" in schema and value != schema["const"]:
        return f"{where} is {_shown(value)}, not {schema['const']!r}"
    options = schema.get("anyOf")
    if isinstance(options, list) and options and all(schema_breach(o, value, where) for o in options):
        return f"{where} is {_shown(value)}, which matches none of its anyOf"
    if isinstance(value, dict):
        return _object_breach(schema, value, where)
    if isinstance(value, list):
        return next(filter(None, (schema_breach(schema.get("items"), item, f"{where}[{n}]") for n, item in enumerate(value))), None)
    return None


def _object_breach(schema: Mapping[str, Any], value: dict[str, Any], where: str) -> str | None:
    properties = schema.get("properties") if isinstance(schema.get("properties"), Mapping) else {}
    missing = [key for key in schema.get("required") or [] if key not in value]
    if missing:
        return f"{where} lacks the required {missing[0]!r}"
    if schema.get("additionalProperties") is False:
        extra = [key for key in value if key not in properties]
        if extra:
            return f"{where} has {extra[0]!r}, which the schema does not allow"
    return next(filter(None, (schema_breach(properties.get(k), v, f"{where}.{k}") for k, v in value.items())), None)


def _calls(reply: Reply) -> list[tuple[str, Any]]:
    """A message reply's tool calls: name and input (parsed from raw ``json`` fragments;
    ``NOT_JSON`` when they do not parse)."""
    calls = (reply.message or {}).get("tool_use")
    found = []
    for call in calls if isinstance(calls, list) else [calls] if calls is not None else []:
        if not isinstance(call, Mapping):
            continue
        if "json" in call:
            text = "".join(call["json"]) if isinstance(call["json"], list) else str(call["json"])
            try:
                given: Any = json.loads(text) if text.strip() else {}
            except ValueError:
                given = NOT_JSON
        else:
            given = call.get("input", {})
        found.append((str(call.get("name")), given))
    return found


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."

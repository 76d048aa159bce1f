"""Tool calls the real API does not make to the request that asked: more than one when
``tool_choice.disable_parallel_tool_use`` asks for one at most (the parallel tool use
docs), and, to a tool declared ``strict: true``, input that breaks its ``input_schema``
("guarantees Claude's tool inputs match your JSON Schema by constraining the model's token
sampling": the strict tool use docs), unless the answer was cut short (``max_tokens``,
the context window). A
reply that makes such a call is not for that agent (``capabilities``): an agent that
trusts the guarantee would fail where the API never puts it.

The schema is read for what it states plainly (``json_schema``); anything else is taken
as met, so a breach named here is one.

    call_breach(reply, request, tool_map) -> str | None
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from harness.scenario.fake_api.json_outputs import CUT_SHORT
from harness.scenario.fake_api.json_schema import breach
from harness.scenario.fake_api.tool_map import ToolMap
from harness.wire.replies import Reply

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
    if reply.stop_reason in CUT_SHORT:
        return None  # cut while it wrote: no schema holds a half-written input
    tools = {t.get("name"): t for t in request.get("tools") or [] if isinstance(t, Mapping)}
    for name, given in calls:
        tool = tools.get(name)
        if not (isinstance(tool, Mapping) and tool.get("strict") is True):
            continue
        broken = "it is not JSON" if given is NOT_JSON else breach(tool.get("input_schema"), given, "input")
        if broken is not None:
            return f"the agent's tool {name} is strict (strict: true) and the reply's input to it breaks its schema: {broken}"
    return None


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

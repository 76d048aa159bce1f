"""Whether the agent can meet a reply at all: a scenario written for the standard tools
(``Read``, ``Write``, ``Bash``: reading a file, writing one, running a command) is not
applicable to an agent without a tool for that role, nor one whose tool lacks an
optional argument the scenario uses (``Read``'s ``offset``, ``limit``; ``Bash``'s
``timeout``). The agent's tools are read from the wire — the ``tools`` its request
declares, under the names its ``tool_map`` gives — so nothing is assumed of it.

    unmet_need(reply, request, tool_map) -> str | None    why the reply is not for this agent

A tool the standard set does not have (a call to ``Edit``, made on purpose to see an
agent answer an unknown tool) is no need: any agent must answer it. Raw ``json``
fragments say nothing of their arguments; only the tool's role counts for them.

Nor does the real API answer with thinking a request that did not turn thinking on, with
no tool call a request whose ``tool_choice`` forces one (``any``, ``tool``: the named
tool), with a tool call one that forbids them (``none``), or with ``pause_turn`` a request
that declares no server tool (the API pauses a turn only in its own loop of server tools),
nor two calls one that allows one, nor a strict tool's call whose input breaks its schema
(``strict_tools``), nor text it cannot write as the JSON a request asks for
(``json_outputs``): such a reply is not for that agent either, unless the scenario marks it
``as_written`` (it serves it on purpose).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from harness.oracle.request import server_tool_names
from harness.scenario.fake_api.json_outputs import unwritable
from harness.scenario.fake_api.strict_tools import call_breach
from harness.scenario.fake_api.tool_map import ToolMap
from harness.scenario.format.tools import STANDARD_TOOLS
from harness.wire.replies import Reply

ROLES = {"Read": "reads a file", "Write": "writes a file", "Bash": "runs a command"}
OPTIONAL = {
    spec.name: frozenset(spec.input_schema.get("properties", {})) - frozenset(spec.input_schema.get("required", []))
    for spec in STANDARD_TOOLS
}


def unmet_need(reply: Reply, request: Any, tool_map: ToolMap) -> str | None:
    """Why the agent that sent ``request`` cannot meet ``reply`` (None: it can)."""
    if not reply.as_written and reply.kind in ("message", "events"):
        unanswerable = _unanswerable(reply, request, tool_map)
        if unanswerable is not None:
            return f"{unanswerable}: the real API would not answer so (to serve it anyway, a scenario marks the reply as_written: true)"
    calls = [(name, arguments) for name, arguments in standard_calls(reply) if name in ROLES]
    if not calls:
        return None
    tools = _tools_by_name(request)
    for standard, arguments in calls:
        name = tool_map.agent_name(standard)
        if name not in tools:
            have = ", ".join(sorted(tools)) or "none"
            return (f"the agent has no tool that {ROLES[standard]} (the scenario calls {standard}; the agent's tools: "
                    f"{have}; a tool_map names which of them does)")
        for argument in sorted(arguments & OPTIONAL[standard]):
            own = tool_map.agent_argument(standard, argument)
            properties = _properties(tools[name])
            if own is None or (properties is not None and own not in properties):
                return (f"the agent's {name} has no `{own or argument}` argument (the scenario uses {standard}'s "
                        f"optional `{argument}`)")
    return None


def _unanswerable(reply: Reply, request: Any, tool_map: ToolMap) -> str | None:
    """What in ``reply`` the real API could not answer ``request`` with, or None."""
    if not thinking_on(request) and reply.thinks:
        return "the reply thinks, but the request did not turn thinking on"
    choice = request.get("tool_choice") if isinstance(request, Mapping) else None
    kind, forced = (choice.get("type"), choice.get("name")) if isinstance(choice, Mapping) else (None, None)
    called = [tool_map.agent_name(name) for name, _ in standard_calls(reply)] + _raw_calls(reply)
    if kind == "any" and not called:
        return "the request forces a tool call (tool_choice any) and the reply calls none"
    if kind == "tool" and forced not in called:
        return f"the request forces a call of {forced} (tool_choice tool) and the reply does not make it"
    if kind == "none" and called:
        return "the request forbids tool calls (tool_choice none) and the reply makes one"
    if reply.stop_reason == "pause_turn" and not server_tool_names(request if isinstance(request, Mapping) else {}):
        return ("the reply pauses the turn (pause_turn), which the API does only while it runs a server tool (web "
                "search, web fetch, code execution), and the request declares none")
    return call_breach(reply, request, tool_map) or unwritable(reply, request)


def _raw_calls(reply: Reply) -> list[str]:
    """The names called by what ``standard_calls`` does not read: a message's raw ``content``
    blocks (a tool's or a server tool's call) and a server tool's call in raw events."""
    blocks = [(b, ("tool_use", "server_tool_use")) for b in (reply.message or {}).get("content") or []]
    blocks += [(e.get("content_block"), ("server_tool_use",)) for e in reply.events or () if isinstance(e, Mapping)]
    return [str(b.get("name")) for b, kinds in blocks if isinstance(b, Mapping) and b.get("type") in kinds]


def thinking_on(request: Any) -> bool:
    """Whether a request turns thinking on (``enabled`` or ``adaptive``)."""
    thinking = request.get("thinking") if isinstance(request, Mapping) else None
    return isinstance(thinking, Mapping) and thinking.get("type") in ("enabled", "adaptive")


def _tools_by_name(request: Any) -> dict[str, Mapping[str, Any]]:
    """The tools a request declares, by name (a tool without a name is none)."""
    tools = request.get("tools") if isinstance(request, Mapping) else None
    if not isinstance(tools, list):
        return {}
    return {tool["name"]: tool for tool in tools if isinstance(tool, Mapping) and isinstance(tool.get("name"), str)}


def _properties(tool: Mapping[str, Any]) -> frozenset[str] | None:
    """A declared tool's input property names; None when its schema lists none."""
    schema = tool.get("input_schema")
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    return frozenset(properties) if isinstance(properties, Mapping) and properties else None


def standard_calls(reply: Any) -> Iterator[tuple[str, frozenset[str]]]:
    """Each tool call a reply makes, by the name the scenario wrote and the arguments its
    input names (none for raw fragments)."""
    message = getattr(reply, "message", None) or {}
    calls = message.get("tool_use")
    for call in calls if isinstance(calls, list) else [calls] if calls is not None else []:
        if isinstance(call, Mapping) and isinstance(call.get("name"), str):
            arguments = call.get("input")
            yield call["name"], frozenset(arguments) if isinstance(arguments, Mapping) else frozenset()
    yield from _streamed_calls(getattr(reply, "events", None) or [])


def _streamed_calls(events: list[Any]) -> Iterator[tuple[str, frozenset[str]]]:
    names: dict[Any, str] = {}
    pieces: dict[Any, str] = {}
    for event in events:
        if not isinstance(event, Mapping):
            continue
        block, delta = event.get("content_block"), event.get("delta")
        if event.get("type") == "content_block_start" and isinstance(block, Mapping) and block.get("type") == "tool_use":
            names[event.get("index")] = str(block.get("name"))
        elif isinstance(delta, Mapping) and delta.get("type") == "input_json_delta" and event.get("index") in names:
            pieces[event.get("index")] = pieces.get(event.get("index"), "") + str(delta.get("partial_json", ""))
    for index, name in names.items():
        try:
            arguments = json.loads(pieces.get(index) or "{}")
        except ValueError:
            arguments = {}
        yield name, frozenset(arguments) if isinstance(arguments, dict) else frozenset()

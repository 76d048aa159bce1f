"""The agent's own names for the standard tools, applied on the way out and undone on
the way back.

An agent under test may say how its tools differ from the standard set (``Read``,
``Write``, ``Bash``; see ``harness.scenario.format.tools``) with a ``tool_map`` attribute::

    tool_map = {"Read": {"name": "read_file", "input": {"file_path": "path", "limit": None}}}

The fake model's ``tool_use`` blocks are then served with the agent's tool name and
argument names; what comes back (``tool_use`` blocks in the history, the ``tool_result``
blocks that answer them) is read under the standard names. An argument the standard tool
does not have keeps its name, unless the agent uses that name for a standard argument:
then it is served with a ``_`` appended, so that a misnamed argument stays misnamed.
Raw ``content`` blocks, recorded and raw streams get the same treatment when a block's
input JSON parses; ``json:`` fragments keep their text (they are usually broken on
purpose). A renamed call streams in as many pieces as the standard one, each character
of its values in the piece it was in, so event numbers (``cut: {after_event}``,
``{in_char}``, ``interrupt: k``) mean the same for every agent; byte offsets count the
bytes served. A raw ``content`` call is the exception: its renamed input streams in the
pieces of its own JSON, which another agent's names may make more or fewer.

An argument mapped to ``None`` is one the agent's tool does not have: a scenario that
uses it (``limit`` above) is not applicable to that agent (``capabilities``).

One tool of the agent's may stand for several standard ones, each with arguments of its
own that every call carries (``with``): the API's text editor tool reads and writes::

    tool_map = {
        "Read": {"name": "str_replace_based_edit_tool", "input": {"file_path": "path", "offset": None, "limit": None},
                 "with": {"command": "view"}},
        "Write": {"name": "str_replace_based_edit_tool", "input": {"file_path": "path", "content": "file_text"},
                  "with": {"command": "create"}},
    }

A call is read back as the standard tool whose ``with`` its input holds; two standard
tools under one name need ``with`` arguments that tell them apart.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from harness.wire.blocks import json_pieces
from harness.wire.errors import HarnessError
from harness.wire.replies import Reply


class ToolMapError(HarnessError, ValueError):
    """A ``tool_map`` that is not shaped as the docstring above says."""


class ToolMap:
    """Standard tool and argument names ↔ the agent's."""

    def __init__(self, mapping: Mapping[str, Any] | None = None) -> None:
        self._names: dict[str, str] = {}
        self._arguments: dict[str, dict[str, str]] = {}
        self._missing: dict[str, set[str]] = {}
        self._with: dict[str, dict[str, Any]] = {}
        for standard, spec in (mapping or {}).items():
            if not isinstance(spec, Mapping) or not isinstance(spec.get("name", standard), str):
                raise ToolMapError(f"tool_map[{standard!r}] must be a mapping with a `name` and an `input` mapping")
            arguments, fixed = spec.get("input") or {}, spec.get("with") or {}
            if not isinstance(arguments, Mapping) or not all(v is None or isinstance(v, str) for v in arguments.values()):
                raise ToolMapError(
                    f"tool_map[{standard!r}].input must map standard argument names to the agent's (None: it has no such argument)"
                )
            if not isinstance(fixed, Mapping) or not all(isinstance(k, str) for k in fixed):
                raise ToolMapError(f"tool_map[{standard!r}].with must map argument names to the values every call carries")
            self._names[standard] = spec.get("name", standard)
            self._arguments[standard] = {k: v for k, v in arguments.items() if v is not None}
            self._missing[standard] = {k for k, v in arguments.items() if v is None}
            self._with[standard] = dict(fixed)
        self._standard: dict[str, list[str]] = {}
        for standard, agent in self._names.items():
            self._standard.setdefault(agent, []).append(standard)
        for agent, standards in self._standard.items():
            self._check_apart(agent, standards)

    def _check_apart(self, agent: str, standards: list[str]) -> None:
        """ToolMapError unless the ``with`` arguments of the standard tools sharing ``agent``
        tell each pair apart (one key with two values)."""
        for n, first in enumerate(standards):
            for second in standards[n + 1:]:
                one, other = self._with[first], self._with[second]
                if not any(key in other and other[key] != value for key, value in one.items()):
                    raise ToolMapError(
                        f"tool_map: {first} and {second} are both the agent's {agent!r}; give each a `with` that tells "
                        f"their calls apart (e.g. {first}: {{with: {{command: view}}}}, {second}: {{with: {{command: create}}}})"
                    )

    def __bool__(self) -> bool:
        return bool(self._names)

    def standard_name(self, name: str, arguments: Any = None) -> str:
        """The standard name of a call of one of the agent's tools with ``arguments`` (its
        input): the standard tool whose ``with`` the input holds (unknown names as they are)."""
        standards = self._standard.get(name, [name])
        if len(standards) == 1:
            return standards[0]
        given = arguments if isinstance(arguments, Mapping) else {}
        return next((s for s in standards if all(k in given and given[k] == v for k, v in self._with[s].items())), name)

    def shared(self, name: str) -> bool:
        """Whether several standard tools are the agent's ``name`` (told apart by ``with``)."""
        return len(self._standard.get(name, ())) > 1

    def agent_name(self, standard: str) -> str:
        """The agent's name for a standard tool (the standard name if it keeps it)."""
        return self._names.get(standard, standard)

    def agent_argument(self, standard: str, argument: str) -> str | None:
        """The agent's name for a standard tool's argument; None if it says it has none."""
        if argument in self._missing.get(standard, ()):
            return None
        return self._arguments.get(standard, {}).get(argument, argument)

    def reply_for_agent(self, reply: Reply) -> Reply:
        """``reply`` with its tool calls in the agent's names."""
        if not self._names:
            return reply
        if reply.message and reply.message.get("tool_use") is not None:
            calls = reply.message["tool_use"]
            renamed = [self._call(c) for c in calls] if isinstance(calls, list) else self._call(calls)
            reply = replace(reply, message={**reply.message, "tool_use": renamed})
        if reply.message and isinstance(reply.message.get("content"), list):  # raw blocks: their input streams as renamed
            blocks = [self._block(b) for b in reply.message["content"]]
            reply = replace(reply, message={**reply.message, "content": blocks})
        if reply.events is not None:
            reply = replace(reply, events=self._events(reply.events))
        return reply

    def _block(self, block: Any) -> Any:
        if not isinstance(block, Mapping) or block.get("type") != "tool_use" or block.get("name") not in self._names:
            return block
        renamed = {**block, "name": self._names[block["name"]]}
        if isinstance(block.get("input"), Mapping):
            renamed["input"] = self._input(block["name"], block["input"])
        return renamed

    def _call(self, call: Any) -> Any:
        if not isinstance(call, Mapping) or call.get("name") not in self._names:
            return call
        standard = call["name"]
        renamed = {**call, "name": self._names[standard]}
        if isinstance(call.get("input"), Mapping):  # in as many pieces as the standard call: its events keep their numbers
            del renamed["input"]
            pieces = json_pieces(call["input"])
            renamed["json"] = self._renamed_pieces(standard, pieces) if len(pieces) > 1 else self._empty_input(standard)
        return renamed

    def _empty_input(self, standard: str) -> list[str]:
        text = json.dumps(self._input(standard, {}), ensure_ascii=False)
        return [""] + ([text] if text != "{}" else [])

    def _renamed_pieces(self, standard: str, pieces: list[str]) -> list[str] | None:
        """The pieces of a tool input's JSON (an object) with its arguments renamed, each
        character of a value in the piece it was in (so that a fault placed in a piece,
        ``cut: {in_char: k}``, finds what it found there); None when they are not an object."""
        text = "".join(pieces)
        found = _key_spans(text)
        if found is None:
            return None
        opening, spans = found
        keys = [self._argument_name(standard, json.loads(text[a:b])) for a, b in spans]
        fixed = "".join(f"{_dumps(k)}: {_dumps(v)}, " for k, v in self._with.get(standard, {}).items() if k not in keys)
        edits = [(opening + 1, opening + 1, fixed if spans else fixed.removesuffix(", "))]
        edits += [(a, b, _dumps(key)) for (a, b), key in zip(spans, keys)]
        out, done = "", 0
        for a, b, new in edits:
            out, done = out + text[done:a] + new, b
        out += text[done:]
        bounds = [0, *(_moved(position, edits) for position in itertools.accumulate(map(len, pieces)))]
        bounds[-1] = len(out)
        return [out[a:b] for a, b in zip(bounds, bounds[1:])]

    def _argument_name(self, standard: str, argument: str) -> str:
        """The name a standard argument is served under (see the module)."""
        names, fixed = self._arguments.get(standard, {}), self._with.get(standard, {})
        return names.get(argument, f"{argument}_" if argument in set(names.values()) | set(fixed) else argument)

    def _input(self, standard: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
        return {**self._with.get(standard, {}), **{self._argument_name(standard, k): v for k, v in arguments.items()}}

    def _events(self, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        out = [dict(e) for e in events]
        tools: dict[Any, str] = {}
        for event in out:
            block = event.get("content_block")
            if event.get("type") == "content_block_start" and isinstance(block, dict) and block.get("name") in self._names:
                tools[event.get("index")] = block["name"]
                event["content_block"] = {**block, "name": self._names[block["name"]]}
        for index, standard in tools.items():
            self._rename_streamed_input(out, index, standard)
        return out

    def _rename_streamed_input(self, events: list[dict[str, Any]], index: Any, standard: str) -> None:
        """Rename the arguments of one streamed tool input, keeping its number of pieces."""
        deltas = [
            e for e in events
            if e.get("type") == "content_block_delta" and e.get("index") == index
            and isinstance(e.get("delta"), dict) and e["delta"].get("type") == "input_json_delta"
        ]
        pieces = self._renamed_pieces(standard, [str(e["delta"].get("partial_json", "")) for e in deltas]) if deltas else None
        for event, piece in zip(deltas, pieces or ()):
            event["delta"] = {**event["delta"], "partial_json": piece}


def _key_spans(text: str) -> tuple[int, list[tuple[int, int]]] | None:
    """Where the JSON object ``text`` opens and where each of its keys is (quotes
    included); None when ``text`` is not one JSON object."""
    decoder, spans = json.JSONDecoder(), []
    opening = _skip(text, 0)
    if not text.startswith("{", opening):
        return None
    at = _skip(text, opening + 1)
    try:
        while not text.startswith("}", at):
            key, end = decoder.raw_decode(text, at)
            colon = _skip(text, end)
            if not isinstance(key, str) or not text.startswith(":", colon):
                return None
            spans.append((at, end))
            at = _skip(text, decoder.raw_decode(text, _skip(text, colon + 1))[1])
            if text.startswith(",", at):
                at = _skip(text, at + 1)
            elif not text.startswith("}", at):
                return None
    except ValueError:
        return None
    return (opening, spans) if _skip(text, at + 1) == len(text) else None


def _skip(text: str, at: int) -> int:
    """The first position from ``at`` that is not JSON whitespace."""
    while at < len(text) and text[at] in " \t\n\r":
        at += 1
    return at


def _moved(position: int, edits: list[tuple[int, int, str]]) -> int:
    """Where ``position`` of a text lands once ``edits`` ((start, end, new text), in order)
    are made: inside an edited span, as far into its new text (at most its end)."""
    shift = 0
    for start, end, new in edits:
        if position <= start:
            break
        if position < end:
            return start + shift + min(position - start, len(new))
        shift += len(new) - (end - start)
    return position + shift


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)

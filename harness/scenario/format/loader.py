"""Scenario files: a conversation, the replies the "API" gives to each request, the
faults, and what must hold. ``load_scenario(path)`` checks the whole file first and
reports every mistake as ``path:line:col: message``.

    name: overloaded-then-success
    about: Two 529s, then the answer.
    turns:
      - user: Summarize the README
        replies:
          - error: overloaded
            headers: {retry-after: "2"}
          - text: It is a demo.
        expect: {requests: 2, sleeps: [2.0], end: end_turn}
"""


from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from harness.scenario.format.limits import limits_from
from harness.scenario.format.model import Interrupt, Scenario, ScenarioError, Turn
from harness.scenario.format.overlay import recorded_replies
from harness.scenario.format.positions import scenario_position_problems
from harness.scenario.format.problem import Problem
from harness.scenario.format.sandbox import path_problems
from harness.scenario.format.schema import MESSAGE_FIELDS, scenario_spec
from harness.scenario.format.yaml_positions import YamlError, load_located
from harness.wire.faults.base import Fault, fault_kinds
from harness.wire.replies import Reply


def load_scenario(path: str | Path, *, positions: bool = True) -> Scenario:
    """Read, check and parse one scenario file. ``positions=False`` leaves out the check
    that every fault's event or byte position lies within its reply (to list or rewrite
    a file whose faults are aimed beyond their replies)."""
    path = Path(path)
    try:
        document = load_located(path)
    except YamlError as error:
        raise ScenarioError([error.problem]) from None
    problems = scenario_spec().check(document, (1, 1), "")
    if not problems:
        problems = path_problems(path, document)
    base: dict[int, Reply] = {}
    if not problems:
        base, problems = recorded_replies(path, document)
    if problems:
        raise ScenarioError(_located(path, problems))
    scenario = Scenario(
        name=document["name"],
        about=document["about"],
        path=path,
        turns=tuple(_turn(t, _pos(document["turns"], i), base) for i, t in enumerate(document["turns"])),
        settings=dict(document.get("settings", {})),
        workspace=dict(document.get("workspace", {})),
        expect=_plain(document.get("expect", {})),
        expect_lines=key_lines(document.get("expect", {})),
        probe=document.get("probe", True),
        agent=document.get("agent"),
        threads=document.get("threads", "supported") == "supported",
        limits=limits_from(document["limits"]) if "limits" in document else None,
    )
    problems = scenario_position_problems(scenario, document) if positions else []
    if problems:
        raise ScenarioError(_located(path, problems))
    return scenario


def _located(path: Path, problems: list[Problem]) -> list[Problem]:
    return [p.in_file(str(path)) for p in problems]


def problems_in(path: str | Path) -> list[Problem]:
    """Every mistake in a scenario file (empty when it is fine)."""
    try:
        load_scenario(path)
    except ScenarioError as error:
        return error.problems
    return []


def _turn(data: dict[str, Any], line: int, base: dict[int, Reply]) -> Turn:
    interrupt = data.get("interrupt")
    replies = data.get("replies", [])
    return Turn(
        user=data["user"],
        replies=tuple(reply_from(r, _pos(replies, i), base.get(r.get("recorded"))) for i, r in enumerate(replies)),
        interrupt=Interrupt(interrupt.get("at_event"), interrupt.get("tool"), interrupt.get("close", False)) if interrupt else None,
        expect=_plain(data.get("expect", {})),
        line=line,
        expect_lines=key_lines(data.get("expect", {})),
    )


def reply_from(data: dict[str, Any], line: int | None = None, recorded: Reply | None = None) -> Reply:
    """A checked reply mapping as a Reply (``recorded``: the cassette reply it overlays)."""
    message = {k: _plain(data[k]) for k in MESSAGE_FIELDS if k in data}
    base = recorded or Reply()
    return Reply(
        message=message or None,
        events=_plain(data["events"]) if "events" in data else base.events,
        error=data.get("error", base.error),
        body=data.get("body", base.body),
        connection=data.get("connection"),
        message_text=data.get("message"),
        headers=base.headers | {str(k).lower(): str(v) for k, v in data.get("headers", {}).items()},
        faults=_faults(data, base.faults),
        line=line,
        unstreamed=reply_from(data["unstreamed"], line) if "unstreamed" in data else None,
        as_written=bool(data.get("as_written", False)),
    )


def _faults(data: dict[str, Any], recorded: tuple[Fault, ...] = ()) -> tuple[Fault, ...]:
    """The faults a reply mapping names, each read by its kind; over a recorded reply's
    own (its pace), a mapping's fields laid over the recorded fault's."""
    faults = {type(fault): fault for fault in recorded}
    for kind in fault_kinds():
        if kind.key not in data:
            continue
        value = _plain(data[kind.key])
        if isinstance(value, dict) and kind in faults:
            faults[kind] = replace(faults[kind], **{k: tuple(v) if isinstance(v, list) else v for k, v in value.items()})
        else:
            faults[kind] = kind.from_yaml(value)
    return tuple(fault for fault in faults.values() if fault is not None)


def key_lines(expect: Any, prefix: str = "") -> dict[str, int]:
    """The line of each key of a located ``expect`` mapping, nested blocks as ``block.key``."""
    lines: dict[str, int] = {}
    for key, (line, _) in getattr(expect, "key_pos", {}).items():
        lines[f"{prefix}{key}"] = line
        if isinstance(expect[key], dict):
            lines |= key_lines(expect[key], f"{prefix}{key}.")
    return lines


def _pos(items: Any, index: int) -> int:
    positions = getattr(items, "item_pos", None)
    return positions[index][0] if positions else 0


def _plain(value: Any) -> Any:
    """Located containers as plain dicts and lists (JSON round trip keeps it simple)."""
    return json.loads(json.dumps(value)) if isinstance(value, (dict, list)) else value

"""Scenario → YAML: the inverse of ``scenario.load_scenario``.

``dump_scenario(s)`` writes the format a person would (shorthands where they say the
same thing: ``cut: 5``, ``error_event: 3``); ``load_scenario`` reads it back to a
scenario equal to ``s`` but for where things stand in the file
(``without_positions(a) == without_positions(b)``).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import yaml

from harness.scenario.format.model import Scenario, Turn
from harness.wire.files import write_atomically
from harness.wire.replies import Reply


class _Dumper(yaml.SafeDumper):
    """Block style, no anchors, multi-line strings as literal blocks where YAML allows."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


_YAML_BREAKS = frozenset("\x85\u2028\u2029")  # line breaks to YAML 1.1, but not to PyYAML's quoting


def _represent_str(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    if _YAML_BREAKS.intersection(text):
        style: str | None = '"'  # single quotes and blocks fold them into spaces or newlines
    else:
        style = "|" if "\n" in text else None  # the emitter falls back to quotes when it must
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


def _represent_dict(dumper: yaml.SafeDumper, data: dict[Any, Any]) -> yaml.MappingNode:
    node = dumper.represent_dict(data)
    if any(isinstance(v, str) and "\n" in v for v in data.values()):
        node.flow_style = False  # block style, so that the text can be a literal block
    return node


_Dumper.add_representer(str, _represent_str)
_Dumper.add_representer(dict, _represent_dict)


def dump_scenario(scenario: Scenario) -> str:
    """The YAML text of ``scenario``."""
    document: dict[str, Any] = {"name": scenario.name, "about": scenario.about}
    if scenario.settings:
        document["settings"] = dict(scenario.settings)
    if scenario.workspace:
        document["workspace"] = dict(scenario.workspace)
    document["turns"] = [turn_mapping(turn) for turn in scenario.turns]
    if scenario.expect:
        document["expect"] = scenario.expect
    if not scenario.probe:
        document["probe"] = False
    if scenario.agent:
        document["agent"] = scenario.agent
    if scenario.limits is not None:
        document["limits"] = scenario.limits.to_yaml()
    return yaml.dump(document, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100, default_flow_style=None)


def write_scenario(scenario: Scenario, path: str | Path) -> Path:
    """Write ``scenario`` to ``path`` atomically (parent folders are created)."""
    path = Path(path)
    write_atomically(path, dump_scenario(scenario))
    return path


def turn_mapping(turn: Turn) -> dict[str, Any]:
    """One turn as a YAML mapping."""
    data: dict[str, Any] = {"user": turn.user}
    if turn.replies:
        data["replies"] = [reply_mapping(reply) for reply in turn.replies]
    if turn.interrupt is not None:
        interrupt = turn.interrupt
        data["interrupt"] = {"at_event": interrupt.at_event} if interrupt.at_event is not None else {"tool": interrupt.tool}
        if interrupt.close:
            data["interrupt"]["close"] = True
    if turn.expect:
        data["expect"] = turn.expect
    return data


def reply_mapping(reply: Reply) -> dict[str, Any]:
    """One reply as a YAML mapping. A message reply without content is written as
    ``content: []``, which plays the same (the format has no empty reply)."""
    data: dict[str, Any] = dict(reply.message or {})
    if reply.events is not None:
        data["events"] = reply.events
    if reply.error is not None:
        data["error"] = reply.error
    if reply.connection is not None:
        data["connection"] = reply.connection
    if reply.message_text is not None:
        data["message"] = reply.message_text
    if reply.body is not None:
        data["body"] = reply.body
    if not data:
        data["content"] = []
    if reply.headers:
        data["headers"] = dict(reply.headers)
    for fault in reply.faults:
        data[fault.key] = fault.to_yaml()
    if reply.as_written:
        data["as_written"] = True
    return data


def without_positions(scenario: Scenario) -> Scenario:
    """``scenario`` with its path and line numbers blanked, for comparing scenarios."""
    turns = tuple(
        replace(turn, line=0, replies=tuple(replace(reply, line=None) for reply in turn.replies))
        for turn in scenario.turns
    )
    return replace(scenario, path=Path(), turns=turns)

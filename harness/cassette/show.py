"""``harness lint --show-commands FILE…``: what a scenario or a cassette would make an
agent do, listed before anything runs.

A scenario or a cassette is code: its replies hold tool calls that an agent carries
out -- ``Bash`` commands, ``Write`` s -- and a scenario's ``workspace:`` and
``settings.stop_failure_hook`` act too. This lists every one of them, per file: the
workspace files a run creates, the hook command, and each tool call in the replies
(scenario messages, raw ``events``, ``recorded:`` interactions, or every response of a
cassette), as the agent would receive it, faults aside.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Sequence

from harness.scenario.format.library import SCENARIO_SUFFIXES
from harness.scenario.format.loader import load_scenario
from harness.scenario.format.model import ScenarioError
from harness.wire import sse
from harness.wire.cassette_file import CassetteError, load_cassette, response_body_bytes
from harness.wire.sse_parse import decode_events

TOOL_BLOCKS = ("tool_use", "server_tool_use", "mcp_tool_use")


def cmd_show_commands(args: argparse.Namespace) -> int:
    """Print what each file would cause; exit 2 if a file cannot be read."""
    failed = False
    totals = {"command": 0, "write": 0, "read": 0, "other": 0}
    for path in _files(args.paths):
        try:
            lines = list(file_actions(path))
        except (ScenarioError, CassetteError, OSError) as error:
            print(f"{path}: cannot list its commands:\n  {error}")
            failed = True
            continue
        print(f"{path}:" + ("" if lines else " no commands, writes or tool calls"))
        for kind, text in lines:
            totals[kind] += 1
            print(f"  {text}")
    print(f"{totals['command']} command(s), {totals['write']} file write(s), {totals['read']} file read(s), "
          f"{totals['other']} other tool call(s)")
    return 2 if failed else 0


def _files(paths: Sequence[str]) -> list[Path]:
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found += sorted(p for p in path.rglob("*") if p.suffix in SCENARIO_SUFFIXES and p.is_file())
        else:
            found.append(path)
    return found


def file_actions(path: Path) -> Iterator[tuple[str, str]]:
    """(kind, line) for everything ``path`` would cause: ``command``, ``write``, ``read`` or ``other``."""
    if _is_cassette(path):
        for number, interaction in enumerate(load_cassette(path), 1):
            for call in _response_tool_calls(interaction.get("response") or {}):
                yield describe(call, f"interaction {number}")
        return
    scenario = load_scenario(path)
    for name, content in scenario.workspace.items():
        yield "write", f"creates workspace file {name} ({len(str(content).encode())} bytes)"
    hook = scenario.settings.get("stop_failure_hook")
    if hook:
        yield "command", f"settings.stop_failure_hook runs (when a turn ends on an API error): {hook}"
    for t, turn in enumerate(scenario.turns, 1):
        for r, reply in enumerate(turn.replies, 1):
            events = reply.events if reply.events is not None else (
                sse.message_events(reply.message, message_id="msg_show", model="show") if reply.message else []
            )
            for call in tool_calls(events):
                yield describe(call, f"turn {t}, reply {r}")


def _is_cassette(path: Path) -> bool:
    try:
        with path.open("rb") as stream:
            head = stream.read(4096)
    except OSError:
        return False
    return b"interactions:" in head or b'"interactions"' in head


def _response_tool_calls(response: Mapping[str, Any]) -> list[dict[str, Any]]:
    try:
        body = response_body_bytes(response)
    except CassetteError:
        return []
    if body.lstrip().startswith(b"{"):
        try:
            message = json.loads(body)
        except ValueError:
            return []
        content = message.get("content") if isinstance(message, dict) else None
        return [b for b in content or [] if isinstance(b, dict) and b.get("type") in TOOL_BLOCKS]
    try:
        return tool_calls(decode_events(body))
    except ValueError:
        return []


def tool_calls(events: Iterable[Any]) -> list[dict[str, Any]]:
    """The tool_use blocks a stream of events carries, their input put together from its
    JSON fragments (raw text where they do not parse). Tolerant of broken streams."""
    blocks: dict[int, dict[str, Any]] = {}
    pieces: dict[int, list[str]] = {}
    for event in events:
        if not isinstance(event, Mapping):
            continue
        index = event.get("index")
        if event.get("type") == "content_block_start":
            block = event.get("content_block")
            if isinstance(block, Mapping) and block.get("type") in TOOL_BLOCKS:
                blocks[index] = dict(block)
                pieces[index] = []
        elif event.get("type") == "content_block_delta" and index in blocks:
            delta = event.get("delta") or {}
            if isinstance(delta, Mapping) and isinstance(delta.get("partial_json"), str):
                pieces[index].append(delta["partial_json"])
    for index, block in blocks.items():
        raw = "".join(pieces[index])
        if raw.strip():
            try:
                block["input"] = json.loads(raw)
            except ValueError:
                block["input"] = raw
    return list(blocks.values())


def describe(call: Mapping[str, Any], where: str) -> tuple[str, str]:
    """One tool call as a line, and whether it is a command, a write, a read or something else."""
    name, given = call.get("name"), call.get("input")
    arguments = given if isinstance(given, Mapping) else {}
    if name == "Bash" and "command" in arguments:
        return "command", f"{where}: Bash runs: {arguments['command']}"
    if name == "Write" and "file_path" in arguments:
        size = len(str(arguments.get("content", "")).encode())
        return "write", f"{where}: Write writes {arguments['file_path']} ({size} bytes)"
    if name == "Read" and isinstance(arguments.get("file_path"), str):
        return "read", f"{where}: Read reads {arguments['file_path']}"
    shown = json.dumps(given, ensure_ascii=False) if not isinstance(given, str) else given
    shown = shown if len(shown) <= 200 else shown[:199] + "…"
    return "other", f"{where}: tool {name}: {shown} (what it does depends on the agent)"

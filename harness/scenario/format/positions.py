"""Where a reply's faults land, as served: each reply's numbered events with their byte
offsets (``harness events``), and lint's check that every event or byte position a
fault names is one the reply has (``cut.after_event: 99`` on a six-event reply is a
mistake at its ``file:line:col``, with the valid range).

Both render the reply with the functions the fake API serves it with
(``harness.wire.planner.plan_reply`` and its ``stream_frames``), as the first request of a
run with the scenario's model would get it. Event numbers are the same for every agent;
byte offsets move with the model name an agent sends and with tool names an agent's
``tool_map`` renames.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any, Mapping

from harness.scenario.format.model import DEFAULT_MODEL, Scenario
from harness.scenario.format.problem import Problem
from harness.wire.faults.base import PositionError, kind_for
from harness.wire.plan import WirePlan
from harness.wire.planner import plan_reply, stream_frames
from harness.wire.replies import Reply

STREAM_KINDS = ("message", "events")


@dataclass(frozen=True)
class Frame:
    """One served SSE event: its number (from 1), its bytes ``start``..``end`` and what it is."""

    number: int
    start: int
    end: int
    name: str
    detail: str
    event: dict[str, Any] | None = None  # the event's JSON (None: data that is not JSON)


@dataclass(frozen=True)
class ServedReply:
    """A reply as the fake API would serve it to a streaming request."""

    reply: Reply
    frames: tuple[Frame, ...]  # the whole stream, before any cut, stall or Ctrl+C ends it
    plan: WirePlan | None  # what is really sent (None: the reply cannot be served)
    problem: str | None = None
    problem_field: str | None = None  # the fault the problem is about (``cut.after_event``)

    @property
    def size(self) -> int:
        return self.frames[-1].end if self.frames else 0

    @property
    def sent(self) -> int:
        return len(self.plan.body) if self.plan else 0


def serve(reply: Reply, *, model: str = DEFAULT_MODEL, number: int = 1) -> ServedReply:
    """``reply`` rendered for request ``number`` of a run, frames and all."""
    ids = {"request_id": f"req_harness_{number:06d}", "message_id": f"msg_harness_{number:06d}", "model": model}
    try:
        plan = plan_reply(reply, streaming=True, **ids)
    except PositionError as error:
        return ServedReply(reply, (), None, str(error), error.field)
    except ValueError as error:
        return ServedReply(reply, (), None, str(error))
    if reply.kind not in STREAM_KINDS:
        return ServedReply(reply, (), plan)
    _, whole = stream_frames(reply, message_id=ids["message_id"], model=model)
    frames, offset = [], 0
    for number_, chunk in enumerate(whole, 1):
        frames.append(Frame(number_, offset, offset + len(chunk), *_describe(chunk)))
        offset += len(chunk)
    return ServedReply(reply, tuple(frames), plan)


def position_problems(reply: Reply, located: Mapping[str, Any], *, model: str = DEFAULT_MODEL) -> list[Problem]:
    """Every fault of ``reply`` (read from the mapping ``located``, with positions) that
    names an event or a byte beyond the reply as served."""
    if reply.kind not in STREAM_KINDS:
        return []
    problems: list[Problem] = []
    for _ in range(16):  # each round drops the fault it found, to find the next
        served = serve(reply, model=model)
        if served.problem is None:
            for fault in reply.faults:
                try:
                    fault.check_bytes(served.size)
                except PositionError as error:
                    problems.append(Problem.at(_where(located, error.field), str(error)))
            return problems
        field = served.problem_field
        problems.append(Problem.at(_where(located, field), served.problem))
        if field is None:
            return problems
        reply = without_fault(reply, field)
    return problems


def without_fault(reply: Reply, field: str) -> Reply:
    """``reply`` without the fault ``field`` belongs to (or the part of it ``field`` names)."""
    kind = kind_for(_parts(field)[0])
    fault = reply.fault(kind) if kind is not None else None
    if fault is None:
        return reply
    rest = fault.without(field)
    faults = tuple(rest if f is fault else f for f in reply.faults)
    return replace(reply, faults=tuple(f for f in faults if f is not None))


def _where(located: Mapping[str, Any], field: str | None) -> tuple[int, int]:
    """``line, col`` of ``field`` (``cut.after_event``, ``insert[1].after_event``) in the
    reply mapping: the nested key where it is written out, else the fault's own value."""
    here = getattr(located, "pos", (1, 1))
    if field is None:
        return here
    key, index, name = _parts(field)
    if index is not None:
        items = located.get(key) or []
        item = items[index] if index < len(items) else {}
        return getattr(item, "value_pos", {}).get(name, getattr(item, "pos", here))
    value, outer = located.get(key), getattr(located, "value_pos", {}).get(key, here)
    return getattr(value, "value_pos", {}).get(name, outer) if name else outer


def _parts(field: str) -> tuple[str, int | None, str]:
    """``insert[1].after_event`` → ``("insert", 1, "after_event")``; ``cut`` → ``("cut", None, "")``."""
    head, _, name = field.partition(".")
    key, bracket, index = head.partition("[")
    return key, int(index.rstrip("]")) if bracket else None, name


def _describe(frame: bytes) -> tuple[str, str, dict[str, Any] | None]:
    """The SSE event name of one frame, a few words on what it carries, its JSON."""
    head, _, rest = frame.partition(b"\n")
    name = head.decode("utf-8", "replace").removeprefix("event: ").strip()
    data = rest.decode("utf-8", "replace").removeprefix("data: ").strip()
    try:
        event = json.loads(data)
    except ValueError:
        return name, "data that is not JSON", None
    event = event if isinstance(event, dict) else {}
    return name, _detail(event), event


def _detail(event: dict[str, Any]) -> str:
    """A few words on what an event carries; raw events may hold anything where a part
    should be (``message: 3``), and those words then say less."""
    kind = event.get("type")
    if kind == "content_block_start":
        block = _part(event, "content_block")
        named = f" {block['name']}" if block.get("name") else ""
        return f"block {event.get('index')}: {block.get('type')}{named}"
    if kind == "content_block_delta":
        delta = _part(event, "delta")
        piece = next((delta[k] for k in ("text", "thinking", "partial_json", "signature") if k in delta), "")
        return f"block {event.get('index')}: {delta.get('type')} {_short(str(piece))}"
    if kind == "content_block_stop":
        return f"block {event.get('index')} ends"
    if kind == "message_delta":
        return f"stop_reason {_part(event, 'delta').get('stop_reason')}"
    if kind == "error":
        error = _part(event, "error")
        return f"{error.get('type')}: {_short(str(error.get('message', '')))}"
    if kind == "message_start":
        return f"model {_part(event, 'message').get('model')}"
    return ""


def _part(event: dict[str, Any], key: str) -> dict[str, Any]:
    """The event's part at ``key`` if it is a mapping, else an empty one."""
    part = event.get(key)
    return part if isinstance(part, dict) else {}


def _short(text: str, width: int = 40) -> str:
    shown = json.dumps(text, ensure_ascii=False)
    return shown if len(shown) <= width else shown[: width - 2] + "…\""


def scenario_position_problems(scenario: Scenario, document: Mapping[str, Any]) -> list[Problem]:
    """Position problems of every reply of a loaded scenario (``document``: its located
    YAML), each pointing at ``harness events`` for the reply's numbered events."""
    model = scenario.settings.get("model", DEFAULT_MODEL)
    problems = []
    for t, (turn, located_turn) in enumerate(zip(scenario.turns, document["turns"]), 1):
        for k, (reply, located) in enumerate(zip(turn.replies, located_turn.get("replies", [])), 1):
            hint = f"; `harness events {scenario.path} --turn {t} --reply {k}` lists them"
            found = sorted(position_problems(reply, located, model=model), key=lambda p: (p.line, p.col))
            problems += [replace(p, text=p.text + hint) for p in found]
    return problems

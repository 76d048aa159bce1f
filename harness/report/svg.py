"""A scenario's run as an inline SVG picture on the virtual time axis: each turn as a
band (how it ended), its requests as boxes (the reply, where a fault hit), tool runs
and sleeps between them, and a ruler of virtual time underneath.

Requests take no virtual time unless the server stalls or times out, so they are drawn
a fixed width apart, wider when virtual time passes inside them; sleeps are drawn to a
logarithmic scale. Everything is in the order it happened.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape
from typing import Any

CALL, TOOL, GAP, TURN_GAP, EMPTY_TURN = 150, 86, 6, 16, 120
BAND_Y, BAND_H, BOX_Y, BOX_H, HIT_Y, RULER_Y = 6, 22, 38, 46, 100, 124
HEIGHT = 146
CHAR = 6.3  # px per character at 11px


@dataclass
class _Slot:
    kind: str  # call | tool | sleep
    mark: float
    turn: int
    width: float
    data: dict[str, Any]
    x: float = 0.0


def timeline_svg(record: dict[str, Any]) -> str:
    """The picture of one scenario record (see ``harness.scenario.run.results``)."""
    slots = _slots(record)
    turns = {t["number"]: t for t in record["turns"]}
    x, last_turn, spans = 8.0, None, {}
    for slot in slots:
        if last_turn is not None and slot.turn != last_turn:
            x = max(x, spans[last_turn][0] + _band_width(turns.get(last_turn)) + GAP) + TURN_GAP
        slot.x = x
        x += slot.width + GAP
        first, _ = spans.get(slot.turn, (slot.x, 0.0))
        spans[slot.turn] = (first, max(slot.x + slot.width, first + _band_width(turns.get(slot.turn))))
        last_turn = slot.turn
    x = max([x] + [end + GAP for _, end in spans.values()])
    for number in turns:
        if number not in spans:  # a turn without requests (a REPL command, Ctrl+C before any)
            x += TURN_GAP
            spans[number] = (x, x + max(EMPTY_TURN, _band_width(turns[number])))
            x = spans[number][1] + GAP
    width = x + 8
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="timeline" width="{width:.0f}" height="{HEIGHT}" '
             f'viewBox="0 0 {width:.0f} {HEIGHT}" role="img" aria-label="timeline of {escape(record["name"])}">']
    parts += [_band(turns[n], *spans[n]) for n in sorted(spans) if n in turns]
    parts += [_DRAW[slot.kind](slot) for slot in slots]
    parts += [_interrupt(turns[n], [s for s in slots if s.turn == n]) for n in turns if turns[n].get("interrupt")]
    parts += _ruler(slots, width)
    parts.append("</svg>")
    return "\n".join(parts)


def _slots(record: dict[str, Any]) -> list[_Slot]:
    calls = {c["number"]: c for c in record["calls"]}
    slots = [_Slot("call", c["mark"], c["turn"], CALL + _seconds_width(_duration(c), 150), c) for c in record["calls"]]
    slots += [_Slot("sleep", s["mark"], _turn_at(record, s["mark"]), _sleep_width(s["seconds"]), s) for s in record["sleeps"]]
    for tool in record["tools"]:
        served = calls.get(tool["served_in"])
        if served is not None and tool["answered_in"] is not None:
            slots.append(_Slot("tool", served["mark"] + 0.5, served["turn"], TOOL, tool))
    return sorted(slots, key=lambda s: s.mark)


def _sleep_width(value: float) -> float:
    return max(40 + _seconds_width(value, 180), (len(seconds(value)) + 7) * CHAR)


def _turn_at(record: dict[str, Any], mark: float) -> int:
    return next((t["number"] for t in record["turns"] if t["first_mark"] <= mark <= t["last_mark"]), 0)


def _duration(call: dict[str, Any]) -> float:
    return max(0.0, (call["finished"] or call["time"]) - call["time"])


def _seconds_width(seconds: float, cap: float) -> float:
    return min(cap, 26 * math.log2(1 + seconds)) if seconds > 0 else 0.0


def seconds(value: float) -> str:
    """``2s``, ``1.58s``, ``600s``: three significant digits at most."""
    return f"{value:.3g}s" if value < 1000 else f"{value:.0f}s"


def _fit(text: str, width: float) -> str:
    room = max(3, int((width - 10) / CHAR))
    return text if len(text) <= room else text[: room - 1] + "…"


def _ending(turn: dict[str, Any]) -> str:
    ended = turn["end"] + (f" ({turn['agent_end']})" if turn["agent_end"] and turn["agent_end"] != turn["end"] else "")
    return f"■ {ended}" + (" ⚡" if turn["interrupted"] else "")


def _band_width(turn: dict[str, Any] | None) -> float:
    """Room for the turn's name and how it ended."""
    return 0.0 if turn is None else (len(turn["label"]) + 2 + len(_ending(turn))) * CHAR + 24


def _band(turn: dict[str, Any], start: float, end: float) -> str:
    mark = "✗ " if turn["failing"] else ""
    label = f"{mark}{turn['label']}: {turn['user']}"
    tail = _ending(turn)
    css = "band bad" if turn["failing"] else "band"
    width = end - start
    where = f" (line {turn['line']})" if turn["line"] is not None else ""  # the probe turn has no line
    tip = f"{turn['label']}{where}: {turn['user']} — ended: {tail[2:]}" + (f"; raised {turn['raised']}" if turn["raised"] else "")
    room = width - len(tail) * CHAR - 16
    return (
        f'<g class="{css}"><title>{escape(tip)}</title>'
        f'<rect x="{start:.1f}" y="{BAND_Y}" width="{width:.1f}" height="{BAND_H}" rx="4"/>'
        f'<text x="{start + 6:.1f}" y="{BAND_Y + 15}">{escape(_fit(label, room))}</text>'
        f'<text class="end" x="{end - 6:.1f}" y="{BAND_Y + 15}" text-anchor="end">{escape(tail)}</text></g>'
    )


def _call(slot: _Slot) -> str:
    call = slot.data
    outcome = "invalid" if call["invalid"] else "failed" if call["failed"] else "ok"
    status = call["status"] if call["status"] is not None else "no response"
    side = call.get("side")
    head = f"#{call['number']}{' side' if side else ''} → {status}" + ("" if call["streaming"] else " (not streamed)")
    took = _duration(call)
    head += f" · {seconds(took)}" if took else ""
    tip = f"{'side ' if side else ''}request {call['number']} at t={call['time']:.3f}s: {call['reply']}" + (
        f" (a side request: {side})" if side else "") + (
        f"; invalid: {'; '.join(call['invalid'])}" if call["invalid"] else "")
    parts = [
        f'<g class="call {outcome}"><title>{escape(tip)}</title>',
        f'<rect x="{slot.x:.1f}" y="{BOX_Y}" width="{slot.width:.1f}" height="{BOX_H}" rx="3"/>',
    ]
    if call["hits"]:
        places = ", ".join(dict.fromkeys(place for _, place in call["hits"]))
        if call["fraction"] is not None:  # the stream broke off here
            where = min(max(slot.x + slot.width * call["fraction"], slot.x + 2), slot.x + slot.width - 2)
            parts.append(f'<line class="hit" x1="{where:.1f}" y1="{BOX_Y - 4}" x2="{where:.1f}" y2="{BOX_Y + BOX_H + 4}"/>')
        parts.append(f'<text class="hit" x="{slot.x + 2:.1f}" y="{HIT_Y}">⚡ {escape(_fit(places, slot.width - 12))}</text>')
    parts += [
        f'<text x="{slot.x + 5:.1f}" y="{BOX_Y + 16}" class="head">{escape(_fit(head, slot.width))}</text>',
        f'<text x="{slot.x + 5:.1f}" y="{BOX_Y + 33}">{escape(_fit(call["reply"], slot.width))}</text>',
    ]
    parts.append("</g>")
    return "".join(parts)


def _tool(slot: _Slot) -> str:
    tool = slot.data
    css = "tool error" if tool["error"] else "tool"
    said = "failed" if tool["error"] else "ran"
    tip = f"{tool['name']} {said}: asked in request {tool['served_in']}, answered in request {tool['answered_in']}"
    return (
        f'<g class="{css}"><title>{escape(tip)}</title>'
        f'<rect x="{slot.x:.1f}" y="{BOX_Y + 8}" width="{slot.width:.1f}" height="{BOX_H - 16}" rx="10"/>'
        f'<text x="{slot.x + slot.width / 2:.1f}" y="{BOX_Y + 27}" text-anchor="middle">⚙ {escape(_fit(tool["name"], slot.width - 14))}</text></g>'
    )


def _sleep(slot: _Slot) -> str:
    sleep = slot.data
    tip = f"sleep {sleep['seconds']:.3f}s from t={sleep['time']:.3f}s"
    return (
        f'<g class="sleep"><title>{escape(tip)}</title>'
        f'<rect x="{slot.x:.1f}" y="{BOX_Y + 14}" width="{slot.width:.1f}" height="{BOX_H - 28}" rx="2"/>'
        f'<text x="{slot.x + slot.width / 2:.1f}" y="{BOX_Y + 10}" text-anchor="middle">sleep {seconds(sleep["seconds"])}</text></g>'
    )


_DRAW = {"call": _call, "tool": _tool, "sleep": _sleep}


def _interrupt(turn: dict[str, Any], slots: list[_Slot]) -> str:
    """The turn's own Ctrl+C (or closed generator), under the tool or request it hit."""
    spec = turn["interrupt"]
    what = "generator closed" if spec["close"] else "Ctrl+C"
    tools = [s for s in slots if s.kind == "tool" and s.data["name"] == spec["tool"]] if spec["tool"] else []
    target = (tools or [s for s in slots if s.kind == "call"] or [None])[-1]
    if target is None or not turn["interrupted"]:
        return ""
    where = f"when {spec['tool']} was called" if spec["tool"] else f"at event {spec['at_event']} of the turn"
    return (f'<text class="hit" x="{target.x + 2:.1f}" y="{HIT_Y + 12}"><title>{escape(what)} {escape(where)}</title>'
            f"⚡ {escape(what)}</text>")


def _ruler(slots: list[_Slot], width: float) -> list[str]:
    parts = [f'<line class="axis" x1="4" y1="{RULER_Y}" x2="{width - 4:.0f}" y2="{RULER_Y}"/>']
    last_time, last_x = None, -100.0
    for slot in slots:
        if slot.kind == "tool":
            continue
        at = slot.data["time"]
        if at != last_time and slot.x - last_x > 52:
            parts.append(f'<line class="tick" x1="{slot.x:.1f}" y1="{RULER_Y - 4}" x2="{slot.x:.1f}" y2="{RULER_Y + 4}"/>')
            parts.append(f'<text class="tick" x="{slot.x:.1f}" y="{RULER_Y + 16}">t={seconds(at)}</text>')
            last_time, last_x = at, slot.x
    return parts

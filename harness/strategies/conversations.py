"""Strategies for the API's side: replies, faults, fault schedules for a turn,
interruption points and whole scenarios."""

from __future__ import annotations

import email.utils
import functools
import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal, Mapping, Sequence

import jiter
from hypothesis import event
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from hypothesis.strategies import SearchStrategy

from mini_agent.settings import Settings
from mini_agent.tools import Tool

from harness.wire.api_errors import API_ERRORS, STREAM_ERROR_TYPES, api_error
from harness.wire.clock import EPOCH_ORIGIN
from harness.scenario.invariants import RETRYABLE_STREAM_ERRORS
from harness.wire.replies import CONNECTION_FAULTS, Cut, Drip, ErrorEvent, Insert, Reply, Stall
from harness.scenario.loader import Interrupt, Scenario, Turn
from harness.wire.sse import encode_events
from harness.wire.plan import stream_events
from harness.strategies.arguments import (
    MUTATIONS,
    any_tool_inputs,
    echo_commands,
    input_schemas,
    invalid_tool_inputs,
    json_values,
    odd_strings,
    safe_overrides,
    tool_calls,
    tool_inputs,
    workspace_paths,
)

FAULT_KINDS = ("http", "connection", "cut", "error_event", "end_early", "bad_data", "bad_tool_json", "stall")
GIVE_UP_RETRY_AFTER = "10000000"  # seconds: over any budget a generated scenario sets
BIG_BUDGET = 1_000_000.0

# -- replies: what the model answers -----------------------------------------------------

FINAL_STOPS = ("end_turn", "end_turn", "end_turn", "stop_sequence", "refusal", "max_tokens", "model_context_window_exceeded")
CONTINUING_STOPS = ("tool_use", "tool_use", "tool_use", "pause_turn", "max_tokens")
_END_REASONS = {"model_context_window_exceeded": "context_window"}


@functools.cache
def model_texts() -> SearchStrategy[str]:
    """What a model writes: words, odd unicode, blank text, trailing whitespace."""
    words = st.lists(st.sampled_from(["Done.", "Reading", "the", "file", "é", "ß", "日本", "\U0001f600", "\n", " "]), max_size=8).map("".join)
    return words | st.text(max_size=30)


@st.composite
def replies(
    draw: st.DrawFn, *, tools: Sequence[Tool] | None = None, final: bool | None = None, max_tool_calls: int = 2
) -> Reply:
    """A complete answer. ``final=True``: it ends the turn (end_turn, stop_sequence,
    refusal, max_tokens, context window); ``final=False``: the turn goes on (tool calls,
    pause_turn, max_tokens inside a tool call). Sometimes thinking comes first, and
    pings, unknown events or a slow drip are sprinkled on the wire."""
    continuing = draw(st.booleans()) if final is None else not final
    message: dict[str, Any] = {}
    stop = draw(st.sampled_from(CONTINUING_STOPS if continuing else FINAL_STOPS))
    # A pause_turn answer is sent back as the final message, where the API refuses thinking
    # blocks unless the request turns thinking on; mini_agent never does.
    if stop != "pause_turn" and draw(st.integers(0, 4)) == 0:
        message["thinking"] = draw(st.text(max_size=20))
    if continuing:
        if draw(st.booleans()):
            message["text"] = draw(model_texts())
        if stop != "pause_turn":
            message["tool_use"] = draw(st.lists(tool_calls(tools=tools), min_size=1, max_size=max_tool_calls))
        if stop != "tool_use":
            message["stop_reason"] = stop
    else:
        if stop in ("end_turn", "stop_sequence") or draw(st.booleans()):
            message["text"] = draw(model_texts())
        if stop != "end_turn" or "text" not in message:
            message["stop_reason"] = stop
        if stop == "stop_sequence":
            message["stop_sequence"] = draw(st.sampled_from(["\n\nHuman:", "END", "###"]))
        if stop in ("refusal", "end_turn") and draw(st.integers(0, 9)) == 0:  # a tool call that will never run
            message["tool_use"] = draw(st.lists(tool_calls(tools=tools), min_size=1, max_size=1))
            message["stop_reason"] = stop
    if "tool_use" in message and draw(st.integers(0, 5)) == 0:
        message["tool_use"][0] = _as_raw_json(message["tool_use"][0], draw(st.integers(0, 200)))
    reply = Reply(message=message)
    return _tolerated(draw, reply)


def _as_raw_json(call: dict[str, Any], cut: int) -> dict[str, Any]:
    """The call's input JSON cut short in a place jiter's partial mode still parses (the
    keys that arrived whole reach the tool): a different fault from ``bad_tool_json``."""
    raw = call["json"] if "json" in call else json.dumps(call["input"], ensure_ascii=False)
    for end in range(min(cut, len(raw)), 0, -1):
        if _partial_parses(raw[:end]):
            return {"name": call["name"], "json": raw[:end]}
    return call


def _partial_parses(raw: str) -> bool:
    try:
        jiter.from_json(raw.encode(), partial_mode=True)
    except ValueError:
        return False
    return True


def _tolerated(draw: st.DrawFn, reply: Reply) -> Reply:
    """Wire noise every client must tolerate: pings, an unknown event, a slow drip."""
    events = _event_count(reply)
    noise = draw(st.integers(0, 7))
    if noise == 1:
        return replace(reply, pings=draw(st.integers(1, 3)))
    if noise == 2 and events > 2:
        unknown = {"type": "future_event", "detail": "added in a later API version"}
        return replace(reply, insert=(Insert(draw(st.integers(1, events - 1)), unknown),))
    if noise == 3:
        return replace(reply, drip=Drip(draw(st.integers(7, 300)), draw(st.sampled_from([0.0, 0.001]))))
    return reply


def _event_count(reply: Reply) -> int:
    return len(stream_events(replace(reply, pings=0, insert=()), message_id="msg_harness_000000", model="claude"))


# -- faults: one failed attempt ----------------------------------------------------------

_HTML_502 = "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>"
_RAISING_TOOL_JSON = (
    (" ", '{"file_path": "README.md"}'),  # a whitespace-only first piece
    ("", "nope"),
    ("", '{"file_path" "README.md"}'),
    ("", "{]"),
    ("", "[1,,2]"),
    ('{"command": "echo hi"', ", ,}"),
    ("", "tru"),
)


@dataclass(frozen=True)
class Effect:
    """What a fault does to the agent's retry loop, as the design says it must."""

    retryable: bool
    seconds: float = 0.0  # virtual time that passes before the failure shows (timeouts, stalls)
    retry_after: float | None = None  # what the server asks for


def fault_effect(reply: Reply, *, timeout: float = Settings().api_timeout) -> Effect:
    """Whether ``reply``'s failure must be retried, and the time it costs (DESIGN §3)."""
    if reply.connection is not None:
        slow = reply.connection in ("connect_timeout", "read_timeout")
        return Effect(True, timeout if slow else 0.0)
    if reply.error is not None:
        from mini_agent.retry import parse_retry_after

        status = api_error(reply.error).status
        retryable = status >= 500 or status in (408, 409, 429)
        should = reply.headers.get("x-should-retry")
        retryable = {"true": True, "false": False}.get(should or "", retryable)
        return Effect(retryable, 0.0, parse_retry_after(reply.headers, now=lambda: EPOCH_ORIGIN))
    if reply.error_event is not None:
        return Effect(reply.error_event.type in RETRYABLE_STREAM_ERRORS)
    if reply.stall is not None:
        return Effect(True, reply.stall.seconds)
    return Effect(True)


@functools.cache
def _retry_headers() -> SearchStrategy[dict[str, str]]:
    seconds = st.integers(0, 10)
    return st.one_of(
        seconds.map(lambda s: {"retry-after": str(s)}),
        st.sampled_from(["0.5", "1.5", "soon"]).map(lambda s: {"retry-after": s}),
        st.integers(0, 10_000).map(lambda ms: {"retry-after-ms": str(ms)}),
        seconds.map(lambda s: {"retry-after": email.utils.formatdate(EPOCH_ORIGIN + s, usegmt=True)}),
    )


@functools.cache
def _error_names_or_statuses() -> SearchStrategy[str | int]:
    return st.sampled_from(sorted(API_ERRORS)) | st.integers(400, 599)


@functools.cache
def _final_error_names() -> SearchStrategy[str]:
    return st.sampled_from([n for n in sorted(API_ERRORS) if not fault_effect(Reply(error=n)).retryable])


@st.composite
def _http_errors(draw: st.DrawFn, *, retryable: bool | None) -> Reply:
    error: str | int = draw(_error_names_or_statuses())
    headers: dict[str, str] = {}
    if draw(st.booleans()):
        headers |= draw(_retry_headers())
    if retryable is False:
        if draw(st.booleans()):
            headers["x-should-retry"] = "false"
        else:
            error = draw(_final_error_names())
            headers.pop("x-should-retry", None)
            if draw(st.integers(0, 3)) == 0:
                headers["retry-after"] = GIVE_UP_RETRY_AFTER  # a 4xx with retry-after is still final
    elif draw(st.integers(0, 5)) == 0:
        headers["x-should-retry"] = draw(st.sampled_from(["true", "false"]))
    reply = Reply(error=error, headers=headers)
    if draw(st.integers(0, 6)) == 0:
        reply = replace(reply, body=_HTML_502)
    elif draw(st.integers(0, 6)) == 0:
        reply = replace(reply, message_text=draw(st.text(max_size=30)))
    if retryable and not fault_effect(reply).retryable:
        reply = replace(reply, headers={**reply.headers, "x-should-retry": "true"})
    return reply


@st.composite
def faults(
    draw: st.DrawFn,
    *,
    message: Mapping[str, Any] | None = None,
    kinds: Sequence[str] = FAULT_KINDS,
    retryable: bool | None = None,
) -> Reply:
    """One failed attempt at ``message`` (the answer the model was giving), from the whole
    vocabulary: an HTTP error by name or status (retry-after, x-should-retry, an HTML
    body), a connection fault, a FIN/RST cut after or inside an event, after n bytes or
    inside a UTF-8 character, ``event: error``, a clean end before ``message_stop``, a
    ``data:`` line that is not JSON, tool-input JSON the SDK cannot parse, a stall.
    ``retryable`` keeps only faults the agent must retry (True) or must not (False)."""
    message = dict(message or {"text": "Working on it."})
    kinds = [k for k in kinds if retryable is not False or k in ("http", "error_event")]
    if not kinds:
        raise InvalidArgument("no fault kind left to draw from")
    kind = draw(st.sampled_from(kinds))
    event(f"fault: {kind}")
    if kind == "http":
        return draw(_http_errors(retryable=retryable))
    if kind == "connection":
        return Reply(connection=draw(st.sampled_from(CONNECTION_FAULTS)))
    if kind == "error_event":
        types = [t for t in STREAM_ERROR_TYPES if retryable is None or (t in RETRYABLE_STREAM_ERRORS) == retryable]
        count = _event_count(Reply(message=message))
        return Reply(message=message, error_event=ErrorEvent(draw(st.integers(0, count)), draw(st.sampled_from(types))))
    if kind == "bad_tool_json":
        name = (message.get("tool_use") or [{"name": "Read"}])
        name = name[0]["name"] if isinstance(name, list) else name["name"]
        broken = {"name": name, "json": list(draw(st.sampled_from(_RAISING_TOOL_JSON)))}
        return Reply(message={k: v for k, v in message.items() if k not in ("tool_use", "stop_reason")} | {"tool_use": broken})
    reply = Reply(message=message)
    count = _event_count(reply)
    if kind == "end_early":
        return replace(reply, end_early=draw(st.integers(0, count - 1)))
    if kind == "bad_data":
        return replace(reply, bad_data=draw(st.integers(0, count)))
    if kind == "stall":
        return replace(reply, stall=Stall(draw(st.integers(0, count)), draw(st.sampled_from([0.5, 5.0, 30.0]))))
    return replace(reply, cut=draw(_cuts(reply, count)))


@st.composite
def _cuts(draw: st.DrawFn, reply: Reply, count: int) -> Cut:
    how = draw(st.sampled_from(["fin", "rst"]))
    body = encode_events(stream_events(reply, message_id="msg_harness_000000", model="claude"))
    where = draw(st.sampled_from(["after_event", "in_event", "after_bytes", "in_char"]))
    if where == "in_char":
        frames = stream_events(reply, message_id="msg_harness_000000", model="claude")
        wide = [k for k, e in enumerate(frames, 1) if any(b >= 0xC0 for b in encode_events([e]))]
        if wide:
            return Cut(in_char=draw(st.integers(1, wide[-1])), how=how)
        where = "after_bytes"
    if where == "after_event":
        return Cut(after_event=draw(st.integers(0, count)), how=how)
    if where == "in_event":
        return Cut(in_event=draw(st.integers(1, count)), how=how)
    return Cut(after_bytes=draw(st.integers(0, len(body))), how=how)


# -- fault schedules: a whole turn -------------------------------------------------------


@dataclass(frozen=True)
class Interruption:
    """Where the user interrupts a turn.

    ``stream``: Ctrl+C while answer ``answer`` streams, after its event ``at``;
    ``event``: at the turn's ``at``-th event; ``tool``: as the ``at``-th distinct tool of
    the turn is called. ``close``: the generator is closed instead (``event``/``tool``).
    """

    where: Literal["stream", "event", "tool"]
    at: int
    answer: int = 0
    close: bool = False


@dataclass(frozen=True)
class Schedule:
    """A turn's replies, in order, with what must come of them: how many requests the
    agent makes and how the turn ends (None where it cannot be foretold)."""

    replies: tuple[Reply, ...]
    requests: int | None
    end: str | None
    budget: float = 0.0  # the longest a request's retries may take, in virtual seconds
    answers: tuple[int, ...] = ()  # positions of the complete answers in ``replies``
    interrupt: Interrupt | None = None

    def turn(self, user: str) -> Turn:
        """The Turn, with ``expect`` saying what the schedule foretells."""
        expect: dict[str, Any] = {}
        if self.requests is not None:
            expect["requests"] = self.requests
        if self.end is not None:
            expect["end"] = self.end
        return Turn(user, self.replies, self.interrupt, expect)

    @property
    def tools_run(self) -> list[str]:
        """The tools mini_agent runs in this turn, each named once, in order."""
        return list(dict.fromkeys(name for i in self.answers for name in _tools_run(self.replies[i])))

    def interrupted(self, point: Interruption) -> Schedule:
        """This schedule with the user interrupting at ``point``; unchanged if the point
        does not exist here (a tool interrupt in a turn without tool calls)."""
        if point.where == "event":
            return replace(self, interrupt=Interrupt(at_event=point.at, close=point.close), requests=None, end=None)
        if not self.answers:
            return self
        if point.where == "stream":
            at = self.answers[point.answer % len(self.answers)]
            hit = replace(self.replies[at], interrupt=min(point.at, _event_count(self.replies[at])))
            return replace(self, replies=(*self.replies[:at], hit), requests=at + 1, end="interrupted",
                           answers=tuple(a for a in self.answers if a <= at))
        calls = [(i, name) for i in self.answers for name in _tools_run(self.replies[i])]
        names = self.tools_run
        if not names:
            return self
        name = names[point.at % len(names)]
        at = next(i for i, n in calls if n == name)
        return replace(
            self,
            replies=self.replies[: at + 1],
            requests=at + 1,
            end=None if point.close else "interrupted",
            answers=tuple(a for a in self.answers if a <= at),
            interrupt=Interrupt(tool=name, close=point.close),
        )


def _tools_run(reply: Reply) -> list[str]:
    """Names of the tools mini_agent runs for this answer, in order."""
    message = reply.message or {}
    calls = message.get("tool_use") or []
    calls = calls if isinstance(calls, list) else [calls]
    stop = message.get("stop_reason", "tool_use" if calls else "end_turn")
    return [c["name"] for c in calls] if stop == "tool_use" else []


def turn_end(reply: Reply) -> str | None:
    """How the turn ends after this complete answer; None when it goes on."""
    message = reply.message or {}
    calls = message.get("tool_use")
    stop = message.get("stop_reason", "tool_use" if calls else "end_turn")
    if stop == "pause_turn" or (stop in ("tool_use", "max_tokens") and calls):
        return None
    return _END_REASONS.get(stop, stop)


@st.composite
def fault_schedules(
    draw: st.DrawFn,
    *,
    tools: Sequence[Tool] | None = None,
    max_retries: int = Settings().max_retries,
    max_replies: int = 4,
    max_answers: int = 2,
    exceed: bool | None = None,
) -> Schedule:
    """A turn of 1-``max_answers`` requests that end with an answer that finishes the
    turn, each preceded by faults, at most ``max_replies`` replies in all. With
    ``exceed=False`` every fault is retryable and each request fails at most
    ``max_retries`` times, so the turn must finish; with ``exceed=True`` (or at random)
    a non-retryable fault, one retry too many or a retry-after over the budget ends it
    early. The Schedule predicts the requests and the end."""
    exceed = draw(st.integers(0, 3)) == 0 if exceed is None else exceed
    rounds = draw(st.integers(1, max(1, min(max_answers, max_replies))))
    answers = [draw(replies(tools=tools, final=False)) for _ in range(rounds - 1)]
    answers.append(draw(replies(tools=tools, final=True)))
    slots: list[list[Reply]] = [[] for _ in answers]
    if exceed:
        target = draw(st.integers(0, rounds - 1))
        how = draw(st.sampled_from(["fatal", "too_many", "give_up"]))
        need = 1 if how != "too_many" else max_retries + 1
        retryable = [draw(faults(message=answers[target].message, retryable=True)) for _ in range(max(0, need - 1))]
        if how == "fatal":
            last = draw(faults(message=answers[target].message, retryable=False))
        elif how == "give_up":
            last = replace(draw(_http_errors(retryable=True)), headers={"retry-after": GIVE_UP_RETRY_AFTER})
            if not fault_effect(last).retryable:
                last = replace(last, error="overloaded")
        else:
            last = draw(faults(message=answers[target].message, retryable=True))
        slots[target] = [*retryable, last]
    for index, answer in enumerate(answers):
        room = max(0, max_replies - rounds - sum(len(s) for s in slots))
        limit = min(room, max_retries - len(slots[index])) if not exceed else room
        if limit > 0 and not slots[index]:
            slots[index] = draw(st.lists(faults(message=answer.message, retryable=None if exceed else True), max_size=limit))
    return _predict(slots, answers, max_retries)


def _predict(slots: list[list[Reply]], answers: list[Reply], max_retries: int) -> Schedule:
    """Walk the replies as mini_agent must (DESIGN §3): retry what is retryable within
    ``max_retries`` and the time budget, stop at anything else."""
    served: list[Reply] = []
    positions: list[int] = []
    budget = 0.0
    for faults_before, answer in zip(slots, answers):
        attempt, elapsed = 0, 0.0
        for fault in faults_before:
            served.append(fault)
            effect = fault_effect(fault)
            attempt += 1
            elapsed += effect.seconds
            delay = effect.retry_after if effect.retry_after is not None else min(30.0, 2.0 ** (attempt - 1))
            gives_up = fault.headers.get("retry-after") == GIVE_UP_RETRY_AFTER
            if not effect.retryable or attempt > max_retries or gives_up:
                return Schedule(tuple(served), len(served), "error", budget, tuple(positions))
            elapsed += delay
            budget = max(budget, elapsed)
        positions.append(len(served))
        served.append(answer)
        end = turn_end(answer)
        if end is not None:
            return Schedule(tuple(served), len(served), end, budget, tuple(positions))
    raise AssertionError("the last answer of a schedule must end the turn")


INTERRUPTION_KINDS = ("stream", "event", "tool")


@functools.cache
def interruption_points(*, kinds: tuple[str, ...] = INTERRUPTION_KINDS, max_event: int = 30) -> SearchStrategy[Interruption]:
    """Ctrl+C (or a closed generator) at any event of a turn, Ctrl+C at any event of
    an answer's stream (a byte boundary inside an event looks the same to the SDK, which
    only sees whole events), or as any tool of the turn is called."""
    at = st.integers(0, max_event)
    made = {
        "stream": st.builds(Interruption, st.just("stream"), at, st.integers(0, 3)),
        "event": st.builds(Interruption, st.just("event"), st.integers(1, max_event), st.just(0), st.booleans()),
        "tool": st.builds(Interruption, st.just("tool"), st.integers(0, 3), st.just(0), st.booleans()),
    }
    return st.one_of([made[kind] for kind in kinds])


# -- whole scenarios ---------------------------------------------------------------------


@functools.cache
def user_lines() -> SearchStrategy[str]:
    """What a user types: never blank and never a REPL command."""
    return (st.sampled_from(["Fix the bug", "Summarize README.md", "Run the tests", "日本語で"]) | st.text(min_size=1, max_size=30)).filter(
        lambda s: bool(s.strip()) and s.strip() not in ("/status", "/help", "/quit")
    )


@functools.cache
def workspaces() -> SearchStrategy[dict[str, str]]:
    """A few files for the tools to find."""
    return st.dictionaries(workspace_paths(), st.text(max_size=40), max_size=2).filter(_no_file_is_a_folder)


def _no_file_is_a_folder(files: dict[str, str]) -> bool:
    parents = {str(p) for name in files for p in Path(name).parents}
    return not parents & files.keys()


@st.composite
def scenarios(
    draw: st.DrawFn,
    *,
    max_turns: int = 2,
    max_replies: int = 4,
    tools: Sequence[Tool] | None = None,
    interrupts: bool | None = None,
    name: str = "generated",
) -> Scenario:
    """A whole Scenario: small settings (max_retries 0-3), a workspace, 1-``max_turns``
    turns of fault schedules with at most ``max_replies`` replies, each turn's
    ``expect`` holding what its schedule foretells. ``interrupts``: every turn is
    interrupted (True), none is (False), or now and then (None)."""
    max_retries = draw(st.integers(0, 3))
    settings: dict[str, Any] = {"max_retries": max_retries}
    if draw(st.integers(0, 3)) == 0:
        settings["fallbacks"] = draw(st.booleans())
    turns: list[Turn] = []
    budget = 0.0
    for _ in range(draw(st.integers(1, max_turns))):
        schedule = draw(fault_schedules(tools=tools, max_retries=max_retries, max_replies=max_replies))
        if interrupts or (interrupts is None and draw(st.integers(0, 2)) == 0):
            kinds = ("event", *(["stream"] if schedule.answers else []), *(["tool"] if schedule.tools_run else []))
            schedule = schedule.interrupted(draw(interruption_points(kinds=kinds)))
        budget = max(budget, schedule.budget)
        turns.append(schedule.turn(draw(user_lines())))
    if budget > Settings().retry_budget:
        settings["retry_budget"] = BIG_BUDGET
    return Scenario(
        name=name,
        about="Generated by harness.strategies.scenarios().",
        path=Path(f"{name}.yaml"),
        turns=tuple(turns),
        settings=settings,
        workspace=draw(workspaces()),
    )


__all__ = [
    "BIG_BUDGET",
    "Effect",
    "FAULT_KINDS",
    "INTERRUPTION_KINDS",
    "Interruption",
    "MUTATIONS",
    "Schedule",
    "any_tool_inputs",
    "echo_commands",
    "fault_effect",
    "fault_schedules",
    "faults",
    "input_schemas",
    "interruption_points",
    "invalid_tool_inputs",
    "json_values",
    "model_texts",
    "odd_strings",
    "replies",
    "safe_overrides",
    "scenarios",
    "tool_calls",
    "tool_inputs",
    "turn_end",
    "user_lines",
    "workspace_paths",
    "workspaces",
]

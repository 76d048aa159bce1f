"""Strategies for a whole turn: faults before each answer, where the user interrupts,
and the outcome the rules foretell."""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from typing import Any, Literal, Sequence

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from harness.scenario.format.model import Interrupt, Turn
from harness.scenario.format.schema import END_ALIASES
from harness.strategies.built import integers, once
from harness.strategies.faults import (
    GIVE_UP_RETRY_AFTER,
    failure_kinds,
    fault_effect,
    faults,
    http_errors,
    parser_dependent,
)
from harness.strategies.replies import event_count, replies
from harness.strategies.tool_calls import ToolLike
from harness.wire.api_errors import api_error
from harness.wire.faults import interrupt
from harness.wire.faults.base import sampled
from harness.wire.faults.error_event import ErrorEvent
from harness.wire.replies import Reply, empty_answer

MAX_RETRIES = 5
"""The retry limit a schedule foretells for when it is given none."""

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
    needs: tuple[str, ...] = ()  # the policies the outcome hangs on, outermost first ("mini_agent": its retry budget)

    def turn(self, user: str) -> Turn:
        """The Turn, with ``expect`` saying what the schedule foretells, under the policies
        it hangs on (``policies.retries`` for a turn that needs retries, nested for two),
        or under ``mini_agent:`` when it hangs on mini_agent's own retry budget."""
        expect: dict[str, Any] = {}
        if self.requests is not None:
            expect["requests"] = self.requests
        if self.end is not None:
            expect["end"] = self.end
        for name in reversed(self.needs if expect else ()):
            expect = {"mini_agent": expect} if name == "mini_agent" else {"policies": {name: expect}}
        return Turn(user, self.replies, self.interrupt, expect)

    @property
    def tools_run(self) -> list[str]:
        """The tools an agent runs in this turn, each named once, in order."""
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
            answer = self.replies[at]
            hit = replace(answer, faults=(*answer.faults, interrupt.Interrupt(min(point.at, event_count(answer)))))
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
    """Names of the tools an agent runs for this answer, in order."""
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
    return END_ALIASES.get(stop, stop)


@st.composite
def fault_schedules(
    draw: st.DrawFn,
    *,
    tools: Sequence[ToolLike] | None = None,
    max_retries: int = MAX_RETRIES,
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
    exceed = draw(integers(0, 3)) == 0 if exceed is None else exceed
    rounds = draw(integers(1, max(1, min(max_answers, max_replies))))
    answers = [draw(once(replies, tools=tools, final=False)) for _ in range(rounds - 1)]
    answers.append(draw(once(replies, tools=tools, final=True)))
    slots: list[list[Reply]] = [[] for _ in answers]
    if exceed:
        target = draw(integers(0, rounds - 1))
        how = draw(sampled(("fatal", "too_many", "give_up")))
        need = 1 if how != "too_many" else max_retries + 1
        # one retry too many: not with tool JSON only the SDK fails on, which another client may
        # take as a whole answer and go on from, past the replies the schedule has
        kinds = [kind for kind in failure_kinds() if kind != "bad_tool_json"] if how == "too_many" else None
        retryable = [draw(faults(message=answers[target].message, retryable=True, kinds=kinds)) for _ in range(max(0, need - 1))]
        if how == "fatal":
            last = draw(faults(message=answers[target].message, retryable=False))
        elif how == "give_up":
            last = replace(draw(once(http_errors, retryable=True)), headers={"retry-after": GIVE_UP_RETRY_AFTER})
            if not fault_effect(last).retryable:
                last = replace(last, error="overloaded")
        else:
            last = draw(faults(message=answers[target].message, retryable=True, kinds=kinds))
        slots[target] = [*retryable, last]
    for index, answer in enumerate(answers):
        room = max(0, max_replies - rounds - sum(len(s) for s in slots))
        limit = min(room, max_retries - len(slots[index])) if not exceed else room
        if limit > 0 and not slots[index]:
            before = faults(message=answer.message, retryable=None if exceed else True)
            slots[index] = [draw(before) for _ in range(draw(integers(0, limit)))]
    return _predict(slots, answers, max_retries)


def _predict(slots: list[list[Reply]], answers: list[Reply], max_retries: int) -> Schedule:
    """Walk the replies as any agent must (DESIGN §3): retry what is retryable within
    ``max_retries`` and the time budget, stop at anything else."""
    served: list[Reply] = []
    positions: list[int] = []
    budget = 0.0
    cut = parser = False
    retries: tuple[str, ...] = ()  # the retry policies the faults retried so far ask for
    for faults_before, answer in zip(slots, answers):
        attempt, elapsed = 0, 0.0
        for fault in faults_before:
            served.append(fault)
            parser = parser or parser_dependent(fault)  # mini_agent retries it (the SDK raises); another client may not
            effect = fault_effect(fault)
            attempt += 1
            elapsed += effect.seconds
            delay = effect.retry_after if effect.retry_after is not None else min(30.0, 2.0 ** (attempt - 1))
            gives_up = fault.headers.get("retry-after") == GIVE_UP_RETRY_AFTER
            if not effect.retryable or attempt > max_retries or gives_up:
                before = retries + (("continues_after_cut_tool_call",) if cut else ())
                if gives_up and effect.retryable and attempt <= max_retries:
                    needs: tuple[str, ...] = ("mini_agent",)
                elif effect.retryable:  # one retry too many: how many is the scenario's max_retries
                    sdks = ("retries_as_the_sdks_do",) if effect.sdk_rule_only or RETRY_POLICIES[1] in before else ()
                    needs = tuple(n for n in before if n not in RETRY_POLICIES) + sdks + ("honours_max_retries",)
                else:
                    needs = before + (() if _final_for_every_agent(fault) else ("gives_up_on_final_errors",))
                return Schedule(tuple(served), len(served), "error", budget, tuple(positions), needs=_of_parser(needs, parser))
            retries = tuple(dict.fromkeys((*retries, *RETRY_POLICIES[: 2 if effect.sdk_rule_only else 1])))
            elapsed += delay
            budget = max(budget, elapsed)
        positions.append(len(served))
        served.append(answer)
        end = turn_end(answer)
        if len(continued(answer)) > 1:  # an agent may ask the model to go on: the continuation is there, unused by mini_agent
            return Schedule((*served, CONTINUATION), len(served), end, budget, tuple(positions), needs=("mini_agent",))
        if end is not None:
            needs = retries + (("continues_after_cut_tool_call",) if cut else ())
            return Schedule(tuple(served), len(served), end, budget, tuple(positions), needs=_of_parser(needs, parser))
        cut = cut or (answer.message or {}).get("stop_reason") == "max_tokens"  # a tool call cut short: the turn went on
    raise AssertionError("the last answer of a schedule must end the turn")


RETRY_POLICIES = ("retries", "retries_as_the_sdks_do")
"""What an agent declares that retries a failure: any transient one, and also what only the
official SDKs' rule retries (a 408, a 409, ``x-should-retry: true``)."""

CONTINUATION = Reply(message={"text": " and so on."})
"""The model going on after an answer cut by ``max_tokens`` or an empty one, for an agent
that asks it to (``continues_after_max_tokens``, ``continues_after_empty_answer``);
mini_agent ends the turn there."""


def continued(answer: Reply) -> tuple[Reply, ...]:
    """A turn's last answer, and after it ``CONTINUATION`` when an agent may ask the model
    to go on from it: an answer cut by ``max_tokens``, or an empty one."""
    end = turn_end(answer)
    empty = end in ("end_turn", "stop_sequence") and empty_answer(answer.message or {})
    return (answer, CONTINUATION) if end == "max_tokens" or empty else (answer,)


def _of_parser(needs: tuple[str, ...], parser: bool) -> tuple[str, ...]:
    """What the outcome hangs on: mini_agent's own way (it declares every policy) where a
    fault only the SDK's parser makes was served (``faults.parser_dependent``)."""
    return ("mini_agent",) if parser else needs


def _final_for_every_agent(fault: Reply) -> bool:
    """A failure after which no agent may send anything more in the turn: the API said the
    request is invalid (a 400, or ``invalid_request_error`` in the stream), or
    ``x-should-retry: false``. After another final error (a 401, a 404 …) a second try is
    the agent's choice."""
    if fault.headers.get("x-should-retry") == "false":
        return True
    error_event = fault.fault(ErrorEvent)
    if error_event is not None:
        return error_event.type == "invalid_request_error"
    return fault.error is not None and api_error(fault.error).status == 400


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

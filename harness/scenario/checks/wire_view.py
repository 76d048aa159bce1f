"""What the wire shows of a run, for any agent: the tools it was asked to run and what it
answered (read from the next requests' ``tool_result`` blocks), tools run on a broken
input, how long it waited before each retry, how each turn ended, and half-streamed text
kept in its history."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from harness.scenario.fake_api.capabilities import standard_calls
from harness.scenario.fake_api.conversation import (
    content_text,
    relation,
    same_start,
    thread_field,
)
from harness.scenario.fake_api.exchange import Exchange
from harness.scenario.fake_api.served import (
    broken_tool_inputs,
    delivered_texts,
    failed,
    served_message,
    taken_message,
    whole_message,
)
from harness.scenario.fake_api.tool_map import ToolMap
from harness.scenario.format.problem import Kind, Problem
from harness.scenario.format.schema import END_ALIASES


@dataclass(frozen=True)
class ToolExchange:
    """One ``tool_use`` the fake model sent and the agent's answer to it."""

    tool_use_id: str
    name: str  # the standard name
    served_in: int  # the request whose reply carried the tool_use
    answered_in: int | None  # the first later request holding its tool_result
    result: str | None
    is_error: bool


def tool_exchanges(requests: list[Exchange], tool_map: ToolMap) -> list[ToolExchange]:
    """Every tool_use served in ``requests``, in order, with its answer if one came."""
    exchanges = []
    for request in requests:
        message = served_message(request) or {}
        calls = [b for b in message.get("content") or [] if isinstance(b, dict) and b.get("type") == "tool_use"
                 and isinstance(b.get("id"), str)]
        written = [name for name, _ in standard_calls(request.written)] if request.written is not None else []
        for k, block in enumerate(calls):
            name = tool_map.standard_name(str(block.get("name")), block.get("input"))
            if tool_map.shared(name) and len(written) == len(calls):  # input without its `with` (raw, broken): as written
                name = written[k]
            answer = _answer(requests, request.number, block["id"])
            exchanges.append(ToolExchange(block["id"], name, request.number, answer[0] if answer else None,
                                          answer[1] if answer else None, bool(answer and answer[2])))
    return exchanges


def _answer(requests: list[Exchange], after: int, tool_use_id: str) -> tuple[int, str, bool] | None:
    for request in requests:
        if request.number <= after or not isinstance(request.body, dict):
            continue
        for message in request.body.get("messages") or []:
            content = message.get("content") if isinstance(message, dict) else None
            for block in content if isinstance(content, list) else []:
                if isinstance(block, dict) and block.get("type") == "tool_result" and block.get("tool_use_id") == tool_use_id:
                    return request.number, content_text(block.get("content")), bool(block.get("is_error"))
    return None


def tools_run_on_broken_input(requests: list[Exchange]) -> list[Problem]:
    """Problems: a tool_result that is not an error, for a tool_use whose input the
    harness served cut or unparseable — the tool ran on garbage (or on what a lenient
    parser made of it) and its answer claims success."""
    problems = []
    for request in requests:
        for tool_use_id, how in broken_tool_inputs(request):
            answer = _answer(requests, request.number, tool_use_id)
            if answer is not None and not answer[2] and not _served_again(requests, tool_use_id, request.number, answer[0]):
                answering = next(r for r in requests if r.number == answer[0])
                problems.append(_request_problem(
                    answering,
                    f"request {answer[0]} answers tool_use {tool_use_id}, whose input the answer to request "
                    f"{request.number} delivered {how}, with a tool_result that is not an error: the tool ran on broken input",
                ))
    return problems


def _request_problem(request: Exchange, text: str) -> Problem:
    """An invariant that ``request`` broke, pointing at the reply that answered it."""
    line = request.reply.line if request.reply is not None else None
    return Problem(text, Kind.INVARIANT, line=line or None, request=request.number)


def _served_again(requests: list[Exchange], tool_use_id: str, after: int, before: int) -> bool:
    """Whether a whole answer between two requests carried the same tool_use id (a
    recorded reply served again after a retry)."""
    return any(
        isinstance(block, dict) and block.get("id") == tool_use_id
        for request in requests
        if after < request.number < before
        for block in (served_message(request) or {}).get("content") or []
    )


_FAMILY = re.compile(r"opus|sonnet|haiku")


def conversations(requests: list[Exchange]) -> list[list[Exchange]]:
    """The requests of one session told apart by conversation, each in arrival order. A
    request joins the conversation whose answer its message thread continues, else the
    latest one it retries or follows up, else the latest one it rewrites (the same
    ``system`` and first message, unless it holds that message alone where the other had
    grown: a sub-agent asked the same task again starts over); otherwise it starts a new
    one (a sub-agent, a parallel conversation). A body that is not JSON joins the latest
    conversation."""
    groups: list[list[Exchange]] = []
    answered: dict[str, list[Exchange]] = {}
    for request in requests:
        thread = thread_field(request.body) or {}
        group = answered.get(str(thread.get("previous_message_id")))
        if group is None and not isinstance(request.body, dict):
            group = groups[-1] if groups else None
        group = group or next((g for g in reversed(groups) if relation(g[-1].whole, request.whole) != "rewrite"), None)
        group = group or next((g for g in reversed(groups) if same_start(g[-1].whole, request.whole)
                               and not _starts_over(g[-1].whole, request.whole)), None)
        if group is None:
            groups.append(group := [])
        group.append(request)
        message = served_message(request)
        if message is not None:
            answered[str(message.get("id"))] = group
    return groups


def _starts_over(before: Any, after: Any) -> bool:
    """Whether ``after`` holds one message where ``before`` had grown beyond it."""
    sent = [body.get("messages") if isinstance(body, dict) else None for body in (before, after)]
    return all(isinstance(m, list) for m in sent) and len(sent[1]) == 1 < len(sent[0])


def side_conversations(requests: list[Exchange]) -> list[list[Exchange]]:
    """The side requests among ``requests`` (``Exchange.side``), told apart by the rule each
    matched, then by conversation: a title made from the user's line is no retry of the
    router that read the same line."""
    by_rule: dict[str, list[Exchange]] = {}
    for request in requests:
        if request.side is not None:
            by_rule.setdefault(request.side, []).append(request)
    return [group for matched in by_rule.values() for group in conversations(matched)]


def retry_waits(requests: list[Exchange]) -> list[tuple[Exchange, Exchange, float]]:
    """``(failed request, the next request, seconds between them)``: from when the failed
    answer was over to when the next request arrived; not for a next request to a model of
    another family (a fallback model: the rate limits are pooled by model family, and an
    overloaded model is that model)."""
    return [
        (before, after, max(0.0, after.time - (before.finished if before.finished is not None else before.time)))
        for before, after in zip(requests, requests[1:])
        if failed(before) and _family(before) == _family(after)
    ]


def _family(request: Exchange) -> str | None:
    """The model family a request asks (``opus``, ``sonnet``, ``haiku``; else its model)."""
    model = request.body.get("model") if isinstance(request.body, dict) else None
    if not isinstance(model, str):
        return None
    found = _FAMILY.search(model)
    return found.group(0) if found else model


def wire_end(requests: list[Exchange], *, interrupted: bool = False) -> str:
    """How a turn ended as the wire tells it: the stop reason of its last answer
    (``end_turn``, ``tool_use``, ``refusal``, ``max_tokens``, ``context_window`` …),
    ``error`` when its last request failed (unless its answer came whole for a client that
    reads it so: ``served.arrived_whole``), ``interrupted`` after Ctrl+C, ``none`` when it
    sent nothing."""
    if interrupted:
        return "interrupted"
    if not requests:
        return "none"
    last = requests[-1]
    if last.plan is not None and last.plan.ending == "interrupt":
        return "interrupted"
    message = taken_message(last)  # whole for a client that reads it so: the wire cannot tell
    if message is None:
        return "error"
    stop = message.get("stop_reason") or "end_turn"
    return END_ALIASES.get(stop, stop)


def turn_wire_end(turn: Any) -> str:
    """How a turn (a ``TurnResult``) ended as the wire tells it: its conversation's end
    (``wire_end``), unless a side request after the conversation's last one ended it:
    Ctrl+C while it streamed (``interrupted``), or a failure while the conversation waited
    on a tool call (``error``: a sub-agent's request the agent gave up on)."""
    end = wire_end(turn.requests, interrupted=turn.interrupted)
    side = turn.side_requests[-1] if turn.side_requests else None
    if side is None or (turn.requests and side.number < turn.requests[-1].number) or side.plan is None:
        return end
    if side.plan.ending == "interrupt":
        return "interrupted"
    return "error" if end == "tool_use" and failed(side) else end


def answer_taken(request: Exchange, requests: list[Exchange]) -> bool:
    """Whether a later request's history holds the message ``request`` got as one of its
    assistant messages (for an answer that came whole to some clients only: the agent
    took it as final)."""
    message = whole_message(request)
    if message is None:
        return False
    wanted = _blocks(message["content"])
    for later in requests:
        messages = later.body.get("messages") if later.number > request.number and isinstance(later.body, dict) else None
        for message in messages if isinstance(messages, list) else ():
            if isinstance(message, dict) and message.get("role") == "assistant" and _blocks(message.get("content")) == wanted:
                return True
    return False


def _blocks(content: Any) -> list[tuple[Any, str, Any]]:
    """An assistant message's blocks as (type, text, tool_use id): what taking an answer keeps."""
    if isinstance(content, str):
        return [("text", content.strip(), None)]
    blocks = content if isinstance(content, list) else []
    return [(b.get("type"), str(b.get("text", "")).strip(), b.get("id")) for b in blocks if isinstance(b, dict)]


def kept_partial_text(requests: list[Exchange]) -> tuple[list[Problem], list[Problem]]:
    """``(ending, resumed)``: a later request whose assistant message holds the text a
    broken stream had delivered, where no complete answer said the same. It is a problem
    when that half answer ends the request: models from Claude 4.6 on refuse it ("This
    model does not support assistant message prefill. The conversation must end with a
    user message."), older ones take it as their own prefill. Followed by a user message
    it is the agent's choice, a note: Claude Code keeps the part it got and asks the model
    to resume ("Your response above was cut off mid-stream. Resume directly …"). A message
    that came whole for a client that reads it leniently (``arrived_whole``) is complete."""
    complete = {
        str(b.get("text", "")).strip()
        for r in requests
        for b in (taken_message(r) or {}).get("content") or []
        if isinstance(b, dict) and b.get("type") == "text"
    }
    ending: list[Problem] = []
    resumed: list[Problem] = []
    for broken in requests:
        partial = [t for t in delivered_texts(broken) if t.strip() not in complete]
        for later in requests:
            if later.number <= broken.number or not partial:
                continue
            texts = _assistant_texts(later.body)
            kept = [t for t in partial if t.strip() in texts]
            if kept:
                line = f"request {later.number} keeps the half-streamed text of request {broken.number}'s broken answer in its history"
                if all(texts[t.strip()] for t in kept):
                    resumed.append(_request_problem(later, f"{line}, followed by a user message: {kept[0][:80]!r}"))
                else:
                    ending.append(_request_problem(later, f"{line}: {kept[0][:80]!r}"))
                break
    return ending, resumed


def _assistant_texts(body: Any) -> dict[str, bool]:
    """The text of each assistant message's text blocks, and whether a user message follows it."""
    messages = body.get("messages") if isinstance(body, dict) else None
    messages = [m for m in messages if isinstance(m, dict)] if isinstance(messages, list) else []
    texts: dict[str, bool] = {}
    for index, message in enumerate(messages):
        if message.get("role") != "assistant":
            continue
        followed = any(m.get("role") == "user" for m in messages[index + 1 :])
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content if isinstance(content, list) else []
        for block in blocks:
            if isinstance(block, dict) and block.get("type") == "text":
                texts[str(block.get("text", "")).strip()] = followed
    return texts

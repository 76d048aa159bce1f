"""What the wire shows of a run, for any agent: the tools it was asked to run and what it
answered (read from the next requests' ``tool_result`` blocks), how long it waited
before each retry, how each turn ended, and half-streamed text kept in its history."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.scenario.recorded import RecordedRequest
from harness.scenario.served import delivered_texts, failed, served_message
from harness.scenario.tool_map import ToolMap

END_NAMES = {"model_context_window_exceeded": "context_window"}


@dataclass(frozen=True)
class ToolExchange:
    """One ``tool_use`` the fake model sent and the agent's answer to it."""

    tool_use_id: str
    name: str  # the standard name
    served_in: int  # the request whose reply carried the tool_use
    answered_in: int | None  # the first later request holding its tool_result
    result: str | None
    is_error: bool


def tool_exchanges(requests: list[RecordedRequest], tool_map: ToolMap) -> list[ToolExchange]:
    """Every tool_use served in ``requests``, in order, with its answer if one came."""
    exchanges = []
    for request in requests:
        message = served_message(request) or {}
        for block in message.get("content") or []:
            if isinstance(block, dict) and block.get("type") == "tool_use" and isinstance(block.get("id"), str):
                answer = _answer(requests, request.number, block["id"])
                exchanges.append(
                    ToolExchange(
                        block["id"], tool_map.standard_name(str(block.get("name"))), request.number,
                        answer[0] if answer else None, answer[1] if answer else None, bool(answer and answer[2]),
                    )
                )
    return exchanges


def _answer(requests: list[RecordedRequest], after: int, tool_use_id: str) -> tuple[int, str, bool] | None:
    for request in requests:
        if request.number <= after or not isinstance(request.body, dict):
            continue
        for message in request.body.get("messages") or []:
            content = message.get("content") if isinstance(message, dict) else None
            for block in content if isinstance(content, list) else []:
                if isinstance(block, dict) and block.get("type") == "tool_result" and block.get("tool_use_id") == tool_use_id:
                    return request.number, result_text(block.get("content")), bool(block.get("is_error"))
    return None


def result_text(content: Any) -> str:
    """A tool_result's content as text (a string, or its text blocks joined)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text")
    return ""


def retry_waits(requests: list[RecordedRequest]) -> list[tuple[RecordedRequest, RecordedRequest, float]]:
    """``(failed request, the next request, seconds between them)``: from when the failed
    answer was over to when the next request arrived."""
    return [
        (before, after, max(0.0, after.time - (before.finished if before.finished is not None else before.time)))
        for before, after in zip(requests, requests[1:])
        if failed(before)
    ]


def wire_end(requests: list[RecordedRequest], *, interrupted: bool = False) -> str:
    """How a turn ended as the wire tells it: the stop reason of its last answer
    (``end_turn``, ``tool_use``, ``refusal``, ``max_tokens``, ``context_window`` …),
    ``error`` when its last request failed, ``interrupted`` after Ctrl+C, ``none`` when
    it sent nothing."""
    if interrupted:
        return "interrupted"
    if not requests:
        return "none"
    last = requests[-1]
    if last.plan is not None and last.plan.ending == "interrupt":
        return "interrupted"
    message = served_message(last)
    if message is None:
        return "error"
    stop = message.get("stop_reason") or "end_turn"
    return END_NAMES.get(stop, stop)


def kept_partial_text(requests: list[RecordedRequest]) -> list[str]:
    """Problems: a later request whose assistant message holds the text a broken stream
    had delivered, where no complete answer said the same."""
    complete = {
        str(b.get("text", "")).strip()
        for r in requests
        for b in (served_message(r) or {}).get("content") or []
        if isinstance(b, dict) and b.get("type") == "text"
    }
    problems = []
    for broken in requests:
        partial = [t for t in delivered_texts(broken) if t.strip() not in complete]
        for later in requests:
            if later.number <= broken.number or not partial:
                continue
            kept = [t for t in partial if t.strip() in _assistant_texts(later.body)]
            if kept:
                problems.append(
                    f"request {later.number} keeps the half-streamed text of request {broken.number}'s broken "
                    f"answer in its history: {kept[0][:80]!r}"
                )
                break
    return problems


def _assistant_texts(body: Any) -> set[str]:
    messages = body.get("messages") if isinstance(body, dict) else None
    texts = set()
    for message in messages if isinstance(messages, list) else []:
        if isinstance(message, dict) and message.get("role") == "assistant":
            content = message.get("content")
            if isinstance(content, str):
                texts.add(content.strip())
            for block in content if isinstance(content, list) else []:
                if isinstance(block, dict) and block.get("type") == "text":
                    texts.add(str(block.get("text", "")).strip())
    return texts

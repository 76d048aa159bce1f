"""Checks on a run's final history that the always-on invariants make only indirectly,
read from the wire for any agent: the history is what the last request sent."""

from __future__ import annotations

from typing import Any

from harness.agents.events import Notice
from harness.scenario.checks.outcome import Outcome
from harness.scenario.fake_api.served import arrived_whole, failed, whole_message

OMITTED_THINKING = "(earlier reasoning omitted)"  # what mini_agent leaves when a fallback drops thinking


def sent_history(outcome: Outcome) -> list[dict[str, Any]]:
    """The messages of the last request the agent sent (its whole history then)."""
    bodies = [r.body for r in outcome.requests if isinstance(r.body, dict) and isinstance(r.body.get("messages"), list)]
    return bodies[-1]["messages"] if bodies else []


def tool_uses_answered_once(outcome: Outcome) -> list[str]:
    """Every tool_use has exactly one tool_result, in the message right after it."""
    history = sent_history(outcome)
    problems = []
    for index, message in enumerate(history):
        if not isinstance(message, dict) or message.get("role") != "assistant" or not isinstance(message.get("content"), list):
            continue
        ids = [b["id"] for b in message["content"] if b.get("type") == "tool_use"]
        following = history[index + 1]["content"] if index + 1 < len(history) else []
        answers = [b.get("tool_use_id") for b in following if isinstance(following, list) and b.get("type") == "tool_result"]
        for tool_id in ids:
            if answers.count(tool_id) != 1:
                problems.append(f"history: tool_use {tool_id} (message {index}) has {answers.count(tool_id)} tool_result(s) after it")
    return problems


def no_partial_messages(outcome: Outcome) -> list[str]:
    """Every assistant message in the history is an answer that arrived whole: its
    tool_use ids and texts come from requests that did not fail."""
    complete: list[list[dict[str, Any]]] = [
        message["content"] for r in outcome.requests if arrived_whole(r) and (message := whole_message(r)) is not None
    ]  # (tool JSON the SDK's parser gives up on: a client that reads it at the block's end has the message)
    ids = {b["id"] for content in complete for b in content if b.get("type") == "tool_use"}
    texts = {b["text"].rstrip() for content in complete for b in content if b.get("type") == "text"}
    thoughts = {b["thinking"] for content in complete for b in content if b.get("type") == "thinking"}
    problems = []
    for index, message in enumerate(sent_history(outcome)):
        if not isinstance(message, dict) or message.get("role") != "assistant" or not isinstance(message.get("content"), list):
            continue
        for block in message["content"]:
            kind = block.get("type")
            partial = (
                (kind == "tool_use" and block["id"] not in ids)
                or (kind == "text" and block["text"].rstrip() not in texts and block["text"] != OMITTED_THINKING)
                or (kind == "thinking" and block["thinking"] not in thoughts)
            )
            if partial:
                problems.append(f"history: message {index} holds a {kind} block from no complete answer: {str(block)[:120]}")
    return problems


def mini_agent_shows_every_retry(outcome: Outcome) -> list[str]:
    """mini_agent makes every retry visible: a ``Retrying in`` notice per request that
    follows a failure in its turn, and an ``API Error`` notice when a turn ends on one.
    (Other agents word things their own way: not checked for them.)"""
    if outcome.agent_name != "mini_agent":
        return []
    problems = []
    for turn in outcome.turns:
        retries = sum(failed(before) for before in turn.requests[:-1])
        notices = [n.text for n in turn.of_type(Notice)]
        shown = sum("Retrying in" in text for text in notices)
        if not retries <= shown <= retries + turn.interrupted:  # Ctrl+C may come between a notice and its retry
            problems.append(f"{turn.label}: {retries} retries, {shown} 'Retrying in' notice(s): {notices}")
        if turn.end == "error" and not any(text.startswith("API Error") for text in notices):
            problems.append(f"{turn.label}: ended on an error without saying which: {notices}")
    return problems


HISTORY_CHECKS = (tool_uses_answered_once, no_partial_messages, mini_agent_shows_every_retry)

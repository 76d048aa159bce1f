"""Side requests answered with replies of their own (``harness.scenario.format.side_requests``
says how an agent declares them): a request that matches a rule is marked as the rule's
(``Exchange.side``) as it comes, so that every check of a turn reads the scenario's
conversation without it, and is answered with the rule's reply instead of the turn's
next one. Rate limits and the oracle treat it as any request: it is one. Where an agent
declares none, ``side_request_hint`` and ``undeclared_side`` say when a request that took a
reply it could not meet, or a turn that ran out of replies, looks like a side request."""

from __future__ import annotations

from typing import Any

from harness.scenario.fake_api.capabilities import unmet_need
from harness.scenario.fake_api.conversation import content_text, same_start
from harness.scenario.fake_api.exchange import Exchange
from harness.scenario.fake_api.policy import Pending, Policy
from harness.scenario.fake_api.tool_map import ToolMap
from harness.scenario.format.problem import Kind, Problem
from harness.scenario.format.side_requests import SideRule
from harness.wire.replies import Reply


class SideRequests(Policy):
    """Answers the requests its rules match; ``problems`` hears a rule whose reply cannot
    answer the request it matched (a text for a request that forces a tool)."""

    def __init__(self, problems: list[Problem]) -> None:
        self.rules: tuple[SideRule, ...] = ()
        self.problems = problems
        self._told: set[str] = set()
        self._served: dict[str, int] = {}  # replies served, by rule

    def rule_for(self, body: Any) -> SideRule | None:
        """The first rule ``body`` matches (None: the scenario's conversation)."""
        if not self.rules or not isinstance(body, dict):
            return None
        return next((rule for rule in self.rules if all(_holds(key, value, body) for key, value in rule.when.items())), None)

    def pick(self, pending: Pending) -> Reply | None:
        record = pending.record
        rule = next((r for r in self.rules if r.where == record.side), None)
        if rule is None:
            return None
        served = self._served.get(rule.where, 0)
        self._served[rule.where] = served + 1
        reply = rule.replies[min(served, len(rule.replies) - 1)]
        unmet = unmet_need(reply, record.whole, ToolMap())
        if unmet is not None and rule.where not in self._told:
            self._told.add(rule.where)
            names = " (a side reply calls the agent's tools by the names its request declares, not Read, Write, Bash)"
            self.problems.append(Problem(f"{rule.where}: its reply cannot answer request {record.number}: {unmet}"
                                         + (names if "the agent has no tool that" in unmet else ""),
                                         Kind.FILE_MISTAKE, request=record.number))
        return reply


def _holds(key: str, value: str, body: dict[str, Any]) -> bool:
    if key == "model":
        return body.get("model") == value
    if key == "system":
        return value in _text(body.get("system"))
    if key == "last_message":
        messages = body.get("messages")
        last = messages[-1] if isinstance(messages, list) and messages else None
        return isinstance(last, dict) and value in _text(last.get("content"))
    choice = body.get("tool_choice")
    return isinstance(choice, dict) and choice.get("type") == "tool" and choice.get("name") == value


def _text(content: Any) -> str:
    """A system prompt's or a message's text, the text of the tool results among its blocks too."""
    results = [b.get("content") for b in content if isinstance(b, dict) and b.get("type") == "tool_result"] if isinstance(
        content, list) else []
    return "\n".join([content_text(content), *map(content_text, results)])


def side_request_hint(where: Exchange, requests: list[Exchange]) -> str:
    """Why the request that took a reply it could not meet may be a side request, when it
    looks like one: it declares no tools where the client's other requests do, or it
    starts a conversation of its own."""
    declare = "(an agent declares its side requests with `harness_side_requests`: they get replies of their own)"
    if not _declares_tools(where) and any(_declares_tools(r) for r in requests if r.side is None):
        return (f"; request {where.number} declares no tools where the client's other requests do: a side request "
                "(another conversation: a router, a summary) took a reply written for the main one, and a "
                f"scenario's replies are for one conversation {declare}")
    other = _apart(where, requests)
    if other is not None:
        return (f"; request {where.number} starts a conversation of its own (its system prompt or first message is not "
                f"request {other.number}'s): if it is a side request (a router, a title, a summary) {declare}")
    return ""


def undeclared_side(requests: list[Exchange], label: str) -> str:
    """A hint, when a request of the queue ``label`` opens a conversation of its own: a side
    request not declared takes one of the replies."""
    mine = [r for r in requests if r.label == label and r.side is None]
    other = _apart(mine[0], mine) if mine else None
    if other is None:
        return ""
    return (f" (requests {mine[0].number} and {other.number} open different conversations: if one is a side request, "
            "a router, a title or a summary, an agent declares it with `harness_side_requests` and it gets a reply of "
            "its own)")


def _apart(request: Exchange, requests: list[Exchange]) -> Exchange | None:
    """The first of ``requests`` (no declared side request) that opens another conversation
    than ``request``: not the same start, nor one whose first user message holds the other's
    text and more (user lines merged into one message, as the API merges consecutive ones)."""
    return next((r for r in requests if r is not request and r.side is None and not same_start(r.whole, request.whole)
                 and not _merged(r.whole, request.whole)), None)


def _merged(one: Any, other: Any) -> bool:
    """Whether two requests open with the same system prompt and a first user message one
    of which begins with the other's text."""
    a, b = _opening(one), _opening(other)
    return a is not None and b is not None and a[1] == b[1] and (a[0].startswith(b[0]) or b[0].startswith(a[0]))


def _opening(body: Any) -> tuple[str, str] | None:
    """The text of a request's first message, when it is a user's and holds any, and its system prompt."""
    messages = body.get("messages") if isinstance(body, dict) else None
    first = messages[0] if isinstance(messages, list) and messages and isinstance(messages[0], dict) else {}
    text = content_text(first.get("content")).strip() if first.get("role") == "user" else ""
    return (text, str(body.get("system"))) if text else None


def _declares_tools(request: Exchange) -> bool:
    return isinstance(request.body, dict) and bool(request.body.get("tools"))

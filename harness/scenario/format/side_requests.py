"""Side requests: what an agent asks the model outside the conversation a scenario's
replies are written for (a router that picks a route, a title for the session, a summary
when the history grows long), told apart by what they carry and answered with replies of
their own. An in-process agent declares them with a ``harness_side_requests`` attribute;
``harness serve --side-requests FILE`` reads the same list from YAML or JSON::

    - when: {system: "Write a short title"}                # the system prompt contains it
      reply: {text: "Fixing the README"}
    - when: {model: claude-haiku-4-5, tool_choice: route}   # all the keys given must hold
      reply: {tool_use: {name: route, input: {to: code}}}
    - when: {last_message: "Summarize the conversation"}   # the last message's text contains it
      replies: [{error: overloaded}, {text: "The user wants …"}]   # in turn; the last one again after

``when`` keys: ``model`` (the request's model), ``system`` (text the system prompt
contains), ``last_message`` (text the last message contains), ``tool_choice`` (the tool
the request forces). ``reply`` is a reply in the scenario format, in the agent's own tool
names, for every request the rule matches (default: a short text answer); ``replies`` are
served one a request, the last one again once they run out (an error, then the answer).

Errors::

    HarnessError
     └── SideRequestsError   a declaration with mistakes, each at its place
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.scenario.format.loader import reply_from
from harness.scenario.format.schema import reply_spec
from harness.scenario.format.spec import ListOf, Obj, Scalar
from harness.scenario.format.yaml_positions import load_checked
from harness.wire.errors import HarnessError
from harness.wire.replies import Reply

WHEN_KEYS = {
    "model": "the request's model is this one",
    "system": "the system prompt contains this text",
    "last_message": "the last message's text contains this text",
    "tool_choice": "the request forces this tool (`tool_choice: {type: tool, name: …}`)",
}
DEFAULT_REPLY = Reply(message={"text": "OK."})
"""What a side request gets when its rule names no reply."""


class SideRequestsError(HarnessError, ValueError):
    """A side-request declaration with mistakes."""


@dataclass(frozen=True)
class SideRule:
    """One kind of side request: what tells it apart, and what it is answered."""

    when: dict[str, str]
    replies: tuple[Reply, ...]  # one a request, the last one again once they run out
    where: str  # the rule as messages name it: ``harness_side_requests[0]``, ``side.yaml:3``


def _some_condition(when: dict[str, Any]) -> str | None:
    return None if when else f"`when` needs at least one of: {', '.join(WHEN_KEYS)}"


def _one_way(rule: dict[str, Any]) -> str | None:
    return "a side request has `reply` or `replies`, not both" if "reply" in rule and "replies" in rule else None


WHEN = Obj({key: Scalar("string", about) for key, about in WHEN_KEYS.items()}, rules=(_some_condition,), what="when")


def side_requests_spec() -> ListOf:
    """The format of a declaration: a list of rules."""
    rule = Obj({"when": WHEN, "reply": reply_spec(), "replies": ListOf(reply_spec(), min_items=1)}, required=("when",),
               rules=(_one_way,), what="side request")
    return ListOf(rule)


def side_rules(declared: Any, name: str = "harness_side_requests") -> tuple[SideRule, ...]:
    """An agent's ``harness_side_requests`` (None: it makes none), checked; SideRequestsError
    naming each mistake under ``name``."""
    if declared is None:
        return ()
    declared = list(declared) if isinstance(declared, tuple) else declared
    problems = side_requests_spec().check(declared, (0, 0), name)
    if problems:
        raise SideRequestsError("\n".join(p.text for p in problems))
    return tuple(_rule(item, f"{name}[{index}]") for index, item in enumerate(declared))


def load_side_rules(path: str | Path) -> tuple[SideRule, ...]:
    """The rules in a YAML or JSON file, checked; SideRequestsError naming ``path:line:col``."""
    document = load_checked(path, side_requests_spec(), "side_requests", SideRequestsError)
    return tuple(_rule(item, f"{path}:{getattr(item, 'pos', (index + 1,))[0]}") for index, item in enumerate(document))


def _rule(item: dict[str, Any], where: str) -> SideRule:
    written = item["replies"] if "replies" in item else [item["reply"]] if "reply" in item else []
    replies = tuple(reply_from(reply) for reply in written) or (DEFAULT_REPLY,)
    return SideRule({str(k): str(v) for k, v in item["when"].items()}, replies, where)

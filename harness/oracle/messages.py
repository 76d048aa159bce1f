"""The rules on a ``messages`` list, run in one pass, earliest message first.

The runner reads each message once: a message that is not an object, or has no known
role or no content list, is reported as such and read no further; a ``role: system``
message meets ``SYSTEM_RULES``; in every other message each block is checked for the
shape its type requires (``blocks``) and then by the rules of its type (``BLOCK_RULES``),
the content as a whole by ``CONTENT_RULES`` (see ``message_rules``), and the message joins
its turn. When the list is read, each turn meets the rules between turns (``TURN_RULES``;
see ``turn_rules``). Violations are reported as the API reports them: its schema
validation first (pydantic's words), then the rules about the conversation, each group
message by message.

Pairing is judged on turns: consecutive same-role messages are merged, as the API merges
them, and ``role: system`` messages are skipped: the API accepts them mid-conversation
with no beta header ("No beta header is required", the mid-conversation system messages
page). Of their placement only what the docs state is checked: one cannot open the
conversation (they are accepted "immediately after a user turn"). The models that take
them are not checked. ``tool_use`` ids are unique within a turn: a user message starts
the set afresh (``message_rules.tool_use_ids_unique``).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from itertools import groupby
from operator import attrgetter
from typing import Any

from harness.oracle import wording
from harness.oracle.blocks import block_shape
from harness.oracle.message_rules import (
    BLOCK_RULES,
    CONTENT_RULES,
    SYSTEM_RULES,
    Message,
    non_empty_content,
)
from harness.oracle.turn_rules import TURN_RULES, Turn
from harness.oracle.wording import Violation

_MAPPING = (dict, Mapping)  # same answer as Mapping alone, but dicts skip the slow ABC check


def check_history(messages: Sequence[Mapping[str, Any]], *, server_tools: Collection[str] = ()) -> list[Violation]:
    """Check only the ``messages`` list, in one pass; earliest message first.
    ``server_tools``: the names of the server tools the request declares (``check_request``
    reads them from ``tools``): a client ``tool_use`` that calls one is not answered by a
    ``tool_result`` (``turn_rules.answerable``)."""
    if not messages:
        return [Violation("messages", wording.NO_MESSAGES)]
    found: list[tuple[int, Violation]] = []
    readable: list[Message] = []
    tool_use_ids: set[str] = set()
    last = len(messages) - 1
    for index, raw in enumerate(messages):
        if isinstance(raw, _MAPPING) and raw.get("role") == "user":
            tool_use_ids = set()  # a user turn ends the assistant turn whose ids must be unique
        message = _read(index, raw, index == last, tool_use_ids)
        if isinstance(message, Violation):
            found.append((index, message))
            continue
        if message.role == "system":
            found += [(index, v) for rule in SYSTEM_RULES for v in rule(message)]
            continue
        for k, block in enumerate(message.blocks):
            at = f"messages.{index}.content.{k}"
            if not isinstance(block, _MAPPING):
                found.append((index, Violation(at, wording.NOT_AN_OBJECT)))
                continue
            for violation in block_shape(at, block):
                found.append((index, violation))
            kind = message.types[k]
            for rule in BLOCK_RULES.get(kind, ()) if isinstance(kind, str) else ():
                for violation in rule(block, at, message):
                    found.append((index, violation))
        for rule in CONTENT_RULES if message.blocks and message.content != "" else (non_empty_content,):
            for violation in rule(message):
                found.append((index, violation))
        readable.append(message)
    found += _between_turns(readable, server_tools)
    found.sort(key=lambda item: (not is_validation(item[1]), item[0]))
    return [violation for _, violation in found]


def is_validation(violation: Violation) -> bool:
    """Whether the API's schema validation says it (in pydantic's words), which comes
    before any rule about the conversation: those are reported first."""
    return violation.message.startswith(wording.VALIDATION_OPENINGS)


def content_blocks(content: Any) -> list[Any] | None:
    """Content as a block list (a string is one text block), or None if it is neither."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return content
    return None


def _read(index: int, raw: Any, last: bool, tool_use_ids: set[str]) -> Message | Violation:
    """The message as the rules read it; or why they cannot: it is not an object or has no
    role (none of the message forms: ``messages.N: Input does not match the expected
    shape.``, the API's words for ``"Invalid content"`` and for ``{}``), has an unknown
    role, or (but for a system message) no content list."""
    if not isinstance(raw, _MAPPING) or "role" not in raw:
        return Violation(f"messages.{index}", wording.NOT_THE_SHAPE)
    role, content = raw.get("role"), raw.get("content")
    if role == "system":
        return Message(index, role, content, content if isinstance(content, list) else [], [], False, tool_use_ids)
    if role != "user" and role != "assistant":
        return Violation(f"messages.{index}.role", wording.ROLE)
    blocks = content_blocks(content)
    if blocks is None:
        return Violation(f"messages.{index}.content", wording.FIELD_REQUIRED if content is None else wording.NOT_A_LIST)
    types = [b.get("type") if isinstance(b, _MAPPING) else None for b in blocks]
    return Message(index, role, content, blocks, types, last and role == "assistant", tool_use_ids)


def _between_turns(messages: list[Message], server_tools: Collection[str]) -> list[tuple[int, Violation]]:
    """The rules between turns (consecutive messages of one role), each user turn read
    against the assistant turn before it."""
    found: list[tuple[int, Violation]] = []
    asked: list[str] = []
    unanswerable: set[str] = set()
    for role, group in groupby(messages, key=attrgetter("role")):
        turn = Turn(role, list(group), asked if role == "user" else [], unanswerable if role == "user" else set())
        for rule in TURN_RULES[role]:
            found += rule(turn)
        asked = turn.tool_use_ids() if role == "assistant" else []
        unanswerable = turn.server_tool_calls(server_tools) if role == "assistant" else set()
    return found

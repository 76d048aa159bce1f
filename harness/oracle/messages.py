"""The rules on a ``messages`` list, checked in one pass, earliest message first.

Pairing is judged on turns: consecutive same-role messages are merged, as the API merges
them, and ``role: system`` messages are skipped: the API accepts them mid-conversation
with no beta header ("No beta header is required", the mid-conversation system messages
page). Of their placement only what the docs state is checked: one cannot open the
conversation (they are accepted "immediately after a user turn"); no real error text was
found, so that message is the harness's own. The models that take them are not checked.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from harness.oracle import wording
from harness.oracle.blocks import block_shape
from harness.oracle.wording import Violation

MAX_TOOL_USE_NAME = 200
"""tool_use names in the history: the API refuses an empty one and one over 200 characters,
in these words — "messages.N.content.M.tool_use.name: String should have at least 1
character" and "… String should have at most 200 characters" (its 400s, quoted in bug
reports and in Claude Code's changelog: "Fixed conversations getting permanently stuck on
'tool_use.name: String should have at most 200 characters'"). The pattern of tool
*definitions* (``tools.N.custom.name``) does not apply to names in the history."""
_TOOL_USE_ID = re.compile(r"[a-zA-Z0-9_-]+")
_THINKING = ("thinking", "redacted_thinking")
_MAPPING = (dict, Mapping)  # same answer as Mapping alone, but dicts skip the slow ABC check


@dataclass
class _Turn:
    """Consecutive messages of one role, as the API merges them."""

    role: str
    first: int
    blocks: list[tuple[int, int, Mapping[str, Any]]] = field(default_factory=list)


def check_history(
    messages: Sequence[Mapping[str, Any]], *, betas: Iterable[str] | None = None
) -> list[Violation]:
    """Check only the ``messages`` list, in one pass; earliest message first. ``betas``
    are the request's (no rule depends on them today; see ``betas``)."""
    if not messages:
        return [Violation("messages", wording.NO_MESSAGES)]
    found: list[tuple[int, Violation]] = []
    turns: list[_Turn] = []
    tool_use_ids: set[str] = set()
    for index, message in enumerate(messages):
        if not isinstance(message, _MAPPING):
            found.append((index, Violation(f"messages.{index}", wording.NOT_AN_OBJECT)))
            continue
        role = message.get("role")
        if role == "system":
            found += [(index, v) for v in _system_blocks(index, message)]
            continue
        if role not in ("user", "assistant"):
            problem = wording.FIELD_REQUIRED if "role" not in message else wording.ROLE
            found.append((index, Violation(f"messages.{index}.role", problem)))
            continue
        content = message.get("content")
        blocks = content_blocks(content)
        if blocks is None:
            problem = wording.FIELD_REQUIRED if content is None else wording.NOT_A_LIST
            found.append((index, Violation(f"messages.{index}.content", problem)))
            continue
        final_assistant = role == "assistant" and index == len(messages) - 1
        found += [(index, v) for v in _block_rules(index, role, blocks, tool_use_ids)]
        found += [(index, v) for v in _content_rules(index, role, content, blocks, final_assistant)]
        if not turns or turns[-1].role != role:
            turns.append(_Turn(role, index))
        turns[-1].blocks += [(index, k, block) for k, block in enumerate(blocks)]
    found += _pairing_rules(turns)
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


def _block_rules(
    index: int, role: str, blocks: list[Any], tool_use_ids: set[str]
) -> Iterable[Violation]:
    """Rules on single blocks: their shape, tool_use ids and names, tool_result placement."""
    for k, block in enumerate(blocks):
        at = f"messages.{index}.content.{k}"
        if not isinstance(block, _MAPPING):
            yield Violation(at, wording.NOT_AN_OBJECT)
            continue
        yield from block_shape(at, block)
        if block.get("type") == "tool_use":
            tool_id, name = block.get("id"), block.get("name")
            if "id" not in block:
                yield Violation(f"{at}.tool_use.id", wording.FIELD_REQUIRED)
            elif not isinstance(tool_id, str) or not _TOOL_USE_ID.fullmatch(tool_id):
                yield Violation(f"{at}.tool_use.id", wording.TOOL_USE_ID_PATTERN)
            elif tool_id in tool_use_ids:
                yield Violation(at, wording.TOOL_USE_IDS_UNIQUE)
            else:
                tool_use_ids.add(tool_id)
            if "input" in block and not isinstance(block["input"], _MAPPING):
                yield Violation(f"{at}.tool_use.input", wording.NOT_AN_OBJECT)
            if name == "":
                yield Violation(f"{at}.tool_use.name", wording.NAME_TOO_SHORT)
            elif isinstance(name, str) and len(name) > MAX_TOOL_USE_NAME:
                yield Violation(f"{at}.tool_use.name", wording.NAME_TOO_LONG.format(limit=MAX_TOOL_USE_NAME))
        elif block.get("type") == "tool_result" and role == "assistant":
            yield Violation(f"messages.{index}", wording.TOOL_RESULT_IN_ASSISTANT)


def _system_blocks(index: int, message: Mapping[str, Any]) -> Iterable[Violation]:
    """A ``role: system`` message cannot open the conversation: the docs accept them
    "immediately after a user turn", and the initial system prompt is the top-level
    ``system`` (the directive-only form, empty content, is let through anywhere). Its
    blocks have the shape of any block."""
    content = message.get("content")
    if index == 0 and content not in ("", [], None):
        yield Violation("messages.0", wording.SYSTEM_FIRST)
    for k, block in enumerate(content if isinstance(content, list) else []):
        if isinstance(block, _MAPPING):
            yield from block_shape(f"messages.{index}.content.{k}", block)


def _content_rules(
    index: int, role: str, content: Any, blocks: list[Any], final_assistant: bool
) -> Iterable[Violation]:
    """Rules on one message's content: emptiness, whitespace, thinking first."""
    if content == "" or content == []:
        if not final_assistant:
            yield Violation(f"messages.{index}", wording.EMPTY_MESSAGE)
        return
    texts = [(k, b.get("text")) for k, b in enumerate(blocks) if isinstance(b, _MAPPING) and b.get("type") == "text"]
    at = f"messages.{index}.content"
    empty = next((k for k, text in texts if text == ""), None)
    if empty is not None:
        yield Violation("messages", wording.EMPTY_TEXT, at=f"{at}.{empty}")
    elif not final_assistant and len(texts) == len(blocks) and all(
        isinstance(t, str) and not t.strip() for _, t in texts
    ):
        yield Violation("messages", wording.WHITESPACE_TEXT, at=f"{at}.0")
    last = blocks[-1]
    if final_assistant and isinstance(last, _MAPPING) and last.get("type") == "text":
        text = last.get("text")
        if isinstance(text, str) and text != text.rstrip():
            yield Violation("messages", wording.TRAILING_WHITESPACE, at=f"{at}.{len(blocks) - 1}")
    types = [b.get("type") if isinstance(b, _MAPPING) else None for b in blocks]
    if role == "assistant" and types[0] not in _THINKING and any(t in _THINKING for t in types):
        yield Violation(f"messages.{index}.content.0", wording.THINKING_FIRST.format(found=types[0]))


def _pairing_rules(turns: list[_Turn]) -> list[tuple[int, Violation]]:
    """tool_use/tool_result pairing between neighbouring turns, and how a turn may end."""
    found: list[tuple[int, Violation]] = []
    asked: list[str] = []  # the tool_use ids of the assistant turn just before
    for turn in turns:
        if turn.role == "user":
            found += _answer_rules(turn, asked)
            asked = []
            continue
        if turn.blocks:
            index, _, last = turn.blocks[-1]
            if isinstance(last, _MAPPING) and last.get("type") == "thinking":
                found.append((index, Violation(f"messages.{index}", wording.THINKING_LAST)))
        asked = [
            b["id"] for _, _, b in turn.blocks
            if isinstance(b, _MAPPING) and b.get("type") == "tool_use" and isinstance(b.get("id"), str)
        ]
    return found


def _answer_rules(turn: _Turn, asked: list[str]) -> list[tuple[int, Violation]]:
    """Check a user turn against the tool_use ids of the assistant turn before it."""
    found: list[tuple[int, Violation]] = []
    expected, answered = set(asked), set[str]()
    misplaced = opened = False
    for index, k, block in turn.blocks:
        if not isinstance(block, _MAPPING) or block.get("type") != "tool_result":
            opened = True
            continue
        tool_use_id = block.get("tool_use_id")
        if isinstance(tool_use_id, str) and tool_use_id in expected:
            answered.add(tool_use_id)
            misplaced |= opened
        else:
            message = wording.UNEXPECTED_RESULT.format(id=tool_use_id)
            found.append((index, Violation(f"messages.{index}.content.{k}", message)))
    missing = [tool_id for tool_id in asked if tool_id not in answered]
    at = f"messages.{turn.first}"
    if missing:
        found.append((turn.first, Violation(at, wording.MISSING_RESULTS.format(ids=", ".join(missing)))))
    elif misplaced:
        found.append((turn.first, Violation(at, wording.RESULTS_NOT_FIRST.format(count=len(asked)))))
    return found

"""The API-validity oracle: check a Messages API request as the live API does.

Every violation carries the API's own path and wording, so a replayed 400 reads like
the real one. Rules, as ``path: message`` (N = message index, K = block index):

Messages
- ``messages: at least one message is required``
- ``messages.N.role: Input should be 'user' or 'assistant'`` -- any other role; ``system``
  only when the request's betas are known and lack ``mid-conversation-system-2026-04-07``
- ``messages.N: all messages must have non-empty content except for the optional final
  assistant message``
- ``messages: text content blocks must be non-empty``
- ``messages: text content blocks must contain non-whitespace text`` -- a message whose
  only content is whitespace text (``" "`` beside a ``tool_use`` was accepted live)
- ``messages: final assistant content cannot end with trailing whitespace``

Tool use (pairing is judged on turns: consecutive same-role messages are merged, as
the API merges them, and ``system`` messages are skipped)
- ``messages.N.content.K.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'``
- ``messages.N.content.K: `tool_use` ids must be unique`` -- across the whole request
- ``messages.N.content.K.tool_use.input: Input should be a valid dictionary`` -- input
  that is JSON but not an object (``[1, 2]``), as the model may stream it
- ``messages.N.content.K.tool_use.name: String should have at least 1 character`` /
  ``... at most 200 characters``
- ``messages.N: `tool_result` blocks can only be in `user` messages``
- ``messages.N: `tool_use` ids were found without `tool_result` blocks immediately
  after: ...`` -- N is the first message of the turn after the ``tool_use`` turn
- ``messages.N: Did not find M `tool_result` block(s) at the beginning of this message.
  ...`` -- every id is answered, but not by the blocks that open the turn
- ``messages.N.content.K: unexpected `tool_use_id` found in `tool_result` blocks: ...``

Thinking
- ``messages.N.content.0: If an assistant message contains any thinking blocks, the first
  block must be `thinking` or `redacted_thinking`. Found `X`.``
- ``messages.N: The final block in an assistant message cannot be `thinking`.``
- ``messages.N.content.K: When thinking is disabled, an `assistant` message in the final
  position cannot contain `thinking`. ...`` (``check_request`` only: needs ``thinking``)

Request (``check_request`` only)
- ``tools.N.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`` /
  ``String should have at most 128 characters``; ``tools: Tool names must be unique.``
- ``A maximum of 4 blocks with cache_control may be provided. Found N.`` (no path)

Not checked, knowingly: that thinking blocks and signatures equal the response that
produced them (that needs the earlier responses, which the caller holds); that with
thinking on, the last tool-using assistant turn starts with thinking (adaptive thinking
may skip it); model capabilities such as prefill support; a final assistant message
ending in ``tool_use``; the top-level ``system`` text. A conversation may open with an
assistant message: the first-party API accepts it (only Bedrock says ``first message
must use the "user" role``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

SYSTEM_MESSAGES_BETA = "mid-conversation-system-2026-04-07"
MAX_CACHE_CONTROL_BLOCKS = 4

_TOOL_USE_ID = re.compile(r"[a-zA-Z0-9_-]+")
_TOOL_NAME = re.compile(r"[a-zA-Z0-9_-]{1,128}")
_THINKING = ("thinking", "redacted_thinking")
_MAPPING = (dict, Mapping)  # same answer as Mapping alone, but dicts skip the slow ABC check

_ROLE = "Input should be 'user' or 'assistant'"
_NOT_AN_OBJECT = "Input should be a valid dictionary"
_EMPTY_MESSAGE = (
    "all messages must have non-empty content except for the optional final assistant message"
)
_EMPTY_TEXT = "text content blocks must be non-empty"
_WHITESPACE_TEXT = "text content blocks must contain non-whitespace text"
_TRAILING_WHITESPACE = "final assistant content cannot end with trailing whitespace"
_MISSING_RESULTS = (
    "`tool_use` ids were found without `tool_result` blocks immediately after: {ids}. "
    "Each `tool_use` block must have a corresponding `tool_result` block in the next message."
)
_RESULTS_NOT_FIRST = (
    "Did not find {count} `tool_result` block(s) at the beginning of this message. "
    "Messages following `tool_use` blocks must begin with a matching number of "
    "`tool_result` blocks."
)
_UNEXPECTED_RESULT = (
    "unexpected `tool_use_id` found in `tool_result` blocks: {id}. "
    "Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
)
_THINKING_FIRST = (
    "If an assistant message contains any thinking blocks, the first block must be "
    "`thinking` or `redacted_thinking`. Found `{found}`."
)
_THINKING_LAST = "The final block in an assistant message cannot be `thinking`."
_THINKING_DISABLED = (
    "When thinking is disabled, an `assistant` message in the final position cannot contain "
    "`thinking`. To use thinking blocks, enable `thinking` in your request."
)


@dataclass(frozen=True)
class Violation:
    """One broken rule, with the API's path (``messages.3.content.0``) and wording."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


@dataclass
class _Turn:
    """Consecutive messages of one role, as the API merges them."""

    role: str
    first: int
    blocks: list[tuple[int, int, Mapping[str, Any]]] = field(default_factory=list)


def check_request(
    body: Mapping[str, Any], *, betas: Iterable[str] | None = None
) -> list[Violation]:
    """Check a whole request body; ``betas`` are its ``anthropic-beta`` values, None if unknown.

    Order: message rules (earliest message first), then tools, then request-wide limits.
    """
    messages = body.get("messages")
    if isinstance(messages, list):
        found = check_history(messages, betas=betas) + _thinking_disabled(body.get("thinking"), messages)
    else:
        found = [Violation("messages", "Field required" if messages is None else "Input should be a valid list")]
    found += _tools(body.get("tools"))
    cached = _cache_control_count(body)
    if cached > MAX_CACHE_CONTROL_BLOCKS:
        limit = f"A maximum of {MAX_CACHE_CONTROL_BLOCKS} blocks with cache_control may be provided."
        found.append(Violation("", f"{limit} Found {cached}."))
    return found


def check_history(
    messages: Sequence[Mapping[str, Any]], *, betas: Iterable[str] | None = None
) -> list[Violation]:
    """Check only the ``messages`` list, in one pass; earliest message first."""
    if not messages:
        return [Violation("messages", "at least one message is required")]
    system_allowed = betas is None or SYSTEM_MESSAGES_BETA in set(betas)
    found: list[tuple[int, Violation]] = []
    turns: list[_Turn] = []
    tool_use_ids: set[str] = set()
    for index, message in enumerate(messages):
        if not isinstance(message, _MAPPING):
            found.append((index, Violation(f"messages.{index}", _NOT_AN_OBJECT)))
            continue
        role = message.get("role")
        if role == "system" and system_allowed:
            continue
        if role not in ("user", "assistant"):
            found.append((index, Violation(f"messages.{index}.role", _ROLE)))
            continue
        content = message.get("content")
        blocks = _blocks(content)
        if blocks is None:
            problem = "Field required" if content is None else "Input should be a valid list"
            found.append((index, Violation(f"messages.{index}.content", problem)))
            continue
        final_assistant = role == "assistant" and index == len(messages) - 1
        found += [(index, v) for v in _block_rules(index, role, blocks, tool_use_ids)]
        found += [(index, v) for v in _content_rules(index, role, content, blocks, final_assistant)]
        if not turns or turns[-1].role != role:
            turns.append(_Turn(role, index))
        turns[-1].blocks += [(index, k, block) for k, block in enumerate(blocks)]
    found += _pairing_rules(turns)
    found.sort(key=lambda item: item[0])
    return [violation for _, violation in found]


def error_body(violations: Sequence[Violation], *, request_id: str | None = None) -> dict:
    """The 400 body the live API returns; like the API it reports one violation, the first."""
    if not violations:
        raise ValueError("error_body needs at least one violation")
    body: dict[str, Any] = {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": str(violations[0])},
    }
    if request_id is not None:
        body["request_id"] = request_id
    return body


def _blocks(content: Any) -> list[Any] | None:
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
            yield Violation(at, _NOT_AN_OBJECT)
        elif block.get("type") == "tool_use":
            tool_id, name = block.get("id"), block.get("name")
            if not isinstance(tool_id, str) or not _TOOL_USE_ID.fullmatch(tool_id):
                yield Violation(f"{at}.tool_use.id", "String should match pattern '^[a-zA-Z0-9_-]+$'")
            elif tool_id in tool_use_ids:
                yield Violation(at, "`tool_use` ids must be unique")
            else:
                tool_use_ids.add(tool_id)
            if "input" in block and not isinstance(block["input"], _MAPPING):
                yield Violation(f"{at}.tool_use.input", _NOT_AN_OBJECT)
            if name == "":
                yield Violation(f"{at}.tool_use.name", "String should have at least 1 character")
            elif isinstance(name, str) and len(name) > 200:
                yield Violation(f"{at}.tool_use.name", "String should have at most 200 characters")
        elif block.get("type") == "tool_result" and role == "assistant":
            yield Violation(f"messages.{index}", "`tool_result` blocks can only be in `user` messages")


def _content_rules(
    index: int, role: str, content: Any, blocks: list[Any], final_assistant: bool
) -> Iterable[Violation]:
    """Rules on one message's content: emptiness, whitespace, thinking first."""
    if content == "" or content == []:
        if not final_assistant:
            yield Violation(f"messages.{index}", _EMPTY_MESSAGE)
        return
    texts = [b.get("text") for b in blocks if isinstance(b, _MAPPING) and b.get("type") == "text"]
    if "" in texts:
        yield Violation("messages", _EMPTY_TEXT)
    elif not final_assistant and len(texts) == len(blocks) and all(
        isinstance(t, str) and not t.strip() for t in texts
    ):
        yield Violation("messages", _WHITESPACE_TEXT)
    last = blocks[-1]
    if final_assistant and isinstance(last, _MAPPING) and last.get("type") == "text":
        text = last.get("text")
        if isinstance(text, str) and text != text.rstrip():
            yield Violation("messages", _TRAILING_WHITESPACE)
    types = [b.get("type") if isinstance(b, _MAPPING) else None for b in blocks]
    if role == "assistant" and types[0] not in _THINKING and any(t in _THINKING for t in types):
        yield Violation(f"messages.{index}.content.0", _THINKING_FIRST.format(found=types[0]))


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
                found.append((index, Violation(f"messages.{index}", _THINKING_LAST)))
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
            message = _UNEXPECTED_RESULT.format(id=tool_use_id)
            found.append((index, Violation(f"messages.{index}.content.{k}", message)))
    missing = [tool_id for tool_id in asked if tool_id not in answered]
    at = f"messages.{turn.first}"
    if missing:
        found.append((turn.first, Violation(at, _MISSING_RESULTS.format(ids=", ".join(missing)))))
    elif misplaced:
        found.append((turn.first, Violation(at, _RESULTS_NOT_FIRST.format(count=len(asked)))))
    return found


def _thinking_disabled(thinking: Any, messages: Sequence[Any]) -> list[Violation]:
    """A final assistant message may hold thinking blocks only when thinking is on."""
    if isinstance(thinking, _MAPPING) and thinking.get("type", "disabled") != "disabled":
        return []
    last = messages[-1] if messages else None
    if not isinstance(last, _MAPPING) or last.get("role") != "assistant":
        return []
    for k, block in enumerate(_blocks(last.get("content")) or []):
        if isinstance(block, _MAPPING) and block.get("type") in _THINKING:
            return [Violation(f"messages.{len(messages) - 1}.content.{k}", _THINKING_DISABLED)]
    return []


def _tools(tools: Any) -> list[Violation]:
    """Custom tool names match the API's pattern; all tool names are unique."""
    if not isinstance(tools, list):
        return []
    found: list[Violation] = []
    names: set[str] = set()
    duplicated = False
    for i, tool in enumerate(tools):
        if not isinstance(tool, _MAPPING):
            found.append(Violation(f"tools.{i}", _NOT_AN_OBJECT))
            continue
        name = tool.get("name")
        if tool.get("type") in (None, "custom"):
            if isinstance(name, str) and len(name) > 128:
                found.append(Violation(f"tools.{i}.custom.name", "String should have at most 128 characters"))
            elif not isinstance(name, str) or not _TOOL_NAME.fullmatch(name):
                found.append(Violation(f"tools.{i}.custom.name",
                                       "String should match pattern '^[a-zA-Z0-9_-]{1,128}$'"))
        if isinstance(name, str):
            duplicated |= name in names
            names.add(name)
    if duplicated:
        found.append(Violation("tools", "Tool names must be unique."))
    return found


def _cache_control_count(body: Mapping[str, Any]) -> int:
    """Blocks carrying cache_control in system, tools and messages (tool_result content too)."""
    blocks: list[Any] = []
    for key in ("system", "tools"):
        if isinstance(body.get(key), list):
            blocks += body[key]
    messages = body.get("messages")
    for message in messages if isinstance(messages, list) else []:
        if isinstance(message, _MAPPING) and isinstance(message.get("content"), list):
            for block in message["content"]:
                blocks.append(block)
                if isinstance(block, _MAPPING) and isinstance(block.get("content"), list):
                    blocks += block["content"]
    return sum(isinstance(b, _MAPPING) and b.get("cache_control") is not None for b in blocks)

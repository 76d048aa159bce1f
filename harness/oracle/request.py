"""The rules on a whole request body: its messages (``messages``), whether thinking may
close the conversation, the tool definitions, and request-wide limits."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from harness.oracle import wording
from harness.oracle.messages import check_history, content_blocks
from harness.oracle.wording import Violation

MAX_CACHE_CONTROL_BLOCKS = 4
MAX_TOOL_NAME = 128
_TOOL_NAME = re.compile(r"[a-zA-Z0-9_-]{1,128}")
_THINKING = ("thinking", "redacted_thinking")
_MAPPING = (dict, Mapping)


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
        found = [Violation("messages", wording.FIELD_REQUIRED if messages is None else wording.NOT_A_LIST)]
    found += _tools(body.get("tools"))
    cached = _cache_control_count(body)
    if cached > MAX_CACHE_CONTROL_BLOCKS:
        found.append(Violation("", wording.CACHE_CONTROL_LIMIT.format(limit=MAX_CACHE_CONTROL_BLOCKS, found=cached)))
    return found


def error_body(violations: Sequence[Violation], *, request_id: str | None = None) -> dict:
    """The 400 body the live API returns; like the API it reports one violation, the first."""
    if not violations:
        raise ValueError("error_body needs at least one violation")
    body: dict[str, Any] = {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": violations[0].api_text},
    }
    if request_id is not None:
        body["request_id"] = request_id
    return body


def _thinking_disabled(thinking: Any, messages: Sequence[Any]) -> list[Violation]:
    """A final assistant message may hold thinking blocks only when thinking is on."""
    if isinstance(thinking, _MAPPING) and thinking.get("type", "disabled") != "disabled":
        return []
    last = messages[-1] if messages else None
    if not isinstance(last, _MAPPING) or last.get("role") != "assistant":
        return []
    for k, block in enumerate(content_blocks(last.get("content")) or []):
        if isinstance(block, _MAPPING) and block.get("type") in _THINKING:
            return [Violation(f"messages.{len(messages) - 1}.content.{k}", wording.THINKING_DISABLED)]
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
            found.append(Violation(f"tools.{i}", wording.NOT_AN_OBJECT))
            continue
        name = tool.get("name")
        if tool.get("type") in (None, "custom"):
            if isinstance(name, str) and len(name) > MAX_TOOL_NAME:
                found.append(Violation(f"tools.{i}.custom.name", wording.NAME_TOO_LONG.format(limit=MAX_TOOL_NAME)))
            elif not isinstance(name, str) or not _TOOL_NAME.fullmatch(name):
                found.append(Violation(f"tools.{i}.custom.name", wording.TOOL_NAME_PATTERN))
        if isinstance(name, str):
            duplicated |= name in names
            names.add(name)
    if duplicated:
        found.append(Violation("tools", wording.TOOL_NAMES_UNIQUE))
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

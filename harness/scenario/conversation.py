"""How one request relates to the one before it in a conversation; one definition for
the in-process runner and the socket server.

- **retry**: the same conversation again — the same ``system``, ``tools``,
  ``tool_choice``, ``thinking`` and ``messages``. Transport fields (``stream``,
  ``max_tokens``, ``metadata``, betas …) may differ: Claude Code asks again without
  streaming after an ``event: error``, and that is still a retry. So is the same
  conversation sent to a fallback model without the thinking blocks the first model
  signed (they are bound to it).
- **follow-up**: the earlier messages, then new ones — tool results, the next user
  line, or a client's "your response was cut off, resume" message after a broken
  stream.
- **rewrite**: an earlier message changed or dropped (compaction, a fallback model that
  drops the thinking blocks another model signed).

``cache_control`` markers are ignored throughout: clients move them to the newest block
on every request (Claude Code does), and they change no content.
"""

from __future__ import annotations

from typing import Any, Literal

Relation = Literal["retry", "follow-up", "rewrite"]
CONVERSATION_FIELDS = ("system", "tools", "tool_choice", "thinking")


def relation(before: Any, after: Any) -> Relation:
    """What ``after`` is to ``before`` (two request bodies)."""
    if not (isinstance(before, dict) and isinstance(after, dict)):
        return "retry" if before == after else "rewrite"
    old, new = _messages(before), _messages(after)
    same_frame = all(_plain(before.get(k)) == _plain(after.get(k)) for k in CONVERSATION_FIELDS)
    if same_frame and old == new:
        return "retry"
    if len(new) > len(old) and new[: len(old)] == old:
        return "follow-up"
    if same_frame and before.get("model") != after.get("model") and _without_thinking(old) == _without_thinking(new):
        return "retry"
    return "rewrite"


def added_messages(before: Any, after: Any) -> list[Any]:
    """The messages a follow-up adds (empty for anything else)."""
    if relation(before, after) != "follow-up":
        return []
    return list(after.get("messages") or [])[len(before.get("messages") or []) :]


def _messages(body: dict[str, Any]) -> list[Any]:
    messages = body.get("messages")
    return [_plain(m) for m in messages] if isinstance(messages, list) else []


def _without_thinking(messages: list[Any]) -> list[Any]:
    return [
        dict(m, content=[b for b in m["content"] if not (isinstance(b, dict) and "thinking" in str(b.get("type")))])
        if isinstance(m, dict) and isinstance(m.get("content"), list)
        else m
        for m in messages
    ]


def _plain(value: Any) -> Any:
    """``value`` without ``cache_control`` keys, at any depth."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value

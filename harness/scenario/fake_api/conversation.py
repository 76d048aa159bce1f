"""How one request relates to the one before it in a conversation; one definition for
the in-process runner and the socket server.

- **retry**: the same conversation again — the same ``messages``. The frame around them
  may change (a ``system`` prompt that says the time, the ``tools`` or ``thinking`` of
  the moment: the API asks nothing of a retry's), and so may transport fields
  (``stream``, ``max_tokens``, ``metadata``, ``thread``, betas …). Seen in real clients:
  Claude Code asks again with ``"stream": false`` after an ``event: error``; the SDK's
  tool runner drops ``thread`` (and its beta) after ``thread_unsupported_request``. So is
  the same conversation sent to a fallback model without the thinking blocks the first
  model signed (they are bound to it), and a whole conversation sent again as a new
  thread after the server lost the one a ``continue`` named (``thread_not_found``): its
  last messages are the ones the ``continue`` sent.
- **follow-up**: the earlier messages, then new ones — tool results (error results
  too), the next user line, or Claude Code's "your response above was cut off mid-stream.
  Resume …" message after a broken stream, behind the part of the answer it kept.
- **rewrite**: an earlier message changed or dropped (compaction, a fallback model that
  drops the thinking blocks another model signed).

Messages are compared as the API reads them: ``cache_control`` markers are ignored
(clients move them to the newest block on every request, as Claude Code does), a string
content is the one text block it stands for (Claude Code sends ``"# Environment…"`` once
as a block list and then as a string), and a field set to ``null`` is a field left out.

A request in a message thread (``thread: {type: continue, previous_message_id}``) sends
only the messages after the response it continues; ``with_thread`` makes it the whole
conversation the server holds, and everything here compares those.
"""

from __future__ import annotations

from typing import Any, Literal

Relation = Literal["retry", "follow-up", "rewrite"]
CREATE_ONLY_FIELDS = ("system", "tools")
"""What a thread keeps from its ``create`` request: the docs say to leave them out of a ``continue``."""


def relation(before: Any, after: Any) -> Relation:
    """What ``after`` is to ``before`` (two whole conversations: request bodies, threads expanded)."""
    if not (isinstance(before, dict) and isinstance(after, dict)):
        return "retry" if before == after else "rewrite"
    old_sent, new_sent = _sent_messages(before), _sent_messages(after)
    if len(old_sent) == len(new_sent) and _read_alike(old_sent, new_sent):
        return "retry"
    if len(new_sent) > len(old_sent) and _read_alike(new_sent[: len(old_sent)], old_sent):
        return "follow-up"
    old, new = _messages(before), _messages(after)
    if is_continue(before) and not is_continue(after) and old and new[len(new) - len(old) :] == old:
        return "retry"  # the continue's thread was unknown to the server; this is its turn sent whole
    if before.get("model") != after.get("model") and _without_thinking(old) == _without_thinking(new):
        return "retry"
    return "rewrite"


def resends(before: Any, after: Any) -> bool:
    """Whether ``after`` is ``before`` sent again unchanged, but for ``stream``: what a
    request the API rejected as invalid must never be (it can only fail again)."""
    if not (isinstance(before, dict) and isinstance(after, dict)):
        return before == after
    return {k: v for k, v in before.items() if k != "stream"} == {k: v for k, v in after.items() if k != "stream"}


def same_start(before: Any, after: Any) -> bool:
    """Whether two requests open the same conversation: the same ``system`` and the same
    first message (a rewrite keeps them; another conversation, a sub-agent, does not)."""
    if not (isinstance(before, dict) and isinstance(after, dict)):
        return False
    old, new = _messages(before), _messages(after)
    return bool(old and new) and old[0] == new[0] and _plain(before.get("system"), "system") == _plain(after.get("system"), "system")


def thread_field(body: Any) -> dict[str, Any] | None:
    """The request's ``thread`` object, when it has one."""
    thread = body.get("thread") if isinstance(body, dict) else None
    return thread if isinstance(thread, dict) else None


def is_continue(body: Any) -> bool:
    """Whether the request continues a thread (it sends only the newest messages)."""
    thread = thread_field(body)
    return thread is not None and thread.get("type") == "continue"


def with_thread(stored: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
    """The whole conversation of a ``continue`` request: the thread's stored request
    (its ``system``, ``tools`` and messages, the answer included), then this request's
    fields and its new messages."""
    merged = {k: v for k, v in stored.items() if k != "messages"}
    merged |= {k: v for k, v in body.items() if k not in ("thread", "messages")}
    new = body.get("messages") if isinstance(body.get("messages"), list) else []
    return merged | {"messages": [*stored.get("messages", []), *new]}


def without_thread(body: dict[str, Any]) -> dict[str, Any]:
    """A ``create`` request as the conversation it starts."""
    return {k: v for k, v in body.items() if k != "thread"}


def content_text(content: Any) -> str:
    """A message's, a system prompt's or a tool result's content as text: a string, or its
    text blocks joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text")
    return ""


def same_value(field: str, a: Any, b: Any) -> bool:
    """Whether two values of a request field say the same to the API (``cache_control`` and nulls aside)."""
    return _plain(a, field) == _plain(b, field)


def _messages(body: dict[str, Any]) -> list[Any]:
    return [_plain(m) for m in _sent_messages(body)]


def _sent_messages(body: dict[str, Any]) -> list[Any]:
    messages = body.get("messages")
    return messages if isinstance(messages, list) else []


def _read_alike(a: list[Any], b: list[Any]) -> bool:
    """Whether two message lists say the same to the API: equal as sent (compared in C),
    or equal as the API reads them (``_plain``)."""
    return a == b or [_plain(m) for m in a] == [_plain(m) for m in b]


def _without_thinking(messages: list[Any]) -> list[Any]:
    return [
        dict(m, content=[b for b in m["content"] if not (isinstance(b, dict) and "thinking" in str(b.get("type")))])
        if isinstance(m, dict) and isinstance(m.get("content"), list)
        else m
        for m in messages
    ]


def _plain(value: Any, key: str = "") -> Any:
    """``value`` as the API reads it: no ``cache_control``, no null fields, string
    content (and a string ``system``) as one text block."""
    if isinstance(value, str) and key in ("content", "system"):
        return [{"type": "text", "text": value}]
    if isinstance(value, dict):
        return {k: _plain(v, k) for k, v in value.items() if k != "cache_control" and v is not None}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value

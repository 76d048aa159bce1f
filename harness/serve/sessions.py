"""Which conversation a request belongs to, when each client session gets its own
queue of replies: the ``x-harness-session`` header, else the first user message."""

from __future__ import annotations

from typing import Any

from harness.serve.endpoints import json_or_none
from harness.wire.http11 import Request

SESSION_HEADER = "x-harness-session"


def session_key(request: Request) -> str:
    """The session a request names, or the text of its first user message."""
    if SESSION_HEADER in request.headers:
        return request.headers[SESSION_HEADER]
    return first_user_text(json_or_none(request.body))


def first_user_text(body: Any) -> str:
    """The text of the request's first user message (its first text block), or ``""``."""
    messages = body.get("messages") if isinstance(body, dict) else None
    for message in messages if isinstance(messages, list) else ():
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return content
            for block in content if isinstance(content, list) else ():
                if isinstance(block, dict) and block.get("type") == "text":
                    return str(block.get("text", ""))
            return ""
    return ""

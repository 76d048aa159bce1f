"""The ``anthropic-beta`` values a request may carry, and what each changes in the rules.

A request's betas are read from its ``anthropic-beta`` header (comma-separated; the SDK
sends one header for ``betas=[…]``). None means the request said nothing, so the
oracle cannot know which betas are on and gives the benefit of the doubt.
"""

from __future__ import annotations

from collections.abc import Mapping

SYSTEM_MESSAGES_BETA = "mid-conversation-system-2026-04-07"
"""``role: system`` messages inside ``messages`` (Claude Code sends them mid-conversation)."""


def request_betas(headers: Mapping[str, str]) -> list[str] | None:
    """The ``anthropic-beta`` values of a request; None when it sends no such header."""
    raw = next((value for name, value in headers.items() if name.lower() == "anthropic-beta"), None)
    if raw is None:
        return None
    return [beta.strip() for beta in raw.split(",") if beta.strip()]


def allows_system_messages(betas: list[str] | None) -> bool:
    """Whether ``role: system`` may stand inside ``messages`` (unknown betas: yes)."""
    return betas is None or SYSTEM_MESSAGES_BETA in betas

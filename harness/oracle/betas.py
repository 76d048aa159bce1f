"""The ``anthropic-beta`` values the harness knows, what each changes in its rules, and
where that comes from.

A request's betas are read from its ``anthropic-beta`` header (comma-separated; the SDK
sends one header for ``betas=[…]``). A beta not in the table is reported as unknown —
its rules are not checked — and never makes a request invalid. A beta may lift rules of
the oracle (``lifts``, the names of rules in ``request.BETA_RULES``): the table decides,
the rules stay beta-blind. ``role: system`` inside ``messages`` needs no beta ("No beta
header is required", the mid-conversation system messages page), and the fake API keeps
message threads whether or not a request names their beta (the SDK drops ``thread`` and
the beta together; nothing documents a request that sends one without the other).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

DOCS = "https://platform.claude.com/docs/en/build-with-claude/"


@dataclass(frozen=True)
class Beta:
    """One beta: what it turns on, what the harness does about it, and the source;
    ``lifts``: the oracle's rules that do not hold with it."""

    name: str
    enables: str
    rule: str
    source: str
    lifts: tuple[str, ...] = field(default=())


BETAS = {
    b.name: b
    for b in (
        Beta(
            "message-threads-2026-08-12", "the `thread` field: create, then continue with only the new messages",
            "a continue is checked as the stored thread plus its new messages (harness.scenario.fake_api.threads)",
            DOCS + "message-threads (betaHeader in its front matter)",
        ),
        Beta(
            "mid-conversation-system-2026-04-07", "an early name of `role: system` messages inside `messages`",
            "none: system messages are accepted with any betas, the docs say no beta header is required",
            DOCS + "mid-conversation-system-messages; the header is in older Claude Code header lists",
        ),
        Beta(
            "mid-conversation-system-clear-at-2026-08-21", "sent by Claude Code 2.1.332 on opus-4-8 with threads",
            "none", "seen on the wire; no documentation found",
        ),
        Beta(
            "mid-conversation-tool-changes-2026-07-01", "changing the tool list mid-conversation",
            "none: the oracle does not compare tool lists between requests",
            DOCS + "mid-conversation-system-messages (mid-conversation tool changes)",
        ),
        Beta(
            "per-turn-control-2026-07-01", "per-message effort, in Claude Code's binary (`per_message_effort`)",
            "none", "seen in Claude Code 2.1.332's binary; no documentation found",
        ),
        Beta(
            "server-side-fallback-2026-07-01", "the `fallbacks` field: the API retries a refusal on another model",
            "none", "anthropic-laravel 1.8.0 release notes; adk-anthropic's server_fallback example",
        ),
        Beta("fallback-credit-2026-07-01", "fallback credits", "none", "the SDK's fallbacks middleware (DEFAULT_BETAS)"),
        Beta("claude-code-20250219", "Claude Code's own requests", "none", "sent by every Claude Code request seen"),
        Beta(
            "interleaved-thinking-2025-05-14", "thinking between tool calls",
            "`thinking.budget_tokens` may reach `max_tokens`; the other thinking rules hold either way",
            DOCS + "extended-thinking (\"With interleaved thinking, the `budget_tokens` can exceed the `max_tokens` "
            "parameter\"); sent by Claude Code 2.1.332",
            lifts=("thinking_budget_below_max_tokens",),
        ),
        Beta(
            "files-api-2025-04-14", "uploaded files: `source: {type: file, file_id}` in image and document blocks",
            "a file source is refused without it, in the API's words (the standard validator knows no `file` tag)",
            DOCS + "files; the 400 without it: messages.0.content.0.document.source: Input tag 'file' found using "
            "'type' does not match any of the expected tags",
            lifts=("file_sources_need_the_files_beta",),
        ),
        Beta("context-management-2025-06-27", "the `context_management` field (clear_thinking edits)", "none",
             "sent by Claude Code 2.1.332"),
        Beta("thinking-token-count-2026-05-13", "thinking token counts", "none", "sent by Claude Code 2.1.332"),
        Beta("advanced-tool-use-2025-11-20", "advanced tool use", "none", "sent by Claude Code 2.1.332"),
        Beta("effort-2025-11-24", "the `output_config.effort` field", "none", "sent by Claude Code 2.1.332 on opus-4-8"),
        Beta("thinking-display-updates-2026-08-18", "the `thinking.display` field", "none", "sent by Claude Code 2.1.332"),
    )
}


def request_betas(headers: Mapping[str, str]) -> list[str] | None:
    """The ``anthropic-beta`` values of a request; None when it sends no such header."""
    raw = next((value for name, value in headers.items() if name.lower() == "anthropic-beta"), None)
    if raw is None:
        return None
    return [beta.strip() for beta in raw.split(",") if beta.strip()]


def unknown_betas(betas: Iterable[str] | None) -> list[str]:
    """The betas the table does not know, in order, each once."""
    return list(dict.fromkeys(b for b in betas or () if b not in BETAS))


def lifted_rules(betas: Iterable[str]) -> set[str]:
    """The names of the oracle's rules the known betas among ``betas`` lift."""
    return {rule for beta in betas if beta in BETAS for rule in BETAS[beta].lifts}

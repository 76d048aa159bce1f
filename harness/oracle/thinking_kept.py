"""Thinking dropped inside a tool loop: the second rule that needs what the API answered.

With ``thinking: {type: enabled}``, the assistant turn a tool loop belongs to must open
with the thinking block the model wrote there: ``messages.N.content.0.type: Expected
`thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a
final `assistant` message must start with a thinking block …`` (the live API's 400, quoted
in public reports against clients that dropped the block: N is the turn's first assistant
message). A tool loop is one assistant turn: it opens at the first assistant message after
the last user message without tool results, and only that message needs the thinking (the
model does not think again after a tool result unless interleaved thinking lets it).

Judged only where the server handed that message's tool calls out in an answer that opened
with thinking (``thought_calls``, which only the server holds): an answer without thinking
(``adaptive`` thinking may skip it; a forced tool choice; a fake API serving a reply as
written) leaves nothing to drop, and a recording's requests are not judged by it at all.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from harness.oracle import wording
from harness.oracle.tallies import Tally
from harness.oracle.wording import Violation

_MAPPING = (dict, Mapping)
_THINKING = ("thinking", "redacted_thinking")


def thinking_opens_the_tool_loop(body: Mapping[str, Any], tally: Tally, thought_calls: Collection[str]) -> list[Violation]:
    """``messages.N.content.0.type: Expected `thinking` or `redacted_thinking`, but found
    `X`. …`` -- thinking ``enabled``, the conversation inside a tool loop (its last message
    hands back tool results), and the loop's first assistant message, which the server
    answered with thinking first (one of its tool calls is in ``thought_calls``), opening
    with something else (``tally.opener``)."""
    thinking, messages = body.get("thinking"), body.get("messages")
    if not (isinstance(thinking, _MAPPING) and thinking.get("type") == "enabled") or not isinstance(messages, Sequence):
        return []
    if not messages or not hands_back_results(messages[-1]) or tally.opener is None:
        return []
    index, first, calls = tally.opener
    if first in _THINKING or not any(call in thought_calls for call in calls):
        return []
    return [Violation(f"messages.{index}.content.0.type", wording.THINKING_OPENS_THE_TURN.format(found=first))]


def hands_back_results(raw: Any) -> bool:
    """Whether a message is the user's with at least one ``tool_result`` block."""
    if not isinstance(raw, _MAPPING) or raw.get("role") != "user" or not isinstance(raw.get("content"), list):
        return False
    return any(isinstance(block, _MAPPING) and block.get("type") == "tool_result" for block in raw["content"])


def calls_after_thinking(events: Sequence[Any]) -> list[str]:
    """The tool_use ids an answer's events hand out when its first block is thinking (or
    redacted thinking); none when it opens with anything else."""
    starts = [event.get("content_block") for event in events
              if isinstance(event, _MAPPING) and event.get("type") == "content_block_start"]
    blocks = [block for block in starts if isinstance(block, _MAPPING)]
    if not blocks or blocks[0].get("type") not in _THINKING:
        return []
    return [block["id"] for block in blocks if block.get("type") == "tool_use" and isinstance(block.get("id"), str)]

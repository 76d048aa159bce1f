"""Layer 3's rules for the history: what an assistant message may keep when it goes back
to the API, and how a history with dangling tool calls is made valid again."""

from __future__ import annotations

from typing import Any, Iterator

from .events import Event, Notice, TurnEnd

INTERRUPTED_RESULT = "Interrupted by user before this tool finished."


def repair(messages: list[dict[str, Any]]) -> None:
    """Answer every dangling tool_use of the last assistant message with an error result."""
    if messages and messages[-1]["role"] == "user" and messages[-1]["content"] == []:
        messages.pop()
    last_assistant = next(
        (i for i in range(len(messages) - 1, -1, -1) if messages[i]["role"] == "assistant"), None
    )
    if last_assistant is None:
        return
    content = messages[last_assistant]["content"]
    tool_ids = [b["id"] for b in content if isinstance(b, dict) and b.get("type") == "tool_use"]
    if not tool_ids:
        return
    following = messages[last_assistant + 1] if last_assistant + 1 < len(messages) else None
    if following is None or not isinstance(following["content"], list):
        following = {"role": "user", "content": []}
        messages.insert(last_assistant + 1, following)
    answered = {b.get("tool_use_id") for b in following["content"] if b.get("type") == "tool_result"}
    missing = [tool_result(i, INTERRUPTED_RESULT, True) for i in tool_ids if i not in answered]
    following["content"][len(answered):len(answered)] = missing


def history_message(message: dict[str, Any]) -> dict[str, Any]:
    """``message`` as the API accepts it back: a tool_use input that is not an object
    (the model streamed ``[1, 2]``) becomes ``{}``; the tool still sees the original
    and its error result tells the model what was wrong. Trailing thinking blocks
    (max_tokens hit while thinking) go, as the API refuses an assistant message that
    ends in one; so does trailing whitespace of the last text, which the API refuses
    when the message is sent back last (after pause_turn)."""
    content = [
        dict(b, input={}) if b["type"] == "tool_use" and not isinstance(b.get("input"), dict) else b
        for b in message["content"]
    ]
    while content:
        last = content[-1]
        if last["type"] in ("thinking", "redacted_thinking") or (last["type"] == "text" and not last["text"].strip()):
            content.pop()
        elif last["type"] == "text" and last["text"] != last["text"].rstrip():
            content[-1] = dict(last, text=last["text"].rstrip())
        else:
            break
    return dict(message, content=content)


def interrupted() -> Iterator[Event]:
    """How a turn ends on Ctrl+C."""
    yield Notice("Interrupted", "warning")
    yield TurnEnd("interrupted")


def drop_thinking(messages: list[dict[str, Any]]) -> int:
    """Remove thinking blocks from every assistant message; how many were removed."""
    dropped = 0
    for message in messages:
        if message["role"] != "assistant" or not isinstance(message["content"], list):
            continue
        kept = [b for b in message["content"] if b.get("type") not in ("thinking", "redacted_thinking")]
        dropped += len(message["content"]) - len(kept)
        message["content"] = kept or [{"type": "text", "text": "(earlier reasoning omitted)"}]
    return dropped


def tool_result(tool_use_id: str, content: str, is_error: bool) -> dict[str, Any]:
    """A tool_result block for the history."""
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tool_use_id, "content": content}
    if is_error:
        block["is_error"] = True
    return block

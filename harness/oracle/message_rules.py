"""The rules on one message of ``messages``: on each of its blocks, and on its content as a
whole. One small function per rule, each quoting the API's text it stands on; the runner
(``messages.check_history``) calls them in the order of the lists below, the order in
which the API reports them.

    BLOCK_RULES[type]   rule(block, at, message)   one block (a mapping) at path ``at``, by its
                                                   type, after the shape its type requires (``blocks``)
    CONTENT_RULES       rule(message)              the content of a message that has some
    SYSTEM_RULES        rule(message)              a ``role: system`` message

A rule returns its violations (usually none); it never raises, whatever JSON it reads.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
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
_SERVER_TOOL_CALLS = ("server_tool_use", "mcp_tool_use")
_MAPPING = (dict, Mapping)  # same answer as Mapping alone, but dicts skip the slow ABC check


@dataclass(slots=True)
class Message:
    """One message as the rules read it.

    ``blocks`` is the content as blocks (a string is one text block; for a system message,
    its list only); ``types`` the type of each (None for a block that is not an object).
    ``final``: the final message of the request, from the assistant. ``tool_use_ids``: the
    valid tool_use ids of its turn so far, one set shared by the messages of a turn."""

    index: int
    role: str
    content: Any
    blocks: list[Any]
    types: list[Any]
    final: bool
    tool_use_ids: set[str]

    @property
    def path(self) -> str:
        """Where it is, as the API names it: ``messages.N``."""
        return f"messages.{self.index}"


BlockRule = Callable[[Mapping[str, Any], str, Message], Iterable[Violation]]
MessageRule = Callable[[Message], Iterable[Violation]]


# -- one block -----------------------------------------------------------------------


def tool_use_id_pattern(block: Mapping[str, Any], at: str, message: Message) -> Iterable[Violation]:
    """``messages.N.content.K.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'``
    (``Field required`` when there is none)."""
    if "id" not in block:
        return [Violation(f"{at}.tool_use.id", wording.FIELD_REQUIRED)]
    tool_id = block["id"]
    if not isinstance(tool_id, str) or not _TOOL_USE_ID.fullmatch(tool_id):
        return [Violation(f"{at}.tool_use.id", wording.TOOL_USE_ID_PATTERN)]
    return ()


def tool_use_ids_unique(block: Mapping[str, Any], at: str, message: Message) -> Iterable[Violation]:
    """``messages.N.content.K: `tool_use` ids must be unique`` -- within one assistant turn
    (two parallel calls with one id); a later turn may use an id again, each use with its
    own ``tool_result`` (accepted live: a conversation begun on another provider that
    numbers its calls afresh each turn). An id that breaks the pattern is said to do that
    instead."""
    tool_id = block.get("id")
    if not isinstance(tool_id, str):
        return ()
    if tool_id in message.tool_use_ids:  # only valid ids are kept, so this one is valid too
        return [Violation(at, wording.TOOL_USE_IDS_UNIQUE)]
    if _TOOL_USE_ID.fullmatch(tool_id):
        message.tool_use_ids.add(tool_id)
    return ()


def tool_use_input_is_an_object(block: Mapping[str, Any], at: str, message: Message) -> Iterable[Violation]:
    """``messages.N.content.K.tool_use.input: Input should be a valid dictionary`` -- input
    that is JSON but not an object (``[1, 2]``), as the model may stream it."""
    if "input" in block and not isinstance(block["input"], _MAPPING):
        return [Violation(f"{at}.tool_use.input", wording.NOT_AN_OBJECT)]
    return ()


def tool_use_name_length(block: Mapping[str, Any], at: str, message: Message) -> Iterable[Violation]:
    """``messages.N.content.K.tool_use.name: String should have at least 1 character`` /
    ``… at most 200 characters`` (``MAX_TOOL_USE_NAME``)."""
    name = block.get("name")
    if name == "":
        return [Violation(f"{at}.tool_use.name", wording.NAME_TOO_SHORT)]
    if isinstance(name, str) and len(name) > MAX_TOOL_USE_NAME:
        return [Violation(f"{at}.tool_use.name", wording.NAME_TOO_LONG.format(limit=MAX_TOOL_USE_NAME))]
    return ()


def tool_result_in_a_user_message(block: Mapping[str, Any], at: str, message: Message) -> Iterable[Violation]:
    """``messages.N: `tool_result` blocks can only be in `user` messages``."""
    return [Violation(message.path, wording.TOOL_RESULT_IN_ASSISTANT)] if message.role == "assistant" else ()


# -- a message's content -------------------------------------------------------------


def non_empty_content(message: Message) -> Iterable[Violation]:
    """``messages.N: all messages must have non-empty content except for the optional final
    assistant message``. Content that is empty is judged by this rule alone."""
    return () if message.final else [Violation(message.path, wording.EMPTY_MESSAGE)]


def text_not_empty(message: Message) -> Iterable[Violation]:
    """``messages: text content blocks must be non-empty`` (the first empty one is named)."""
    types, blocks = message.types, message.blocks
    if "text" not in types:
        return ()
    for k, kind in enumerate(types):
        if kind == "text" and blocks[k].get("text") == "":
            return [Violation("messages", wording.EMPTY_TEXT, at=f"{message.path}.content.{k}")]
    return ()


def text_not_only_whitespace(message: Message) -> Iterable[Violation]:
    """``messages: text content blocks must contain non-whitespace text`` -- a message whose
    only content is whitespace text (``" "`` beside a ``tool_use`` was accepted live); the
    final assistant message may, and an empty text is ``text_not_empty``'s."""
    if message.final or message.types.count("text") != len(message.blocks):
        return ()
    if all(isinstance(text, str) and text and not text.strip() for text in (b.get("text") for b in message.blocks)):
        return [Violation("messages", wording.WHITESPACE_TEXT, at=f"{message.path}.content.0")]
    return ()


def final_text_not_trailing_whitespace(message: Message) -> Iterable[Violation]:
    """``messages: final assistant content cannot end with trailing whitespace``."""
    if not message.final or message.types[-1] != "text":
        return ()
    text = message.blocks[-1].get("text")
    if isinstance(text, str) and text != text.rstrip():
        return [Violation("messages", wording.TRAILING_WHITESPACE, at=f"{message.path}.content.{len(message.blocks) - 1}")]
    return ()


def thinking_first(message: Message) -> Iterable[Violation]:
    """``messages.N.content.0: If an assistant message contains any thinking blocks, the
    first block must be `thinking` or `redacted_thinking`. Found `X`.`` -- unless the
    message opens with a server tool's call or result: the model thinks after the result of
    a tool the API ran within the turn (accepted live: ``server_tool_use`` →
    ``bash_code_execution_tool_result`` → ``thinking`` …, code execution), or with the
    ``compaction`` block the API writes before the rest of its answer (the compaction docs:
    the response is appended as usual, and the API drops what came before the block)."""
    types = message.types
    if message.role != "assistant" or types[0] in _THINKING or types[0] == "compaction" or is_server_tool_block(types[0]):
        return ()
    if "thinking" in types or "redacted_thinking" in types:
        return [Violation(f"{message.path}.content.0", wording.THINKING_FIRST.format(found=types[0]))]
    return ()


def is_server_tool_block(kind: Any) -> bool:
    """A server tool's call (``server_tool_use``, ``mcp_tool_use``) or its result
    (``web_search_tool_result``, ``code_execution_tool_result`` … any ``*_tool_result`` but
    the client's ``tool_result``): blocks the API writes within an assistant turn."""
    return isinstance(kind, str) and (kind in _SERVER_TOOL_CALLS or kind.endswith("_tool_result"))


# -- a system message ----------------------------------------------------------------


def system_not_first(message: Message) -> Iterable[Violation]:
    """A ``role: system`` message cannot open the conversation: the docs accept them
    "immediately after a user turn", and the initial system prompt is the top-level
    ``system`` (the directive-only form, empty content, is let through anywhere). No real
    error text was found: ``messages.0: use the top-level 'system' parameter …`` is the
    harness's own."""
    if message.index == 0 and message.content not in ("", [], None):
        return [Violation("messages.0", wording.SYSTEM_FIRST)]
    return ()


def system_block_fields(message: Message) -> Iterable[Violation]:
    """A system message's blocks have the shape of any block
    (``messages.N.content.K.text.text: Input should be a valid string``; ``blocks``)."""
    return [
        violation
        for k, block in enumerate(message.blocks) if isinstance(block, _MAPPING)
        for violation in block_shape(f"{message.path}.content.{k}", block)
    ]


BLOCK_RULES: dict[str, tuple[BlockRule, ...]] = {
    "tool_use": (tool_use_id_pattern, tool_use_ids_unique, tool_use_input_is_an_object, tool_use_name_length),
    "tool_result": (tool_result_in_a_user_message,),
}
"""The rules on a block of a type that has some, in order."""
CONTENT_RULES: tuple[MessageRule, ...] = (
    text_not_empty, text_not_only_whitespace, final_text_not_trailing_whitespace, thinking_first,
)
SYSTEM_RULES: tuple[MessageRule, ...] = (system_not_first, system_block_fields)


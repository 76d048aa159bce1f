"""The rules on a ``messages`` list, run in one pass, earliest message first.

The runner reads each message once: a message that is not an object, or has no known
role or no content list, is reported as such and read no further; a ``role: system``
message meets ``SYSTEM_RULES``; in every other message each block is checked for the
shape its type requires (``blocks``) and then by the rules of its type (``BLOCK_RULES``),
the content as a whole by ``CONTENT_RULES`` (see ``message_rules``), and the message joins
its turn. When the list is read, each turn meets the rules between turns (``TURN_RULES``;
see ``turn_rules``). Violations are reported as the API reports them: its schema
validation first (pydantic's words), then the rules about the conversation, each group
message by message.

Pairing is judged on turns: consecutive same-role messages are merged, as the API merges
them, and ``role: system`` messages are skipped: the API accepts them mid-conversation
with no beta header ("No beta header is required", the mid-conversation system messages
page). Of their placement only what the docs state is checked: one cannot open the
conversation (they are accepted "immediately after a user turn"). The models that take
them are not checked. ``tool_use`` ids are unique within a turn: a user message starts
the set afresh (``message_rules.tool_use_ids_unique``).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from harness.oracle import wording
from harness.oracle.blocks import block_shape
from harness.oracle.message_rules import (
    BLOCK_RULES,
    CONTENT_RULES,
    SYSTEM_RULES,
    Message,
    non_empty_content,
)
from harness.oracle.tallies import Tally
from harness.oracle.turn_rules import (
    TURN_RULES,
    Turn,
    note_server_calls,
    only_tool_results,
    unresolved_server_calls,
)
from harness.oracle.wording import Violation

_MAPPING = (dict, Mapping)  # same answer as Mapping alone, but dicts skip the slow ABC check


def check_history(messages: Sequence[Mapping[str, Any]], *, server_tools: Collection[str] = ()) -> list[Violation]:
    """Check only the ``messages`` list, in one pass; earliest message first.
    ``server_tools``: the names of the server tools the request declares (``check_request``
    reads them from ``tools``): a client ``tool_use`` that calls one is not answered by a
    ``tool_result`` (``turn_rules.answerable``)."""
    history = HistoryPass(server_tools)
    history.read(messages, len(messages))
    return history.violations()


class HistoryPass:
    """The one pass over a ``messages`` list, resumable: ``read`` the messages in order up to
    an index, ``violations()`` once they are all read. ``copy()`` keeps the state reached
    after ``messages[:length]``, which is all that reading them leaves for the messages after
    them: the tool_use ids of the open assistant turn, the turn still open (the rules between
    turns run when it closes), the violations found so far and the request-wide notes
    (``tally``). A longer list that begins with the same messages, none of them its last,
    goes on from the copy and ends as a pass over the whole of it would."""

    __slots__ = ("server_tools", "length", "found", "between", "tool_use_ids", "turn", "asked", "unanswerable", "tally",
                 "server_calls")

    def __init__(self, server_tools: Collection[str] = ()) -> None:
        self.server_tools = frozenset(server_tools)
        self.length = 0  # the messages read: messages[:length]
        self.found: list[tuple[int, Violation]] = []  # each message's own violations
        self.between: list[tuple[int, Violation]] = []  # the rules between turns, turn by turn
        self.tool_use_ids: set[str] = set()  # the valid ids of the open assistant turn so far
        self.turn: Turn | None = None  # the turn still open: the next message of its role joins it
        self.asked: list[str] = []  # for the next user turn: the ids the assistant turn before it asked
        self.unanswerable: set[str] = set()  # … and those of them that call a server tool
        self.tally = Tally()
        self.server_calls: dict[str, tuple[int, str]] = {}  # server tool calls awaiting their result: id → (message, name)

    def read(self, messages: Sequence[Any], stop: int) -> None:
        """Read ``messages[length:stop]``; the last of ``messages`` is the final one."""
        last = len(messages) - 1
        for index in range(self.length, stop):
            self._read_one(index, messages[index], index == last)
        self.length = max(self.length, stop)

    def violations(self) -> list[Violation]:
        """Every violation, as the API reports them (the open turn judged as closed, the pass
        left as it is): its schema validation first, then the rules about the conversation,
        message by message."""
        if not self.length:
            return [Violation("messages", wording.NO_MESSAGES)]
        found = self.found + self.between
        if self.turn is not None:
            found += [found_between for rule in TURN_RULES[self.turn.role] for found_between in rule(self.turn)]
            found += unresolved_server_calls(self.turn, self.server_calls) if self.turn.role == "user" else []
        found.sort(key=lambda item: (not is_validation(item[1]), item[0]))
        return [violation for _, violation in found]

    def copy(self) -> HistoryPass:
        """The state reached so far, to go on from, leaving this pass as it is."""
        other = HistoryPass.__new__(HistoryPass)
        other.server_tools, other.length, other.asked, other.unanswerable = (
            self.server_tools, self.length, self.asked, self.unanswerable)
        other.found, other.between, other.tool_use_ids = list(self.found), list(self.between), set(self.tool_use_ids)
        other.turn = None if self.turn is None else Turn(self.turn.role, list(self.turn.messages), self.turn.asked,
                                                         self.turn.unanswerable)
        other.tally = self.tally.copy()
        other.server_calls = dict(self.server_calls)
        return other

    def _read_one(self, index: int, raw: Any, last: bool) -> None:
        self.tally.note(index, raw)
        if isinstance(raw, _MAPPING) and raw.get("role") == "user":
            self.tool_use_ids = set()  # a user turn ends the assistant turn whose ids must be unique
        message = _read(index, raw, last, self.tool_use_ids)
        found = self.found
        if isinstance(message, Violation):
            found.append((index, message))
            return
        if message.role == "system":
            found += [(index, v) for rule in SYSTEM_RULES for v in rule(message)]
            return
        for k, block in enumerate(message.blocks):
            at = f"messages.{index}.content.{k}"
            if not isinstance(block, _MAPPING):
                found.append((index, Violation(at, wording.NOT_AN_OBJECT)))
                continue
            for violation in block_shape(at, block):
                found.append((index, violation))
            kind = message.types[k]
            for rule in BLOCK_RULES.get(kind, ()) if isinstance(kind, str) else ():
                for violation in rule(block, at, message):
                    found.append((index, violation))
        for rule in CONTENT_RULES if message.blocks and message.content != "" else (non_empty_content,):
            for violation in rule(message):
                found.append((index, violation))
        self._join_turn(message)

    def _join_turn(self, message: Message) -> None:
        """Consecutive messages of one role are one turn (``role: system`` ones are skipped);
        a message of the other role closes it and opens the next."""
        if self.turn is not None and self.turn.role == message.role:
            self.turn.messages.append(message)
            return
        self._close_turn()
        user = message.role == "user"
        self.turn = Turn(message.role, [message], self.asked if user else [], self.unanswerable if user else set())

    def _close_turn(self) -> None:
        """The rules between turns on the open turn, each user turn read against the
        assistant turn before it."""
        turn = self.turn
        if turn is None:
            return
        for rule in TURN_RULES[turn.role]:
            self.between += rule(turn)
        assistant = turn.role == "assistant"
        if assistant:
            note_server_calls(turn, self.server_calls)
        else:
            self.between += unresolved_server_calls(turn, self.server_calls)
            if not only_tool_results(turn):
                self.server_calls = {}
        self.asked = turn.tool_use_ids() if assistant else []
        self.unanswerable = turn.server_tool_calls(self.server_tools) if assistant else set()
        self.turn = None


def final_matters(raw: Any) -> bool:
    """Whether reading ``raw`` as the final message of the list differs from reading it as
    any other: only an assistant message is ever the final one (``Message.final``)."""
    return isinstance(raw, _MAPPING) and raw.get("role") == "assistant"


def is_validation(violation: Violation) -> bool:
    """Whether the API's schema validation says it (in pydantic's words), which comes
    before any rule about the conversation: those are reported first."""
    return violation.message.startswith(wording.VALIDATION_OPENINGS)


def content_blocks(content: Any) -> list[Any] | None:
    """Content as a block list (a string is one text block), or None if it is neither."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return content
    return None


def _read(index: int, raw: Any, last: bool, tool_use_ids: set[str]) -> Message | Violation:
    """The message as the rules read it; or why they cannot: it is not an object or has no
    role (none of the message forms: ``messages.N: Input does not match the expected
    shape.``, the API's words for ``"Invalid content"`` and for ``{}``), has an unknown
    role, or (but for a system message) no content list."""
    if not isinstance(raw, _MAPPING) or "role" not in raw:
        return Violation(f"messages.{index}", wording.NOT_THE_SHAPE)
    role, content = raw.get("role"), raw.get("content")
    if role == "system":
        return Message(index, role, content, content if isinstance(content, list) else [], [], False, tool_use_ids)
    if role != "user" and role != "assistant":
        return Violation(f"messages.{index}.role", wording.ROLE)
    blocks = content_blocks(content)
    if blocks is None:
        return Violation(f"messages.{index}.content", wording.FIELD_REQUIRED if content is None else wording.NOT_A_LIST)
    types = [b.get("type") if isinstance(b, _MAPPING) else None for b in blocks]
    return Message(index, role, content, blocks, types, last and role == "assistant", tool_use_ids)

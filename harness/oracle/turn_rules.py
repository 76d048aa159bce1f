"""The rules between turns: how an assistant turn may end, and how the user turn after it
answers its tool calls. A turn is consecutive messages of one role, merged as the API
merges them (``role: system`` messages are skipped); one small function per rule, each
quoting the API's text it stands on, called in the order of ``TURN_RULES[role]``.

A rule returns ``(message index, violation)`` pairs: the runner reports violations
message by message.

A client ``tool_use`` block that carries a server tool's id (``srvtoolu_…``) and the name
of a server tool the request declares is not answered by a ``tool_result``, though one
follows it: the API treats it as that server tool's call and answers ``messages.N:
`tool_use` ids were found without `tool_result` blocks immediately after: srvtoolu_…``
(a recorded 400: a conversation moved between providers that kept the server tool's call
as a client one). ``Turn.server_tool_calls`` finds them, ``Turn.answers`` skips them.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field

from harness.oracle import wording
from harness.oracle.message_rules import Message
from harness.oracle.wording import Violation

Found = Iterable[tuple[int, Violation]]
SERVER_TOOL_ID = "srvtoolu_"  # the id prefix of server tool calls ("to distinguish it from client tool calls")


@dataclass(slots=True)
class Turn:
    """Consecutive messages of one role (``messages``, as the rules read them); ``asked``:
    for a user turn, the tool_use ids of the assistant turn just before it, and
    ``unanswerable`` those of them that call a server tool (no tool_result answers them)."""

    role: str
    messages: list[Message] = field(default_factory=list)
    asked: list[str] = field(default_factory=list)
    unanswerable: set[str] = field(default_factory=set)
    _answers: tuple[set[str], bool] | None = None

    @property
    def first(self) -> int:
        """The index of its first message."""
        return self.messages[0].index

    def tool_use_ids(self) -> list[str]:
        """The ids of its tool_use blocks (those that are strings), in order."""
        return [
            block["id"]
            for message in self.messages
            for kind, block in zip(message.types, message.blocks)
            if kind == "tool_use" and isinstance(block.get("id"), str)
        ]

    def server_tool_calls(self, server_tools: Collection[str]) -> set[str]:
        """The ids of its tool_use blocks that call a declared server tool: a server tool's
        id (``srvtoolu_…``) and a name in ``server_tools``."""
        return {
            block["id"]
            for message in self.messages
            for kind, block in zip(message.types, message.blocks)
            if kind == "tool_use" and isinstance(block.get("id"), str) and block["id"].startswith(SERVER_TOOL_ID)
            and block.get("name") in server_tools
        }

    def answers(self) -> tuple[set[str], bool]:
        """The asked ids its tool_result blocks answer, and whether one of those comes
        after a block that is not a tool_result."""
        if self._answers is None:
            expected, answered = set(self.asked) - self.unanswerable, set[str]()
            misplaced = opened = False
            for message in self.messages:
                for kind, block in zip(message.types, message.blocks):
                    if kind != "tool_result":
                        opened = True
                        continue
                    tool_use_id = block.get("tool_use_id")
                    if isinstance(tool_use_id, str) and tool_use_id in expected:
                        answered.add(tool_use_id)
                        misplaced |= opened
            self._answers = answered, misplaced
        return self._answers


TurnRule = Callable[[Turn], Found]


def thinking_not_last(turn: Turn) -> Found:
    """``messages.N: The final block in an assistant message cannot be `thinking`.`` -- N is
    the turn's last message."""
    for message in reversed(turn.messages):
        if message.types:
            if message.types[-1] != "thinking":
                return ()
            return [(message.index, Violation(message.path, wording.THINKING_LAST))]
    return ()


def tool_results_answer_tool_uses(turn: Turn) -> Found:
    """``messages.N.content.K: unexpected `tool_use_id` found in `tool_result` blocks: ID.
    Each `tool_result` block must have a corresponding `tool_use` block in the previous
    message.``"""
    expected = set(turn.asked)
    found = []
    for message in turn.messages:
        for k, kind in enumerate(message.types):
            if kind == "tool_result":
                tool_use_id = message.blocks[k].get("tool_use_id")
                if not (isinstance(tool_use_id, str) and tool_use_id in expected):
                    text = wording.UNEXPECTED_RESULT.format(id=tool_use_id)
                    found.append((message.index, Violation(f"{message.path}.content.{k}", text)))
    return found


def every_tool_use_answered(turn: Turn) -> Found:
    """``messages.N: `tool_use` ids were found without `tool_result` blocks immediately
    after: IDS. Each `tool_use` block must have a corresponding `tool_result` block in the
    next message.`` -- N is the first message of the turn after the ``tool_use`` turn."""
    if not turn.asked:
        return ()
    answered, _ = turn.answers()
    missing = [tool_id for tool_id in turn.asked if tool_id not in answered]
    if not missing:
        return ()
    return [(turn.first, Violation(f"messages.{turn.first}", wording.MISSING_RESULTS.format(ids=", ".join(missing))))]


def tool_results_first(turn: Turn) -> Found:
    """``messages.N: Did not find M `tool_result` block(s) at the beginning of this message.
    Messages following `tool_use` blocks must begin with a matching number of `tool_result`
    blocks.`` -- every id is answered, but not by the blocks that open the turn."""
    if not turn.asked:
        return ()
    answered, misplaced = turn.answers()
    if not misplaced or any(tool_id not in answered for tool_id in turn.asked):
        return ()
    return [(turn.first, Violation(f"messages.{turn.first}", wording.RESULTS_NOT_FIRST.format(count=len(turn.asked))))]


def note_server_calls(turn: Turn, waiting: dict[str, tuple[int, str]]) -> None:
    """Keep in ``waiting`` the server tool calls of an assistant turn (``server_tool_use``)
    whose result (a ``…_tool_result`` block with their id) has not come."""
    for message in turn.messages:
        for kind, block in zip(message.types, message.blocks):
            if kind == "server_tool_use" and isinstance(block.get("id"), str) and isinstance(block.get("name"), str):
                waiting[block["id"]] = (message.index, block["name"])
            elif isinstance(kind, str) and kind.endswith("_tool_result") and kind != "tool_result":
                waiting.pop(block.get("tool_use_id"), None)  # type: ignore[arg-type]


def only_tool_results(turn: Turn) -> bool:
    """Whether a user turn holds nothing but ``tool_result`` blocks: the assistant turn
    goes on after it (a server tool's result may still come)."""
    return all(kind == "tool_result" for message in turn.messages for kind in message.types)


def unresolved_server_calls(turn: Turn, waiting: dict[str, tuple[int, str]]) -> Found:
    """``messages.N: `web_search` tool use with id `srvtoolu_…` was found without a
    corresponding `web_search_tool_result` block`` -- a user turn that ends the assistant
    turn (anything but tool_result blocks: the tool use docs' words) while a server tool's
    call has no result. N is the assistant message of the call. A turn of tool results
    alone lets the call wait (its result opens the next answer); an assistant turn that
    ends the request may end in the call (``pause_turn``: sent back as it came)."""
    if only_tool_results(turn):
        return ()
    return [(index, Violation(f"messages.{index}", wording.SERVER_CALL_UNRESOLVED.format(name=name, id=call_id)))
            for call_id, (index, name) in waiting.items()]


TURN_RULES: dict[str, tuple[TurnRule, ...]] = {
    "assistant": (thinking_not_last,),
    "user": (tool_results_answer_tool_uses, every_tool_use_answered, tool_results_first),
}

"""``check_request`` for requests that come one after another, in linear time: a request
that repeats an earlier request's messages and adds some is judged by reading only what
it adds.

An agent sends its whole conversation with every request, so checking each request whole
reads a session of N requests O(N²) times. ``ConversationChecker`` remembers, for the last
few conversations it saw, the state of the one pass over ``messages``
(``messages.HistoryPass``) after each of a request's last few messages but its last, and
after its last too when that is not an assistant message (an assistant message last is
judged as the final one; the next request's copy of it is not: ``final_matters``). A request
whose ``messages`` begin with the messages before one of those states goes on from the
latest such state and reads the rest; any other request is read from its first message.
Either way the verdict is ``check_request``'s, the same list in the same order: the state
after ``messages[:n]`` is everything reading them leaves for the messages after them, and
the messages' notes (``tallies``) carry what the request-wide rules need. What a request
does not share with the conversation (``model``, ``tools``, the betas, the signatures) is
judged anew each time; the server tools it declares must be the same, or it is read whole.
States are kept at several messages back because a client may change its last messages
between requests (a ``cache_control`` mark moved on to the newest message).

Shared messages are compared whole, so an earlier message edited is another conversation.
Given the request's bytes (``content``, what ``body`` was parsed from), they are compared
as bytes (``wire.message_offsets``: a ``memcmp``, and only the new messages' bytes
scanned); otherwise as parsed values (``1``, ``1.0`` and ``true`` are equal to Python,
and no rule on messages tells them apart). Bodies checked must not be changed afterwards,
as a body parsed from a request's bytes is not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from harness.oracle.messages import HistoryPass, final_matters
from harness.oracle.request import judge, server_tool_names
from harness.oracle.wording import Violation
from harness.wire.message_offsets import MessageOffsets, continued, offsets

REMEMBERED = 8
"""How many conversations are remembered (the most recently checked): a fake API serving
an agent and its subagents, or several clients of one server, interleaves a few."""
STATES = 8
"""How many states each keeps: after each of its last messages."""


class _Seen:
    """A conversation as an earlier request sent it: its messages, their bytes' offsets
    (when known), and the pass's states after its last few messages, by count."""

    __slots__ = ("messages", "offsets", "states")

    def __init__(self, messages: list[Any], message_offsets: MessageOffsets | None, states: dict[int, HistoryPass]) -> None:
        self.messages, self.offsets, self.states = messages, message_offsets, states

    def shared_with(
        self, messages: list[Any], content: bytes | None, server_tools: frozenset[str],
    ) -> tuple[int, MessageOffsets | None] | None:
        """The most messages ``messages`` share with these that a state was kept after
        (fewer than all of ``messages``), with ``content``'s offsets when compared as bytes;
        None if they share none of them."""
        counts = [n for n in self.states if n < len(messages) and self.states[n].server_tools == server_tools]
        if content is not None and self.offsets is not None:
            for n in counts:
                found = continued(content, self.offsets, n)
                if found is not None and len(found.ends) == len(messages):
                    return n, found
        for n in counts:
            if messages[n - 1] == self.messages[n - 1] and messages[:n] == self.messages[:n]:
                return n, None
        return None


class ConversationChecker:
    """``check_request`` with a memory of the conversations it checked (see the module)."""

    def __init__(self) -> None:
        self._seen: list[_Seen] = []  # most recently used first
        self.shared = 0  # how many messages the last request shared with an earlier one: not read again

    def check_request(
        self, body: Mapping[str, Any], *, content: bytes | None = None,
        signatures: Mapping[str, str] | None = None, betas: Sequence[str] | None = None,
    ) -> list[Violation]:
        """``harness.oracle.check_request(body, signatures=…, betas=…)``, the same verdict;
        ``content``: the bytes ``body`` was parsed from, when the caller has them."""
        messages = body.get("messages")
        self.shared = 0
        if not isinstance(messages, list):
            return judge(body, None, signatures=signatures, betas=betas)
        server_tools = server_tool_names(body)
        seen, shared, message_offsets = self._find(messages, content, server_tools)
        history = HistoryPass(server_tools) if seen is None else seen.states[shared].copy()
        states = {} if seen is None else {n: state for n, state in seen.states.items() if n <= shared}
        for n in range(max(shared + 1, len(messages) - STATES), len(messages)):
            history.read(messages, n)
            states[n] = history.copy()
        history.read(messages, len(messages))
        if messages and not final_matters(messages[-1]):
            states[len(messages)] = history.copy()  # read as any other message would be
        if message_offsets is None and content is not None:
            message_offsets = offsets(content)
            if message_offsets is not None and len(message_offsets.ends) != len(messages):
                message_offsets = None  # not the bytes of this body: compared as values next time
        self._remember(seen, _Seen(messages, message_offsets, _last(states, len(messages))))
        self.shared = shared
        return judge(body, history, signatures=signatures, betas=betas)

    def _find(
        self, messages: list[Any], content: bytes | None, server_tools: frozenset[str],
    ) -> tuple[_Seen | None, int, MessageOffsets | None]:
        """The conversation ``messages`` go on with, how many messages they share with it,
        and ``content``'s offsets if found by comparing bytes; (None, 0, None) for none."""
        for seen in self._seen:
            found = seen.shared_with(messages, content, server_tools)
            if found is not None:
                return seen, *found
        return None, 0, None

    def _remember(self, old: _Seen | None, new: _Seen) -> None:
        """``new`` goes first; it replaces the conversation it went on from."""
        if old is not None:
            self._seen.remove(old)
        self._seen.insert(0, new)
        del self._seen[REMEMBERED:]


def _last(states: dict[int, HistoryPass], count: int) -> dict[int, HistoryPass]:
    """The states after the last ``STATES`` messages of ``count``, latest first."""
    return {n: states[n] for n in sorted(states, reverse=True) if count - STATES <= n}

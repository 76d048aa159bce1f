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

from collections.abc import Collection, Mapping, Sequence
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
    (when known), the pass's states after its last few messages (by count, latest first),
    the server tools it declared, and the verdicts of the rules outside its messages."""

    __slots__ = ("messages", "offsets", "states", "server_tools", "outside")

    def __init__(
        self, messages: list[Any], message_offsets: MessageOffsets | None, states: dict[int, HistoryPass],
        server_tools: frozenset[str], outside: dict[Any, list[Violation]],
    ) -> None:
        self.messages, self.offsets, self.states = messages, message_offsets, states
        self.server_tools, self.outside = server_tools, outside

    def by_bytes(self, messages: list[Any], content: bytes) -> tuple[int, MessageOffsets] | None:
        """The most messages ``content`` shares with these bytes that a state was kept after
        (fewer than all), and its offsets: the rest of its body is these bytes' too."""
        if self.offsets is None:
            return None
        for n in self.states:
            if n < len(messages) and n in self.offsets.ends:
                found = continued(content, self.offsets, n)
                if found is not None and found.count == len(messages):
                    return n, found
        return None

    def by_value(self, messages: list[Any], server_tools: frozenset[str]) -> int | None:
        """The most messages ``messages`` share with these that a state was kept after
        (fewer than all), compared as values."""
        if server_tools != self.server_tools:
            return None
        for n in self.states:
            if n < len(messages) and messages[n - 1] == self.messages[n - 1] and messages[:n] == self.messages[:n]:
                return n
        return None


class ConversationChecker:
    """``check_request`` with a memory of the conversations it checked (see the module)."""

    def __init__(self) -> None:
        self._seen: list[_Seen] = []  # most recently used first
        self.shared = 0  # how many messages the last request shared with an earlier one: not read again

    def check_request(
        self, body: Mapping[str, Any], *, content: bytes | None = None,
        signatures: Mapping[str, str] | None = None, betas: Sequence[str] | None = None,
        thought_calls: Collection[str] | None = None, thoughts: Mapping[str, str] | None = None,
    ) -> list[Violation]:
        """``harness.oracle.check_request(body, signatures=…, betas=…, thought_calls=…, thoughts=…)``, the same verdict;
        ``content``: the bytes ``body`` was parsed from, when the caller has them."""
        messages = body.get("messages")
        self.shared = 0
        if not isinstance(messages, list):
            return judge(body, None, signatures=signatures, betas=betas, thought_calls=thought_calls, thoughts=thoughts)
        seen, shared, message_offsets = self._by_bytes(messages, content) if content is not None else (None, 0, None)
        if seen is not None:  # the body is the earlier one's outside its messages, byte for byte
            server_tools, outside = seen.server_tools, seen.outside
        else:
            server_tools, outside = server_tool_names(body), {}
            seen, shared = self._by_value(messages, server_tools)
        history = HistoryPass(server_tools) if seen is None else seen.states[shared].copy()
        count, oldest = len(messages), len(messages) - STATES
        states = {} if seen is None else {n: state for n, state in seen.states.items() if oldest <= n <= shared}
        for n in range(max(shared + 1, oldest), count):
            history.read(messages, n)
            states[n] = history.copy()
        history.read(messages, count)
        if count and not final_matters(messages[-1]):
            states[count] = history  # read as any other message would be (judging it leaves it as it is)
        if message_offsets is None and content is not None:
            message_offsets = offsets(content)
            if message_offsets is not None and message_offsets.count != count:
                message_offsets = None  # not the bytes of this body: compared as values next time
        states = dict(sorted(states.items(), reverse=True))  # latest first
        if message_offsets is not None:
            message_offsets = message_offsets.keeping(states)
        self._remember(seen, _Seen(messages, message_offsets, states, server_tools, outside))
        self.shared = shared
        return judge(body, history, signatures=signatures, betas=betas, outside=outside, thought_calls=thought_calls,
                     thoughts=thoughts)

    def _by_bytes(self, messages: list[Any], content: bytes) -> tuple[_Seen | None, int, MessageOffsets | None]:
        for seen in self._seen:
            found = seen.by_bytes(messages, content)
            if found is not None:
                return seen, *found
        return None, 0, None

    def _by_value(self, messages: list[Any], server_tools: frozenset[str]) -> tuple[_Seen | None, int]:
        for seen in self._seen:
            shared = seen.by_value(messages, server_tools)
            if shared is not None:
                return seen, shared
        return None, 0

    def _remember(self, old: _Seen | None, new: _Seen) -> None:
        """``new`` goes first; it replaces the conversation it went on from."""
        if old is not None:
            self._seen.remove(old)
        self._seen.insert(0, new)
        del self._seen[REMEMBERED:]

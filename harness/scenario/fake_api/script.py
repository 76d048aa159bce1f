"""Which reply answers a request: the scenario's script (two policies; see ``policy``).

    ScriptedReplies   the replies written for the current turn, in order, their tool calls
                      in the agent's own names (``tool_map``); a reply the agent cannot
                      meet (a tool it lacks: ``capabilities``) makes the run not applicable
    FinalErrorAgain   once those are used up, the last one again when it was an error that
                      sending the request again cannot change (a 401, a 400,
                      ``x-should-retry: false``): the API answers what it refused the same
                      way again
    FailureAgain      once those are used up, the last one again when it was a transient
                      failure, up to ``MORE_ATTEMPTS`` times: an agent that retries longer
                      than the script goes meets what a busy API gives it, not a missing reply
"""

from __future__ import annotations

from collections.abc import Iterable

from harness.oracle.retry import status_is_retryable
from harness.scenario.fake_api.capabilities import unmet_need
from harness.scenario.fake_api.exchange import Exchange
from harness.scenario.fake_api.policy import Pending, Policy
from harness.scenario.fake_api.served import transient
from harness.scenario.fake_api.tool_map import ToolMap
from harness.wire.api_errors import api_error
from harness.wire.replies import Reply


class ScriptedReplies(Policy):
    """The current turn's replies, one per request, in order."""

    def __init__(self, replies: Iterable[Reply] = (), label: str = "the scenario") -> None:
        self.tool_map = ToolMap()  # the agent's names for the standard tools
        self.not_applicable: str | None = None  # why the agent cannot meet the script, when it cannot
        self.unmet_in: Exchange | None = None  # the request whose reply it could not meet
        self.queue(replies, label)

    def queue(self, replies: Iterable[Reply], label: str) -> None:
        """Serve ``replies`` next; ``label`` names them in messages ("turn 2")."""
        self.replies = list(replies)
        self.label = label
        self.served = 0

    @property
    def unused(self) -> list[Reply]:
        """Replies not yet served."""
        return self.replies[self.served :]

    @property
    def last_served(self) -> Reply | None:
        """The reply served last from this queue, as written."""
        return self.replies[self.served - 1] if self.served else None

    def pick(self, pending: Pending) -> Reply | None:
        if self.served >= len(self.replies):
            return None
        written = self.replies[self.served]
        if self.not_applicable is None:
            self.not_applicable = unmet_need(written, pending.record.whole, self.tool_map)
            self.unmet_in = pending.record if self.not_applicable is not None else None
        self.served += 1
        pending.record.written = written
        return self.tool_map.reply_for_agent(written)


MORE_ATTEMPTS = 10
"""How many times a used-up queue's transient failure is served again (Claude Code, the
most persistent client seen, retries an overloaded API ten times)."""


class FailureAgain(Policy):
    """The last reply of a used-up queue once more, a few times, when it was a transient
    failure (the API is still overloaded)."""

    def __init__(self, script: ScriptedReplies) -> None:
        self.script = script
        self.repeated: dict[int, int] = {}  # times served again, by queue

    def pick(self, pending: Pending) -> Reply | None:
        last = self.script.last_served
        again = self.repeated.get(id(self.script.replies), 0)
        if self.script.unused or last is None or not transient(last) or again >= MORE_ATTEMPTS:
            return None
        self.repeated = {id(self.script.replies): again + 1}
        pending.record.repeated = True
        return self.script.tool_map.reply_for_agent(last)


class FinalErrorAgain(Policy):
    """The last reply of a used-up queue once more, when it was a final error."""

    def __init__(self, script: ScriptedReplies) -> None:
        self.script = script

    def pick(self, pending: Pending) -> Reply | None:
        last = self.script.last_served
        if self.script.unused or last is None or last.error is None or last.connection is not None:
            return None
        if status_is_retryable(api_error(last.error).status, last.headers):
            return None
        pending.record.repeated = True
        return last

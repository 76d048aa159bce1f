"""What some requests cannot get, as ``harness lint`` notes it.

A request that does not stream: each stream fault has a non-streaming form
(``harness.wire.planner``), but for two there is none a JSON body can carry — a ``data:``
frame that is not JSON (``bad_data``) and tool input JSON that does not parse; a reply
without ``unstreamed:`` then makes the scenario not applicable to such a client.

A request that does not turn thinking on: the real API never answers it with thinking, so
a reply that thinks is served only to an agent whose requests turn it on, unless it is
marked ``as_written: true`` (on purpose)."""

from __future__ import annotations

from harness.scenario.format.model import Scenario
from harness.wire.plan import NoJsonForm
from harness.wire.planner import plan_reply


def stream_only_notes(scenario: Scenario) -> list[str]:
    """``path:line: note: …`` for each reply that a request without ``stream``, or one
    without thinking, cannot get."""
    notes = []
    for turn in scenario.turns:
        for reply in turn.replies:
            if reply.thinks and not reply.as_written:
                notes.append(
                    f"{scenario.path}:{reply.line or turn.line}: note: the reply thinks: the real API answers so only a "
                    "request that turns thinking on, and the scenario is not applicable to an agent whose requests do not "
                    "(as_written: true serves it anyway)"
                )
            if reply.unstreamed is not None or reply.kind in ("error", "connection"):
                continue
            try:
                plan_reply(reply, streaming=False, request_id="req_lint", message_id="msg_lint", model="lint")
            except NoJsonForm as error:
                notes.append(
                    f"{scenario.path}:{reply.line or turn.line}: note: {error} has no non-streaming form: a request "
                    "without `stream` gets a 500 and the scenario is not applicable to that client, unless the reply says "
                    "what to serve with `unstreamed:`"
                )
            except (IndexError, ValueError):
                continue  # a fault aimed past the end of its stream: the run reports it
    return notes

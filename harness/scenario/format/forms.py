"""What a scenario serves to a request that does not stream: each stream fault has a
non-streaming form (``harness.wire.planner``), but for two there is none a JSON body can
carry — a ``data:`` frame that is not JSON (``bad_data``) and tool input JSON that does
not parse. ``harness lint`` says so for every such reply without ``unstreamed:``, so the
scenario can choose what those requests get."""

from __future__ import annotations

from harness.scenario.format.model import Scenario
from harness.wire.plan import NoJsonForm
from harness.wire.planner import plan_reply


def stream_only_notes(scenario: Scenario) -> list[str]:
    """``path:line: note: …`` for each reply that a request without ``stream`` cannot get."""
    notes = []
    for turn in scenario.turns:
        for reply in turn.replies:
            if reply.unstreamed is not None or reply.kind in ("error", "connection"):
                continue
            try:
                plan_reply(reply, streaming=False, request_id="req_lint", message_id="msg_lint", model="lint")
            except NoJsonForm as error:
                notes.append(
                    f"{scenario.path}:{reply.line or turn.line}: note: {error} has no non-streaming form: a request "
                    "without `stream` gets a 500 and the run a problem, unless the reply says what to serve with `unstreamed:`"
                )
            except (IndexError, ValueError):
                continue  # a fault aimed past the end of its stream: the run reports it
    return notes

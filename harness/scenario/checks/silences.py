"""``expect.idle_timeout``: the agent gives up a stream that goes silent for longer than
this many seconds (its client's read timeout, its own watchdog) and does not sit through
it. Read from the wire: when each chunk of an answer was due (the plan's head delay and
delays, from when the request came) and when the answer was over for the client
(``Exchange.finished``). A silence the client sat through whole, or broke off only after
more than the bound, is a problem. A stall's own silence (``stall:``) is the server
going quiet for good, not a pace, and is not counted: its length is the scenario's.
"""

from __future__ import annotations

from harness.scenario.fake_api.exchange import Exchange

TOLERANCE = 1e-6


def longest_silence(request: Exchange) -> tuple[float, int]:
    """The longest wait the client sat through for the next bytes of its answer, and how
    many chunks had come before it (0: the headers or the first chunk); on a socket, the
    plan's waits times the server's ``time_scale`` (``Exchange.scale``)."""
    plan, scale = request.plan, request.scale
    if plan is None or plan.connection is not None:
        return 0.0, 0
    over = request.finished if request.finished is not None else float("inf")
    now, longest = request.time + plan.head_delay * scale, (min(plan.head_delay * scale, over - request.time), 0)
    if now > over + TOLERANCE:
        return longest
    for count, delay in enumerate(plan.delays):
        due = now + delay * scale
        waited = min(due, over) - now
        longest = max(longest, (waited, count))
        if due > over + TOLERANCE:
            break
        now = due
    return longest


def idle_problems(requests: list[Exchange], limit: float) -> list[str]:
    """A sentence for each request whose answer the client waited on in silence for
    longer than ``limit`` seconds."""
    problems = []
    for request in requests:
        silence, before = longest_silence(request)
        if silence > limit + TOLERANCE:
            where = "for the headers" if before == 0 and request.plan and request.plan.head_delay else (
                f"after {before} chunk(s) of the answer" if before else "for the first bytes of the answer")
            problems.append(
                f"idle_timeout: request {request.number} sat {silence:.1f}s in silence {where} without giving up; "
                f"a stream-idle timeout of at most {limit:g}s should have ended it"
            )
    return problems

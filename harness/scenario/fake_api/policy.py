"""The fake API's policies: each decides one thing about how a request is answered, and
all of them sit behind one seam, the list ``Responder.policies``, run in order.

    request ─▶ Responder.claim: the request recorded (an Exchange)
               refuse(pending)    each policy in turn, for /v1/messages; the first Refusal
                                  answers (a body that is not JSON, a thread error, the
                                  oracle's 400)
               pick(pending)      each policy in turn; the first Reply answers (the turn's
                                  next scripted reply, else its final error once more);
                                  none: the harness's own 500, "no reply left"
            ─▶ Responder.render:  the reply's WirePlan (pure: no policy takes part)
            ─▶ Responder.settle:  answered(pending), each policy in turn, when the reply was
                                  served: threads keep the answer, the oracle its signatures

A policy overrides the hooks it needs; the others do nothing. The built-in ones, in their
order: ``refusals.NotJson``, ``threads.Threads``, ``refusals.OracleCheck``,
``side_requests.SideRequests``, ``script.ScriptedReplies``, ``script.FinalErrorAgain``, ``script.FailureAgain``. A limits model (rate-limit
buckets, pace) is one more Policy in the list: a refusal with its 429, or a reply of its
own. ``refuse`` and ``pick`` run inside ``claim`` and ``answered`` inside ``settle``, which
a server calls under its lock: a policy needs no lock of its own.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.scenario.fake_api.exchange import Exchange
from harness.scenario.format.problem import Problem
from harness.wire.plan import WirePlan
from harness.wire.replies import Reply


@dataclass
class Pending:
    """One request on its way through the fake API: claimed, then rendered, then settled."""

    record: Exchange
    content: bytes  # the body as it came
    request_id: str
    planned: Reply | None = None  # the reply as picked (``record.reply`` is the form served)
    model: str = ""  # the model that answers: the request's, else the fake API's own
    where: str = ""  # the reply, as a problem names it
    served: bool = True  # False once rendering failed


@dataclass(frozen=True)
class Refusal:
    """A policy's own answer to a request, before any reply: the plan to send and the
    problems it makes (a request the API refuses is one the agent should not have sent)."""

    plan: WirePlan
    problems: tuple[Problem, ...] = ()


class Policy:
    """One decision of the fake API; each hook may be left as it is (it does nothing)."""

    def refuse(self, pending: Pending) -> Refusal | None:
        """The API's own answer to a request it refuses before any reply; None to go on."""
        return None

    def pick(self, pending: Pending) -> Reply | None:
        """The reply that answers the request; None to leave it to the next policy."""
        return None

    def answered(self, pending: Pending) -> None:
        """Hear what the request was answered (``pending.record.plan``, served whole)."""

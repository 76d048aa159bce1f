"""Policies, as scenario files name them: what a correct agent may do one way or another, apart from what the API or
the user requires of every agent. An agent says which it follows with a
``harness_policies`` attribute — names, or a mapping of names to their value — and a
scenario states a policy's expectations under ``expect.policies.NAME``: they are checked
for an agent that declares the policy and listed as not checked for any other.

| policy | what an agent that declares it does |
|---|---|
| ``retries: N`` | retries a transient failure (529, 429, a 5xx, a lost, refused or timed-out connection, a broken, stalled or unfinished stream: the errors docs' transient failures) until the answer comes, up to N retries of one request; a turn that needs more is not checked |
| ``retries_as_the_sdks_do`` | also retries what the official SDKs retry beyond those: a 408, a 409, and any status marked ``x-should-retry: true`` |
| ``honours_max_retries`` | takes a scenario's ``settings.max_retries`` as its number of retries: retries a transient failure that often, no more, no fewer |
| ``gives_up_on_final_errors`` | sends nothing more in a turn after a 400, 401, 402, 403, 404 or 413 (not marked ``x-should-retry: true``) |
| ``timeout_result_is_data`` | gives a command that outlived its timeout back as a tool result that is not an error |
| ``continues_after_cut_tool_call`` | answers a tool call cut off by ``max_tokens`` with an error result and goes on with the turn |
| ``continues_after_empty_answer`` | asks the model to go on after an empty answer (``end_turn`` or ``stop_sequence`` with no text and no tool call), as the stop-reason docs suggest as a last resort |
| ``continues_after_max_tokens`` | asks the model to go on when an answer without a tool call is cut off by ``max_tokens`` (a message asking it to continue, or the cut answer sent back to be finished) |
| ``strict_tool_input`` | does not run a tool call whose input breaks the tool's schema (a missing, unknown or mistyped argument) |
| ``flags_tool_errors`` | marks a tool result ``is_error`` when the call failed: a tool it does not have, input it refused, a tool that failed |
| ``retry_is_invisible`` | retries a failed request as it was, nothing added: no half-streamed text, no message asking the model to go on |
| ``backoff_cap: S`` | waits at most S seconds before a retry the server named no wait for |
| ``never_raises`` | ``run_turn`` never raises, and a turn that streams events ends with a ``TurnEnd`` |

What every agent must do is never a policy: a valid history, ``retry-after`` honoured,
no request the API rejected as invalid sent again, nothing after ``x-should-retry:
false`` or Ctrl+C, no tool run on a broken input, the next turn still working.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PolicyKind:
    """One policy: its name, whether it takes a number, what it means."""

    name: str
    summary: str
    number: str | None = None  # what the number says (``retries of one request``), None: a plain name


POLICIES = {kind.name: kind for kind in (
    PolicyKind("retries", "retries a transient failure until the answer comes", "retries of one request at most"),
    PolicyKind("retries_as_the_sdks_do", "also retries a 408, a 409 and a status marked x-should-retry: true"),
    PolicyKind("honours_max_retries", "retries a transient failure as often as settings.max_retries says, no more"),
    PolicyKind("gives_up_on_final_errors", "sends nothing more in a turn after a 400, 401, 402, 403, 404 or 413"),
    PolicyKind("timeout_result_is_data", "gives a timed-out command back as a tool result that is not an error"),
    PolicyKind("continues_after_cut_tool_call", "answers a tool call cut by max_tokens with an error and goes on"),
    PolicyKind("continues_after_empty_answer", "asks the model to go on after an empty answer"),
    PolicyKind("continues_after_max_tokens", "asks the model to go on when an answer is cut by max_tokens"),
    PolicyKind("strict_tool_input", "does not run a tool call whose input breaks the tool's schema"),
    PolicyKind("flags_tool_errors", "marks a tool result is_error when the call failed"),
    PolicyKind("retry_is_invisible", "retries a failed request as it was, nothing added"),
    PolicyKind("backoff_cap", "waits at most so long before a retry no wait was asked for", "seconds at most"),
    PolicyKind("never_raises", "run_turn never raises; a turn that streams events ends with a TurnEnd"),
)}

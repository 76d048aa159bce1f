"""What every run must satisfy about rate limits, read from the wire for any agent (the
retry-after itself is honoured or not in ``invariants``), and what is said in an agent's
favour. Each rule stands on the API's rate-limit page (platform.claude.com/docs/en/api/rate-limits)
and the SDKs' documented retries:

- **No retry storm after the spend cap.** "Once you reach your tier's spend cap, API usage
  pauses until 00:00 UTC on the first day of the next month"; its 429 "has no
  `retry-after` header. Retrying, including the SDKs' automatic retries, fails until
  access resumes", and ``error.details.error_code`` (``enforced_spend_limit_reached``)
  "tell[s] this response apart from a rate limit". The SDKs retry "2 times by default,
  with a short exponential backoff" (anthropic-sdk-python, @anthropic-ai/sdk: 0.5 s
  first). So a client that cannot tell this 429 apart may retry twice; beyond those two,
  a retry that does not back off — sent sooner than 0.5 s after the answer before it, or
  no later than the retry before it waited — is a storm, a problem. Any retry at all is
  a note: it cannot succeed. Only the spend cap makes this a requirement: an ordinary
  429 says when to come back (``retry-after``), and a 529 may pass in a second.
- **Slowing down before a 429** is noted in the agent's favour: an answer whose
  ``anthropic-ratelimit-*-remaining`` said 0, and a next request that waited and was
  served without a 429 ("Every response carries the state of the bucket, which a client
  can read to slow down before the first 429").
"""

from __future__ import annotations

import json

from harness.scenario.checks.findings import Findings
from harness.scenario.fake_api.exchange import Exchange
from harness.scenario.fake_api.served import failed
from harness.scenario.format.problem import Kind, Problem

SPEND_CAP_CODE = "enforced_spend_limit_reached"
SDK_RETRIES = 2  # the SDKs' retries by default (anthropic-sdk-python DEFAULT_MAX_RETRIES, @anthropic-ai/sdk maxRetries)
SDK_FIRST_BACKOFF = 0.5  # seconds: the SDKs' INITIAL_RETRY_DELAY
FAMILIES = ("requests", "input-tokens", "output-tokens", "tokens")


def is_spend_cap(request: Exchange) -> bool:
    """Whether the answer was the spend-cap 429 (its body's ``error.details.error_code``)."""
    plan = request.plan
    if plan is None or plan.connection is not None or plan.status != 429:
        return False
    try:
        error = json.loads(plan.body).get("error") or {}
    except (ValueError, AttributeError):
        return False
    return isinstance(error, dict) and (error.get("details") or {}).get("error_code") == SPEND_CAP_CODE


def rate_limit_findings(where: str, requests: list[Exchange], *, turn: int | None = None) -> Findings:
    """The spend-cap storm (a problem), retries after the spend cap and slowing down
    before a 429 (notes), over one turn's (or one conversation's) requests."""
    found = Findings()
    capped = next((n for n, request in enumerate(requests) if is_spend_cap(request)), None)
    if capped is not None:
        found += _after_the_cap(where, requests[capped], requests[capped + 1 :], turn)
    for before, after in zip(requests, requests[1:]):
        empty = _exhausted(before)
        waited = after.time - (before.finished if before.finished is not None else before.time)
        if empty and not failed(before) and after.limited is None and waited > 0:
            found.notes.append(
                f"{where}: request {after.number} came {waited:.1f}s after request {before.number}'s answer said "
                f"anthropic-ratelimit-{empty}-remaining: 0, and needed no 429: the agent reads the rate-limit "
                "headers and slows down before a 429"
            )
    return found


def _after_the_cap(where: str, cap: Exchange, later: list[Exchange], turn: int | None) -> Findings:
    found = Findings()
    if not later:
        return found
    found.notes.append(
        f"{where}: {len(later)} request(s) after the spend-cap 429 of request {cap.number}: retrying fails until access "
        f"resumes (error.details.error_code {SPEND_CAP_CODE} tells this 429 from a rate limit)"
    )
    previous, waits = cap, []
    for request in later:
        waits.append(request.time - (previous.finished if previous.finished is not None else previous.time))
        previous = request
    for number, (request, wait) in enumerate(zip(later, waits)):
        if number < SDK_RETRIES or (wait >= SDK_FIRST_BACKOFF and wait > waits[number - 1]):
            continue
        why = f"only {wait:.3f}s after the answer before it" if wait < SDK_FIRST_BACKOFF else (
            f"after {wait:.3f}s, no longer than the {waits[number - 1]:.3f}s before it")
        found.problems.append(Problem(
            f"{where}: retry storm after the spend cap: request {request.number} is retry {number + 1} after the "
            f"spend-cap 429 of request {cap.number}, sent {why} (no backoff, beyond the SDKs' {SDK_RETRIES} retries); "
            "the API says retrying fails until access resumes next month", Kind.INVARIANT, turn=turn, request=request.number,
        ))
        break
    return found


def _exhausted(request: Exchange) -> str | None:
    """The rate-limit family whose ``remaining`` the answer gave as 0, if one did."""
    headers = request.plan.headers if request.plan is not None else {}
    return next((name for name in FAMILIES if headers.get(f"anthropic-ratelimit-{name}-remaining") == "0"), None)

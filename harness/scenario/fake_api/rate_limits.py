"""Rate limits as a model: a policy (``policy``) that charges every request to token
buckets (``buckets``) on the responder's clock — virtual in process, real on a socket —
and answers a 429 before any scripted reply when a request does not fit. Charged as the
API charges (platform.claude.com/docs/en/api/rate-limits):

    bucket          charged                                        docs
    requests        1 a request                                    RPM
    input_tokens    the request's input, estimated when it         "ITPM rate limits are estimated at the beginning
                    starts; cache reads the answer reports are     of each request"; "cache_read_input_tokens …
                    given back (``cache_reads_counted``: kept)     Do NOT count towards ITPM for most models"
    output_tokens   ``max_tokens`` when it starts, the rest given  "estimated based on max_tokens at the beginning
                    back when the answer is known; or               of each request and adjusted at the end" (the
                    (``output_counted: generated``) what the       docs of 2025); "evaluated in real time as output
                    answer generated                                tokens are produced" (the docs of 2026)
    tokens          input and output together, when a workspace    "you might limit one Workspace to 30,000 total
                    limit is named                                  tokens per minute"

A request that does not fit gets 429 ``rate_limit_error`` in the API's words, naming the
limit, with the ``retry-after`` the bucket implies ("the number of seconds to wait until
you can retry the request. Earlier retries will fail": one sent earlier finds the bucket
short again and gets another 429). Also: an acceleration limit ("a sharp increase in
usage", worded by the harness: the docs give no text), and the spend cap, whose 429 has
the documented body (``error.details.error_code: enforced_spend_limit_reached``) and no
``retry-after``. Every answer the script or the limits give carries the
``anthropic-ratelimit-*`` headers (the API's own refusals before them — a body that is
not JSON, the oracle's 400 — do not: nothing was charged).
"""

from __future__ import annotations

import json
import math
import time
from typing import Any, Callable

from harness.oracle.prices import price_of
from harness.scenario.fake_api.buckets import Bucket, family, nearest_thousand, number
from harness.scenario.fake_api.policy import Pending, Policy
from harness.scenario.fake_api.responder import Responder
from harness.scenario.fake_api.usage import estimate_input_tokens, served_usage
from harness.scenario.format.limits import Limits
from harness.wire.replies import Reply

SPEND_CAP_CODE = "enforced_spend_limit_reached"
DOCS = "For details, refer to: https://docs.claude.com/en/api/rate-limits."
ADVICE = (
    "You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens "
    "requested, or try again later. You may also contact sales at https://www.anthropic.com/contact-sales to discuss "
    "your options for a rate limit increase."
)
UNITS = {"requests": "requests", "input_tokens": "input tokens", "output_tokens": "output tokens", "tokens": "tokens"}


class RateLimits(Policy):
    """The buckets of one fake API; ``now`` and ``wall`` are its clock (seconds, Unix time)."""

    def __init__(self, limits: Limits, *, now: Callable[[], float], wall: Callable[[], float]) -> None:
        self.limits, self.now, self.wall = limits, now, wall
        start, seconds = now(), limits.bucket_seconds
        self.buckets = {
            "requests": Bucket.full(limits.requests_per_minute, seconds, start),
            "input_tokens": Bucket.full(limits.input_tokens_per_minute, seconds, start),
            "output_tokens": Bucket.full(limits.output_tokens_per_minute, seconds, start),
        }
        if limits.tokens_per_minute is not None:
            self.buckets["tokens"] = Bucket.full(limits.tokens_per_minute, seconds, start)
        self.arrivals: list[float] = []  # when each admitted request came, for the acceleration limit
        self.admitted = 0  # the scenario's requests admitted (a side request is not its: ``spend_cap.after_requests``)
        self.spent = 0.0  # USD, what the answers served cost
        self._charged: dict[int, dict[str, float]] = {}
        self._headers: dict[int, dict[str, str]] = {}

    def pick(self, pending: Pending) -> Reply | None:
        record, now = pending.record, self.now()
        if self._cap_reached():
            record.limited = "spend_cap"
            self._headers[record.number] = self.headers(now)
            return self._spend_cap_reply(pending.request_id)
        costs = self._costs(record.whole if isinstance(record.whole, dict) else {})
        waits = {name: self.buckets[name].wait_for(cost, now) for name, cost in costs.items()}
        if self.limits.acceleration is not None:
            waits["acceleration"] = self._acceleration_wait(now)
        name, wait = max(waits.items(), key=lambda item: item[1])
        if wait > 0:
            record.limited = name
            self._headers[record.number] = self.headers(now)
            seconds = str(max(1, math.ceil(wait - 1e-9)))
            return Reply(error="rate_limit", message_text=self._message(name), headers={"retry-after": seconds})
        for bucket, cost in costs.items():
            self.buckets[bucket].take(cost, now)
        self.arrivals.append(now)
        self.admitted += record.side is None
        self._charged[record.number] = costs
        self._headers[record.number] = self.headers(now)
        return None

    def answered(self, pending: Pending) -> None:
        record, now = pending.record, self.now()
        assert record.plan is not None
        charged = self._charged.pop(record.number, None)
        usage = served_usage(record.plan)
        if charged is not None and usage is not None:
            self._adjust(charged, usage, now)
            self.spent += price_of(pending.model).cost(usage)
        record.plan.headers.update(self._headers.pop(record.number, {}))

    def headers(self, now: float) -> dict[str, str]:
        """The ``anthropic-ratelimit-*`` headers of an answer given at ``now``."""
        wall, buckets = self.wall(), self.buckets
        resets = {name: wall + bucket.full_in(now) for name, bucket in buckets.items()}
        levels = {name: max(0.0, bucket.level) for name, bucket in buckets.items()}
        found = family("requests", buckets["requests"].limit, math.floor(levels["requests"]), resets["requests"])
        for name in ("input_tokens", "output_tokens"):
            found |= family(name.replace("_", "-"), buckets[name].limit, nearest_thousand(levels[name]), resets[name])
        both = levels["input_tokens"] + levels["output_tokens"]
        if "tokens" in buckets and levels["tokens"] < both:  # the workspace's limit is the most restrictive
            found |= family("tokens", buckets["tokens"].limit, nearest_thousand(levels["tokens"]), resets["tokens"])
        else:
            limit = buckets["input_tokens"].limit + buckets["output_tokens"].limit
            found |= family("tokens", limit, nearest_thousand(both), min(resets["input_tokens"], resets["output_tokens"]))
        return found

    def _costs(self, body: dict[str, Any]) -> dict[str, float]:
        input_tokens = estimate_input_tokens(body)
        max_tokens = body.get("max_tokens") if isinstance(body.get("max_tokens"), int) else 0
        output = float(max_tokens) if self.limits.output_counted == "max_tokens" else 1.0  # generated: room for one
        costs = {"requests": 1.0, "input_tokens": float(input_tokens), "output_tokens": output}
        if "tokens" in self.buckets:
            costs["tokens"] = input_tokens + output
        return costs

    def _adjust(self, charged: dict[str, float], usage: dict[str, Any], now: float) -> None:
        """The charge made when the request started, made right by what the answer used."""
        generated = usage.get("output_tokens") if isinstance(usage.get("output_tokens"), int) else 0
        reads = usage.get("cache_read_input_tokens") if isinstance(usage.get("cache_read_input_tokens"), int) else 0
        output_change = generated - charged["output_tokens"]  # max_tokens, or room for one generated token
        input_change = 0 if self.limits.cache_reads_counted else -min(reads, charged["input_tokens"])
        for name, change in (("output_tokens", output_change), ("input_tokens", input_change)):
            if change > 0:
                self.buckets[name].take(change, now)
            elif change < 0:
                self.buckets[name].give_back(-change, now)
        if "tokens" in self.buckets and output_change + input_change:
            change = output_change + input_change
            (self.buckets["tokens"].take if change > 0 else self.buckets["tokens"].give_back)(abs(change), now)

    def _acceleration_wait(self, now: float) -> float:
        """Seconds until one more request fits the acceleration limit."""
        rule = self.limits.acceleration
        assert rule is not None
        current = [t for t in self.arrivals if now - rule.window < t <= now]
        before = sum(1 for t in self.arrivals if now - 2 * rule.window < t <= now - rule.window)
        if len(current) < max(rule.floor, rule.growth * before):
            return 0.0
        return current[0] + rule.window - now if current else 0.0

    def _cap_reached(self) -> bool:
        cap = self.limits.spend_cap
        if cap is None:
            return False
        return self.admitted >= cap.after_requests if cap.after_requests is not None else self.spent >= (cap.usd or 0)

    def _message(self, name: str) -> str:
        if name == "acceleration":
            return ("This request would exceed the acceleration limit for your organization: its usage increased too "
                    "sharply. Please ramp up your traffic gradually and maintain consistent usage patterns. " + DOCS)
        limit = self.buckets[name].limit
        shown = f"{limit:,.0f}" if float(limit).is_integer() else number(limit)
        limit_text = f"This request would exceed the rate limit for your organization of {shown} {UNITS[name]} per minute."
        return f"{limit_text} {DOCS} {ADVICE}"

    def _spend_cap_reply(self, request_id: str) -> Reply:
        """The spend-cap 429, as documented: no retry-after; access comes back next month."""
        year, month = time.gmtime(self.wall())[:2]
        resumes = f"{year + month // 12}-{month % 12 + 1:02d}-01"
        message = ("You have reached your API usage limits: your organization has crossed its monthly API usage threshold, "
                   f"set based on your organization's API tier. You will regain access on {resumes} at 00:00 UTC.")
        body = {"type": "error", "error": {"type": "rate_limit_error", "message": message,
                                           "details": {"error_code": SPEND_CAP_CODE}}, "request_id": request_id}
        return Reply(error=429, body=json.dumps(body), headers={"content-type": "application/json"})


def enforce(responder: Responder, limits: Limits, *, now: Callable[[], float] | None = None,
            wall: Callable[[], float] | None = None) -> RateLimits:
    """Put ``limits`` in force on ``responder``, before its script: on its clock unless
    ``now`` and ``wall`` say otherwise (a socket's real time); side requests too."""
    policy = RateLimits(limits, now=now or responder.clock.now, wall=wall or responder.clock.wall)
    responder.policies.insert(responder.policies.index(responder.side), policy)
    return policy

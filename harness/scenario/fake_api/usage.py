"""What one request used, as the fake API saw it: the ``usage`` of the answer it was served
(input, output and cache tokens, as the API reports and bills them), and for a request
answered without a message the input it asked for (an estimate, about four characters of
JSON a token, as the rate limiter counts a request when it starts). One home for both:
the rate limits charge from here, the usage budgets add up from here, token counting
answers from here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from typing import Any, Iterable, Mapping

from harness.oracle.prices import Price, price_of
from harness.scenario.fake_api.exchange import Exchange
from harness.wire.plan import WirePlan

TOKEN_KEYS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


def estimate_input_tokens(body: Mapping[str, Any]) -> int:
    """A rough input-token count of a request body: about four characters of JSON a token."""
    text = json.dumps([body.get(k) for k in ("system", "messages", "tools")], ensure_ascii=False)
    return max(1, len(text) // 4)


def served_usage(plan: WirePlan | None) -> dict[str, Any] | None:
    """The usage an answer reports: message_start's, with message_delta's totals over it;
    None for an answer without a message (an error, a broken connection)."""
    if plan is None or plan.connection is not None or plan.status != 200:
        return None
    usage: dict[str, Any] | None = None
    for event in plan.events:
        if not isinstance(event, dict):
            continue
        if event.get("type") == "message_start" and isinstance((event.get("message") or {}).get("usage"), dict):
            usage = dict(event["message"]["usage"])
        elif event.get("type") == "message_delta" and isinstance(event.get("usage"), dict) and usage is not None:
            usage.update(event["usage"])
    return usage


@dataclass
class Usage:
    """Tokens, requests and cost added up over requests."""

    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    cost_usd: float = 0.0

    def __iadd__(self, other: Usage) -> Usage:
        for field in fields(self):
            setattr(self, field.name, getattr(self, field.name) + getattr(other, field.name))
        return self


def request_usage(record: Exchange, prices: Mapping[str, Price] | None = None) -> Usage:
    """One request's usage: the answer's, or the input it asked for when it got none."""
    served = served_usage(record.plan) if record.reply is not None else None
    body = record.body if isinstance(record.body, dict) else {}
    if served is None:
        return Usage(requests=1, input_tokens=estimate_input_tokens(record.whole if isinstance(record.whole, dict) else body))
    counts = {key: served.get(key) if isinstance(served.get(key), int) else 0 for key in TOKEN_KEYS}
    model = str(body.get("model") or "")
    return Usage(requests=1, **counts, cost_usd=price_of(model, prices).cost(served))


def total_usage(records: Iterable[Exchange], prices: Mapping[str, Price] | None = None) -> Usage:
    """The usage of ``records`` added up, retries and all."""
    total = Usage()
    for record in records:
        total += request_usage(record, prices)
    return total

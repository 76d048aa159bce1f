"""``expect.usage``: what a turn, or the whole scenario, may use — tokens, requests and
cost, each an upper bound, summed over every request the agent sent, retries included
(a retry costs: it is charged to the rate limits, and its answer, once there is one, is
billed). Read from the wire (``harness.scenario.fake_api.usage``): the usage the fake API
served with each answer, and for a request answered without a message the input it asked
for. The cost is priced from ``harness.oracle.prices``, or from a table of the
scenario's own (``usage.prices``: ``{model: {input, output, cache_write, cache_read}}``,
USD per million tokens).

    expect:
      usage: {requests: 4, input_tokens: 2000, output_tokens: 400, cost_usd: 0.01}

A retry loop or a tool loop that burns tokens fails by name:
``expect.usage.requests: at most 4, the agent used 9 (5 of them after a failure)``.
"""

from __future__ import annotations

from typing import Any

from harness.oracle.prices import prices_from
from harness.scenario.fake_api.exchange import Exchange
from harness.scenario.fake_api.served import failed
from harness.scenario.fake_api.usage import total_usage
from harness.scenario.format.schema import USAGE_BOUNDS


def budget_problems(requests: list[Exchange], wanted: dict[str, Any]) -> list[tuple[str, str]]:
    """``(key, sentence)`` for each bound in ``wanted`` that ``requests`` went over."""
    prices = prices_from(wanted["prices"]) if wanted.get("prices") else None
    used = total_usage(requests, prices)
    retries = sum(1 for before in requests[:-1] if failed(before))
    problems = []
    for key in USAGE_BOUNDS:
        if key in wanted and getattr(used, key) > wanted[key]:
            spent = f"${used.cost_usd:.6f}" if key == "cost_usd" else f"{getattr(used, key):,}"
            bound = f"${wanted[key]:g}" if key == "cost_usd" else f"{wanted[key]:,}"
            after = f" ({retries} of the requests after a failure)" if retries else ""
            problems.append((f"usage.{key}", f"usage.{key}: at most {bound}, the agent used {spent}{after}"))
    return problems

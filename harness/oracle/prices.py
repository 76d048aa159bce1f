"""What the API charges for tokens, as its pricing page lists them (USD per million
tokens): base input, 5-minute and 1-hour cache writes, cache hits, output. Cache writes
cost 1.25× (5 minutes) and 2× (1 hour) the base input price, cache hits 0.1×.

    model                 input  write 5m  write 1h  cache hit  output
    claude-opus-5-5       4      5         8         0.20       20
    claude-haiku-5-5      0.10   0.125     0.20      0.01       0.50   (prompts up to 100,000 tokens)
    claude-opus (others)  5      6.25      10        0.50       25
    claude-sonnet         3      3.75      6         0.30       15
    claude-haiku          1      1.25      2         0.10       5

A model is priced by the longest name in the table it starts with; an unknown model at
the highest prices (a budget errs on the side of failing). ``prices_from`` reads a user's
own table, in the same units, to use instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping


@dataclass(frozen=True)
class Price:
    """USD per million tokens."""

    input: float
    cache_write: float
    cache_write_1h: float
    cache_read: float
    output: float

    def cost(self, usage: Mapping[str, Any]) -> float:
        """What one answer's ``usage`` costs, in USD."""
        created = usage.get("cache_creation") if isinstance(usage.get("cache_creation"), Mapping) else {}
        hour = _count(created, "ephemeral_1h_input_tokens")
        writes = _count(usage, "cache_creation_input_tokens")
        per_million = (
            _count(usage, "input_tokens") * self.input
            + (writes - hour) * self.cache_write
            + hour * self.cache_write_1h
            + _count(usage, "cache_read_input_tokens") * self.cache_read
            + _count(usage, "output_tokens") * self.output
        )
        return per_million / 1_000_000


PRICES: dict[str, Price] = {
    "claude-opus-5-5": Price(4, 5, 8, 0.2, 20),
    "claude-haiku-5-5": Price(0.1, 0.125, 0.2, 0.01, 0.5),
    "claude-opus": Price(5, 6.25, 10, 0.5, 25),
    "claude-sonnet": Price(3, 3.75, 6, 0.3, 15),
    "claude-haiku": Price(1, 1.25, 2, 0.1, 5),
}
HIGHEST = PRICES["claude-opus"]


def price_of(model: str, table: Mapping[str, Price] | None = None) -> Price:
    """The price of ``model`` in ``table`` (by default ``PRICES``)."""
    table = PRICES if table is None else table
    names = sorted((name for name in table if model.startswith(name)), key=len, reverse=True)
    return table[names[0]] if names else HIGHEST


def prices_from(data: Mapping[str, Mapping[str, float]]) -> dict[str, Price]:
    """A user's table ``{model: {input, output, cache_write, cache_write_1h, cache_read}}``
    over the built-in one (a name of theirs covers the built-in names it begins); a cache
    price left out follows the documented multipliers."""
    table = {name: price for name, price in PRICES.items() if not any(name.startswith(own) for own in data)}
    for model, given in data.items():
        base = float(given["input"])
        table[model] = Price(
            base, float(given.get("cache_write", base * 1.25)), float(given.get("cache_write_1h", base * 2)),
            float(given.get("cache_read", base * 0.1)), float(given["output"]),
        )
    return table


def _count(mapping: Mapping[str, Any], key: str) -> int:
    value = mapping.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0

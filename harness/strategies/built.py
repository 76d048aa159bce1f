"""Strategies built once: a strategy is an immutable description, so the same one can
serve every draw. Building it again in a composite on every draw costs hypothesis its
validation each time (about a fifth of generating a scenario); these helpers build each
one on first use and hand the same object back after. What they draw is what the
strategy built afresh draws.

    integers(a, b)  texts(n)  BOOLEANS   (sampled(options): harness.wire.faults.base, where the fault kinds use it)
    once(factory, **options)   any strategy factory, for options that can be keys
    Keyed(value)               plain data (a schema) as a key, by its repr
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable
from typing import Any

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

BOOLEANS = st.booleans()


@functools.cache
def integers(low: int, high: int) -> SearchStrategy[int]:
    """``st.integers(low, high)``."""
    return st.integers(low, high)


@functools.cache
def texts(max_size: int) -> SearchStrategy[str]:
    """``st.text(max_size=max_size)``."""
    return st.text(max_size=max_size)


def once(factory: Callable[..., SearchStrategy[Any]], **options: Any) -> SearchStrategy[Any]:
    """``factory(**options)``, built once for options that can be keys (else built now)."""
    key = tuple(sorted(options.items()))
    if all(isinstance(value, Hashable) for _, value in key):
        try:
            return _built(factory, key)
        except TypeError:  # a tuple holding something unhashable
            pass
    return factory(**options)


@functools.cache
def _built(factory: Callable[..., SearchStrategy[Any]], key: tuple[tuple[str, Any], ...]) -> SearchStrategy[Any]:
    return factory(**dict(key))


class Keyed:
    """Plain data that cannot be a key itself (a dict), as one: equal when written the same."""

    def __init__(self, value: Any) -> None:
        self.value = value
        self.key = repr(value)

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Keyed) and other.key == self.key

"""How many examples each property runs, relative to the loaded profile (``ci`` or
``thorough``): scenario runs cost ~50 ms each, tool calls ~1 ms."""

from __future__ import annotations

from hypothesis import settings


def examples(fraction: float) -> settings:
    """Settings running ``fraction`` of the profile's ``max_examples`` (at least 5)."""
    return settings(max_examples=max(5, int(settings.default.max_examples * fraction)))

"""Cut long tool output in the middle, keeping its head and tail."""

from __future__ import annotations


def truncate_middle(text: str, limit: int) -> str:
    """Return ``text`` if it fits in ``limit`` characters; otherwise its first two
    thirds and last third of ``limit`` with a marker between them naming how many
    characters were left out. The result is at most ``limit`` + the marker's length.
    """
    if limit < 0:
        raise ValueError(f"limit must be >= 0, got {limit}")
    if len(text) <= limit:
        return text
    head = limit * 2 // 3
    tail = limit - head
    omitted = len(text) - limit
    marker = f"\n\n... [{omitted:,} characters truncated] ...\n\n"
    return text[:head] + marker + text[len(text) - tail :]

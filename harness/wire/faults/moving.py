"""A fault's positions moved for a block added before the reply's own (the thinking the
real API opens a turn with): each field a fault declares with ``counts`` (``base.setting``)
says what its number counts."""

from __future__ import annotations

import dataclasses
from typing import Any

COUNTED = {"events before": 1, "event": 2, "bytes": 0}
"""What a field may count, and the first value a block added after message_start moves
(0: it cannot be moved by an event count)."""


def moved_by(item: Any, events: int) -> Any:
    """A fault (or a list item of one) with every event it names moved by ``events`` more
    after message_start; None when it names bytes, which such events move by more."""
    if names_bytes(item):
        return None
    changes: dict[str, Any] = {}
    for field in dataclasses.fields(item):
        value, counts = getattr(item, field.name), field.metadata.get("counts", "")
        if counts and isinstance(value, int) and value >= COUNTED[counts]:
            changes[field.name] = value + events
        elif isinstance(value, tuple) and value and dataclasses.is_dataclass(value[0]):
            changes[field.name] = tuple(moved_by(each, events) for each in value)
    return dataclasses.replace(item, **changes) if changes else item


def names_bytes(item: Any) -> bool:
    """Whether a fault (or a list item of one) is placed by bytes: a field that counts them
    is set (``cut.after_bytes``), so a longer stream puts it elsewhere."""
    for field in dataclasses.fields(item):
        value = getattr(item, field.name)
        if field.metadata.get("counts") == "bytes" and value is not None:
            return True
        if isinstance(value, tuple) and value and dataclasses.is_dataclass(value[0]) and any(map(names_bytes, value)):
            return True
    return False

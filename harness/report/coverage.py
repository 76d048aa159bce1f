"""Fault coverage: the matrix of fault kinds × places that shows what a library of
scenarios covers and what it does not, built from the hits each scenario's result
carries (``harness.scenario.run.hits`` finds them)."""

from __future__ import annotations

from typing import Any, Iterable

from harness.wire.replies import CONNECTION_FAULTS

IN_STREAM = ("before any block", "mid thinking", "mid text", "mid tool input", "after a text block", "after a tool block",
             "after the message")
COLUMNS = ("before headers", "HTTP status", *IN_STREAM, "whole stream", "between requests", "while a tool runs",
           "non-streaming")
STREAM_OR_BODY = (*IN_STREAM, "non-streaming")
AGENT_SIDE = ("mid thinking", "mid text", "between requests", "while a tool runs", "after the message")
ROWS: tuple[tuple[str, tuple[str, ...]], ...] = (  # a fault kind and the places it can hit
    ("HTTP error, retryable", ("HTTP status",)),
    ("HTTP error, final", ("HTTP status",)),
    *((f"connection {name.replace('_', ' ')}", ("before headers",)) for name in CONNECTION_FAULTS),
    ("cut by FIN", STREAM_OR_BODY),
    ("cut by RST", STREAM_OR_BODY),
    ("cut inside a UTF-8 character", STREAM_OR_BODY),
    ("event: error", STREAM_OR_BODY),
    ("clean end before message_stop", STREAM_OR_BODY),
    ("data that is not JSON", STREAM_OR_BODY),
    ("stall", IN_STREAM),
    ("inserted event", IN_STREAM),
    ("duplicated event", IN_STREAM),
    ("swapped events", IN_STREAM),
    ("pings", ("whole stream",)),
    ("slow drip", ("whole stream",)),
    ("raw tool-input JSON", ("mid tool input", "non-streaming")),
    ("Ctrl+C while streaming", IN_STREAM),
    ("Ctrl+C at a turn event", AGENT_SIDE),
    ("Ctrl+C when a tool is called", ("while a tool runs",)),
    ("turn generator closed", AGENT_SIDE),
)
def coverage_matrix(hits_by_scenario: Iterable[tuple[str, list[list[str]]]]) -> dict[str, Any]:
    """``{columns, rows: [{kind, cells: {place: [scenario names] | None}}], covered, possible}``:
    None where a kind cannot hit a place, [] where it can but no scenario did."""
    seen: dict[tuple[str, str], list[str]] = {}
    for name, hits in hits_by_scenario:
        for kind, place in hits:
            names = seen.setdefault((kind, place), [])
            if name not in names:
                names.append(name)
    rows, covered, possible = [], 0, 0
    for kind, places in ROWS:
        cells: dict[str, list[str] | None] = {}
        for column in COLUMNS:
            names = seen.get((kind, column))
            if column in places or names:
                cells[column] = names or []
                possible += 1
                covered += bool(names)
            else:
                cells[column] = None
        rows.append({"kind": kind, "cells": cells})
    return {"columns": list(COLUMNS), "rows": rows, "covered": covered, "possible": possible}

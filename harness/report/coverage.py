"""Fault coverage: the matrix of fault kinds × places that shows what a library of
scenarios covers and what it does not, built from the hits each scenario's result
carries (``harness.scenario.run.hits`` finds them)."""

from __future__ import annotations

from typing import Any, Iterable

from harness.wire.faults.base import IN_STREAM, NON_STREAMING, WHOLE_STREAM, fault_kinds
from harness.wire.replies import CONNECTION_FAULTS

COLUMNS = ("before headers", "HTTP status", *IN_STREAM, WHOLE_STREAM, "between requests", "while a tool runs",
           NON_STREAMING)
AGENT_SIDE = ("mid thinking", "mid text", "between requests", "while a tool runs", "after the message")
Row = tuple[str, tuple[str, ...]]  # a fault kind and the places it can hit
HTTP_ROWS: tuple[Row, ...] = (
    ("HTTP error, retryable", ("HTTP status",)),
    ("HTTP error, final", ("HTTP status",)),
    *((f"connection {name.replace('_', ' ')}", ("before headers",)) for name in CONNECTION_FAULTS),
)
LIMIT_ROWS: tuple[Row, ...] = (
    ("rate limit 429 (a bucket)", ("HTTP status",)),
    ("acceleration limit 429", ("HTTP status",)),
    ("spend cap 429", ("HTTP status",)),
    ("usage budget", ("between requests",)),
)
"""The rate limits a scenario's ``limits:`` enforced, and the turns an ``expect.usage`` bounded."""
TOOL_AND_USER_ROWS: tuple[Row, ...] = (
    ("raw tool-input JSON", ("mid tool input", NON_STREAMING)),
    ("Ctrl+C at a turn event", AGENT_SIDE),
    ("Ctrl+C when a tool is called", ("while a tool runs",)),
    ("turn generator closed", AGENT_SIDE),
)


def matrix_rows() -> tuple[Row, ...]:
    """The matrix's rows: HTTP and connection faults, rate limits and budgets, each
    registered stream fault kind's rows (``harness.wire.faults``), then raw tool-input JSON
    and the user's interrupts."""
    return (*HTTP_ROWS, *LIMIT_ROWS, *(row for kind in fault_kinds() for row in kind.rows()), *TOOL_AND_USER_ROWS)


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
    for kind, places in matrix_rows():
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

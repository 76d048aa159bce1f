"""Who a profiled run's time belongs to: the SDK (and the HTTP stack under it),
hypothesis, the agent, or the harness, by the file of each function; the harness's time
in two: the work no fake API of its design can skip (``checking``: every request checked
by the oracle, every reply rendered as SSE, the bodies parsed; the floor of the
harness's share, as ``b_required_work`` is b's) and the rest of it. The standard
library's and the built-ins' own time goes to whoever called them (the caller that spent
the most in them, followed up until a function of one of those four), so that
``isinstance`` called by the oracle counts as the oracle's.
"""

from __future__ import annotations

import pstats
from collections.abc import Callable
from typing import Any

OWNERS: dict[str, tuple[str, ...]] = {
    "sdk": ("anthropic", "httpx", "httpx2", "httpcore", "h11", "anyio", "sniffio", "pydantic", "pydantic_core",
            "jiter", "distro", "typing_extensions", "annotated_types", "certifi", "idna", "docstring_parser"),
    "hypothesis": ("hypothesis", "sortedcontainers", "attr", "exceptiongroup"),
    "agent": ("mini_agent", "examples"),
    "harness": ("harness", "bench"),
}
CHECKING = ("harness/oracle/", "harness/wire/sse.py", "harness/wire/sse_parse.py", "harness/wire/planner.py",
            "harness/wire/json_body.py", "harness/wire/faults/")
"""The harness's required work: the oracle, the SSE renderer and parser, the JSON parse."""
Func = tuple[str, int, str]


def owner_of_file(filename: str) -> str | None:
    """``sdk``, ``hypothesis``, ``agent``, ``checking`` or ``harness`` for a function's
    file; None for the standard library and the built-ins."""
    path = filename.replace("\\", "/")
    parts = path.split("/")
    for owner, packages in OWNERS.items():
        if any(package in parts[:-1] for package in packages):
            return "checking" if owner == "harness" and any(part in path for part in CHECKING) else owner
    return None


def shares(profile: Any) -> dict[str, float]:
    """Each owner's seconds in ``profile`` (a ``cProfile.Profile`` that ran), and ``python``
    for time no owner's function led to."""
    stats: dict[Func, Any] = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    resolved: dict[Func, str] = {}

    def owner(func: Func, seen: frozenset[Func] = frozenset()) -> str:
        if func in resolved:
            return resolved[func]
        found = owner_of_file(func[0])
        if found is None:
            callers = stats.get(func, (0, 0, 0, 0, {}))[4]
            ranked = sorted((c for c in callers if c not in seen), key=lambda c: callers[c][3], reverse=True)
            found = owner(ranked[0], seen | {func}) if ranked else "python"
        resolved[func] = found
        return found

    totals: dict[str, float] = dict.fromkeys((*OWNERS, "checking", "python"), 0.0)
    for func, (_, _, own, _, _) in stats.items():
        totals[owner(func)] += own
    return totals


def profiled(run: Callable[[], object]) -> dict[str, float]:
    """``shares`` of one call of ``run`` under ``cProfile``."""
    import cProfile

    profile = cProfile.Profile()
    profile.runcall(run)
    return shares(profile)

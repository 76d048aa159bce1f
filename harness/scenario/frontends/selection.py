"""Which scenario files ``harness run`` runs, and which failures it already knows, with
pytest's habits for a long table:

    -k EXPR          files whose path or scenario name matches: words (case-insensitive
                     substrings) joined by ``and``, ``or``, ``not`` and parentheses
    --lf             only the files that failed last time (all of them when none did),
                     remembered per agent in ``.harness_cache/lastfailed.json`` (the
                     folder ``HARNESS_CACHE_DIR`` names, if set)
    --maxfail N      stop once N files have failed (the rest do not run)
    --baseline FILE  failures known in advance do not fail the run; a new problem, or a
                     failure in a file the baseline does not name, still does (the way
                     a linter is adopted on old code); ``--write-baseline FILE`` writes
                     the failures of this run as one
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from harness.wire.errors import HarnessError
from harness.wire.files import write_atomically

CACHE_VARIABLE = "HARNESS_CACHE_DIR"


def cache_file() -> Path:
    """Where ``--lf`` remembers: ``$HARNESS_CACHE_DIR/lastfailed.json``, else
    ``.harness_cache/lastfailed.json`` in the current folder (as pytest keeps its cache)."""
    return Path(os.environ.get(CACHE_VARIABLE) or ".harness_cache") / "lastfailed.json"
_TOKEN = re.compile(r"\s*(\(|\)|[^\s()]+)")
_NAME = re.compile(r"^name:\s*['\"]?(.*?)['\"]?\s*$", re.M)
_WHERE = re.compile(r" \([^()]*:\d+\)$")  # `` (file:line)`` at the end of a problem: lines move when a file is edited


class SelectionError(HarnessError, ValueError):
    """A ``-k`` expression that does not parse, or a baseline that cannot be read."""


def keyword_matches(expression: str, haystack: str) -> bool:
    """Whether ``haystack`` matches a ``-k`` expression."""
    tokens = _TOKEN.findall(expression)
    position = 0

    def take() -> str | None:
        nonlocal position
        token = tokens[position] if position < len(tokens) else None
        position += 1
        return token

    def peek() -> str | None:
        return tokens[position] if position < len(tokens) else None

    def either() -> bool:
        value = both()
        while peek() == "or":
            take()
            value = both() or value
        return value

    def both() -> bool:
        value = negated()
        while peek() == "and":
            take()
            value = negated() and value
        return value

    def negated() -> bool:
        if peek() == "not":
            take()
            return not negated()
        token = take()
        if token == "(":
            value = either()
            if take() != ")":
                raise SelectionError(f"-k {expression!r}: a ( is not closed")
            return value
        if token is None or token in (")", "and", "or"):
            raise SelectionError(f"-k {expression!r}: expected a word, not {token or 'the end'}")
        return token.lower() in haystack.lower()

    if not tokens:
        raise SelectionError("-k needs an expression: words joined by and, or, not")
    result = either()
    if peek() is not None:
        raise SelectionError(f"-k {expression!r}: unexpected {peek()!r}")
    return result


def write_cache(path: Path, text: str) -> None:
    """Write a file of the cache; its folder gets a ``.gitignore`` of everything in it, as
    pytest's own cache does (what one machine remembers is never shared through git)."""
    write_atomically(path, text)
    ignore = path.parent / ".gitignore"
    if path.parent.resolve() == cache_file().parent.resolve() and not ignore.exists():
        ignore.write_text("# made by the harness: its cache belongs to this machine\n*\n", encoding="utf-8")


def scenario_name(path: Path) -> str:
    """A scenario's ``name:``, read without loading the file (its stem if it has none)."""
    try:
        found = _NAME.search(path.read_text(encoding="utf-8", errors="replace")[:4096])
    except OSError:
        found = None
    return found.group(1) if found else path.stem


def select(files: list[Path], keyword: str | None) -> list[Path]:
    """The files a ``-k`` expression keeps (all of them without one)."""
    if not keyword:
        return files
    return [f for f in files if keyword_matches(keyword, f"{f.as_posix()} {scenario_name(f)}")]


def last_failed(agent: str | None, cache: Path | None = None) -> set[str]:
    """The files that failed last time for this agent (empty if nothing is known)."""
    cache = cache or cache_file()
    try:
        data = json.loads(cache.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    failed = data.get(agent or "") if isinstance(data, dict) else None
    return {str(f) for f in failed} if isinstance(failed, list) else set()


def remember_failures(agent: str | None, records: Iterable[Mapping[str, Any]], cache: Path | None = None) -> None:
    """Keep this run's failures for ``--lf``: files that passed are forgotten, those that
    did not run keep what was known of them."""
    cache = cache or cache_file()
    try:
        data = json.loads(cache.read_text(encoding="utf-8"))
        data = data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        data = {}
    known = set(data.get(agent or "", []))
    for record in records:
        (known.add if record["result"] in ("fail", "broken") else known.discard)(record["file"])
    data[agent or ""] = sorted(known)
    write_cache(cache, json.dumps(data, indent=1) + "\n")


def read_baseline(path: Path) -> dict[str, set[str]]:
    """A baseline file: each file with the problems known to fail it."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise SelectionError(f"--baseline {path}: cannot read it: {error}") from None
    except ValueError as error:
        raise SelectionError(f"--baseline {path}: not JSON ({error}); write one with --write-baseline") from None
    known = data.get("failures") if isinstance(data, dict) else None
    if not isinstance(known, dict) or not all(isinstance(v, list) for v in known.values()):
        raise SelectionError(f'--baseline {path}: expected {{"failures": {{FILE: [PROBLEM, …]}}}}; write one with --write-baseline')
    return {str(file): {str(p) for p in problems} for file, problems in known.items()}


def write_baseline(path: Path, records: Iterable[Mapping[str, Any]]) -> None:
    """This run's failures as a baseline."""
    failures = {r["file"]: sorted({_plain(p["text"]) for p in r["problems"]}) for r in records if r["result"] in ("fail", "broken")}
    write_atomically(Path(path), json.dumps({"failures": failures}, indent=1, ensure_ascii=False) + "\n")


def apply_baseline(records: list[dict[str, Any]], baseline: Mapping[str, set[str]]) -> list[str]:
    """Mark the failures the baseline knows as ``known``; the files it names that pass now."""
    fixed = []
    for record in records:
        known = baseline.get(record["file"])
        if known is None:
            continue
        if record["result"] in ("fail", "broken") and {_plain(p["text"]) for p in record["problems"]} <= known:
            record["result"] = "known"
        elif record["result"] == "pass":
            fixed.append(record["file"])
    return fixed


def _plain(problem: str) -> str:
    return _WHERE.sub("", problem)

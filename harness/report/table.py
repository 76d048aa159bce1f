"""The plain-text and JSON forms of a run: the summary table ``harness run`` prints, and
one scenario as ``--json`` gives it. Both read the plain result records of
``harness.scenario.run.results``."""

from __future__ import annotations

from typing import Any, Iterable


def counts(records: list[dict[str, Any]]) -> dict[str, int]:
    """How many records passed, failed (broken files included), were skipped (another
    agent's scenarios), were not applicable to this agent, and failed as a baseline
    knew they would (``known``)."""
    found = {"pass": 0, "fail": 0, "skip": 0, "n/a": 0, "known": 0}
    for record in records:
        found["fail" if record["result"] == "broken" else record["result"]] += 1
    return found


def json_result(record: dict[str, Any]) -> dict[str, Any]:
    """One scenario in ``--json`` output."""
    return {
        "file": record["file"], "name": record["name"], "result": record["result"],  # pass, fail, n/a, skip, known, broken
        "passed": record["result"] in ("pass", "skip", "n/a", "known"),  # nothing failed
        "skipped": record["skipped"], "not_applicable": record.get("not_applicable"), "requests": record["requests"], "virtual_seconds": record["virtual_seconds"],
        "wall_ms": record["wall_ms"], "problems": [p["text"] for p in record["problems"]], "notes": record["notes"],
        "not_checked": record["not_checked"],
    }


def summary_lines(records: list[dict[str, Any]], *, repeat_notes: Iterable[str] = ()) -> list[str]:
    """The table, the notes, then each failure's timeline, or the timeline of the one
    scenario run whatever came of it (``repeat_notes``: notes said again under a failure
    they may explain)."""
    repeat = set(repeat_notes)
    width = max((len(r["name"]) for r in records), default=10)
    lines = [f"{'scenario'.ljust(width)}  result  requests  virtual s  wall ms  not checked"]
    for r in records:
        verdict = {"skip": "skip", "pass": "pass", "n/a": "n/a", "known": "known"}.get(r["result"], "FAIL")
        unseen = len(r["not_checked"]) or ""
        lines.append(f"{r['name'].ljust(width)}  {verdict:6}  {r['requests']:8}  {r['virtual_seconds']:9.1f}  {r['wall_ms']:7.1f}  {unseen}")
    found = counts(records)
    unseen = sum(len(r["not_checked"]) for r in records)
    tail = f", {found['known']} known failure(s) (the baseline's)" if found["known"] else ""
    tail += f", {found['n/a']} not applicable (the agent cannot meet them)" if found["n/a"] else ""
    tail += f", {found['skip']} skipped (another agent's scenarios)" if found["skip"] else ""
    tail += f"; {unseen} expectation(s) not checked (another agent's, or a policy this agent does not declare)" if unseen else ""
    lines.append(f"{found['pass']} passed, {found['fail']} failed{tail}")
    lines += [f"  not applicable: {r['name']}: {r['not_applicable']}" for r in records if r.get("not_applicable")]
    lines += [f"  note: {r['name']}: " + "; ".join(r["notes"]) for r in records if r["notes"] and r["result"] != "fail"]
    for r in records:
        if r["result"] in ("fail", "broken") or (len(records) == 1 and r["timeline_text"]):
            lines.append("\n" + (r["timeline_text"] or "\n".join(p["text"] for p in r["problems"])))
            lines += [f"  ⚠ {note}" for note in r["notes"] if note in repeat]
    return lines

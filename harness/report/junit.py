"""JUnit XML for CI systems: one ``testcase`` per scenario file; a failure carries its
problems and its timeline, a broken file is an ``error``, a scenario for another agent
is ``skipped``, and notes and expectations not checked go to ``system-out``."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from harness.report.table import counts

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def junit_xml(records: list[dict[str, Any]], *, suite: str = "harness run", timestamp: str = "") -> str:
    """The JUnit XML document for ``records`` (see ``harness.scenario.run.results``)."""
    found = counts(records)
    broken = sum(r["result"] == "broken" for r in records)
    totals = {
        "tests": str(len(records)), "failures": str(found["fail"] - broken), "errors": str(broken),
        "skipped": str(found["skip"] + found["n/a"] + found["known"]), "time": f"{sum(r['wall_ms'] for r in records) / 1000:.3f}",
    }
    root = ET.Element("testsuites", {"name": "harness", **totals})
    attributes = {"name": suite, **totals} | ({"timestamp": timestamp} if timestamp else {})
    testsuite = ET.SubElement(root, "testsuite", attributes)
    for record in records:
        testsuite.append(_testcase(record))
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _testcase(record: dict[str, Any]) -> ET.Element:
    path = Path(record["file"])
    classname = ".".join(path.with_suffix("").parts[-3:]).lstrip(".")
    case = ET.Element("testcase", {
        "classname": _clean(classname), "name": _clean(record["name"]), "file": _clean(record["file"]),
        "time": f"{record['wall_ms'] / 1000:.3f}",
    })
    problems = [p["text"] for p in record["problems"]]
    if record["result"] == "broken":
        _child(case, "error", problems[0] if problems else "cannot load", "\n".join(problems), "ScenarioError")
    elif record["result"] == "fail":
        detail = "\n".join(problems) + ("\n\n" + record["timeline_text"] if record["timeline_text"] else "")
        _child(case, "failure", problems[0], detail, "ScenarioFailed")
    elif record["result"] == "skip":
        ET.SubElement(case, "skipped", {"message": _clean(record["skipped"] or "skipped")})
    elif record["result"] == "known":
        ET.SubElement(case, "skipped", {"message": "a known failure (the baseline's)"})
    elif record["result"] == "n/a":
        ET.SubElement(case, "skipped", {"message": _clean(f"not applicable: {record['not_applicable']}")})
    said = [f"note: {n}" for n in record["notes"]] + [f"not checked: {n}" for n in record["not_checked"]]
    if said:
        ET.SubElement(case, "system-out").text = _clean("\n".join(said))
    return case


def _child(case: ET.Element, tag: str, message: str, text: str, kind: str) -> None:
    ET.SubElement(case, tag, {"message": _clean(message), "type": kind}).text = _clean(text)


def _clean(text: str) -> str:
    """Text XML 1.0 can hold: control characters (but tab and newlines) dropped."""
    return _NOT_XML.sub("", text)

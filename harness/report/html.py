"""The HTML report: one self-contained file (inline CSS and SVG, no scripts, fonts or
anything fetched) with the summary, the fault-coverage matrix and, per scenario, its
timeline picture, its problems linked to the lines of its file (shown in the page),
its notes and its text timeline."""

from __future__ import annotations

import os
from html import escape
from pathlib import Path
from typing import Any

from harness.report.coverage import coverage_matrix
from harness.report.style import CSS
from harness.report.svg import timeline_svg
from harness.report.table import counts

RESULT_ORDER = {"fail": 0, "broken": 0, "known": 1, "pass": 2, "n/a": 3, "skip": 4}


def render_report(records: list[dict[str, Any]], *, title: str, generated: str, base_dir: Path | None = None,
                  interrupted: str | None = None) -> str:
    """The whole page for ``records`` (``base_dir``: where the file goes, so links to the
    scenario files are relative and keep working when the folder moves together)."""
    ids = {id(r): f"s{n}" for n, r in enumerate(records, 1)}
    ordered = sorted(records, key=lambda r: (RESULT_ORDER.get(r["result"], 3), r["file"]))
    body = [
        _header(records, title, generated, interrupted),
        "<main>",
        '<h2 id="summary">Summary</h2>',
        _summary(ordered, ids),
        '<h2 id="coverage">Fault coverage</h2>',
        _matrix(records, ids),
        '<h2 id="scenarios">Scenarios</h2>',
        *(_scenario(r, ids[id(r)], base_dir) for r in ordered),
        "</main>",
    ]
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n" + "\n".join(body) + "\n</body>\n</html>\n"
    )


def _header(records: list[dict[str, Any]], title: str, generated: str, interrupted: str | None) -> str:
    found = counts(records)
    agents = sorted({r["agent"] for r in records if r["agent"]}) or ["—"]
    virtual = sum(r["virtual_seconds"] for r in records)
    wall = sum(r["wall_ms"] for r in records) / 1000
    stopped = f'<p class="stopped"><strong>Interrupted:</strong> {escape(interrupted)}</p>' if interrupted else ""
    return (
        f"<header><h1>{escape(title)}</h1>"
        f'<p class="counts"><span class="pass">{found["pass"]} passed</span><span class="fail">{found["fail"]} failed</span>'
        f'<span class="skip">{found["n/a"]} not applicable</span><span class="skip">{found["skip"]} skipped</span></p>'
        f"<p>{len(records)} scenario file(s) · agent {escape(', '.join(agents))} · {virtual:.1f} s of virtual time · "
        f"{wall:.1f} s of wall time · {escape(generated)}</p>{stopped}"
        '<nav><a href="#summary">Summary</a><a href="#coverage">Fault coverage</a><a href="#scenarios">Scenarios</a></nav>'
        "</header>"
    )


def _badge(result: str) -> str:
    kind = "skip" if result in ("n/a", "known") else result
    return f'<span class="badge {kind}">{escape(result)}</span>'


def _summary(records: list[dict[str, Any]], ids: dict[int, str]) -> str:
    rows = ["<table class=\"summary\"><tr><th>scenario</th><th>result</th><th>requests</th><th>virtual s</th>"
            "<th>wall ms</th><th>notes</th><th>not checked</th><th>file</th></tr>"]
    for r in records:
        rows.append(
            f'<tr><td><a href="#{ids[id(r)]}">{escape(r["name"])}</a></td><td>{_badge(r["result"])}</td>'
            f'<td class="num">{r["requests"]}</td><td class="num">{r["virtual_seconds"]:.1f}</td>'
            f'<td class="num">{r["wall_ms"]:.0f}</td><td class="num">{len(r["notes"]) or ""}</td>'
            f'<td class="num">{len(r["not_checked"]) or ""}</td><td>{escape(r["file"])}</td></tr>'
        )
    rows.append("</table>")
    return "\n".join(rows)


def _matrix(records: list[dict[str, Any]], ids: dict[int, str]) -> str:
    matrix = coverage_matrix((r["name"], r["hits"]) for r in records)
    first = {r["name"]: ids[id(r)] for r in reversed(records)}
    head = "".join(f'<th class="col">{escape(c)}</th>' for c in matrix["columns"])
    rows = [f'<table class="matrix"><tr><th>fault \\ where it hit</th>{head}</tr>']
    for row in matrix["rows"]:
        cells = []
        for column in matrix["columns"]:
            names = row["cells"][column]
            if names is None:
                cells.append('<td class="na" title="cannot happen">·</td>')
            elif not names:
                cells.append(f'<td class="gap" title="{escape(row["kind"])} {escape(column)}: no scenario">—</td>')
            else:
                tip = escape(", ".join(names))
                cells.append(f'<td class="hit" title="{tip}"><a href="#{first[names[0]]}">{len(names)}</a></td>')
        rows.append(f'<tr><td class="kind">{escape(row["kind"])}</td>{"".join(cells)}</tr>')
    rows.append("</table>")
    share = f'{matrix["covered"]} of {matrix["possible"]} possible places are covered'
    legend = (
        f'<p class="legend">{share}. <span><i class="hit" style="background:#e7f4e9"></i>scenarios whose fault hit there '
        '(hover for their names)</span><span><i style="background:#fdecea"></i>possible, but no scenario hits it</span>'
        '<span><i style="background:#f0f0f0"></i>cannot happen</span></p>'
    )
    return "\n".join(rows) + legend


def _scenario(record: dict[str, Any], anchor: str, base_dir: Path | None) -> str:
    failing = record["result"] in ("fail", "broken")
    lines = {p["line"] for p in record["problems"] if p["line"]}
    open_ = " open" if failing else ""
    link = _file_link(record["file"], base_dir)
    parts = [
        f'<section class="scenario{" failed" if failing else ""}" id="{anchor}"><details{open_}>',
        f"<summary>{_badge(record['result'])} {escape(record['name'])} <small>({escape(record['file'])})</small></summary>",
        '<div class="body">',
        f'<p class="about">{escape(record["about"])} {link}</p>' if record["about"] or link else "",
    ]
    if record["skipped"]:
        parts.append(f"<p>Skipped: {escape(record['skipped'])}</p>")
    elif record.get("not_applicable"):
        parts.append(f"<p>Not applicable: {escape(record['not_applicable'])}</p>")
    elif record["turns"]:
        parts.append(f'<div class="scroll">{timeline_svg(record)}</div>')
    if record["problems"]:
        parts.append('<ul class="problems">')
        for problem in record["problems"]:
            where = f'<a href="#{anchor}-L{problem["line"]}">{escape(Path(record["file"]).name)}:{problem["line"]}</a>' if problem["line"] else ""
            parts.append(f"<li>{where}{escape(problem['text'])}</li>")
        parts.append("</ul>")
    parts += _list("notes", "⚠ ", record["notes"]) + _list("unseen", "○ not checked for this agent: ", record["not_checked"])
    if record["timeline_text"]:
        parts.append(f'<details class="more"><summary>timeline as text</summary><pre>{escape(record["timeline_text"])}</pre></details>')
    if record["source"]:
        bad = ' class="bad"'
        listing = "".join(
            f'<span id="{anchor}-L{n}"{bad if n in lines else ""}><b>{n}</b>{escape(text)}</span>'
            for n, text in enumerate(record["source"], 1)
        )
        parts.append(f'<details class="more"{open_}><summary>{escape(record["file"])}</summary><pre class="source">{listing}</pre></details>')
    parts.append("</div></details></section>")
    return "\n".join(p for p in parts if p)


def _list(css: str, prefix: str, items: list[str]) -> list[str]:
    if not items:
        return []
    return [f'<ul class="{css}">', *(f"<li>{escape(prefix + item)}</li>" for item in items), "</ul>"]


def _file_link(file: str, base_dir: Path | None) -> str:
    path = Path(file).resolve()
    try:
        href = os.path.relpath(path, base_dir.resolve()) if base_dir else path.as_uri()
    except ValueError:  # another drive
        href = path.as_uri()
    return f'<a class="file" href="{escape(Path(href).as_posix())}">open the file</a>'

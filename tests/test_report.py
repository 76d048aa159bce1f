"""``harness run --html`` and ``--junit``: a self-contained page (read back with the
standard library's HTML parser) with the summary, the fault-coverage matrix and a
timeline picture per scenario whose failing expectation is linked to its line; JUnit XML
a CI system reads; the same page from pytest (``--harness-html``), with xdist too."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from report_page import FAILING, Page

from harness.cli import main

pytest_plugins = ["pytester"]

PASSING = """\
name: answer-after-overload
about: One 529, then the answer.
turns:
  - user: Say hello
    replies:
      - error: overloaded
        headers: {retry-after: "1"}
      - text: Hello.
    expect: {requests: 2, end: end_turn}
"""
BROKEN = "name: broken\nabout: a misspelt key\nturns:\n  - user: hi\n    replies:\n      - eror: overloaded\n"
MINI_AGENT_ONLY = "name: mini-agent-only\nabout: its own feature\nagent: mini_agent\nturns:\n  - user: hi\n    replies:\n      - text: hi\n"
SLOW_AGENT = '''\
"""Retries any failed request after 500 seconds (of virtual time): a note, never a failure."""
import anthropic


def make_agent(ctx):
    class Slow:
        def run_turn(self, text):
            client = ctx.client.with_options(max_retries=0)
            for _ in range(3):
                try:
                    client.messages.create(model="claude-opus-5-5", max_tokens=100,
                                           messages=[{"role": "user", "content": text}])
                    return
                except anthropic.APIError:
                    ctx.sleep(500)
    return Slow()
'''


@pytest.fixture
def library(tmp_path: Path) -> Path:
    folder = tmp_path / "scenarios"
    folder.mkdir()
    for name, text in {"failing": FAILING, "passing": PASSING, "broken": BROKEN}.items():
        (folder / f"{name}.yaml").write_text(text, encoding="utf-8")
    return folder


def html_report(library: Path, tmp_path: Path) -> Page:
    """``harness run LIBRARY --html``, read back."""
    report = tmp_path / "report.html"
    main(["run", str(library), "--html", str(report)])
    return Page(report.read_text(encoding="utf-8"))


def line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


def test_the_html_report_is_one_file_that_fetches_nothing(library, tmp_path, capsys):
    report = tmp_path / "out" / "report.html"
    assert main(["run", str(library), "--html", str(report)]) == 1
    text = report.read_text(encoding="utf-8")
    page = Page(text)
    assert page.doctype.lower() == "doctype html"
    assert not [t.name for t in page.tags if t.name in ("script", "link", "iframe", "img", "object", "embed", "base")]
    assert not [t for t in page.tags if "src" in t.attrs]
    fetched = [t.attrs["href"] for t in page.tags if re.match(r"[a-z]+://", t.attrs.get("href", ""))]
    assert fetched == [], "links that leave the page must be relative files"
    [style] = page.root.find_all("style")
    assert "url(" not in style.all_text() and "@import" not in style.all_text() and "@font-face" not in style.all_text()
    for anchor in (t.attrs["href"][1:] for t in page.tags if t.attrs.get("href", "").startswith("#")):
        assert anchor in page.ids, f"#{anchor} leads nowhere"
    assert "the probe turn: " in text and "(line None)" not in text  # the probe turn has no line of the file


def test_the_summary_counts_and_lists_every_file(library, tmp_path, capsys):
    page = html_report(library, tmp_path)
    [counts] = page.root.find_all("p", "counts")
    assert counts.all_text() == "1 passed2 failed0 not applicable0 skipped"  # the broken file counts as failed
    [summary] = page.root.find_all("table", "summary")
    rows = {tr.find_all("td")[0].all_text(): tr.find_all("td")[1].all_text() for tr in summary.find_all("tr")[1:]}
    assert rows == {"expects-the-wrong-wait": "fail", "broken": "broken", "answer-after-overload": "pass"}


def test_the_failing_expectation_is_highlighted_and_linked_to_its_line(library, tmp_path, capsys):
    page = html_report(library, tmp_path)
    [section] = [s for s in page.root.find_all("section", "scenario") if "expects-the-wrong-wait" in s.all_text()]
    [problem] = section.find_all("ul", "problems")[0].find_all("li")
    assert "turn 1: expect.sleeps[1]: expected 5.0, slept" in problem.all_text()
    [link] = problem.find_all("a")
    line = line_of(FAILING, "sleeps: [2.0, 5.0]")
    assert link.all_text() == f"failing.yaml:{line}"
    target = page.ids[link.attrs["href"][1:]]
    assert "bad" in target.classes and target.all_text() == f"{line}      sleeps: [2.0, 5.0]"
    [svg] = section.find_all("svg", "timeline")
    [band] = [g for g in svg.find_all("g", "band") if "bad" in g.classes]
    assert "turn 1: Summarize the README" in band.all_text() and "■ end_turn" in band.all_text()
    calls = svg.find_all("g", "call")
    assert [c.find_all("text")[-2].all_text() for c in calls][:4] == ["#1 → 529", "#2 → 200", "#3 → 200", "#4 → 200"]
    assert "⚡ HTTP status" in calls[0].all_text() and "⚡ mid tool input" in calls[1].all_text()
    assert calls[1].find_all("line", "hit"), "where the cut hit the stream"
    sleeps = [g.find_all("text")[0].all_text() for g in svg.find_all("g", "sleep")]
    assert len(sleeps) == 2 and sleeps[0] == "sleep 2s"
    assert [g.find_all("text")[0].all_text() for g in svg.find_all("g", "tool")] == ["⚙ Read"]


def test_a_broken_file_shows_its_mistake_at_its_line(library, tmp_path, capsys):
    page = html_report(library, tmp_path)
    [section] = [s for s in page.root.find_all("section", "scenario") if "broken.yaml" in s.all_text()]
    [link] = section.find_all("ul", "problems")[0].find_all("a")
    assert link.all_text() == "broken.yaml:6"
    assert "bad" in page.ids[link.attrs["href"][1:]].classes


def test_the_coverage_matrix_shows_where_faults_hit_and_where_none_did(library, tmp_path, capsys):
    matrix = html_report(library, tmp_path).matrix()
    assert matrix["cut (RST)"]["mid tool input"] == ("hit", "1")
    assert matrix["HTTP error, retryable"]["HTTP status"] == ("hit", "2")
    assert matrix["cut (FIN)"]["mid text"] == ("gap", "—")  # possible, not covered
    assert matrix["connection refused"]["before headers"] == ("gap", "—")
    assert matrix["connection refused"]["mid text"] == ("na", "·")  # cannot happen
    assert matrix["stall"]["non-streaming"] == ("na", "·")


def test_junit_has_a_testcase_per_file_failures_errors_and_skips(library, tmp_path, capsys):
    (library / "mini_agent_only.yaml").write_text(MINI_AGENT_ONLY, encoding="utf-8")
    junit = tmp_path / "junit.xml"
    assert main(["run", str(library), "--junit", str(junit)]) == 1
    root = ET.parse(junit).getroot()
    [suite] = root.findall("testsuite")
    assert {k: suite.get(k) for k in ("tests", "failures", "errors", "skipped")} == {
        "tests": "4", "failures": "1", "errors": "1", "skipped": "0"}
    cases = {case.get("name"): case for case in suite.findall("testcase")}
    failure = cases["expects-the-wrong-wait"].find("failure")
    assert failure is not None and failure.get("message", "").startswith("turn 1: expect.sleeps[1]: expected 5.0")
    assert "t=   0.000s turn 1 > Summarize the README" in (failure.text or "")
    error = cases["broken"].find("error")
    assert error is not None and "unknown key 'eror'" in error.get("message", "")
    assert list(cases["answer-after-overload"]) == []
    assert float(cases["answer-after-overload"].get("time", "-1")) >= 0


def test_junit_marks_another_agent_s_scenarios_skipped_and_notes_as_system_out(tmp_path, capsys):
    (tmp_path / "slow_agent.py").write_text(SLOW_AGENT, encoding="utf-8")
    folder = tmp_path / "scenarios"
    folder.mkdir()
    (folder / "passing.yaml").write_text(PASSING, encoding="utf-8")
    (folder / "mini_agent_only.yaml").write_text(MINI_AGENT_ONLY, encoding="utf-8")
    junit = tmp_path / "junit.xml"
    assert main(["run", str(folder), "--agent", f"{tmp_path / 'slow_agent.py'}:make_agent", "--junit", str(junit)]) == 0
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None and suite.get("skipped") == "1" and suite.get("failures") == "0"
    cases = {case.get("name"): case for case in suite.findall("testcase")}
    skipped = cases["mini-agent-only"].find("skipped")
    assert skipped is not None and skipped.get("message") == "mini_agent's scenario"
    said = cases["answer-after-overload"].findtext("system-out") or ""
    assert "note: turn 1: waited 500.0s before request 2, far beyond the 1s asked" in said


def test_the_page_names_an_agent_without_a_harness_agent_name_by_its_factory(tmp_path, capsys):
    (tmp_path / "slow_agent.py").write_text(SLOW_AGENT, encoding="utf-8")
    folder, page = tmp_path / "scenarios", tmp_path / "report.html"
    folder.mkdir()
    (folder / "passing.yaml").write_text(PASSING, encoding="utf-8")
    spec = f"{tmp_path / 'slow_agent.py'}:make_agent"
    assert main(["run", str(folder), "--agent", spec, "--html", str(page)]) == 0
    assert f"agent {spec} ·" in page.read_text(encoding="utf-8").replace("&#x27;", "'")


def test_json_output_stays_as_it_was(library, capsys):
    main(["run", str(library), "--json"])
    out = capsys.readouterr().out
    assert '"scenarios": [' in out and '"passed": false' in out and "interrupted" not in out


def test_pytest_writes_the_same_report_with_harness_html(pytester):
    pytester.makefile(".yaml", **{"scenarios/failing": FAILING, "scenarios/passing": PASSING, "scenarios/broken": BROKEN})
    result = pytester.runpytest("-p", "harness.pytest_plugin", "-p", "no:hypothesispytest", "--harness-html", "report.html")
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines([f"harness: HTML report of 3 scenario(s) in {pytester.path / 'report.html'}"])
    page = Page((pytester.path / "report.html").read_text(encoding="utf-8"))
    names = [s.find_all("summary")[0].all_text() for s in page.root.find_all("section", "scenario")]
    assert [n.split(" (")[0] for n in names] == ["broken broken", "fail expects-the-wrong-wait", "pass answer-after-overload"]
    assert page.matrix()["cut (RST)"]["mid tool input"] == ("hit", "1")


def test_pytest_xdist_workers_send_their_scenarios_to_the_report(pytester):
    pytester.makefile(".yaml", **{"scenarios/failing": FAILING, "scenarios/passing": PASSING, "scenarios/broken": BROKEN})
    result = pytester.runpytest_subprocess(
        "-p", "harness.pytest_plugin", "-p", "no:hypothesispytest", "-p", "xdist", "-n", "2", "--harness-html", "report.html"
    )
    result.assert_outcomes(passed=1, failed=2)
    page = Page((pytester.path / "report.html").read_text(encoding="utf-8"))
    assert len(page.root.find_all("section", "scenario")) == 3
    assert "1 passed2 failed0 not applicable0 skipped" == page.root.find_all("p", "counts")[0].all_text()

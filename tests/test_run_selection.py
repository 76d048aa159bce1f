"""``harness run`` with pytest's habits: ``-k``, ``--lf``, ``--maxfail``, and a baseline
of known failures that keeps a run green until something new breaks."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from harness.cli import main
from harness.scenario.frontends.selection import SelectionError, keyword_matches

PASSING = """\
name: {name}
about: One answer.
turns:
  - user: hi
    replies:
      - text: Hello.
    expect: {{requests: 1, end: end_turn}}
"""
FAILING = """\
name: {name}
about: Expects a second request that never comes.
turns:
  - user: hi
    replies:
      - text: Hello.
    expect: {{requests: 2}}
"""


@pytest.fixture
def library(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Two passing scenarios and two failing ones, run from their own folder."""
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "scenarios"
    folder.mkdir()
    for name, text in (("alpha-ok", PASSING), ("beta-ok", PASSING), ("gamma-broken", FAILING), ("delta-broken", FAILING)):
        (folder / f"{name}.yaml").write_text(text.format(name=name))
    return folder


def ran(capsys: pytest.CaptureFixture[str]) -> list[str]:
    out = capsys.readouterr().out
    return sorted(line.split()[0] for line in out.splitlines() if line.split()[1:2] in (["pass"], ["FAIL"], ["known"]))


@pytest.mark.parametrize(
    ("expression", "haystack", "expected"),
    [
        ("alpha", "scenarios/alpha-ok.yaml alpha-ok", True),
        ("ALPHA", "scenarios/alpha-ok.yaml alpha-ok", True),
        ("not alpha", "scenarios/alpha-ok.yaml alpha-ok", False),
        ("ok and not (beta or gamma)", "scenarios/alpha-ok.yaml alpha-ok", True),
        ("beta or gamma", "scenarios/alpha-ok.yaml alpha-ok", False),
    ],
)
def test_a_keyword_expression_reads_as_pytest_s(expression: str, haystack: str, expected: bool) -> None:
    assert keyword_matches(expression, haystack) is expected


@pytest.mark.parametrize("expression", ["", "alpha and", "(alpha", "alpha beta", "or alpha"])
def test_a_broken_keyword_expression_is_a_clear_error(expression: str) -> None:
    with pytest.raises(SelectionError, match="-k"):
        keyword_matches(expression, "anything")


def test_k_runs_only_the_matching_files(library: Path, capsys) -> None:
    assert main(["run", str(library), "-k", "alpha or (beta and not gamma)"]) == 0
    assert ran(capsys) == ["alpha-ok", "beta-ok"]


def test_lf_runs_what_failed_last_time_and_everything_when_nothing_did(library: Path, capsys) -> None:
    assert main(["run", str(library)]) == 1
    capsys.readouterr()
    assert main(["run", str(library), "--lf"]) == 1
    assert ran(capsys) == ["delta-broken", "gamma-broken"]
    for name in ("gamma-broken", "delta-broken"):  # both fixed
        (library / f"{name}.yaml").write_text(PASSING.format(name=name))
    assert main(["run", str(library), "--lf"]) == 0
    assert ran(capsys) == ["delta-broken", "gamma-broken"]
    assert main(["run", str(library), "--lf"]) == 0  # nothing failed: all of them
    assert len(ran(capsys)) == 4


def test_maxfail_stops_the_run_after_that_many_failures(library: Path, capsys) -> None:
    assert main(["run", str(library), "--maxfail", "1"]) == 1
    out = capsys.readouterr().out
    assert "--maxfail 1: stopped after" in out and out.count(" FAIL ") == 1


def test_a_baseline_keeps_known_failures_from_failing_the_run_until_something_new_breaks(library: Path, capsys) -> None:
    baseline = library.parent / "baseline.json"
    assert main(["run", str(library), "--write-baseline", str(baseline)]) == 1
    assert sorted(json.loads(baseline.read_text())["failures"]) == [
        str(library / "delta-broken.yaml"), str(library / "gamma-broken.yaml")]
    capsys.readouterr()
    assert main(["run", str(library), "--baseline", str(baseline)]) == 0  # the old failures are known
    assert "2 known failure(s)" in capsys.readouterr().out
    (library / "epsilon-broken.yaml").write_text(FAILING.format(name="epsilon-broken"))
    assert main(["run", str(library), "--baseline", str(baseline)]) == 1  # a new one is not
    (library / "gamma-broken.yaml").write_text(FAILING.format(name="gamma-broken").replace("requests: 2", "requests: 3"))
    (library / "epsilon-broken.yaml").unlink()
    capsys.readouterr()
    assert main(["run", str(library), "--baseline", str(baseline)]) == 1  # gamma fails another way now
    (library / "gamma-broken.yaml").write_text(PASSING.format(name="gamma-broken"))
    assert main(["run", str(library), "--baseline", str(baseline)]) == 0
    assert f"fixed: {library / 'gamma-broken.yaml'} passes now" in capsys.readouterr().out


def test_a_baseline_that_cannot_be_read_is_exit_2(library: Path, capsys) -> None:
    broken = library.parent / "baseline.json"
    broken.write_text("{not json")
    assert main(["run", str(library), "--baseline", str(broken)]) == 2
    assert "--baseline" in capsys.readouterr().err


def test_the_cache_folder_keeps_itself_out_of_git(library: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HARNESS_CACHE_DIR", raising=False)
    assert main(["run", str(library)]) == 1
    cache = library.parent / ".harness_cache"
    assert {p.name for p in cache.iterdir()} >= {"lastfailed.json", "durations.json", ".gitignore"}
    assert (cache / ".gitignore").read_text().splitlines()[-1] == "*"


GOLDEN = """\
name: golden
about: A transcript of mini_agent's REPL.
turns:
  - user: hi
    replies:
      - text: Hello.
expect:
  transcript: golden.transcript
"""


def test_update_golden_writes_the_transcript_and_says_why_it_does_not_with_another_agent(library: Path, capsys) -> None:
    scenario = library / "golden.yaml"
    scenario.write_text(GOLDEN)
    assert main(["run", str(scenario)]) == 1
    assert "`harness run --update-golden` or `pytest --update-golden` writes it" in capsys.readouterr().out
    assert main(["run", str(scenario), "--update-golden", "--agent", "examples.careful_agent:make_agent"]) == 0
    assert "with --agent none is checked or written" in capsys.readouterr().err and not (library / "golden.transcript").exists()
    assert main(["run", str(scenario), "--update-golden"]) == 0
    assert "> hi" in (library / "golden.transcript").read_text()
    assert main(["run", str(scenario)]) == 0 and "HARNESS_UPDATE_GOLDEN" not in os.environ  # compared again, not written

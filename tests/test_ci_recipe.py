"""docs/ci.md's recipe stays true: the GitHub Actions workflow parses, docs/ci.md shows
the file as it is, and every command it and the plain recipe name exists — the
harness's subcommands and options (parsed by its own parser), pytest's options, make
targets, the files and folders, hypothesis profiles."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness.cli import _parser

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / "docs" / "ci" / "harness.yml"
DRIFT = ROOT / "docs" / "ci" / "drift.yml"
GUIDE = ROOT / "docs" / "ci.md"
SHELL_WORDS = {"mkdir", "tee", "cat", "echo", "exit", "{", "}", "cd", "test", "true"}
OPERATORS = {"|", "||", "&&", ";", "&"}
REDIRECTS = {">", ">>", "<", "2>", "2>>"}
OUTPUT_OPTIONS = {"--html", "--junit", "--junit-xml", "--harness-html", "-o", "--output"}


def workflow() -> dict[Any, Any]:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def steps() -> list[dict[str, Any]]:
    return [step for job in workflow()["jobs"].values() for step in job["steps"]]


def fenced(text: str, language: str, fence: str = "```") -> list[str]:
    return re.findall(rf"^{fence}{language}\n(.*?)^{fence}$", text, re.S | re.M)


def commands(script: str) -> list[list[str]]:
    """The simple commands of a shell script, as words (operators and redirections split off)."""
    found: list[list[str]] = []
    for line in script.splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars="|&;<>")
        lexer.whitespace_split = True
        words, skip = [], False
        for token in lexer:
            if skip:
                skip = False
            elif token in REDIRECTS:
                skip = True
            elif token in OPERATORS:
                found.append(words)
                words = []
            else:
                words.append(token)
        found.append(words)
    return [c for c in found if c]


def all_commands() -> list[list[str]]:
    scripts = [step["run"] for step in steps() if "run" in step]
    scripts += fenced(GUIDE.read_text(encoding="utf-8"), "sh")
    return [command for script in scripts for command in commands(script)]


@pytest.fixture(scope="module")
def pytest_help() -> str:
    done = subprocess.run([sys.executable, "-m", "pytest", "--help"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_workflow_parses_and_the_guide_shows_it_as_it_is():
    assert workflow()["jobs"]["harness"]["runs-on"] == "ubuntu-latest"
    shown = fenced(GUIDE.read_text(encoding="utf-8"), "yaml", "````")
    assert shown == [WORKFLOW.read_text(encoding="utf-8"), DRIFT.read_text(encoding="utf-8")]


def test_the_drift_job_runs_weekly_with_a_key_and_opens_an_issue_on_drift():
    drift = yaml.safe_load(DRIFT.read_text(encoding="utf-8"))
    assert drift[True]["schedule"][0]["cron"].endswith("* * 1")  # YAML 1.1 reads the key `on` as True
    job = drift["jobs"]["drift"]
    assert job["env"]["ANTHROPIC_API_KEY"] == "${{ secrets.ANTHROPIC_API_KEY }}"
    [run] = [s for s in job["steps"] if "harness drift" in s.get("run", "")]
    [issue] = [s for s in job["steps"] if s.get("uses", "").startswith("actions/github-script@")]
    assert issue["if"] == f"${{{{ failure() && steps.{run['id']}.outcome == 'failure' }}}}"
    for words in (c for c in commands(run["run"]) if c[0] == "harness"):
        parsed = _parser().parse_args(words[1:])
        assert all((ROOT / path).is_file() for path in parsed.cassettes), parsed.cassettes


def test_the_workflow_uses_only_github_s_own_actions():
    used = [step["uses"] for step in steps() if "uses" in step]
    assert used and all(re.fullmatch(r"actions/[a-z-]+(/[a-z]+)?@v\d+", u) for u in used), used


def test_hypothesis_examples_are_restored_before_and_saved_after_a_failure_too():
    restore = [s for s in steps() if s.get("uses", "").startswith("actions/cache/restore@")]
    save = [s for s in steps() if s.get("uses", "").startswith("actions/cache/save@")]
    assert [s["with"]["path"] for s in restore + save] == [".hypothesis", ".hypothesis"]
    assert save[0]["if"] == "${{ !cancelled() }}"
    order = steps()
    assert order.index(restore[0]) < order.index(next(s for s in order if "harness.library.properties" in s.get("run", "")))
    assert order.index(save[0]) > order.index(next(s for s in order if "harness.library.properties" in s.get("run", "")))


def test_the_reports_are_published_and_a_secret_fails_the_job():
    [upload] = [s for s in steps() if s.get("uses", "").startswith("actions/upload-artifact@")]
    folder = upload["with"]["path"].rstrip("/")
    written = [c[i + 1] for c in all_commands() for i, w in enumerate(c[:-1]) if w in OUTPUT_OPTIONS]
    written += [w.split("=", 1)[1] for c in all_commands() for w in c if w.split("=")[0] in OUTPUT_OPTIONS and "=" in w]
    assert len(set(written)) == 3 and all(Path(p).parent.as_posix() == folder for p in written), written
    assert {Path(p).suffix for p in written} == {".html", ".xml"}
    [scan] = [s for s in steps() if s.get("run", "").startswith("harness scan")]
    assert scan["run"].strip() == "harness scan cassettes/" and scan["if"] == "${{ !cancelled() }}"
    assert (ROOT / "cassettes").is_dir()


def test_the_properties_run_with_a_registered_profile():
    profiles = set(re.findall(r'register_profile\(\s*"(\w+)"', (ROOT / "harness/library/properties/profiles.py").read_text()))
    named = {workflow()["jobs"]["harness"]["env"]["HYPOTHESIS_PROFILE"]}
    named |= {w.split("=", 1)[1] for c in all_commands() for w in c if w.startswith("HYPOTHESIS_PROFILE=")}
    assert named == {"ci"} and named <= profiles


def test_every_command_exists(pytest_help):
    checked = set()
    for words in all_commands():
        while words and re.fullmatch(r"[A-Z_]+=\S*", words[0]):
            words = words[1:]  # environment assignments
        program = Path(words[0]).name
        if program == "harness":
            _check_harness(words[1:])
        elif words[1:3] == ["-m", "pytest"]:
            _check_pytest(words[3:], pytest_help)
        elif words[1:3] == ["-m", "pip"] or program == "pip":
            assert "install" in words and "-e" in words and ".[dev]" in words, words
            assert 'dev = [' in (ROOT / "pyproject.toml").read_text()
        elif words[1:3] == ["-m", "venv"]:
            assert program.startswith("python")
        elif program == "make":
            targets = re.findall(r"^([a-z][\w-]*):", (ROOT / "Makefile").read_text(), re.M)
            assert set(words[1:]) <= set(targets), words
        elif "=" in program:  # status=0 and the like
            continue
        else:
            assert program in SHELL_WORDS, f"unknown command {words}"
        checked.add(program)
    assert {"harness", "python", "pip"} <= checked | {"python3"}


def _check_harness(arguments: list[str]) -> None:
    try:
        parsed = _parser().parse_args(arguments)
    except SystemExit:
        pytest.fail(f"`harness {' '.join(arguments)}` does not parse")
    for path in getattr(parsed, "paths", []):
        assert (ROOT / path).exists(), f"harness {' '.join(arguments)}: no {path}"


def _check_pytest(arguments: list[str], help_text: str) -> None:
    import importlib.util

    for before, word in zip(["", *arguments], arguments):
        if before == "--pyargs":
            assert importlib.util.find_spec(word) is not None, f"pytest --pyargs {word}: no such package"
        elif word.startswith("-"):
            assert re.search(rf"(^|[ ,]){re.escape(word.split('=')[0])}[ =,\n]", help_text, re.M), f"pytest has no {word}"
        elif not word.startswith("reports/") and word != "auto":
            assert (ROOT / word).exists(), f"pytest {' '.join(arguments)}: no {word}"


def test_hypothesis_own_option_chooses_a_harness_profile(tmp_path: Path) -> None:
    """``--hypothesis-profile quick`` is known before hypothesis reads it, and wins over
    ``$HYPOTHESIS_PROFILE``."""
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--pyargs", "harness.library.properties",
         "-k", "test_any_fault_schedule", "--hypothesis-show-statistics", "--hypothesis-profile", "quick"],
        cwd=tmp_path, env=os.environ | {"HYPOTHESIS_PROFILE": "ci"}, capture_output=True, text=True, timeout=600,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "Stopped because settings.max_examples=20" in run.stdout


@pytest.mark.parametrize(("target", "profile"), [
    (["--pyargs", "harness.library.properties"], "ci"),
    ([str(ROOT / "harness" / "library" / "properties" / "test_fault_schedules.py")], "thorough"),
])
def test_the_header_names_the_profile_the_properties_run_with(tmp_path: Path, target: list[str], profile: str) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-v", "--co", "-p", "no:cacheprovider", *target],
        cwd=tmp_path, env=os.environ | {"HYPOTHESIS_PROFILE": profile}, capture_output=True, text=True, timeout=300,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert f"hypothesis profile {profile!r}" in run.stdout, run.stdout[:1500]


def test_a_profile_name_with_a_typo_is_a_usage_error_naming_the_profiles(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--pyargs", "harness.library.properties"],
        cwd=tmp_path, env=os.environ | {"HYPOTHESIS_PROFILE": "sharde"}, capture_output=True, text=True, timeout=300,
    )
    assert run.returncode == 4, run.stdout[-2000:] + run.stderr[-2000:]
    assert "HYPOTHESIS_PROFILE='sharde': no hypothesis profile of that name" in run.stderr
    assert "ci, quick, thorough, shared" in run.stderr and "Traceback" not in run.stderr + run.stdout


def test_a_shared_database_that_cannot_be_used_is_a_usage_error(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--pyargs", "harness.library.properties"],
        cwd=tmp_path, env=os.environ | {"HYPOTHESIS_PROFILE": "shared", "HYPOTHESIS_SHARED_DB": "github:octo"},
        capture_output=True, text=True, timeout=300,
    )
    assert run.returncode == 4, run.stdout[-2000:] + run.stderr[-2000:]
    assert "HYPOTHESIS_SHARED_DB=github:octo: expected github:OWNER/REPO" in run.stderr
    assert "INTERNALERROR" not in run.stdout + run.stderr and "Traceback" not in run.stdout + run.stderr

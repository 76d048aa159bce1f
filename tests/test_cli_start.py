"""The commands that need no SDK start without importing it: ``--help``, ``lint`` (and
``lint --show-commands``), ``events``, ``schema``, ``scan`` and ``check-history`` run in a process where importing
``anthropic`` (or vcrpy, or hypothesis) fails, and do their job."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN = ("anthropic", "vcr", "hypothesis", "mini_agent")
RUN_WITHOUT = (
    "import sys\n"
    f"for name in {FORBIDDEN!r}:\n"
    "    sys.modules[name] = None  # importing it now raises ImportError\n"
    "from harness.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


def harness_without_the_sdk(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", RUN_WITHOUT, *argv], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_importing_the_cli_imports_no_sdk() -> None:
    code = f"import sys, harness.cli; print(sorted(n for n in {FORBIDDEN!r} if n in sys.modules))"
    found = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert found.stdout.strip() == "[]"


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--help"], "Fault scenarios for Anthropic-API agents."),
        (["lint", "scenarios/http"], "problem(s)"),
        (["lint", "--show-commands", "scenarios/tools"], "scenarios/tools/"),
        (["events", "scenarios/http/overloaded_then_success.yaml"], "the stream is complete"),
        (["schema"], '"title": "Fault scenario"'),
        (["scan", "cassettes"], "file(s) scanned"),
    ],
)
def test_a_command_that_needs_no_sdk_runs_without_it(argv: list[str], expected: str) -> None:
    done = harness_without_the_sdk(*argv)
    assert done.returncode == 0, done.stderr
    assert expected in done.stdout


def test_check_history_runs_without_the_sdk(tmp_path: Path) -> None:
    history = tmp_path / "history.json"
    history.write_text(json.dumps([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello "}]))
    done = harness_without_the_sdk("check-history", str(history))
    assert done.returncode == 1, done.stderr
    assert "final assistant content cannot end with trailing whitespace" in done.stdout


def test_the_check_can_fail_a_command_that_needs_the_sdk() -> None:
    """The same trick stops a command that does import the SDK: the check can fail."""
    done = harness_without_the_sdk("run", "scenarios/http/overloaded_then_success.yaml")
    assert done.returncode != 0 and "anthropic" in done.stderr

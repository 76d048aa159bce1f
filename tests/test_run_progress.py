"""Long runs show progress, and Ctrl+C ends ``harness run`` cleanly: a summary of what
ran, the reports of it, exit 130, no traceback. A SIGINT that a scenario's own command
sends, and expects the agent to meet, does not stop the run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from harness.cli import main

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]
PRESSES_CTRL_C = '''\
"""mini_agent, but the user presses Ctrl+C while the second scenario is being set up
(the file is loaded again for each scenario: the count is kept beside it, one file a
build, each made only if new, so that two workers building at once count apart)."""
import json
import os
import signal
from pathlib import Path

from harness.agents.mini_agent import factory

COUNT = Path(__file__).with_suffix(".count")


def make_agent(ctx):
    built = 1
    while True:
        try:
            os.close(os.open(f"{COUNT}.{built}", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            break
        except FileExistsError:
            built += 1
    if built == 2:
        os.kill(os.getpid(), signal.SIGINT)
    return factory(ctx)
'''


def harness(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "harness", *args], cwd=cwd, env=environment, capture_output=True,
                          text=True, timeout=300)


def test_progress_is_a_line_per_scenario_on_stderr(capsys):
    assert main(["run", "scenarios/http/retry_after_ms.yaml", "scenarios/http/x_should_retry.yaml", "--progress"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert [line.split()[:3] for line in err] == [
        ["[1/2]", "pass", "scenarios/http/retry_after_ms.yaml"], ["[2/2]", "pass", "scenarios/http/x_should_retry.yaml"]]
    assert all(line.endswith("s") for line in err)


def test_no_progress_when_stderr_is_not_a_terminal_unless_asked(capsys):
    assert main(["run", "scenarios/http/retry_after_ms.yaml"]) == 0
    assert capsys.readouterr().err == ""


def test_ctrl_c_ends_the_run_with_a_summary_of_what_ran_and_exit_130(tmp_path):
    (tmp_path / "presses_ctrl_c.py").write_text(PRESSES_CTRL_C, encoding="utf-8")
    report, junit = tmp_path / "report.html", tmp_path / "junit.xml"
    done = harness("run", "scenarios/http", "--agent", f"{tmp_path / 'presses_ctrl_c.py'}:make_agent",
                   "--html", str(report), "--junit", str(junit))
    files = len(list((ROOT / "scenarios" / "http").glob("*.yaml")))
    assert done.returncode == 130, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    lines = done.stdout.splitlines()
    assert lines[0].split()[:2] == ["scenario", "result"]
    assert lines[1].split()[:2] == ["backoff-reaches-its-cap", "pass"]
    assert lines[2] == "1 passed, 0 failed"
    assert lines[-1] == f"interrupted: Ctrl+C after 1 of {files} scenario file(s); the rest did not run"
    assert f"Interrupted:</strong> Ctrl+C after 1 of {files}" in report.read_text(encoding="utf-8")
    assert 'tests="1"' in junit.read_text(encoding="utf-8")


def test_a_sigint_the_scenario_sends_itself_does_not_stop_the_run():
    done = harness("run", "scenarios/interrupts")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ctrl-c-while-a-command-runs" in done.stdout and "interrupted" not in done.stdout.splitlines()[-1]


def test_harness_progress_counts_the_examples_of_a_running_property(pytester):
    pytester.makepyfile(test_prop='''
from hypothesis import given, settings, strategies as st

@settings(max_examples=20, database=None, derandomize=True)
@given(st.integers())
def test_any_integer(n):
    assert isinstance(n, int)

def test_plain():
    pass
''')
    result = pytester.runpytest_subprocess("-p", "harness.pytest_plugin", "--harness-progress", "0", "-q")
    result.assert_outcomes(passed=2)
    err = "\n".join(result.errlines)
    assert "[progress] test_prop.py::test_any_integer: 1 examples run (max_examples 20), " in err
    assert "[progress] test_prop.py::test_any_integer: done, 20 examples in " in err
    assert "test_plain" not in err


def test_a_sigint_an_agent_fails_to_meet_is_a_note_and_the_run_goes_on():
    done = harness("run", "scenarios/interrupts", "--agent", "examples.tool_runner_agent:make_agent")
    files = len(list((ROOT / "scenarios" / "interrupts").glob("*.yaml")))
    assert done.returncode == 1, done.stdout + done.stderr  # the tool runner leaves the tool_use unanswered
    assert "interrupted" not in done.stdout and "Traceback" not in done.stdout + done.stderr
    assert "a Ctrl+C (SIGINT) arrived while this scenario ran" in done.stdout
    assert "ctrl-c-while-a-command-runs  FAIL" in done.stdout and f"of {files}" not in done.stdout


def test_json_output_stays_json_when_the_agent_prints():
    done = harness("run", "scenarios/http/overloaded_then_success.yaml", "--agent", "examples.tool_runner_agent:make_agent",
                   "--json")
    report = json.loads(done.stdout)  # the tool runner agent echoes the model's text; that goes to stderr
    assert [s["name"] for s in report["scenarios"]] == ["overloaded-then-success"] and report["passed"] is True
    assert done.stderr.strip(), "the agent's own output is kept, on stderr"

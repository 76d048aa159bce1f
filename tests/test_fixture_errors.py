"""A mistake in what a user's own test hands the harness — a scenario with a typo for
``fault_api`` or ``harness_run``, a corrupt cassette for the ``cassette`` fixture — fails
that test with the file, the line and the valid choices, never a traceback; and a run
whose scenario is not applicable says nothing of a Ctrl+C nobody pressed."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]
PLUGIN = ("-p", "harness.pytest_plugin", "-p", "no:hypothesispytest")
ROOT = Path(__file__).resolve().parent.parent

TYPO = """\
name: typo
about: A misspelt key.
turns:
  - user: hi
    replies:
      - txet: hello
"""


def test_a_scenario_with_a_typo_fails_fault_api_and_harness_run_without_a_traceback(pytester: pytest.Pytester) -> None:
    pytester.makefile(".yaml", **{"wire/typo": TYPO})
    pytester.makepyfile("""
import pytest

@pytest.mark.scenario("wire/typo.yaml")
def test_with_fault_api(fault_api):
    pass

def test_with_harness_run(harness_run):
    harness_run("wire/typo.yaml")
""")
    result = pytester.runpytest(*PLUGIN)
    result.assert_outcomes(failed=1, errors=1)
    result.stdout.fnmatch_lines([
        "@pytest.mark.scenario: *typo.yaml:6:9: unknown key 'txet'*(did you mean 'text'?)*valid keys: text,*",
        "harness_run: *typo.yaml:6:9: unknown key 'txet'*",
    ])
    assert "Traceback" not in result.stdout.str() and "pytest_plugin.py" not in result.stdout.str()


def test_a_corrupt_cassette_fails_its_test_without_a_traceback(pytester: pytest.Pytester) -> None:
    pytester.makefile(".yaml", **{"cassettes/test_corrupt/test_replay": "interactions:\n- request: {method: POST\n  uri: x\n"})
    pytester.makepyfile(test_corrupt="""
import pytest

@pytest.mark.cassette
def test_replay(cassette_client):
    pass
""")
    result = pytester.runpytest(*PLUGIN, "--record-mode", "none")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*test_replay.yaml:*not valid YAML*"])
    assert "Traceback" not in result.stdout.str() and "fixtures.py" not in result.stdout.str()
    socket.create_server(("127.0.0.1", 0)).close()  # and the network is not left blocked behind it
    with socket.create_server(("127.0.0.1", 0)) as server:
        socket.create_connection(server.getsockname(), timeout=5).close()


def test_a_scenario_not_applicable_to_the_agent_says_nothing_of_a_ctrl_c() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "harness", "run", "scenarios/interrupts/ctrl_c_while_streaming.yaml",
         "--agent", "examples.reader_agent:make_agent"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "n/a" in run.stdout and "Ctrl+C (SIGINT) arrived" not in run.stdout + run.stderr

"""``harness run --jobs N``: the files run in forked worker processes, with the same
records in the same order as one process gives; Ctrl+C, a scenario's own SIGINT and a
worker that dies are handled as the run of one process handles them, and nothing is
lost: a file whose worker ended without a result is a failure that names it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.cli import jobs_option
from harness.scenario.frontends.workers import can_fork

pytestmark = pytest.mark.skipif(not can_fork(), reason="--jobs needs os.fork")

ROOT = Path(__file__).resolve().parents[1]
HTTP = ROOT / "scenarios" / "http"
DIES = '''\
"""mini_agent, but the first agent built, in whichever worker, ends its process."""
import os
from pathlib import Path

from harness.agents.mini_agent import factory


def make_agent(ctx):
    try:
        os.close(os.open(Path(__file__).with_suffix(".died"), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return factory(ctx)
    os._exit(9)
'''
PRESSES_TWICE = '''\
"""An agent whose user presses Ctrl+C (at the harness's own process) again and again
until the harness ends this worker. Two presses sent back to back may reach a busy
process as one pending signal, so the presses are spaced and repeated."""
import os
import signal
import threading


def make_agent(ctx):
    pause = threading.Event()
    for _ in range(600):  # at most two minutes; the harness ends this worker at its second press
        os.kill(os.getppid(), signal.SIGINT)
        pause.wait(0.2)
'''


def harness(*args: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "harness", *args], cwd=ROOT, env=environment, capture_output=True,
                          text=True, timeout=300)


def results(done: subprocess.CompletedProcess[str]) -> list[tuple[str, str, bool, list[str]]]:
    report = json.loads(done.stdout)
    return [(s["file"], s["name"], s["passed"], s["problems"]) for s in report["scenarios"]]


def test_two_workers_give_the_records_of_one_process_in_the_files_order():
    one = harness("run", "scenarios/http", "scenarios/tools", "--json")
    two = harness("run", "scenarios/http", "scenarios/tools", "--json", "--jobs", "2")
    assert one.returncode == two.returncode == 0, two.stdout[-2000:] + two.stderr[-2000:]
    assert results(two) == results(one)
    assert len(results(one)) == len(list(HTTP.glob("*.yaml"))) + len(list((ROOT / "scenarios" / "tools").glob("*.yaml")))


def test_a_worker_that_dies_is_a_failure_naming_its_file_and_the_rest_still_run(tmp_path):
    (tmp_path / "dies.py").write_text(DIES, encoding="utf-8")
    done = harness("run", "scenarios/http", "--json", "-j", "2", "--agent", f"{tmp_path / 'dies.py'}:make_agent")
    assert done.returncode == 1, done.stderr
    found = {file: (passed, problems) for file, _, passed, problems in results(done)}
    assert sorted(found) == sorted(str(p.relative_to(ROOT)) for p in HTTP.glob("*.yaml"))
    lost = [file for file, (passed, _) in found.items() if not passed]
    assert len(lost) == 1, found
    message = f"{lost[0]}: the worker process running this file ended without a result (exit code 9)"
    assert found[lost[0]][1] == [message]


def test_a_sigint_the_scenario_sends_itself_reaches_only_its_worker():
    done = harness("run", "scenarios/interrupts", "scenarios/http", "-j", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ctrl-c-while-a-command-runs" in done.stdout and "interrupted" not in done.stdout.splitlines()[-1]


def test_ctrl_c_in_a_worker_stops_the_run_with_a_summary_and_exit_130(tmp_path):
    agent = (ROOT / "tests" / "test_run_progress.py").read_text(encoding="utf-8").split("PRESSES_CTRL_C = '''\\\n")[1]
    (tmp_path / "presses_ctrl_c.py").write_text(agent.split("'''")[0], encoding="utf-8")
    junit = tmp_path / "junit.xml"
    done = harness("run", "scenarios/http", "-j", "2", "--agent", f"{tmp_path / 'presses_ctrl_c.py'}:make_agent",
                   "--junit", str(junit))
    files = len(list(HTTP.glob("*.yaml")))
    assert done.returncode == 130, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    last = done.stdout.splitlines()[-1]
    ran = int(last.removeprefix("interrupted: Ctrl+C after ").split()[0])
    assert 1 <= ran < files and last.endswith(f"of {files} scenario file(s); the rest did not run")
    assert f'tests="{ran}"' in junit.read_text(encoding="utf-8")


def test_ctrl_c_pressed_twice_ends_the_workers_at_once(tmp_path):
    (tmp_path / "twice.py").write_text(PRESSES_TWICE, encoding="utf-8")
    started = time.monotonic()
    done = harness("run", "scenarios/http", "-j", "2", "--agent", f"{tmp_path / 'twice.py'}:make_agent")
    assert done.returncode == 130, done.stdout + done.stderr
    assert time.monotonic() - started < 60, "the workers waiting in the agent were ended, not waited for"
    assert "Traceback" not in done.stdout + done.stderr
    assert done.stdout.splitlines()[-1].startswith("interrupted: Ctrl+C after 0 of ")


@pytest.mark.parametrize("value", ["0", "-1", "two", "1.5", ""])
def test_a_bad_jobs_value_is_a_usage_error_naming_the_choices(value):
    done = harness("run", "scenarios/http", "--jobs", value)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "--jobs" in done.stderr and "expected a whole number of workers from 1, or auto" in done.stderr


def test_auto_is_one_worker_a_cpu():
    assert jobs_option("auto") == (os.cpu_count() or 1)
    assert jobs_option("3") == 3

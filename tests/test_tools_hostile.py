"""mini_agent's tools against hostile files and runaway processes: Read refuses what is
not a regular file and never loads a file whole; Bash and the stop-failure hook kill
every process a command started, ``setsid``'d ones included; Write is whole or nothing.

Processes run for real here. A late writer does not race a margin of real time: it notes
its process id and waits for a file named ``go`` before it writes, and the test makes
``go`` and waits for the writer's death, so one that outlived its command always writes
and one that was killed never does, however busy the machine."""

from __future__ import annotations

import _thread
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from marked import carrying, ended
from planted import harness_with, planted_copy

from mini_agent.hooks import run_stop_failure_hook
from mini_agent.tools import ToolRegistry, default_tools, processes
from mini_agent.tools.processes import MARK_VARIABLE

needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
LATE_WRITER = (
    "setsid sh -c 'echo $$ > {name}.pid; i=0; while [ ! -e go ] && [ $i -lt 500 ]; do sleep 0.02; i=$((i+1)); done; "
    "[ -e go ] && echo late > {name}' & "
)
GRANDCHILD_SCENARIO = "scenarios/tools/bash_timeout_kills_setsid_grandchild.yaml"


@pytest.fixture
def tools(tmp_path: Path) -> ToolRegistry:
    return ToolRegistry(default_tools(), cwd=tmp_path)


def wait_past_the_late_write(folder: Path, name: str) -> None:
    """Let a late writer that is still alive write, and wait until it is gone."""
    (folder / "go").touch()
    try:
        pid = int((folder / f"{name}.pid").read_text())
    except (OSError, ValueError):
        return  # killed before it could even note its id
    wait_for_death(pid)


def wait_for_death(pid: int, limit: float = 30.0) -> None:
    """Return once ``pid`` has ended (a zombie has), waiting on its pidfd."""
    assert ended(pid, limit), f"process {pid} still runs after {limit:g}s"


def marked_processes() -> list[int]:
    """Live processes carrying a run mark of this process's commands (none may outlive one)."""
    return carrying(MARK_VARIABLE, "-")


# --- Read ----------------------------------------------------------------------------


def test_read_refuses_a_fifo_instead_of_waiting_for_a_writer(tools: ToolRegistry, tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    started = time.monotonic()
    outcome = tools.execute("Read", {"file_path": "pipe"})
    assert time.monotonic() - started < 2
    assert outcome.is_error and "is a FIFO (named pipe), not a regular file" in outcome.content


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null", "/dev/urandom"])
def test_read_refuses_a_device(tools: ToolRegistry, device: str) -> None:
    outcome = tools.execute("Read", {"file_path": device})
    assert outcome.is_error and "is a character device, not a regular file" in outcome.content


def test_read_refuses_a_socket(tools: ToolRegistry, tmp_path: Path) -> None:
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(tmp_path / "sock"))
        outcome = tools.execute("Read", {"file_path": "sock"})
    assert outcome.is_error and "not a regular file" in outcome.content


@needs_proc
def test_reading_a_2_gb_sparse_file_takes_little_memory(tmp_path: Path) -> None:
    sparse = tmp_path / "sparse.bin"
    with sparse.open("wb") as stream:
        stream.truncate(2 * 1024**3)  # 2 GB of zeros and no newline, stored as nothing
    probe = (
        "import re; from pathlib import Path; from mini_agent.tools import ToolRegistry, default_tools\n"
        f"out = ToolRegistry(default_tools(), cwd=Path({str(tmp_path)!r})).execute('Read', {{'file_path': 'sparse.bin'}})\n"
        # VmHWM, the peak of this process's own memory: ru_maxrss would carry the parent's over fork and exec
        "peak = re.search(r'VmHWM:\\s+(\\d+)', Path('/proc/self/status').read_text()).group(1)\n"
        "print(peak, len(out.content), out.is_error)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    peak_kb, length, is_error = done.stdout.split()
    assert is_error == "False" and int(length) < 40_000  # the first line, cut
    assert int(peak_kb) < 200_000, f"peak RSS {int(peak_kb) // 1024} MB"


def test_a_long_line_is_cut_and_says_how_much_was_left_out(tmp_path: Path) -> None:
    (tmp_path / "wide.txt").write_text("x" * 300_000 + "\nnext\n")
    outcome = ToolRegistry(default_tools(), cwd=tmp_path, max_output=10**6).execute("Read", {"file_path": "wide.txt"})
    first, second = outcome.content.split("\n")[:2]
    assert first.endswith("… [200,000 more bytes in this line]") and second == "     2\tnext"


# --- Bash and the hook: nothing a command started outlives it ---------------------------


@needs_proc
def test_a_setsid_grandchild_that_would_write_after_the_timeout_writes_nothing(tools: ToolRegistry, tmp_path: Path) -> None:
    outcome = tools.execute("Bash", {"command": LATE_WRITER.format(name="late.txt") + "sleep 30", "timeout": 0.3})
    assert outcome.content.endswith("[timed out after 0.3s]")
    wait_past_the_late_write(tmp_path, "late.txt")
    assert not (tmp_path / "late.txt").exists()
    assert marked_processes() == []


@needs_proc
def test_a_double_forked_daemon_dies_with_the_command_that_started_it(tools: ToolRegistry, tmp_path: Path) -> None:
    command = f"({LATE_WRITER.format(name='daemon.txt')}) ; echo started"  # its parent exits at once
    assert tools.execute("Bash", {"command": command}).content == "[stdout]\nstarted\nexit code: 0"
    wait_past_the_late_write(tmp_path, "daemon.txt")
    assert not (tmp_path / "daemon.txt").exists()


@needs_proc
def test_ctrl_c_during_bash_kills_setsid_grandchildren_too(tools: ToolRegistry, tmp_path: Path) -> None:
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.3, _thread.interrupt_main)
    try:
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            tools.execute("Bash", {"command": LATE_WRITER.format(name="late.txt") + "sleep 30"})
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    wait_past_the_late_write(tmp_path, "late.txt")
    assert not (tmp_path / "late.txt").exists()


@needs_proc
def test_a_run_whose_popen_never_reached_the_tool_is_found_by_its_mark_and_reaped(tmp_path: Path) -> None:
    """A Ctrl+C that lands while the command starts leaves the tool without its ``Popen``:
    the command, its background child and its ``setsid``'d grandchild are found by the mark
    alone, killed, and the command is reaped (no zombie left)."""
    mark = processes.new_mark()
    command = (f"{LATE_WRITER.format(name='late.txt')}"
               "while [ ! -e late.txt.pid ]; do sleep 0.01; done; echo ready; sleep 30 & sleep 30")  # says when all have started
    started = processes.start(["bash", "-c", command], mark, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert started.stdout is not None
    ready, _, _ = select.select([started.stdout], [], [], 30)  # waits for the event; 30 s only guards a hang
    assert ready and started.stdout.readline() == b"ready\n", "the command ended, or hung, before its processes started"
    assert processes.kill_everything(None, mark) >= 3
    assert marked_processes() == []
    assert not Path(f"/proc/{started.pid}").exists()  # reaped: not even a zombie
    started.wait()  # the Popen learns it is gone (its status was taken)
    started.stdout.close()
    wait_past_the_late_write(tmp_path, "late.txt")
    assert not (tmp_path / "late.txt").exists()


@needs_proc
def test_the_stop_failure_hook_gets_the_same_treatment_on_its_timeout(tmp_path: Path) -> None:
    problem = run_stop_failure_hook(LATE_WRITER.format(name="hook.txt") + "sleep 30", {}, cwd=tmp_path, timeout=0.3)
    assert problem == "the stop-failure hook timed out after 0.3s"
    wait_past_the_late_write(tmp_path, "hook.txt")
    assert not (tmp_path / "hook.txt").exists()


@needs_proc
def test_a_hook_that_exits_at_once_leaves_no_setsid_child_behind(tmp_path: Path) -> None:
    assert run_stop_failure_hook(LATE_WRITER.format(name="hook.txt") + "true", {}, cwd=tmp_path, timeout=5) is None
    wait_past_the_late_write(tmp_path, "hook.txt")
    assert not (tmp_path / "hook.txt").exists()


@needs_proc
def test_the_library_scenario_catches_an_agent_that_kills_only_the_process_group(tmp_path: Path) -> None:
    broken = planted_copy(
        tmp_path, "tools/processes.py", "        for _ in range(MAX_PASSES):", "        for _ in range(0):"
    )
    run = harness_with(broken, "run", GRANDCHILD_SCENARIO)  # the scenario waits for the grandchild's death
    assert run.returncode == 1, run.stdout + run.stderr
    assert "expect.files.late.txt: expected no such file, it exists" in run.stdout
    assert harness_with(None, "run", GRANDCHILD_SCENARIO).returncode == 0


# --- Write: whole or nothing --------------------------------------------------------------


def test_write_leaves_no_temporary_and_the_old_file_when_interrupted(tools: ToolRegistry, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "notes.txt").write_text("old\n")

    def interrupted(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)  # Ctrl+C between the temporary and the rename
    with pytest.raises(KeyboardInterrupt):
        tools.execute("Write", {"file_path": "notes.txt", "content": "new\n" * 1000})
    assert (tmp_path / "notes.txt").read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_write_sweeps_temporaries_left_by_a_killed_writer(tools: ToolRegistry, tmp_path: Path) -> None:
    dead = _a_dead_pid()
    stale = tmp_path / f".notes.txt.{dead}.abc123.tmp"
    stale.write_text("half")
    live = tmp_path / f".notes.txt.{os.getpid()}.def456.tmp"  # a writer still at work: kept
    live.write_text("busy")
    assert not tools.execute("Write", {"file_path": "notes.txt", "content": "whole"}).is_error
    assert sorted(p.name for p in tmp_path.iterdir()) == [live.name, "notes.txt"]


def _a_dead_pid() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid

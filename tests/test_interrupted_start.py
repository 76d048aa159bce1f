"""A Ctrl+C that lands while a command is starting: the child runs, but its ``Popen`` never
reaches the tool. mini_agent's Bash and stop-failure hook, and the careful example's
shell, still kill everything the command started and reap it.

The moment is made certain, not raced: ``subprocess.Popen`` (the standard library's, not
the project's code) is replaced by one that raises KeyboardInterrupt once the child has
started, as a SIGINT arriving inside ``Popen.__init__`` does."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from marked import carrying

from examples.careful_agent.tools import SHELL_TAG, Workbench
from mini_agent.hooks import run_stop_failure_hook
from mini_agent.tools import ToolRegistry, default_tools
from mini_agent.tools.processes import MARK_VARIABLE

needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
COMMAND = "sleep 30 & setsid sleep 30 & sleep 30"
RealPopen = subprocess.Popen


class InterruptedPopen(RealPopen):  # type: ignore[type-arg]
    """Starts the child, then lets a Ctrl+C land before the caller gets the object."""

    started: list[int] = []

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        InterruptedPopen.started.append(self.pid)
        self.returncode = 0  # the object is dropped; it must not be reaped a second time
        raise KeyboardInterrupt


@pytest.fixture
def interrupted_start(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    InterruptedPopen.started = []
    monkeypatch.setattr(subprocess, "Popen", InterruptedPopen)
    return InterruptedPopen.started


def gone(pid: int) -> bool:
    """Ended and reaped: not even a zombie is left."""
    return not Path(f"/proc/{pid}").exists()


@needs_proc
def test_mini_agent_bash_kills_a_command_whose_start_was_interrupted(interrupted_start: list[int], tmp_path: Path) -> None:
    with pytest.raises(KeyboardInterrupt):
        ToolRegistry(default_tools(), cwd=tmp_path).execute("Bash", {"command": COMMAND})
    assert len(interrupted_start) == 1 and gone(interrupted_start[0])
    assert carrying(MARK_VARIABLE, "-") == []


@needs_proc
def test_mini_agent_stop_failure_hook_kills_a_hook_whose_start_was_interrupted(interrupted_start: list[int], tmp_path: Path) -> None:
    with pytest.raises(KeyboardInterrupt):
        run_stop_failure_hook(COMMAND, {}, cwd=tmp_path, timeout=30)
    assert len(interrupted_start) == 1 and gone(interrupted_start[0])
    assert carrying(MARK_VARIABLE, "-") == []


@needs_proc
def test_the_careful_shell_kills_a_command_whose_start_was_interrupted(interrupted_start: list[int], tmp_path: Path) -> None:
    with pytest.raises(KeyboardInterrupt):
        Workbench(tmp_path).call("shell", {"cmd": COMMAND})
    assert len(interrupted_start) == 1 and gone(interrupted_start[0])
    assert carrying(SHELL_TAG, ".") == []

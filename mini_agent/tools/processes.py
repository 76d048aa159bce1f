"""Every process a command started, found and killed, without cgroups.

A command runs in a session of its own (``start_new_session``) with a mark in its
environment (``MINI_AGENT_RUN=<unique>``). Killing it means finding, in passes, every
process that (below), stopping each one found (SIGSTOP: a stopped process cannot fork
again) until two passes in a row find nothing new, then SIGKILL for all of them:

1. is in the command's session -- the shell, its pipelines, ``cmd &`` children;
2. descends from the command's shell through the parent links in ``/proc`` -- also
   the ones that left the session with ``setsid`` while their parent still lives;
3. carries the command's mark in ``/proc/PID/environ`` -- a ``setsid``'d grandchild
   keeps its environment when its parent exits and it is handed to init, so the mark
   finds it where the parent links no longer lead.

What escapes all three is a process that left the session, lost its parent and cleared
its environment (``setsid env -i …``): only a cgroup or a PID namespace would hold that
one. Without ``/proc`` (not Linux) only the session's process group is killed.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
import uuid
from pathlib import Path
from typing import Any

MARK_VARIABLE = "MINI_AGENT_RUN"
MAX_PASSES = 50
SETTLE = 0.005  # seconds for a fork under way to show in /proc
PROC = Path("/proc")


def new_mark() -> str:
    """A mark no other run carries: this process's id and a random part."""
    return f"{os.getpid()}-{uuid.uuid4().hex}"


def start(args: Any, mark: str, **options: Any) -> subprocess.Popen[bytes]:
    """``subprocess.Popen`` in a new session with ``mark`` in its environment. Call it
    inside the ``try`` whose ``finally`` calls ``kill_everything(process, mark)``, with
    ``process`` None until it returns: a Ctrl+C that lands while the command starts
    still finds it by its mark."""
    env = dict(options.pop("env", None) or os.environ)
    env[MARK_VARIABLE] = mark
    return subprocess.Popen(args, start_new_session=True, env=env, **options)


def kill_everything(process: subprocess.Popen[Any] | None, mark: str) -> int:
    """SIGKILL every process of the run (see the module docstring), then reap the
    command itself; returns how many were killed. ``process`` None: the command's
    ``Popen`` never reached the caller, and only its mark finds the run."""
    leader = None if process is None else process.pid
    stopped: set[tuple[int, int]] = set()
    if PROC.is_dir():
        quiet = 0
        for _ in range(MAX_PASSES):  # stop them all first: a stopped process cannot fork
            found = _members(leader, mark) - stopped
            _signal(found, signal.SIGSTOP)
            stopped |= found
            quiet = 0 if found else quiet + 1
            if quiet == 2:  # twice nothing new, the second time after a fork in flight had time to land
                break
            if not found:
                time.sleep(SETTLE)
        _signal(stopped, signal.SIGKILL)
    if process is not None:
        _kill_group(process.pid)
        process.wait()
    else:
        _reap(stopped)
    return len(stopped)


def _signal(processes: set[tuple[int, int]], signum: int) -> None:
    for pid, _started in processes:
        try:
            os.kill(pid, signum)
        except (ProcessLookupError, PermissionError):
            pass


def _kill_group(leader: int) -> None:
    try:
        os.killpg(leader, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _reap(killed: set[tuple[int, int]]) -> None:
    """Wait for those of ``killed`` that are this process's children (no zombie is left)."""
    for pid, _started in killed:
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass


def _members(leader: int | None, mark: str) -> set[tuple[int, int]]:
    """(pid, start time) of the live processes of the run: by session, parent links or mark
    (without a leader, no session or parent matches: by mark alone)."""
    table = _process_table()
    members = {pid for pid, (_, session, _) in table.items() if session == leader}
    children: dict[int, list[int]] = {}
    for pid, (parent, _, _) in table.items():
        children.setdefault(parent, []).append(pid)
    stack = [leader]
    while stack:
        for child in children.get(stack.pop(), []):
            if child not in members:
                members.add(child)
                stack.append(child)
    needle = f"{MARK_VARIABLE}={mark}".encode()
    for pid in table.keys() - members:
        try:
            if needle in (PROC / str(pid) / "environ").read_bytes().split(b"\0"):
                members.add(pid)
        except OSError:
            continue
    members.discard(os.getpid())
    return {(pid, table[pid][2]) for pid in members if pid in table}


def _process_table() -> dict[int, tuple[int, int, int]]:
    """pid → (parent pid, session id, start time) of every live, non-zombie process."""
    table = {}
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()  # after "pid (comm) "; comm may hold spaces
        if len(fields) < 20 or fields[0] in ("Z", "X"):
            continue
        table[int(entry.name)] = (int(fields[1]), int(fields[3]), int(fields[19]))
    return table

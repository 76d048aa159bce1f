"""A harness process ends without the interpreter walking the SDK's objects once more.

When ``harness`` or a pytest session is done, every report is written and every file
closed; what is left is the live object graph, some 200,000 objects once the SDK is
imported, which Python's finalization collects and frees piece by piece: about half a
second before the process can end (a worker of ``pytest -n`` makes its controller wait
that long). At exit the garbage that exists is collected as before, finalizers and all;
then the objects still alive are frozen (``gc.freeze``), so the interpreter's last
collections pass over them and the operating system takes back their memory at once.
Exit handlers registered before this one still run after it. A process that ends with
its pytest session (a pytest-xdist worker, or pytest's own command: ``pytest``,
``python -m pytest``) does the same once its tests are done, before pytest's own
collections for unraisable exceptions, which then pass over little; a session run inside
a program (``pytest.main()``) or inside another session (pytester) leaves the process as
it was; a process that outlives its sessions (an execnet socket server runs one after
another) gives what the last one froze back to the collector when the next begins.
Python's development mode (``-X dev``) keeps the full finalization, with every warning
it would show.
"""

from __future__ import annotations

import atexit
import gc
import sys
from pathlib import Path


def end_without_final_collection() -> None:
    """At this process's exit, collect the garbage, then freeze what is alive (once per process)."""
    if sys.flags.dev_mode:
        return
    atexit.unregister(_collect_then_freeze)
    atexit.register(_collect_then_freeze)


_SESSIONS: dict[str, int] = {"open": 0, "froze": False}  # this process's pytest sessions: how many run, and whether one froze


def a_session_begins() -> None:
    """A pytest session is configured: what an earlier one froze goes back to the
    collector, and this process will end without the final walk."""
    if _SESSIONS["froze"]:
        gc.unfreeze()
        _SESSIONS["froze"] = False
    _SESSIONS["open"] += 1
    end_without_final_collection()


def a_session_ends(worker: bool) -> None:
    """A pytest session is done with its tests: if it was the process's only session and
    the process ends with it (a pytest-xdist worker, pytest's own command), collect the
    garbage now, before pytest looks for unraisable exceptions, then freeze what is
    alive, so that the collections still to come pass over only what is made after this."""
    _SESSIONS["open"] = max(0, _SESSIONS["open"] - 1)
    if _SESSIONS["open"] == 0 and (worker or pytest_is_the_program()) and not sys.flags.dev_mode:
        _collect_then_freeze()
        _SESSIONS["froze"] = True


def pytest_is_the_program() -> bool:
    """True when this process is pytest's own command, which ends when its session does."""
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    if spec is not None:
        return spec.name == "pytest.__main__"  # python -m pytest
    return bool(sys.argv) and Path(sys.argv[0]).name in ("pytest", "py.test")


def _collect_then_freeze() -> None:
    gc.collect()
    gc.freeze()

"""A harness process ends without the interpreter walking the SDK's objects once more.

When ``harness`` or a pytest session is done, every report is written and every file
closed; what is left is the live object graph, some 200,000 objects once the SDK is
imported, which Python's finalization collects and frees piece by piece: about half a
second before the process can end (a worker of ``pytest -n`` makes its controller wait
that long). At exit the garbage that exists is collected as before, finalizers and all;
then the objects still alive are frozen (``gc.freeze``), so the interpreter's last
collections pass over them and the operating system takes back their memory at once.
Exit handlers registered before this one still run after it. A pytest-xdist worker, whose
process ends with its session, does the same once its tests are done, before pytest's own
collections for unraisable exceptions, which then pass over little; a process that outlives
its sessions (an execnet socket server runs one after another) gives what the last one
froze back to the collector when the next begins. Python's development mode (``-X dev``)
keeps the full finalization, with every warning it would show.
"""

from __future__ import annotations

import atexit
import gc
import sys


def end_without_final_collection() -> None:
    """At this process's exit, collect the garbage, then freeze what is alive (once per process)."""
    if sys.flags.dev_mode:
        return
    atexit.unregister(_collect_then_freeze)
    atexit.register(_collect_then_freeze)


_FROZEN_BY_A_SESSION = {"now": False}


def freeze_what_is_left() -> None:
    """For a process whose work is done but whose end still collects (a pytest-xdist
    worker after its last test, before pytest looks for unraisable exceptions): collect
    the garbage now, then freeze what is alive, so that the collections still to come pass
    over only what is made after this."""
    if not sys.flags.dev_mode:
        _collect_then_freeze()
        _FROZEN_BY_A_SESSION["now"] = True


def thaw_what_a_session_froze() -> None:
    """A new session in a process whose last session froze what it left: those objects go
    back to the collector (nothing to do in a fresh process)."""
    if _FROZEN_BY_A_SESSION["now"]:
        gc.unfreeze()
        _FROZEN_BY_A_SESSION["now"] = False


def _collect_then_freeze() -> None:
    gc.collect()
    gc.freeze()

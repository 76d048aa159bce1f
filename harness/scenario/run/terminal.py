"""Ctrl+C as a terminal delivers it, even where the harness's own process ignores SIGINT.

A shell starts background jobs with SIGINT ignored, and Python then never installs its
KeyboardInterrupt handler: a scenario's command that plays the user (``kill -INT
$PPID``) would press a key nobody hears, and a correct agent would fail. While a
scenario runs, an ignored SIGINT is given Python's default handler back."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def ctrl_c_heard() -> Iterator[None]:
    """Within the block, SIGINT raises KeyboardInterrupt, as in a terminal; an ignored
    SIGINT is ignored again afterwards. Any other handler (an agent's own, the
    harness's counter) is left as it is; outside the main thread nothing changes."""
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGINT) != signal.SIG_IGN:
        yield
        return
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)

"""``harness run --jobs N``: the scenario files shared among N worker processes forked
from this one (none imports the SDK again), each handed the next file as it finishes
one (the slow ones first, when ``harness run`` knows their durations); the records come
back in the files' order, whichever worker ran them.

Ctrl+C reaches every process of the terminal's group: each worker ends the scenario it
is running as a run of one process does (an agent may be meant to meet the press), no
new file starts, and what ran is reported. A second press ends the workers at once.
A SIGINT a scenario's own command sends reaches only the worker running it."""

from __future__ import annotations

import multiprocessing
import sys
import time
from collections.abc import Callable, Iterator
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

from harness.scenario.format.problem import Kind, Problem
from harness.scenario.frontends.progress import CtrlC, Progress
from harness.scenario.run.results import scenario_record
from harness.wire.errors import HarnessError

Record = dict[str, Any]
RunOne = Callable[[Path, CtrlC], "Record | None"]
POLL_S = 0.2  # how often the parent looks at its Ctrl+C count while it waits for a worker
JOIN_S = 5.0  # how long an ended worker may take to exit before it is killed


class WorkerError(HarnessError, RuntimeError):
    """A worker met a bug of the harness's own; the run ends as a run of one process would."""


def can_fork() -> bool:
    """Whether this platform can fork workers (POSIX can; Windows cannot)."""
    return "fork" in multiprocessing.get_all_start_methods()


def run_in_workers(
    files: list[Path], run_one: RunOne, progress: Progress, jobs: int,
    *, stop: Callable[[list[Record]], bool] = lambda records: False, order: list[int] | None = None,
) -> tuple[list[Record], bool]:
    """Run ``files`` in ``jobs`` forked workers, handing them out in ``order`` (indices;
    default the files' own) and no more once ``stop(records)``; ``run_one(path, ctrl_c)``
    is the record of one file, or None where the run must stop (Ctrl+C pressed twice).
    Returns the records of the files that ran, in the files' order, and whether Ctrl+C
    stopped it."""
    presses = CtrlC(raises=False)  # a press must not break off a read from a worker's pipe
    sys.stdout.flush()
    sys.stderr.flush()
    with presses:
        pool = _Pool(files, run_one, progress, min(jobs, len(files)), stop, order or list(range(len(files))))
        try:
            pool.serve(presses)
        finally:
            pool.end()
    return [pool.records[i] for i in sorted(pool.records)], pool.interrupted or presses.presses > 0


class _Pool:
    """The workers, the file each is running, and the records that came back."""

    def __init__(self, files: list[Path], run_one: RunOne, progress: Progress, jobs: int,
                 stop: Callable[[list[Record]], bool], order: list[int]) -> None:
        self.files, self.progress, self.stop = files, progress, stop
        self.records: dict[int, Record] = {}
        self.interrupted = False
        self._next: Iterator[int] = iter(order)
        self._running: dict[Connection, tuple[BaseProcess, int, float]] = {}
        self._ended: list[BaseProcess] = []
        context = multiprocessing.get_context("fork")
        for _ in range(jobs):
            mine, theirs = context.Pipe()
            process = context.Process(target=_work, args=(theirs, files, run_one), daemon=True)
            process.start()
            theirs.close()
            self._hand_out(mine, process)

    def serve(self, presses: CtrlC) -> None:
        """Hand out files until none is left or Ctrl+C stops the run."""
        while self._running:
            if presses.presses > 1:
                return  # pressed twice: ``end`` stops the workers at once
            self.interrupted = self.interrupted or presses.presses > 0
            for connection in wait(list(self._running), timeout=POLL_S):
                self._receive(connection)  # type: ignore[arg-type]

    def end(self) -> None:
        """Stop every worker still running (pressed twice), then wait for all to exit."""
        for connection, (process, _, _) in self._running.items():
            process.terminate()  # SIGTERM unwinds the worker: its temporary files are removed
            self._ended.append(process)
            connection.close()
        self._running.clear()
        deadline = time.monotonic() + JOIN_S
        for process in self._ended:
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                process.kill()
                process.join()

    def _receive(self, connection: Connection) -> None:
        process, index, started = self._running.pop(connection)
        try:
            kind, record = connection.recv()
        except Exception:  # noqa: BLE001 -- the worker ended (or broke off) without a whole message
            process.join(JOIN_S)
            if process.is_alive():
                process.terminate()
                process.join(JOIN_S)
            kind, record = "record", _lost(self.files[index], process.exitcode, started)
        if kind == "error":
            self._ended.append(process)
            raise WorkerError(f"{record} (in a worker, running {self.files[index]})")
        if kind == "interrupted":
            self.interrupted = True
        else:
            self.records[index] = record
            self.progress.finished(str(self.files[index]), record["result"], record["wall_ms"] / 1000)
        if kind == "interrupted" or process.exitcode is not None:
            self._ended.append(process)
            connection.close()
            return
        self._hand_out(connection, process)

    def _hand_out(self, connection: Connection, process: BaseProcess) -> None:
        done = self.interrupted or self.stop(list(self.records.values()))
        index = None if done else next(self._next, None)
        connection.send(index)
        if index is None:
            self._ended.append(process)
            connection.close()
            return
        self.progress.started(str(self.files[index]))
        self._running[connection] = (process, index, time.perf_counter())


def _work(connection: Connection, files: list[Path], run_one: RunOne) -> None:
    """A worker: run each file it is handed, send back its record, until told to stop.
    Ctrl+C that escapes a scenario, or is pressed twice in one, stops it; a bug of the
    harness is sent back whole, for the parent to raise."""
    with CtrlC() as ctrl_c:
        try:
            while (index := connection.recv()) is not None:
                record = run_one(files[index], ctrl_c)
                if record is None:
                    break
                connection.send(("record", record))
            else:
                return
        except KeyboardInterrupt:
            pass
        except (EOFError, OSError):
            return  # the parent is gone
        except Exception as error:  # noqa: BLE001 -- the harness's own bug: the parent reports it
            _send(connection, ("error", f"{type(error).__name__}: {error}"))
            return
        _send(connection, ("interrupted", None))


def _send(connection: Connection, message: tuple[str, Any]) -> None:
    try:
        connection.send(message)
    except OSError:
        pass  # the parent stopped listening: it is ending the run


def _lost(path: Path, exitcode: int | None, started: float) -> Record:
    """The record of a file whose worker ended without sending one (the agent killed it)."""
    text = f"{path}: the worker process running this file ended without a result (exit code {exitcode})"
    return scenario_record(path, None, [Problem(text, Kind.HARNESS, file=str(path))], (time.perf_counter() - started) * 1000)

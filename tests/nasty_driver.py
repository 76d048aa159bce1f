"""Runs the hostile-input corpus (``tests/nasty/``) through the ``harness`` CLI and
counts what went wrong: tracebacks (or the CLI's own "internal error" line), hangs,
files written outside the places the user named, processes left running, and
recorded commands run outside a temporary workspace.

    python -m tests.nasty_driver [--json FILE] [--only SUBSTRING]

Each case runs ``harness.cli.main(argv)`` in a forked child of this process (imports
are paid once; a fresh process has no threads to make forking unsafe), in its own
session, with a timeout; on a timeout the child's whole session is killed and the case
counts as a hang. The children run with ``TMPDIR`` set to a private folder, so every
temporary workspace lives there, and ``..`` out of a workspace lands there too: after
each case that folder must hold nothing but what the case made and removed.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import signal
import socket
import sys
import tempfile
import time
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path

import harness.cli as cli  # imported once, before any fork
from harness.scenario.frontends.selection import CACHE_VARIABLE

for _name in ("harness.cassette.replay", "harness.cassette.record", "harness.agents.mini_agent", "harness.scenario.run.runner",
              "harness.cassette.scan", "harness.cassette.show", "vcr", "anthropic"):
    try:
        __import__(_name)
    except ImportError:
        pass

ROOT = Path(__file__).resolve().parent.parent
NASTY = ROOT / "tests" / "nasty"
CASE_TIMEOUT = 30.0
MARK_VARIABLE = "HARNESS_NASTY_MARK"
ESCAPE_NAMES = ("nasty-escape", "nasty-python-tag", "replay-bash-marker", "written-by-replay")


@dataclass
class Case:
    """One command over one input, and how it ended."""

    argv: list[str]
    returncode: int | None = None
    seconds: float = 0.0
    hung: bool = False
    traceback: bool = False
    stderr: str = ""
    stdout_tail: str = ""
    leftovers: list[str] = field(default_factory=list)
    orphans: list[int] = field(default_factory=list)
    escapes: list[str] = field(default_factory=list)


def _wait_for_exit(pid: int, timeout: float) -> bool:
    """Whether the child exits within ``timeout`` seconds: blocked on its pidfd, no polling."""
    descriptor = os.pidfd_open(pid)
    try:
        return bool(select.select([descriptor], [], [], timeout)[0])
    finally:
        os.close(descriptor)


def run_case(argv: list[str], *, cwd: Path, tmpdir: Path, mark: str, timeout: float = CASE_TIMEOUT) -> Case:
    """``harness argv`` in a forked child (see the module docstring)."""
    case = Case(argv)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.monotonic()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            code = 99
            try:
                os.setsid()
                os.chdir(cwd)
                os.environ.update({"TMPDIR": str(tmpdir), MARK_VARIABLE: mark, "HOME": str(tmpdir.parent / "home"),
                                   CACHE_VARIABLE: str(tmpdir.parent / "cache")})  # harness run's own --lf memory
                tempfile.tempdir = None
                fd = os.open(os.devnull, os.O_RDONLY)
                os.dup2(fd, 0)
                os.dup2(out.fileno(), 1)
                os.dup2(err.fileno(), 2)
                code = cli.main(argv)
            except SystemExit as stop:
                code = stop.code if isinstance(stop.code, int) else 2
            except BaseException:  # noqa: BLE001 -- exactly what the corpus counts
                traceback.print_exc()
                code = 98
            finally:
                try:
                    sys.stdout.flush()
                    sys.stderr.flush()
                finally:
                    os._exit(code if isinstance(code, int) else 2)
        exited = _wait_for_exit(pid, timeout)  # real time: the child runs for real
        if not exited:
            case.hung = True
            _kill_session(pid)
        _, status = os.waitpid(pid, 0)
        case.seconds = round(time.monotonic() - started, 3)
        case.returncode = os.waitstatus_to_exitcode(status) if status is not None else None
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        case.stderr = err.read().decode("utf-8", "replace")[-3000:]
    case.stdout_tail = stdout[-500:]
    case.traceback = "Traceback (most recent call last)" in stdout + case.stderr or "internal error" in case.stderr
    case.orphans = _orphans(mark)
    case.leftovers = sorted(p.name for p in tmpdir.iterdir())
    for leftover in tmpdir.iterdir():
        _remove(leftover)
    return case


def _kill_session(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _orphans(mark: str) -> list[int]:
    """Processes still running with this run's mark in their environment (killed)."""
    needle = f"{MARK_VARIABLE}={mark}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if needle in (entry / "environ").read_bytes().split(b"\0"):
                found.append(int(entry.name))
        except OSError:
            continue
    for pid in found:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return found


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        for child in path.iterdir():
            _remove(child)
        path.rmdir()
    else:
        path.unlink(missing_ok=True)


def escapes(deep: list[Path], shallow: list[Path]) -> list[str]:
    """Files the corpus's hostile paths would have made, wherever they landed: anywhere
    under ``deep``, or right inside ``shallow`` (the shared /tmp, $HOME)."""
    found = []
    candidates = [c for place in deep if place.is_dir() for c in place.rglob("*")]
    candidates += [c for place in shallow if place.is_dir() for c in place.iterdir()]
    for candidate in candidates:
        if any(name in candidate.name for name in ESCAPE_NAMES):
            found.append(str(candidate))
    return found


def cases(work: Path) -> list[list[str]]:
    """Every command of the corpus, as ``harness`` arguments."""
    scenarios = sorted((NASTY / "scenario_files").glob("*.yaml"))
    cassettes = sorted((NASTY / "cassettes").glob("*.yaml"))
    histories = sorted((NASTY / "histories").iterdir())
    special = _specials(work)
    argvs: list[list[str]] = []
    for path in scenarios + special["scenarios"]:
        argvs += [["lint", str(path)], ["run", str(path)]]
    for path in scenarios:
        if "transcript" in path.name or "escape" in path.name:
            argvs.append(["run", "--update-golden", str(path)])
    for path in cassettes + special["cassettes"]:
        argvs += [["replay", str(path)], ["replay", "--engine", "vcr", str(path)], ["scan", str(path)],
                  ["lint", "--show-commands", str(path)]]
    argvs += [["lint", str(p)] for p in special["overlays"]]
    for path in special["recorded_over"]:  # an existing cassette that is not one: record stops before any request
        argvs += [["record", "--cassette", str(path), "--record-mode", mode, "--base-url", "http://127.0.0.1:9", "--", "hi"]
                  for mode in ("all", "new_episodes")]
    for path in histories + special["histories"]:
        argvs.append(["check-history", str(path)])
    argvs += [
        ["scan", str(special["fifo_folder"])],
        ["lint", str(special["fifo_folder"])],
        ["record", "--cassette", str(work / "r.yaml"), "--base-url", "http://127.0.0.1:99999", "--", "hi"],
        ["record", "--cassette", str(work / "r.yaml"), "--base-url", "http://[::1", "--", "hi"],
        ["record", "--cassette", str(work / "r.yaml"), "--base-url", "ftp://example.invalid", "--", "hi"],
        ["record", "--cassette", str(work), "--base-url", f"http://127.0.0.1:{_closed_port()}", "--", "hi"],
        ["record", "--cassette", str(work / "r.yaml"), "--cwd", str(work / "missing"), "--base-url", "http://127.0.0.1:1", "--", "hi"],
        ["schema", "-o", str(work)],
        ["schema", "-o", str(work / "missing" / "x.json")],
        ["replay", str(work / "missing.yaml")],
        ["replay", str(NASTY / "cassettes")],
        ["check-history", str(NASTY)],
        ["lint", str(work / "missing.yaml")],
        ["run", str(special["fifo_folder"] / "pipe.yaml")],
        ["check-history", str(special["fifo_folder"] / "pipe.yaml")],
        ["replay", str(special["fifo_folder"] / "pipe.yaml")],
        ["replay", "--agent", "no.such.module:factory", str(NASTY / "cassettes" / "runs_commands.yaml")],
        ["run", "--agent", "os:getcwd", str(NASTY / "scenario_files" / "bom.yaml")],
    ]
    return argvs


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _specials(work: Path) -> dict[str, list[Path] | Path]:
    """Inputs that cannot be committed: symlinks out, FIFOs, folders named like files."""
    made = work / "made"
    made.mkdir()
    (made / "folder.yaml").mkdir()
    (made / "link_out.yaml").symlink_to("/etc/hostname")
    head = "name: made\nabout: made at run time\n"
    turn = "turns:\n  - user: hi\n    replies:\n      - text: hello\n"
    (made / "transcripts").symlink_to(work.parent)  # a folder link that leads out of the project
    (made / "transcript_link.yaml").write_text(head + turn + "expect:\n  transcript: transcripts/nasty-escape-link.txt\n")
    fifo_folder = work / "fifos"
    fifo_folder.mkdir()
    os.mkfifo(fifo_folder / "pipe.yaml")
    (fifo_folder / "ok.yaml").write_text(head + turn)
    overlays = []
    for cassette in sorted((NASTY / "cassettes").glob("*.yaml")):
        overlay = made / f"overlay_{cassette.stem}.yaml"
        relative = os.path.relpath(cassette, made)
        overlay.write_text(head + f"cassette: {relative}\n" + "turns:\n  - user: hi\n    replies:\n      - recorded: 1\n      - recorded: 2\n")
        overlays.append(overlay)
    history_folder = made / "history.json"
    history_folder.mkdir()
    recorded_over = []
    for name in ("not_yaml.yaml", "interactions_not_a_list.yaml", "a_list.yaml", "request_without_uri.yaml"):
        copy = made / f"recorded_over_{name}"
        copy.write_bytes((NASTY / "cassettes" / name).read_bytes())
        recorded_over.append(copy)
    return {
        "scenarios": [made / "folder.yaml", made / "link_out.yaml", made / "transcript_link.yaml"],
        "cassettes": [made / "folder.yaml", made / "link_out.yaml"],
        "histories": [history_folder, made / "link_out.yaml"],
        "overlays": overlays,
        "recorded_over": recorded_over,
        "fifo_folder": fifo_folder,
    }


def run_corpus(only: str | None = None) -> dict:
    """Run every case; return the counts and the cases that went wrong."""
    with tempfile.TemporaryDirectory(prefix="nasty-") as base:
        base_path = Path(base)
        work, tmpdir, home = base_path / "work", base_path / "tmp", base_path / "home"
        for folder in (work, tmpdir, home):
            folder.mkdir()
        mark = f"{os.getpid()}-{time.time_ns()}"
        results = []
        # A made-up project folder as the cwd: the corpus must not write there either.
        cwd = work / "cwd"
        cwd.mkdir()
        for argv in cases(work):
            if only and not any(only in a for a in argv):
                continue
            case = run_case(argv, cwd=cwd, tmpdir=tmpdir, mark=mark)
            case.escapes = escapes([base_path, ROOT / "tests"], [Path("/tmp"), Path.home()])
            for escaped in case.escapes:
                Path(escaped).unlink(missing_ok=True)
            stray = sorted(p.name for p in cwd.iterdir())
            case.escapes += [f"cwd/{name}" for name in stray]
            for name in stray:
                _remove(cwd / name)
            results.append(case)
    bad = [c for c in results if c.traceback or c.hung or c.orphans or c.escapes or c.leftovers]
    return {
        "cases": len(results),
        "tracebacks": sum(c.traceback for c in results),
        "hangs": sum(c.hung for c in results),
        "orphans": sum(len(c.orphans) for c in results),
        "writes_outside": sum(len(c.escapes) + len(c.leftovers) for c in results),
        "recorded_commands_outside": sum(
            1 for c in results for e in c.escapes if "replay-bash-marker" in e or "written-by-replay" in e
        ),
        "slowest": max((c.seconds for c in results), default=0.0),
        "problems": [asdict(c) for c in bad],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the result here too")
    parser.add_argument("--only", help="only the cases with this in an argument")
    args = parser.parse_args()
    result = run_corpus(args.only)
    text = json.dumps(result, indent=2)
    if args.json:
        Path(args.json).write_text(text)
    print(text)
    return 1 if result["problems"] else 0


if __name__ == "__main__":
    sys.exit(main())


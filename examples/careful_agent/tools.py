"""The three tools, their argument checks, and a shell that leaves nothing behind."""


import contextlib
import os
import selectors
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from .settings import OUTPUT_LIMIT, SHELL_TIME, SHELL_TIME_MAX

SHELL_TAG = "CAREFUL_AGENT_SHELL"

# -- tools ---------------------------------------------------------------------------

class ToolProblem(Exception):
    """A failure the model should hear about (a missing file, a bad value)."""


def json_kind(value: Any) -> str:
    """What JSON calls the type of ``value`` (True is a boolean, 3 an integer, 3.5 a number)."""
    for kind, python in (("boolean", bool), ("integer", int), ("number", float), ("string", str),
                         ("array", list), ("object", dict)):
        if isinstance(value, python):
            return kind
    return "null" if value is None else type(value).__name__


def fits(kind: str, value: Any) -> bool:
    """Whether ``value`` is of the declared parameter type (an integer also counts as a number)."""
    actual = json_kind(value)
    return actual == kind or (kind, actual) == ("number", "integer")


@dataclass
class Tool:
    name: str
    about: str
    params: dict[str, tuple[str, bool, str]]   # argument -> (JSON type, required, description)
    run: Callable[[dict[str, Any]], str]

    def definition(self) -> dict[str, Any]:
        props = {key: {"type": kind, "description": about} for key, (kind, _, about) in self.params.items()}
        required = [key for key, (_, needed, _) in self.params.items() if needed]
        schema = {"type": "object", "properties": props, "required": required, "additionalProperties": False}
        return {"name": self.name, "description": self.about, "input_schema": schema}

    def problems(self, args: Any) -> list[str]:
        if json_kind(args) != "object":
            return [f"expected a JSON object of arguments, got {json_kind(args)}"]
        found = [f"missing required argument `{key}`" for key, (_, needed, _) in self.params.items()
                 if needed and key not in args]
        for key, value in args.items():
            declared = self.params.get(key)
            if declared is None:
                found.append(f"unknown argument `{key}` ({self.name} accepts: {', '.join(self.params)})")
            elif not fits(declared[0], value):
                found.append(f"`{key}` should be {declared[0]}, got {json_kind(value)}")
        return found


class Workbench:
    """The tools, working in one folder. ``call`` never raises, except KeyboardInterrupt."""

    def __init__(self, root: Path, output_limit: int = OUTPUT_LIMIT) -> None:
        self.root, self.output_limit = Path(root), output_limit
        self._live: dict[str, subprocess.Popen[bytes] | None] = {}  # each command's tag, and its process once started
        self._live_lock = threading.Lock()
        tools = [
            Tool("read_file", "Show the text of a file. Pass first_line/max_lines to see only part of it.",
                 {"path": ("string", True, "file path, relative to the project folder"),
                  "first_line": ("integer", False, "1-based number of the first line to show"),
                  "max_lines": ("integer", False, "how many lines to show")}, self._read),
            Tool("write_file", "Save exactly this text as the file (missing folders are created).",
                 {"path": ("string", True, "file path, relative to the project folder"),
                  "text": ("string", True, "the whole new content")}, self._write),
            Tool("shell", f"Execute a command line with bash inside the project folder; you get its combined "
                          f"output and exit status. It is stopped after timeout_s seconds (default {SHELL_TIME:g}).",
                 {"cmd": ("string", True, "the command line"),
                  "timeout_s": ("number", False, f"seconds before it is stopped, at most {SHELL_TIME_MAX:g}")},
                 self._shell),
        ]
        self.tools = {tool.name: tool for tool in tools}

    def catalogue(self) -> list[dict[str, Any]]:
        """What goes in a request's ``tools`` field."""
        return [tool.definition() for tool in self.tools.values()]

    def call(self, name: str, args: Any) -> tuple[str, bool]:
        """(text for the model, whether it reports a failure)."""
        tool = self.tools.get(name)
        if tool is None:
            return f"There is no tool named {name!r}; the tools are {', '.join(self.tools)}.", True
        problems = tool.problems(args)
        if problems:
            return f"{name} refused these arguments:\n- " + "\n- ".join(problems), True
        try:
            return self.shorten(tool.run(args)), False
        except ToolProblem as problem:
            return self.shorten(f"{name} failed: {problem}"), True
        except Exception as exc:  # KeyboardInterrupt is no Exception: it goes on to the turn
            return self.shorten(f"{name} failed unexpectedly: {type(exc).__name__}: {exc}"), True

    def shorten(self, text: str) -> str:
        """Keep the first 60 % and the last 40 % of an over-long text, cut at line ends."""
        if len(text) <= self.output_limit:
            return text
        head, tail = text[: self.output_limit * 3 // 5], text[len(text) - self.output_limit * 2 // 5:]
        head, tail = head[: head.rfind("\n") + 1] or head, tail[tail.find("\n") + 1:] or tail
        return f"{head}[... {len(text) - len(head) - len(tail):,} characters left out ...]\n{tail}"

    def stop_all(self) -> None:
        """Kill every command still running, or still starting (an async turn was
        cancelled while its tool ran in a thread); one that starts after this is killed
        as soon as it has."""
        with self._live_lock:
            live, self._live = self._live, {}
        for tag, proc in live.items():
            _kill_group(proc, tag)

    def _path(self, given: str) -> Path:
        return self.root / Path(given).expanduser()

    def _read(self, args: dict[str, Any]) -> str:
        path = self._path(args["path"])
        if not path.exists():
            raise ToolProblem(f"there is no file at {args['path']!r}")
        if path.is_dir():
            raise ToolProblem(f"{args['path']!r} is a folder; list it with shell instead")
        text = path.read_text(encoding="utf-8", errors="replace")
        if "first_line" not in args and "max_lines" not in args:
            return text or "(the file is empty)"
        first, count = args.get("first_line", 1), args.get("max_lines")
        if first < 1 or (count is not None and count < 1):
            raise ToolProblem("first_line and max_lines must be 1 or more")
        lines = text.splitlines(keepends=True)
        shown = lines[first - 1: None if count is None else first - 1 + count]
        after = len(lines) - (first - 1) - len(shown)
        more = f"[{after} more line(s); continue with first_line={first + len(shown)}]" if after > 0 else ""
        return "".join(shown) + more if shown else f"(the file has only {len(lines)} line(s))"

    def _write(self, args: dict[str, Any]) -> str:
        path, data = self._path(args["path"]), args["text"].encode("utf-8")
        os.makedirs(path.parent, exist_ok=True)
        path.write_bytes(data)
        return f"Saved {args['path']} ({len(data)} bytes)."

    def _shell(self, args: dict[str, Any]) -> str:
        limit = float(args.get("timeout_s", SHELL_TIME))
        if not 0 < limit <= SHELL_TIME_MAX:
            raise ToolProblem(f"timeout_s must be above 0 and at most {SHELL_TIME_MAX:g}")
        tag = f"{os.getpid()}.{time.monotonic_ns()}"  # every process the command starts inherits it
        self._live[tag] = None  # from before the start: a Ctrl+C that lands while the command starts finds it by its tag
        proc = None
        try:
            proc = subprocess.Popen(["bash", "-c", args["cmd"]], cwd=self.root, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
                                    env={**os.environ, SHELL_TAG: tag})
            with self._live_lock:
                stopped = tag not in self._live  # stop_all came while it started
                if not stopped:
                    self._live[tag] = proc
            output, finished = (b"", False) if stopped else _collect(proc, time.monotonic() + limit)
        finally:  # timeout, Ctrl+C or done: nothing the command started survives it
            _kill_group(proc, tag)
            self._live.pop(tag, None)
            if proc is not None:
                proc.stdout.close()
        text = output.decode("utf-8", errors="replace").rstrip("\n")
        status = f"[exit status {proc.returncode}]" if finished else \
            f"[stopped after {limit:g}s without finishing; the command and its children were killed]"
        return f"{text}\n{status}" if text else status


def _collect(proc: subprocess.Popen[bytes], deadline: float, keep: int = 4_000_000) -> tuple[bytes, bool]:
    """Read the command's output (at most ``keep`` bytes) until the pipe closes or the deadline
    passes; once the command has exited, its children get half a second more to finish writing.
    Returns the output and whether the command exited in time."""
    assert proc.stdout is not None
    fd, data = proc.stdout.fileno(), bytearray()
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while (now := time.monotonic()) < deadline:
            if proc.poll() is not None:
                deadline = min(deadline, now + 0.5)
            if selector.select(min(deadline - now, 0.05)):
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                data += chunk[: max(0, keep - len(data))]
    with contextlib.suppress(subprocess.TimeoutExpired):  # the pipe may close before the command exits
        proc.wait(timeout=max(0.0, deadline - time.monotonic()))
    return bytes(data), proc.poll() is not None


def _kill_group(proc: subprocess.Popen[bytes] | None, tag: str) -> None:
    """Kill the command's process group, then anything still carrying its tag: a child
    that moved to a session of its own (setsid) keeps the environment it was given.
    ``proc`` None: the Popen never came back (a Ctrl+C while it started); the tag finds
    the command too, and the processes of ours killed are reaped."""
    if proc is not None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    wanted = f"{SHELL_TAG}={tag}".encode()
    killed: set[int] = set()
    for _ in range(20):
        tagged = [int(p.name) for p in Path("/proc").glob("[0-9]*") if _has_tag(p, wanted)]
        for pid in tagged:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        killed.update(tagged)
        if not tagged:
            break
    if proc is not None:
        proc.wait()
        return
    for pid in killed:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)


def _has_tag(proc_dir: Path, wanted: bytes) -> bool:
    try:
        if (proc_dir / "stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
            return False  # already dead, waiting to be reaped
        return wanted in (proc_dir / "environ").read_bytes().split(b"\0")
    except (OSError, IndexError):
        return False

"""The REPL: read a line, run a turn, render its events; survive everything.

The session ends only on end of input or ``/quit``. Ctrl+C during a turn prints
"Interrupted" and returns to the prompt with a repaired history.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from typing import Callable, Iterable, Iterator, TextIO

from .environment import SettingsError, settings_from_environment
from .loop import Agent
from .render import Renderer
from .settings import Settings

HELP = "Commands: /status, /help, /quit. Anything else is sent to the model."


def run_repl(agent: Agent, lines: Iterable[str], write: Callable[[str], object], *, echo: bool = True) -> None:
    """Run the REPL over ``lines`` (one user line each), writing everything to ``write``."""
    source = iter(lines)
    while True:
        try:
            line = next_line(source, write, echo)
        except KeyboardInterrupt:
            write("\nInterrupted\n")
            continue
        if line is None or line.strip() == "/quit":
            return
        command = line.strip()
        if not command:
            continue
        output = slash_command(agent, command)
        if output is not None:
            write(output)
        else:
            run_one_turn(agent, command, write)


def slash_command(agent: Agent, command: str) -> str | None:
    """The output of a REPL command (``/status``, ``/help``), or None for a user line."""
    if command == "/status":
        return format_status(agent.status())
    if command == "/help":
        return HELP + "\n"
    return None


def next_line(source: Iterator[str], write: Callable[[str], object], echo: bool) -> str | None:
    """The next user line, or None at end of input."""
    try:
        line = next(source)
    except StopIteration:
        return None
    line = line.rstrip("\n")
    if echo:
        write(f"> {line}\n")
    return line


def run_one_turn(agent: Agent, text: str, write: Callable[[str], object]) -> None:
    """Run a turn and render it; Ctrl+C closes the turn and repairs the history."""
    renderer = Renderer()
    turn = agent.run_turn(text)
    try:
        for event in turn:
            write(renderer.render(event))
    except KeyboardInterrupt:
        turn.close()
        write(renderer.render_close() + "Interrupted\n")
    except Exception as error:  # rendering must never end the session either
        turn.close()
        write(f"\n✗ Internal error while rendering: {type(error).__name__}: {error}\n")


def format_status(status: dict[str, object]) -> str:
    """``/status`` as aligned lines; settings one per line with where each came from."""
    settings = status.pop("settings", {})
    width = max(len(k) for k in [*status, *settings])
    lines = [f"  {k.ljust(width)}  {_status_value(v)}\n" for k, v in status.items()]
    lines += [f"  {k.ljust(width)}  {v}\n" for k, v in settings.items()]  # type: ignore[union-attr]
    return "".join(lines)


def _status_value(value: object) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k} {v:,}" if isinstance(v, int) else f"{k} {v}" for k, v in value.items()) or "none yet"
    return f"{value:,}" if isinstance(value, int) else str(value)


def stdin_lines(stdin: TextIO, stdout: TextIO) -> Iterator[str]:
    """Lines from a terminal (with a prompt) or from a pipe."""
    interactive = stdin.isatty()
    while True:
        if interactive:
            stdout.write("> ")
            stdout.flush()
        line = stdin.readline()
        if not line:
            return
        yield line


def main(argv: list[str] | None = None) -> int:
    """``python -m mini_agent``: talk to the API (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL)."""
    parser = argparse.ArgumentParser(prog="mini_agent", description="A small coding agent that survives API errors.")
    parser.add_argument("--model", help="model name (default: MINI_AGENT_MODEL or %s)" % Settings.model)
    parser.add_argument("--cwd", default=".", help="the tools' working directory")
    args = parser.parse_args(argv)
    try:
        settings, sources = settings_from_environment()
    except SettingsError as error:
        print(f"mini_agent: {error}", file=sys.stderr)
        return 2
    if args.model:
        settings, sources = replace(settings, model=args.model), sources | {"model": "--model"}
    agent = Agent(settings=settings, cwd=args.cwd, settings_sources=sources)
    write = _writer(sys.stdout)
    write(f"mini_agent · {agent.settings.model} · {agent.cwd} · /help for commands\n")
    run_repl(agent, stdin_lines(sys.stdin, sys.stdout), write, echo=not sys.stdin.isatty())
    return 0


def _writer(stream: TextIO) -> Callable[[str], None]:
    def write(text: str) -> None:
        stream.write(text)
        stream.flush()

    return write

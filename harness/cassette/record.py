"""Recording a mini_agent session into a vcrpy cassette, without a terminal.

    record_session(cassette, lines, base_url=…, record_mode=…)   the user's lines, one turn
        each, against the real API or any Anthropic-compatible URL, recorded by vcrpy
    record_over_loopback(scenario, cassette)   the same against a scenario served by the
        fault server on a loopback socket (how cassettes/loopback_*.yaml are made)
    drive(agent, lines, write)   the REPL without a terminal: echo, turn, render

Record modes are vcrpy's: ``once`` (the default) refuses an existing cassette,
``all`` records it again from scratch, ``new_episodes`` replays what matches and adds
what does not, ``none`` only replays. The cassette is scrubbed, scanned and written
atomically (``harness.cassette.recorder``); Ctrl+C or any crash writes nothing.

Errors::

    FileExistsError
     └── CassetteExists      record mode ``once`` and the cassette is already there
    ValueError
     ├── SecretsFound        (harness.cassette.recorder) the scan flagged the cassette: not written
     └── RecordingFailed     no API key, or the loopback scenario's server saw problems
    AssertionError
     └── ReplayMismatch      (harness.cassette.replay_transport) record mode ``none``: a request the cassette lacks
"""

from __future__ import annotations

import os
import random
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import anthropic

from mini_agent.cli import slash_command
from mini_agent.events import TurnEnd
from mini_agent.loop import Agent
from mini_agent.render import Renderer
from mini_agent.settings import Settings

from harness.cassette.file import load_cassette
from harness.cassette.replay_transport import VcrGuard
from harness.cassette.recorder import RECORD_MODES, make_vcr
from harness.cassette.scrub import replace_cwd

JITTER_SEED = 0  # recording and replay draw the same retry jitter, so their notices agree
LOOPBACK_API_KEY = "harness-loopback"


class CassetteExists(FileExistsError):
    """Record mode ``once`` refuses to touch a cassette that exists."""


class RecordingFailed(ValueError):
    """A recording that cannot start or whose loopback server saw problems."""


@dataclass
class RecordResult:
    """What a recording produced. ``transcript`` has the working directory as ``<cwd>``."""

    path: Path
    record_mode: str
    interactions: int
    transcript: str
    written: bool


def drive(agent: Any, lines: Iterable[str], write: Callable[[str], object], *, stop_on_interrupt: bool = True) -> None:
    """Run one turn per line and render it as the REPL would. A turn that ends
    ``interrupted`` (Ctrl+C: mini_agent catches it inside the turn) raises
    KeyboardInterrupt again when ``stop_on_interrupt``, so a recording stops there."""
    for raw in lines:
        line = raw.rstrip("\n")
        if not line.strip():
            continue
        write(f"> {line}\n")
        output = slash_command(agent, line.strip()) if isinstance(agent, Agent) else None
        if output is not None:
            write(output)
            continue
        renderer = Renderer()
        interrupted = False
        for event in agent.run_turn(line):
            write(renderer.render(event))
            interrupted = interrupted or (isinstance(event, TurnEnd) and event.reason == "interrupted")
        write(renderer.render_close())
        if interrupted and stop_on_interrupt:
            raise KeyboardInterrupt


def record_session(
    cassette: str | Path,
    lines: Sequence[str],
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    model: str | None = None,
    record_mode: str = "once",
    match_on: str = "body",
    cwd: str | Path = ".",
    settings: Settings | None = None,
    write: Callable[[str], object] | None = None,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
    wall_clock: Callable[[], float] = time.time,
    before_save: Callable[[], None] | None = None,
) -> RecordResult:
    """Run mini_agent over ``lines`` with vcrpy recording into ``cassette``.

    ``before_save`` runs after the last turn, before vcrpy writes: raising there writes
    nothing (as does any exception, Ctrl+C included)."""
    path = Path(cassette)
    if record_mode not in RECORD_MODES:
        raise ValueError(f"record mode {record_mode!r}: choose one of {', '.join(RECORD_MODES)}")
    if record_mode == "once" and path.exists():
        raise CassetteExists(
            f"{path} exists; --record-mode all records it again, new_episodes adds to it, none replays it"
        )
    if api_key is None and not os.environ.get("ANTHROPIC_AUTH_TOKEN"):
        api_key = os.environ.get("ANTHROPIC_API_KEY")
        if api_key is None:
            if base_url is None and not os.environ.get("ANTHROPIC_BASE_URL") and record_mode != "none":
                raise RecordingFailed("ANTHROPIC_API_KEY is not set (or pass --base-url for another server)")
            api_key = LOOPBACK_API_KEY  # another server may not check it; it is never written anyway
    settings = settings or Settings()
    if model:
        settings = replace(settings, model=model)
    workdir = Path(cwd).resolve()
    guard = VcrGuard()
    client = anthropic.Anthropic(
        api_key=api_key, base_url=base_url, max_retries=0, http_client=anthropic.DefaultHttpxClient(transport=guard)
    )
    agent = Agent(
        client, settings=settings, cwd=workdir, sleep=sleep, clock=clock, wall_clock=wall_clock,
        rand=random.Random(JITTER_SEED).random, session_id="record",
    )
    transcript: list[str] = []

    def emit(text: str) -> None:
        transcript.append(text)
        if write is not None:
            write(text)

    before = _identity(path)
    recorder = make_vcr(record_mode=record_mode, match_on=match_on, cwd=workdir)
    with recorder.use_cassette(str(path)):
        drive(agent, lines, emit)
        if guard.mismatches:
            raise guard.mismatches[0]
        if before_save is not None:
            before_save()
    written = _identity(path) not in (None, before)
    count = len(load_cassette(path)) if path.exists() else 0
    return RecordResult(path, record_mode, count, replace_cwd("".join(transcript), workdir), written)


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        stat = path.stat()
    except FileNotFoundError:
        return None
    return stat.st_ino, stat.st_mtime_ns


def record_over_loopback(
    scenario_path: str | Path,
    cassette: str | Path,
    *,
    record_mode: str = "all",
    write: Callable[[str], object] | None = None,
) -> RecordResult:
    """Record mini_agent against a scenario served by the fault server on 127.0.0.1:
    the scenario's workspace in a fresh folder, its turns' user lines, its replies (all
    turns' in one queue) on the wire, on virtual time. Raises RecordingFailed, and
    writes nothing, if the server saw problems (an invalid request, a missing reply)."""
    from harness.wire.clock import VirtualClock
    from harness.scenario.responder import Responder
    from harness.scenario.runner import settings_for
    from harness.scenario.loader import load_scenario
    from harness.serve.server import FaultServer

    scenario = load_scenario(scenario_path)
    settings = settings_for(scenario)
    clock = VirtualClock()
    responder = Responder([r for turn in scenario.turns for r in turn.replies], clock=clock, model=settings.model)

    def server_saw_no_problems() -> None:
        problems = responder.problems + [f"{len(responder.unused)} reply(ies) never requested"] * bool(responder.unused)
        if problems:
            raise RecordingFailed(f"{scenario_path}: the loopback server saw problems: " + "; ".join(problems))

    with tempfile.TemporaryDirectory(prefix="harness-record-") as tmp, FaultServer(responder, time_scale=0) as server:
        for name, content in scenario.workspace.items():
            (Path(tmp) / name).parent.mkdir(parents=True, exist_ok=True)
            (Path(tmp) / name).write_text(content, encoding="utf-8")
        result = record_session(
            cassette, [turn.user for turn in scenario.turns], base_url=server.url, api_key=LOOPBACK_API_KEY,
            record_mode=record_mode, cwd=tmp, settings=settings, write=write,
            sleep=clock.sleep, clock=clock.now, wall_clock=clock.wall, before_save=server_saw_no_problems,
        )
    return result

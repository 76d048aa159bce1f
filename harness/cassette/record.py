"""Recording an agent's session into a vcrpy cassette, without a terminal.

    record_session(cassette, lines, base_url=…, record_mode=…)   the user's lines, one turn
        each, against the real API or any Anthropic-compatible URL, recorded by vcrpy
    record_over_loopback(scenario, cassette)   the same against a scenario served by the
        fault server on a loopback socket (how cassettes/loopback_*.yaml are made)
    drive(agent, lines, write, driver)   the REPL without a terminal: echo, turn, render

Each response keeps when its headers, its first event and each later event came
(``harness.cassette.timing``), so a replay can serve it at the recorded pace. Record
modes are pytest-recording's (``harness.cassette.modes``): ``once`` records a
new cassette and replays one that exists, ``rewrite`` records it again from scratch,
``new_episodes`` replays what matches and adds what does not, ``all`` records every
request and adds them, ``none`` only replays. The cassette is stamped with its age,
scrubbed, scanned and written atomically (``harness.cassette.vcr_setup``); Ctrl+C or any
crash writes nothing, and so does a body the scrubber cannot redact safely: the
recording stops at that request.

Errors::

    ValueError
     ├── SecretsFound        (harness.cassette.vcr_setup) the scan flagged the cassette: not written
     ├── RedactionError      (harness.cassette.redaction.redact) a body that cannot be
     │                       redacted safely: the recording stopped, nothing was written
     └── RecordingFailed     no API key, or the loopback scenario's server saw problems
          └── NothingRecorded  no request got an answer (a dead port, a wrong URL): nothing written
    AssertionError
     └── ReplayMismatch      (harness.cassette.diff) record mode ``none``: a request the cassette lacks
"""

from __future__ import annotations

import itertools
import os
import tempfile
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence
from urllib.parse import urlsplit

import anthropic

from harness.agents.base import AgentFactory
from harness.agents.context import AgentContext
from harness.agents.driver import TurnDriver
from harness.agents.events import TurnEnd
from harness.cassette.modes import RECORD_MODES
from harness.cassette.proxy import loopback_forwarder
from harness.cassette.redaction.redact import RedactionError
from harness.cassette.scrub import Scrubber, redact_text, replace_cwd
from harness.cassette.timing import Stopwatch
from harness.cassette.vcr_guard import AsyncVcrGuard, VcrGuard
from harness.cassette.vcr_setup import make_vcr
from harness.scenario.fake_api.clients import sdk_waits_on_scenario_clocks
from harness.wire.cassette_file import load_cassette
from harness.wire.clock import RealClock, VirtualClock
from harness.wire.errors import HarnessError

LOOPBACK_API_KEY = "harness-loopback"


class RecordingFailed(HarnessError, ValueError):
    """A recording that cannot start or whose loopback server saw problems."""


class NothingRecorded(RecordingFailed):
    """The session made no interaction: the agent sent nothing, or nothing answered it."""


@dataclass
class RecordResult:
    """What a recording produced. ``transcript`` has the working directory as ``<cwd>``."""

    path: Path
    record_mode: str
    interactions: int
    transcript: str
    written: bool


def drive(
    agent: Any, lines: Iterable[str], write: Callable[[str], object], driver: TurnDriver, *, stop_on_interrupt: bool = True
) -> None:
    """Run one turn per line on ``driver`` (the one that built the agent) and render it as
    a REPL would (where the agent has a renderer; see ``harness.agents.base``). A turn
    whose ``TurnEnd`` event says ``interrupted`` (Ctrl+C caught inside the turn) raises
    KeyboardInterrupt again when ``stop_on_interrupt``, so a recording stops there."""
    command = getattr(agent, "command", None)
    for raw in lines:
        line = raw.rstrip("\n")
        if not line.strip():
            continue
        write(f"> {line}\n")
        output = command(line) if command is not None else None
        if output is not None:
            write(output)
            continue
        renderer = agent.renderer() if hasattr(agent, "renderer") else None
        interrupted = False
        for event in driver.start(agent, line) or ():
            if renderer is not None:
                write(renderer.render(event))
            interrupted = interrupted or (isinstance(event, TurnEnd) and event.reason == "interrupted")
        if renderer is not None:
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
    factory: AgentFactory | None = None,
    settings: Any = None,
    scenario_settings: dict[str, Any] | None = None,
    write: Callable[[str], object] | None = None,
    clock: RealClock | VirtualClock | None = None,
    before_save: Callable[[], None] | None = None,
    max_age: Any = None,
) -> RecordResult:
    """Run the agent over ``lines`` with vcrpy recording into ``cassette``.

    ``factory`` builds the agent from an ``AgentContext`` (the recording clients, the
    clock — real time unless given —, the working folder, ``scenario_settings``); by
    default mini_agent with ``settings`` (and ``model``). ``before_save`` runs after the last
    turn, before vcrpy writes: raising there writes nothing (as does any exception, Ctrl+C
    included). ``max_age`` goes into the cassette's metadata (``harness.cassette.age``)."""
    path = Path(cassette)
    if record_mode not in RECORD_MODES:
        raise ValueError(f"record mode {record_mode!r}: choose one of {', '.join(RECORD_MODES)}")
    if path.is_dir():
        raise RecordingFailed(f"{path} is a folder; name the cassette file to write (e.g. {path / 'session.yaml'})")
    if base_url is not None:
        check_base_url(base_url)
    if not Path(cwd).is_dir():
        raise RecordingFailed(f"--cwd {cwd}: no such folder (the agent's tools run there)")
    if api_key is None and not os.environ.get("ANTHROPIC_AUTH_TOKEN"):
        api_key = os.environ.get("ANTHROPIC_API_KEY")
        if api_key is None:
            if base_url is None and not os.environ.get("ANTHROPIC_BASE_URL") and record_mode != "none":
                raise RecordingFailed("ANTHROPIC_API_KEY is not set (or pass --base-url for another server)")
            api_key = LOOPBACK_API_KEY  # another server may not check it; it is never written anyway
    workdir = Path(cwd).resolve()
    clock = clock or RealClock()
    sdk_waits_on_scenario_clocks()  # on a virtual clock (a test's), the SDK's own retries wait on it
    guard, async_guard = VcrGuard(clock=clock), AsyncVcrGuard(clock=clock)
    stopwatch = Stopwatch(clock.now)  # on virtual time: no times to keep
    stopwatch.watch(guard.transport)
    stopwatch.watch(async_guard.transport)
    client = anthropic.Anthropic(api_key=api_key, base_url=base_url, http_client=anthropic.DefaultHttpxClient(transport=guard))
    async_client = anthropic.AsyncAnthropic(
        api_key=api_key, base_url=base_url, http_client=anthropic.DefaultAsyncHttpxClient(transport=async_guard)
    )
    servers, proxies = ExitStack(), set[tuple[str, int]]()  # an agent on its own HTTP client (ctx.base_url): a loopback proxy
    ctx = AgentContext(
        client, async_client, workdir, clock, api_key, scenario_settings or {},
        start_loopback=loopback_forwarder(guard, str(client.base_url).rstrip("/"), servers, proxies),
    )
    transcript: list[str] = []

    def emit(text: str) -> None:  # the user's lines and the agent's output: secrets redacted as in the cassette
        text = redact_text(text)
        transcript.append(text)
        if write is not None:
            write(text)

    before = _identity(path)
    scrubber = Scrubber(workdir)
    recorder = make_vcr(
        record_mode=record_mode, match_on=match_on, scrubber=scrubber, max_age=max_age, stopwatch=stopwatch, unrecorded=proxies
    )
    with TurnDriver() as driver:
        agent = driver.build(factory or _mini_agent(settings, model), ctx)
        with recorder.use_cassette(str(path)):
            with servers:
                drive(agent, itertools.takewhile(lambda _: not scrubber.failures, lines), emit, driver)
            if scrubber.failures:
                raise RedactionError(f"the recording stopped and nothing was written: {scrubber.failures[0]}")
            if guard.mismatches or async_guard.mismatches:
                raise (guard.mismatches or async_guard.mismatches)[0]
            _check_answered(guard.requests + async_guard.requests, guard.failures + async_guard.failures,
                            guard.answered + async_guard.answered)
            if before_save is not None:
                before_save()
    written = _identity(path) not in (None, before)
    count = len(load_cassette(path)) if path.exists() else 0
    return RecordResult(path, record_mode, count, replace_cwd("".join(transcript), workdir), written)


def check_base_url(url: str) -> None:
    """RecordingFailed unless ``url`` is an http(s) URL with a host and, if any, a port
    from 1 to 65535."""
    choices = "an http:// or https:// URL such as http://127.0.0.1:8123"
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:
        raise RecordingFailed(f"--base-url {url!r}: not a usable URL ({error}); give {choices}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise RecordingFailed(f"--base-url {url!r}: not a usable URL; give {choices}")
    if port == 0:
        raise RecordingFailed(f"--base-url {url!r}: the port must be from 1 to 65535")


def _check_answered(requests: int, failures: list[str], answered: int) -> None:
    """NothingRecorded when no request got an answer, saying why."""
    if answered:
        return
    if not requests:
        raise NothingRecorded("nothing was recorded: the agent sent no request (were all the lines REPL commands?)")
    last = failures[-1] if failures else "no response"
    raise NothingRecorded(
        f"nothing was recorded: none of the agent's {requests} request(s) got an answer; the last: {last}. "
        "Is a server listening at that address (--base-url, ANTHROPIC_BASE_URL)?"
    )


def _mini_agent(settings: Any, model: str | None) -> AgentFactory:
    from harness.agents.mini_agent import Settings, mini_agent_factory, settings_for

    chosen = settings or Settings()
    return mini_agent_factory(settings_for({"model": model}, chosen) if model else chosen, session_id="record")


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
    from harness.scenario.fake_api.responder import Responder
    from harness.scenario.format.loader import load_scenario
    from harness.scenario.format.model import DEFAULT_MODEL
    from harness.scenario.format.sandbox import write_workspace
    from harness.scenario.run.runner import default_factory
    from harness.serve.server import FaultServer

    scenario = load_scenario(scenario_path)
    clock = VirtualClock.starting_now()
    replies = [r for turn in scenario.turns for r in turn.replies]
    responder = Responder(replies, clock=clock, model=scenario.settings.get("model", DEFAULT_MODEL))

    def server_saw_no_problems() -> None:
        problems = [str(p) for p in responder.problems] + [f"{len(responder.unused)} reply(ies) never requested"] * bool(responder.unused)
        if problems:
            raise RecordingFailed(f"{scenario_path}: the loopback server saw problems: " + "; ".join(problems))

    with tempfile.TemporaryDirectory(prefix="harness-record-") as tmp, FaultServer(responder, time_scale=0) as server:
        write_workspace(Path(tmp), scenario.workspace)
        result = record_session(
            cassette, [turn.user for turn in scenario.turns], base_url=server.url, api_key=LOOPBACK_API_KEY,
            record_mode=record_mode, cwd=tmp, factory=default_factory(scenario), scenario_settings=scenario.settings, write=write, clock=clock,
            before_save=server_saw_no_problems,
        )
    return result

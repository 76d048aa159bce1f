"""Replaying a recorded mini_agent session offline: the cassette answers, the network is
blocked, time is virtual, and the transcript comes out as it did when recording.

    replay_session(cassette, engine="harness" | "vcr", match_on="body" | "order", cwd=DIR, in_place=False)

``harness`` serves the cassette through ``CassetteTransport`` (indexed, linear in the
session's length); ``vcr`` plays it through vcrpy in record mode ``none``, the path a
pytest-recording user takes. Both match a request on method, path and body by default.
The user's lines and the agent's settings (model, max_tokens, system prompt, fallbacks)
are read from the recorded requests unless given.
"""

from __future__ import annotations

import json
import tempfile
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence
from urllib.parse import urlsplit

import anthropic
import httpx2

from harness.agents.base import AgentFactory
from harness.agents.context import AgentContext
from harness.agents.driver import TurnDriver
from harness.cassette.index import (
    AsyncCassetteTransport,
    CassetteIndex,
    CassetteTransport,
)
from harness.cassette.network import NetworkBlocked, block_network
from harness.cassette.proxy import loopback_forwarder
from harness.cassette.record import drive
from harness.cassette.scrub import redact_text, replace_cwd
from harness.cassette.session import ENGINES, REPLAY_API_KEY
from harness.cassette.vcr_guard import AsyncVcrGuard, VcrGuard
from harness.cassette.vcr_setup import make_vcr
from harness.scenario.fake_api.clients import sdk_waits_on_scenario_clocks
from harness.scenario.format.sandbox import copy_into
from harness.wire.cassette_file import load_cassette
from harness.wire.clock import VirtualClock


@dataclass
class ReplayResult:
    """What a replay produced. ``transcript`` has the working directory as ``<cwd>``;
    ``unused`` are interactions (from 1) that no request got."""

    transcript: str
    requests: int
    unused: list[int]
    lines: list[str]


def request_bodies(interactions: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The JSON bodies of the recorded ``/v1/messages`` requests, in order."""
    bodies = []
    for interaction in interactions:
        request = interaction["request"]
        if not urlsplit(str(request.get("uri", ""))).path.endswith("/v1/messages"):
            continue
        try:
            body = json.loads(request.get("body") or "null")
        except (TypeError, ValueError):
            continue
        if isinstance(body, dict):
            bodies.append(body)
    return bodies


def lines_from_cassette(interactions: Sequence[Mapping[str, Any]]) -> list[str]:
    """The user's lines, one per turn: the user messages of the recorded requests that are
    text alone, as a string (mini_agent) or as text blocks (an agent that marks its last
    message for the cache), not tool results."""
    lines: list[str] = []
    for body in request_bodies(interactions):
        messages = body.get("messages")  # a recorded request may be one the API refused: any JSON
        said = [line for m in messages if (line := _user_line(m)) is not None] if isinstance(messages, list) else []
        if len(said) > len(lines) and said[: len(lines)] == lines:
            lines = said
    return lines


def _user_line(message: Any) -> str | None:
    """The text a user message says, when it says nothing else (its text blocks joined by
    a newline); None for an assistant message or tool results."""
    if not isinstance(message, dict) or message.get("role") != "user":
        return None
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list) and content and all(isinstance(b, dict) and b.get("type") == "text" for b in content):
        return "\n".join(str(b.get("text", "")) for b in content)
    return None


def replay_session(
    cassette: str | Path,
    lines: Sequence[str] | None = None,
    *,
    engine: str = "harness",
    match_on: str = "body",
    cwd: str | Path | None = None,
    in_place: bool = False,
    factory: AgentFactory | None = None,
    settings: Any = None,
    write: Callable[[str], object] | None = None,
    speed: float = 1.0,
) -> ReplayResult:
    """Drive the agent from ``cassette`` with the network blocked, on virtual time, each
    answer at its recorded pace times ``speed`` (the harness engine; vcrpy has no pace).
    ``factory`` builds it (default: mini_agent with ``settings``, else with the settings
    the recorded requests show). Raises ReplayMismatch (the first request that differs
    from the recording, with a diff) or NetworkBlocked.

    A cassette is code: the tool calls in its replies run. They run in a fresh temporary
    workspace, removed afterwards, holding a copy of ``cwd``'s files (or nothing);
    ``in_place=True`` runs them in ``cwd`` itself (default: the current folder)."""
    if engine not in ENGINES:
        raise ValueError(f"engine {engine!r}: choose one of {', '.join(ENGINES)}")
    path = Path(cassette)
    interactions = load_cassette(path)
    lines = list(lines) if lines else lines_from_cassette(interactions)
    with ExitStack() as stack:
        if in_place:
            workdir = Path(cwd if cwd is not None else ".").resolve()
        else:
            workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="harness-replay-"))).resolve()
            if cwd is not None:
                copy_into(Path(cwd), workdir)
        return _replay(path, interactions, lines, engine, match_on, workdir, factory, settings, write, speed)


def _replay(
    path: Path, interactions: Sequence[Mapping[str, Any]], lines: list[str], engine: str, match_on: str,
    workdir: Path, factory: AgentFactory | None, settings: Any, write: Callable[[str], object] | None, speed: float,
) -> ReplayResult:
    clock = VirtualClock.starting_now()
    transcript: list[str] = []

    def emit(text: str) -> None:  # redacted as the recording's echo was: the workspace may hold the secrets
        text = redact_text(text)
        transcript.append(text)
        if write is not None:
            write(text)

    if engine == "harness":
        index = CassetteIndex(interactions, match_on=match_on, cwd=workdir, name=str(path), clock=clock, speed=speed)
        transport: Any = CassetteTransport(index)
    else:
        transport = VcrGuard(clock=clock)
    origin = _origin(interactions)
    sdk_waits_on_scenario_clocks()  # the clients keep the SDK's default retries, as recorded; their waits are virtual
    client = anthropic.Anthropic(api_key=REPLAY_API_KEY, base_url=origin, http_client=httpx2.Client(transport=transport))
    async_transport: Any = AsyncCassetteTransport(transport.index) if engine == "harness" else AsyncVcrGuard(clock=clock)
    async_client = anthropic.AsyncAnthropic(
        api_key=REPLAY_API_KEY, base_url=origin, http_client=httpx2.AsyncClient(transport=async_transport)
    )
    servers, allowed = ExitStack(), set[tuple[str, int]]()  # an agent on its own HTTP client (ctx.base_url): a loopback proxy
    ctx = AgentContext(
        client, async_client, workdir, clock, REPLAY_API_KEY, {},
        http_client=httpx2.Client(transport=transport), async_http_client=httpx2.AsyncClient(transport=async_transport),
        start_loopback=loopback_forwarder(transport, origin, servers, allowed),
    )
    with TurnDriver() as driver, servers:
        agent = driver.build(factory or _mini_agent(interactions, settings), ctx)
        try:
            with block_network(allowed) as attempts:
                if engine == "harness":
                    drive(agent, lines, emit, driver, stop_on_interrupt=False)
                    requests, unused = len(transport.index.played), transport.unused
                else:
                    vcr = make_vcr(record_mode="none", match_on=match_on, cwd=workdir, unrecorded=allowed)
                    with vcr.use_cassette(str(path)) as played:
                        drive(agent, lines, emit, driver, stop_on_interrupt=False)
                    requests = played.play_count
                    unused = [n + 1 for n in range(len(played.data)) if not played.play_counts[n]]
        except Exception as error:  # an agent that raises on the mismatch's 400: the mismatch is the news
            if transport.mismatches or async_transport.mismatches:
                raise (transport.mismatches + async_transport.mismatches)[0] from error
            raise
    mismatches = transport.mismatches + async_transport.mismatches
    if mismatches:
        raise mismatches[0]
    if attempts:
        raise NetworkBlocked(f"the replay tried to reach the network: {attempts[0]}")
    return ReplayResult(replace_cwd("".join(transcript), workdir), requests, unused, lines)


def _mini_agent(interactions: Sequence[Mapping[str, Any]], settings: Any) -> AgentFactory:
    from harness.agents.mini_agent import mini_agent_factory, settings_from_cassette

    return mini_agent_factory(settings or settings_from_cassette(request_bodies(interactions)), session_id="replay")


def _origin(interactions: Sequence[Mapping[str, Any]]) -> str:
    """Where the session was recorded (only the path is matched, but it reads true)."""
    for interaction in interactions:
        parts = urlsplit(str(interaction["request"].get("uri", "")))
        if parts.scheme and parts.netloc:
            return f"{parts.scheme}://{parts.netloc}"
    return "https://api.anthropic.com"

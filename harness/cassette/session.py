"""One test's cassette, replayed or recorded: what the ``cassette`` fixture hands out.

    with CassetteSession(path, record_mode="none") as session:
        client = session.client()          # anthropic.Anthropic answering from the cassette
        ...
    session.problems                       # requests that did not match, with diffs

Replaying — record mode ``none``, or ``once`` with the file present — goes through the
harness's indexed transport (``engine="harness"``, the default) or through vcrpy
(``engine="vcr"``), with the network blocked; the harness's engine serves each answer
at its recorded pace (times ``speed``) on ``session.clock``, a virtual clock. Recording —
``once`` without the file, ``new_episodes``, ``all`` — goes through vcrpy with the harness's scrubbing, scanning and
atomic save; the client then talks to the real API (``ANTHROPIC_API_KEY``,
``ANTHROPIC_BASE_URL``). A body the scrubber cannot redact safely is answered with a
400, is one of the ``problems``, and the cassette is not written.

A cassette is code: the tool calls in its replies run when an agent reads them. So that
they run nowhere that matters, ``session.workspace`` is a fresh temporary folder
(removed on exit) unless ``cwd`` names one on purpose; run the agent's tools there.
"""

from __future__ import annotations

import tempfile
from contextlib import ExitStack
from pathlib import Path
from typing import Any, Mapping

import anthropic
import httpx2

from harness.cassette.index import (
    AsyncCassetteTransport,
    CassetteIndex,
    CassetteTransport,
)
from harness.cassette.modes import MATCHING, RECORD_MODES
from harness.cassette.network import block_network
from harness.cassette.scrub import Scrubber
from harness.cassette.vcr_guard import AsyncVcrGuard, VcrGuard
from harness.cassette.vcr_setup import make_vcr
from harness.wire.clock import VirtualClock
from harness.wire.errors import HarnessError

ENGINES = ("harness", "vcr")
REPLAY_API_KEY = "harness-replay"


class CassetteMissing(HarnessError, FileNotFoundError):
    """Replaying a cassette that does not exist."""


class CassetteSession:
    """A cassette in use for the length of a ``with`` block (see the module docstring)."""

    def __init__(
        self,
        path: str | Path,
        *,
        record_mode: str = "none",
        match_on: str = "body",
        engine: str = "harness",
        cwd: str | Path | None = None,
        block_network: bool = True,
        speed: float = 1.0,
    ) -> None:
        for name, value, choices in (
            ("record_mode", record_mode, RECORD_MODES),
            ("match_on", match_on, tuple(MATCHING)),
            ("engine", engine, ENGINES),
        ):
            if value not in choices:
                raise ValueError(f"{name} {value!r}: choose one of {', '.join(choices)}")
        self.path = Path(path)
        self.record_mode = record_mode
        self.match_on = match_on
        self.engine = engine
        self.cwd = cwd
        self.workspace: Path | None = None  # where the agent's tools should run: ``cwd``, else a fresh folder
        self.blocks_network = block_network
        self.clock = VirtualClock.starting_now()  # the recorded pace runs on it (times ``speed``): nothing really waits
        self.speed = speed
        self.vcr_cassette: Any = None  # vcrpy's Cassette, when vcrpy is in use
        self.index: CassetteIndex | None = None
        self.scrubber: Scrubber | None = None  # when vcrpy is in use
        self._guards: list[VcrGuard | AsyncVcrGuard] = []
        self._stack = ExitStack()
        self._replaying: bool | None = None

    @property
    def replaying(self) -> bool:
        """Whether requests are answered from the file (else they go out and are recorded),
        as it was when the session began."""
        if self._replaying is None:
            self._replaying = self.record_mode == "none" or (self.record_mode == "once" and self.path.exists())
        return self._replaying

    def __enter__(self) -> CassetteSession:
        try:
            return self._enter()
        except BaseException:  # a missing or corrupt cassette: nothing stays patched (the network, vcrpy) or made
            self._stack.close()
            raise

    def _enter(self) -> CassetteSession:
        if self.cwd is None:  # a fresh folder for the agent's tools, removed at the end
            self.cwd = Path(self._stack.enter_context(tempfile.TemporaryDirectory(prefix="harness-cassette-"))).resolve()
        self.workspace = Path(self.cwd)
        if self.replaying and not self.path.exists():
            raise CassetteMissing(
                f"{self.path}: no such cassette; record it with --record-mode once (it needs ANTHROPIC_API_KEY)"
            )
        if self.replaying and self.blocks_network:
            self._stack.enter_context(block_network())
        if self.replaying and self.engine == "harness":
            self.index = CassetteIndex(self.path, match_on=self.match_on, cwd=self.cwd, clock=self.clock, speed=self.speed)
        else:
            self.scrubber = Scrubber(self.cwd)
            recorder = make_vcr(record_mode=self.record_mode, match_on=self.match_on, scrubber=self.scrubber)
            self.vcr_cassette = self._stack.enter_context(recorder.use_cassette(str(self.path)))
        return self

    def __exit__(self, *exc_info: Any) -> None:
        failures = self.scrubber.failures if self.scrubber is not None else []
        if failures and exc_info[0] is None:  # vcrpy saves nothing after an exception
            exc_info = (type(failures[0]), failures[0], failures[0].__traceback__)
        self._stack.__exit__(*exc_info)

    def client(self, **options: Any) -> anthropic.Anthropic:
        """A sync SDK client bound to the cassette (``max_retries=0`` unless given)."""
        options.setdefault("max_retries", 0)
        if self.index is not None:
            return anthropic.Anthropic(**self._replay_options(options), http_client=httpx2.Client(transport=CassetteTransport(self.index)))
        guard = VcrGuard()
        self._guards.append(guard)
        if self.replaying:
            return anthropic.Anthropic(**self._replay_options(options), http_client=httpx2.Client(transport=guard))
        return anthropic.Anthropic(**options, http_client=anthropic.DefaultHttpxClient(transport=guard))

    def async_client(self, **options: Any) -> anthropic.AsyncAnthropic:
        """The async twin of ``client``."""
        options.setdefault("max_retries", 0)
        if self.index is not None:
            transport = AsyncCassetteTransport(self.index)
            return anthropic.AsyncAnthropic(**self._replay_options(options), http_client=httpx2.AsyncClient(transport=transport))
        guard = AsyncVcrGuard()
        self._guards.append(guard)
        if self.replaying:
            return anthropic.AsyncAnthropic(**self._replay_options(options), http_client=httpx2.AsyncClient(transport=guard))
        return anthropic.AsyncAnthropic(**options, http_client=anthropic.DefaultAsyncHttpxClient(transport=guard))

    @property
    def problems(self) -> list[str]:
        """Every request that could not be replayed, each with its diff."""
        mismatches = list(self.index.mismatches) if self.index is not None else []
        mismatches += [m for guard in self._guards for m in guard.mismatches]
        failures = self.scrubber.failures if self.scrubber is not None else []
        return [str(m) for m in mismatches] + [f"not recorded, the cassette was not written: {f}" for f in failures]

    @property
    def metadata(self) -> Mapping[str, Any]:
        """The cassette's metadata block as read (its age: ``harness.cassette.age``)."""
        if self.index is not None:
            return self.index.metadata
        return getattr(self.vcr_cassette, "_metadata", None) or {}

    @property
    def unused(self) -> list[int]:
        """Recorded interactions (numbered from 1) that no request of a replay got."""
        if not self.replaying:
            return []
        if self.index is not None:
            return self.index.unused
        cassette = self.vcr_cassette
        return [n + 1 for n in range(len(cassette.data)) if not cassette.play_counts[n]] if cassette is not None else []

    @property
    def play_count(self) -> int:
        """How many recorded interactions were played back."""
        if self.index is not None:
            return len(self.index.played)
        return self.vcr_cassette.play_count if self.vcr_cassette is not None else 0

    def _replay_options(self, options: dict[str, Any]) -> dict[str, Any]:
        options.setdefault("api_key", REPLAY_API_KEY)
        options.setdefault("base_url", "https://api.anthropic.com")
        return options

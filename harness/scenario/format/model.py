"""A scenario as data: a conversation of turns, the replies to each request, what must
hold, and the error raised for a file with mistakes."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.scenario.format.limits import Limits
from harness.scenario.format.problem import Problem
from harness.wire.errors import HarnessError
from harness.wire.replies import Reply

DEFAULT_MODEL = "claude-opus-5-5"
"""The model a scenario's fake API names in its answers when a request names none."""


@dataclass(frozen=True)
class Interrupt:
    """The user interrupts a turn: at its k-th event, or when a named tool is called."""

    at_event: int | None = None
    tool: str | None = None
    close: bool = False


@dataclass(frozen=True)
class Turn:
    """One user line, the replies to its requests, and what must hold afterwards."""

    user: str
    replies: tuple[Reply, ...] = ()
    interrupt: Interrupt | None = None
    expect: dict[str, Any] = field(default_factory=dict)
    line: int = 0
    expect_lines: dict[str, int] = field(default_factory=dict, compare=False)  # "requests", "mini_agent.notices" → line


@dataclass(frozen=True)
class Scenario:
    """A whole scenario file, checked and parsed."""

    name: str
    about: str
    path: Path
    turns: tuple[Turn, ...]
    settings: dict[str, Any] = field(default_factory=dict)
    workspace: dict[str, str] = field(default_factory=dict)
    expect: dict[str, Any] = field(default_factory=dict)
    probe: bool = True
    agent: str | None = None  # run for this agent only (``mini_agent``)
    expect_lines: dict[str, int] = field(default_factory=dict, compare=False)
    threads: bool = True  # False: the fake API answers threaded requests thread_unsupported_request
    limits: Limits | None = None  # the rate limits the fake API enforces, when the file names them


class ScenarioError(HarnessError, ValueError):
    """A scenario file with mistakes; each of ``problems`` prints as ``path:line:col: message``."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("\n".join(map(str, problems)))
        self.problems = problems

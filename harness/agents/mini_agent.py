"""The adapter for mini_agent, the reference agent: the only module of the harness that
imports ``mini_agent``.

``mini_agent_factory(settings)`` is a factory (``AgentContext`` → agent) of mini_agent on
the run's clock with seeded jitter; what it builds drives the agent (``run_turn``, its
events translated into the harness's own, ``harness.agents.events``) and also answers
REPL commands and renders transcripts, as the REPL would. Every other attribute is the
agent's own.

mini_agent's events and the harness's have the same fields: each is translated into
the other field by field (``harness_event``, and back for mini_agent's renderer).
"""

from __future__ import annotations

import random
from dataclasses import fields, replace
from typing import Any, Callable, Mapping, Sequence

import anthropic

from harness.agents import events
from harness.agents.context import AgentContext
from mini_agent import events as own_events
from mini_agent.cli import slash_command
from mini_agent.environment import SettingsError, settings_from_environment
from mini_agent.loop import Agent
from mini_agent.model import sdk_client
from mini_agent.render import Renderer
from mini_agent.settings import Settings
from mini_agent.tools import Tool

JITTER_SEED = 0  # recording and replay draw the same retry jitter, so their notices agree
SETTING_NAMES = tuple(f.name for f in fields(Settings))

__all__ = [
    "JITTER_SEED", "EventRenderer", "MiniAgentUnderTest", "factory", "harness_event", "own_event", "Settings",
    "SettingsError", "mini_agent_factory", "settings_for", "settings_from_cassette", "settings_from_environment",
]

_HARNESS_EVENTS: dict[type, type] = {
    own_events.Notice: events.Notice, own_events.TextDelta: events.TextDelta, own_events.ToolCall: events.ToolCall,
    own_events.ToolResult: events.ToolResult, own_events.MessageDone: events.MessageDone,
    own_events.TurnEnd: events.TurnEnd,
}
_OWN_EVENTS = {harness: own for own, harness in _HARNESS_EVENTS.items()}


def harness_event(event: Any) -> Any:
    """mini_agent's event as the harness's (anything else as it is)."""
    return _translate(event, _HARNESS_EVENTS)


def own_event(event: Any) -> Any:
    """The harness's event as mini_agent's (anything else as it is)."""
    return _translate(event, _OWN_EVENTS)


def _translate(event: Any, table: dict[type, type]) -> Any:
    kind = table.get(type(event))
    return event if kind is None else kind(**{f.name: getattr(event, f.name) for f in fields(event)})


class EventRenderer:
    """mini_agent's REPL renderer, fed the harness's events."""

    def __init__(self) -> None:
        self._renderer = Renderer()

    def render(self, event: Any) -> str:
        """The text the REPL prints for one event."""
        return self._renderer.render(own_event(event))

    def render_close(self) -> str:
        return self._renderer.render_close()


class MiniAgentUnderTest:
    """mini_agent as the harness drives it: turns, REPL commands and a renderer."""

    harness_agent_name = "mini_agent"
    POLICIES = ("retries_as_the_sdks_do", "honours_max_retries", "gives_up_on_final_errors", "timeout_result_is_data",
                "continues_after_cut_tool_call", "strict_tool_input", "flags_tool_errors", "retry_is_invisible",
                "never_raises")
    BACKOFF_CAP = 30.0  # its longest backoff when the server names no wait (DESIGN §3)

    def __init__(self, agent: Agent) -> None:
        self.agent = agent

    @property
    def harness_policies(self) -> dict[str, Any]:
        """What mini_agent does that another agent may do otherwise
        (``harness.scenario.format.policy_names``): all of it, with its own retry count."""
        return {**dict.fromkeys(self.POLICIES, True), "retries": self.agent.settings.max_retries,
                "backoff_cap": self.BACKOFF_CAP}

    def run_turn(self, text: str) -> events.TranslatedEvents:
        """One turn, its events as the harness's; Ctrl+C and ``close`` reach mini_agent's own turn."""
        return events.TranslatedEvents(self.agent.run_turn(text), harness_event)

    def command(self, line: str) -> str | None:
        """The REPL's answer to a command such as ``/status``; None for a plain line."""
        return slash_command(self.agent, line.strip())

    def renderer(self) -> EventRenderer:
        """A fresh renderer for one turn's events."""
        return EventRenderer()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.agent, name)


def settings_for(scenario: Any, base: Settings | None = None) -> Settings:
    """mini_agent's settings with a scenario's ``settings:`` (or any mapping) on top."""
    overrides: Mapping[str, Any] = getattr(scenario, "settings", scenario)
    return replace(base or Settings(), **{k: v for k, v in overrides.items() if k in SETTING_NAMES})


def settings_from_cassette(bodies: Sequence[Mapping[str, Any]], base: Settings | None = None) -> Settings:
    """mini_agent's settings as the first recorded request body shows them (model,
    max_tokens, system prompt, the fallback beta)."""
    base = base or Settings()
    if not bodies:
        return base
    first = bodies[0]
    system = first.get("system", "")
    return replace(
        base,
        model=first.get("model", base.model),
        max_tokens=first.get("max_tokens", base.max_tokens),
        system=system if isinstance(system, str) else base.system,
        fallbacks="fallbacks" in first,
    )


def mini_agent_factory(
    settings: Settings = Settings(),
    *,
    seed: int = JITTER_SEED,
    tools: list[Tool] | None = None,
    agent_class: type[Agent] = Agent,
    settings_sources: dict[str, str] | None = None,
    session_id: str = "harness",
) -> Callable[[AgentContext], MiniAgentUnderTest]:
    """A factory of mini_agent with ``settings``, on the run's clock, with seeded jitter
    (``tools`` and ``agent_class`` let a test swap in its own tools or subclass). Its SDK
    client is the one mini_agent builds for itself in production (``sdk_client``) on the
    run's HTTP client when there is one, else the run's client; either way with the SDK's
    own retries off: mini_agent retries by itself."""

    def build(ctx: AgentContext) -> MiniAgentUnderTest:
        return MiniAgentUnderTest(
            agent_class(
                _client(ctx),
                settings=settings,
                cwd=ctx.workspace,
                sleep=ctx.clock.sleep,
                clock=ctx.clock.now,
                wall_clock=ctx.clock.wall,
                rand=random.Random(seed).random,
                tools=tools,
                session_id=session_id,
                settings_sources=settings_sources,
            )
        )

    return build


def factory(ctx: AgentContext) -> MiniAgentUnderTest:
    """The default agent under test: mini_agent with the scenario's settings."""
    build = mini_agent_factory(settings_for(ctx.settings), settings_sources={name: "scenario" for name in ctx.settings})
    return build(ctx)


def _client(ctx: AgentContext) -> anthropic.Anthropic:
    if ctx.http_client is not None:
        return sdk_client(api_key=ctx.api_key, http_client=ctx.http_client)
    return ctx.client.with_options(max_retries=0)

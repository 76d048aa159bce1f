"""The agent's settings, with their defaults."""

from __future__ import annotations

from dataclasses import dataclass

SWITCH_ON = frozenset({"1", "true", "yes", "on"})
SWITCH_OFF = frozenset({"0", "false", "no", "off"})  # how an environment variable says no
DEFAULT_MODEL = "claude-opus-5-5"
DEFAULT_FALLBACK_MODEL = "claude-sonnet-5-5"
DEFAULT_SYSTEM = (
    "You are mini_agent, a small coding agent. Use the Read, Write and Bash tools to work "
    "in the current directory. When a tool returns an error, read it and adjust."
)


@dataclass(frozen=True)
class Settings:
    """What a session runs with; every field has a sensible default."""

    model: str = DEFAULT_MODEL
    max_tokens: int = 8192
    max_retries: int = 5
    retry_budget: float = 120.0
    max_tool_output: int = 30_000
    max_steps: int = 50
    system: str = DEFAULT_SYSTEM
    fallbacks: bool | None = None  # None: on unless MINI_AGENT_FALLBACKS=0
    fallback_model: str | None = DEFAULT_FALLBACK_MODEL  # None: never switch models
    fallback_after: int = 3  # consecutive 529s in one request before switching
    api_timeout: float = 600.0  # seconds per request
    stop_failure_hook: str | None = None  # a shell command run when a turn ends on an API error
    hook_timeout: float = 10.0

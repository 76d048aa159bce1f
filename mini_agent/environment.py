"""Settings from the environment, as Claude Code takes CLAUDE_CODE_MAX_RETRIES and
API_TIMEOUT_MS: each variable overrides one setting; a bad value is a clear error."""

from __future__ import annotations

import os
from dataclasses import dataclass, fields, replace
from typing import Any, Callable, Mapping

from .settings import SWITCH_OFF, SWITCH_ON, Settings


class SettingsError(ValueError):
    """An environment variable whose value cannot be used."""


@dataclass(frozen=True)
class Variable:
    """One environment variable: the setting it sets and how its text becomes a value."""

    name: str
    setting: str
    parse: Callable[[str], Any]
    expected: str


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 0:
        raise ValueError
    return value


def _milliseconds(text: str) -> float:
    value = int(text)
    if value <= 0:
        raise ValueError
    return value / 1000.0


def _switch(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in SWITCH_ON:
        return True
    if lowered in SWITCH_OFF:
        return False
    raise ValueError


def _name(text: str) -> str:
    if not text.strip():
        raise ValueError
    return text.strip()


VARIABLES = (
    Variable("MINI_AGENT_MAX_RETRIES", "max_retries", _positive_int, "a whole number ≥ 0"),
    Variable("MINI_AGENT_API_TIMEOUT_MS", "api_timeout", _milliseconds, "milliseconds, a whole number > 0"),
    Variable("MINI_AGENT_MAX_TOOL_OUTPUT", "max_tool_output", lambda t: max(1, _positive_int(t)), "characters, a whole number > 0"),
    Variable("MINI_AGENT_MODEL", "model", _name, "a model name"),
    Variable("MINI_AGENT_FALLBACK_MODEL", "fallback_model", lambda t: None if t.strip().lower() in {"", "none", "off"} else t.strip(), "a model name, or 'none'"),
    Variable("MINI_AGENT_FALLBACKS", "fallbacks", _switch, "0 or 1"),
    Variable("MINI_AGENT_STOP_FAILURE_HOOK", "stop_failure_hook", lambda t: t.strip() or None, "a shell command"),
)


def settings_from_environment(
    environ: Mapping[str, str] = os.environ, base: Settings = Settings()
) -> tuple[Settings, dict[str, str]]:
    """``base`` with every MINI_AGENT_* variable applied, and where each setting came from."""
    changes: dict[str, Any] = {}
    sources = {f.name: "default" for f in fields(Settings)}
    for variable in VARIABLES:
        text = environ.get(variable.name)
        if text is None:
            continue
        try:
            changes[variable.setting] = variable.parse(text)
        except ValueError:
            raise SettingsError(f"{variable.name}={text!r} is not valid: expected {variable.expected}") from None
        sources[variable.setting] = variable.name
    return replace(base, **changes), sources

"""harness: fault scenarios, cassettes and an API-validity oracle for Anthropic-API agents.

The names a user needs, loaded on first use (``import harness`` stays cheap)::

    from harness import AgentContext, load_scenario, run_scenario

    def make_agent(ctx: AgentContext) -> MyAgent:
        return MyAgent(ctx.client, cwd=ctx.workspace, sleep=ctx.sleep)

    outcome = run_scenario(load_scenario("scenarios/http/overloaded_then_success.yaml"), agent=make_agent)

Everything else stays importable from its module; the packages (see docs/architecture.md):
``wire`` (bytes), ``oracle`` (the API's rules), ``scenario`` (file format, fake API, checks,
runs, front ends), ``cassette`` (record, scrub, replay), ``serve`` (the socket server),
``agents`` (adapters) and ``strategies`` (hypothesis).
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "AgentContext": "harness.agents.context",
    "AgentFactory": "harness.agents.base",
    "AgentUnderTest": "harness.agents.base",
    "Scenario": "harness.scenario.format.model",
    "load_scenario": "harness.scenario.format.loader",
    "run_scenario": "harness.scenario.run.runner",
    "Outcome": "harness.scenario.checks.outcome",
    "format_timeline": "harness.scenario.run.timeline",
    "run_and_record": "harness.scenario.run.found",
    "check_request": "harness.oracle",
    "check_history": "harness.oracle",
    "Violation": "harness.oracle",
    "record_session": "harness.cassette.record",
    "replay_session": "harness.cassette.replay",
    "scan_paths": "harness.cassette.scan",
    "HarnessError": "harness.wire.errors",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'harness' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))

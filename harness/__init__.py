"""harness: fault scenarios, cassettes and an API-validity oracle for Anthropic-API agents.

The packages (see docs/architecture.md): ``wire`` (bytes), ``oracle`` (the API's rules),
``scenario`` (files, runs, checks), ``cassette`` (record, scrub, replay), ``serve`` (the
socket server), ``agents`` (adapters) and ``strategies`` (hypothesis). The names people
use most are here too, loaded on first use::

    from harness import load_scenario, run_scenario, check_request
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "AgentFactory": "harness.agents.base",
    "AgentUnderTest": "harness.agents.base",
    "mini_agent_factory": "harness.agents.mini_agent",
    "settings_for": "harness.agents.mini_agent",
    "CassetteIndex": "harness.cassette.index",
    "CassetteTransport": "harness.cassette.index",
    "AsyncCassetteTransport": "harness.cassette.index",
    "ReplayMismatch": "harness.cassette.diff",
    "CassetteSession": "harness.cassette.session",
    "record_session": "harness.cassette.record",
    "record_over_loopback": "harness.cassette.record",
    "replay_session": "harness.cassette.replay",
    "scan_paths": "harness.cassette.scan",
    "Violation": "harness.oracle",
    "check_history": "harness.oracle",
    "check_request": "harness.oracle",
    "Scenario": "harness.scenario.format.model",
    "ScenarioError": "harness.scenario.format.model",
    "Turn": "harness.scenario.format.model",
    "load_scenario": "harness.scenario.format.loader",
    "dump_scenario": "harness.scenario.format.dump",
    "Outcome": "harness.scenario.checks.outcome",
    "run_scenario": "harness.scenario.run.runner",
    "format_timeline": "harness.scenario.run.timeline",
    "run_and_record": "harness.scenario.run.found",
    "Responder": "harness.scenario.fake_api.responder",
    "ScenarioTransport": "harness.scenario.fake_api.transport",
    "AsyncScenarioTransport": "harness.scenario.fake_api.transport",
    "WireSession": "harness.scenario.run.wire_session",
    "FaultServer": "harness.serve.server",
    "Reply": "harness.wire.replies",
    "VirtualClock": "harness.wire.clock",
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

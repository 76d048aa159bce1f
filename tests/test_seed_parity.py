"""Model fallback on persistent overload, settings from the environment, the stop-failure hook."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.agents.mini_agent import mini_agent_factory, settings_for
from harness.scenario.format.loader import load_scenario
from harness.scenario.run.runner import run_scenario
from harness.wire.replies import Reply
from mini_agent.cli import slash_command
from mini_agent.environment import SettingsError, settings_from_environment
from mini_agent.loop import Agent
from mini_agent.settings import Settings

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"


class KeepsThinking(Agent):
    """Switches models but forgets that thinking blocks are bound to the old one."""

    def _fall_back(self, overloaded: int) -> str:
        self.model.model = str(self.settings.fallback_model)
        return "switched"


def test_a_switch_that_keeps_foreign_thinking_blocks_is_answered_with_the_real_400():
    scenario = load_scenario(SCENARIOS / "fallback" / "fallback_drops_thinking.yaml")
    outcome = run_scenario(scenario, agent=mini_agent_factory(settings_for(scenario), agent_class=KeepsThinking))
    assert any("Invalid `signature` in `thinking` block" in p.text for p in outcome.problems)
    rejected = next(r for r in outcome.requests if r.violations)
    assert rejected.plan.status == 400 and rejected.body["model"] == "claude-sonnet-5-5"


def test_the_fallback_model_serves_the_rest_of_the_session(agent_with):
    run = agent_with([Reply(error="overloaded")] * 3 + [Reply(message={"text": "a"}), Reply(message={"text": "b"})])
    run.turn("one")
    run.turn("two")
    assert [r.body["model"] for r in run.transport.requests] == ["claude-opus-5-5"] * 3 + ["claude-sonnet-5-5"] * 2
    assert run.agent.status()["model"] == "claude-sonnet-5-5"


def test_environment_variables_override_settings_and_say_where_they_came_from():
    settings, sources = settings_from_environment(
        {
            "MINI_AGENT_MAX_RETRIES": "2",
            "MINI_AGENT_API_TIMEOUT_MS": "1500",
            "MINI_AGENT_MAX_TOOL_OUTPUT": "100",
            "MINI_AGENT_MODEL": "claude-haiku-5-5",
            "MINI_AGENT_FALLBACK_MODEL": "none",
            "MINI_AGENT_FALLBACKS": "0",
        }
    )
    assert (settings.max_retries, settings.api_timeout, settings.max_tool_output) == (2, 1.5, 100)
    assert (settings.model, settings.fallback_model, settings.fallbacks) == ("claude-haiku-5-5", None, False)
    assert sources["max_retries"] == "MINI_AGENT_MAX_RETRIES" and sources["system"] == "default"


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("MINI_AGENT_MAX_RETRIES", "five", "a whole number"),
        ("MINI_AGENT_MAX_RETRIES", "-1", "a whole number"),
        ("MINI_AGENT_API_TIMEOUT_MS", "0", "milliseconds"),
        ("MINI_AGENT_FALLBACKS", "maybe", "0 or 1"),
        ("MINI_AGENT_MODEL", " ", "a model name"),
    ],
)
def test_a_bad_environment_value_is_a_clear_error(name, value, expected):
    with pytest.raises(SettingsError) as caught:
        settings_from_environment({name: value})
    assert name in str(caught.value) and repr(value) in str(caught.value) and expected in str(caught.value)


def test_status_shows_the_settings_in_force_and_their_source(tmp_path):
    settings, sources = settings_from_environment({"MINI_AGENT_MAX_RETRIES": "7"})
    agent = Agent(settings=settings, settings_sources=sources, cwd=tmp_path, session_id="s")
    status = slash_command(agent, "/status")
    assert "max_retries        7 (MINI_AGENT_MAX_RETRIES)" in status
    assert "api_timeout        600.0 (default)" in status


def test_the_api_timeout_setting_reaches_the_request(agent_with):
    run = agent_with([Reply(connection="read_timeout"), Reply(message={"text": "ok"})], settings=Settings(api_timeout=2.5))
    run.turn("hi")
    assert run.transport.clock.now() == pytest.approx(2.5 + run.sleeps[0])
    assert run.end() == "end_turn"


def test_a_hanging_hook_times_out_and_the_session_goes_on(agent_with):
    settings = Settings(stop_failure_hook="sleep 5", hook_timeout=0.2)  # real-time: a real subprocess
    run = agent_with([Reply(error="authentication"), Reply(message={"text": "ok"})], settings=settings)
    run.turn("hi")
    assert run.end() == "error" and any("timed out after 0.2s" in n for n in run.notices())
    run.turn("again")
    assert run.end() == "end_turn"

"""The errors docs call 429, 500 and 529 (the 5xx) transient; only the official SDKs'
rule also retries a 408, a 409 and a status marked ``x-should-retry: true``. An agent that
retries what the docs say (``retries``) is not failed for leaving those alone; one that
declares ``retries_as_the_sdks_do`` is held to them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anthropic
import pytest
from hypothesis import find, settings

from harness.agents.context import AgentContext
from harness.oracle.retry import retried_by_the_sdks_only
from harness.scenario.format.loader import load_scenario
from harness.scenario.run.runner import run_scenario
from harness.scenario.run.timeline import format_timeline
from harness.strategies import fault_schedules
from harness.wire.api_errors import api_error

HTTP = Path(__file__).resolve().parent.parent / "harness" / "library" / "scenarios" / "http"


class RetriesTheDocumented:
    """Retries a 429 and a 5xx (and a broken connection), waiting as asked; stops at any
    other status. ``sdk``: also a 408, a 409 and what ``x-should-retry: true`` marks."""

    def __init__(self, ctx: AgentContext, *, sdk: bool = False) -> None:
        self.client, self.sleep, self.sdk, self.history = ctx.client.with_options(max_retries=0), ctx.sleep, sdk, []
        self.harness_policies = {"retries": 5, **({"retries_as_the_sdks_do": True} if sdk else {})}

    def run_turn(self, text: str) -> None:
        self.history.append({"role": "user", "content": text})
        for attempt in range(6):
            try:
                message = self.client.messages.create(model="claude-sonnet-4-5", max_tokens=64, messages=self.history)
            except anthropic.APIStatusError as error:
                marked = error.response.headers.get("x-should-retry")
                again = error.status_code >= 500 or error.status_code == 429
                if self.sdk:
                    again = marked == "true" or (marked != "false" and (again or error.status_code in (408, 409)))
                elif marked == "false":
                    again = False
                if not again:
                    break
                wait = error.response.headers.get("retry-after")
                self.sleep(float(wait) if wait and wait.isdigit() else 2.0 ** attempt)
                continue
            self.history.append({"role": "assistant", "content": [b.model_dump() for b in message.content]})
            return
        self.history.pop()


@pytest.mark.parametrize("name", ["retryable_4xx", "x_should_retry"])
def test_an_agent_that_retries_what_the_docs_call_transient_is_not_failed_there(name: str) -> None:
    outcome = run_scenario(load_scenario(HTTP / f"{name}.yaml"), agent=RetriesTheDocumented)
    assert outcome.passed, format_timeline(outcome)
    assert any("which the official SDKs retry and the errors docs do not call transient" in note for note in outcome.notes)
    assert any("retries_as_the_sdks_do" in item for item in outcome.not_checked)


@pytest.mark.parametrize("name", ["retryable_4xx", "x_should_retry"])
def test_one_that_declares_the_sdks_rule_is_held_to_it(name: str) -> None:
    class Declares(RetriesTheDocumented):  # says it retries as the SDKs do, and does not
        def __init__(self, ctx: AgentContext) -> None:
            super().__init__(ctx)
            self.harness_policies["retries_as_the_sdks_do"] = True

    assert not run_scenario(load_scenario(HTTP / f"{name}.yaml"), agent=Declares).passed
    keeps = run_scenario(load_scenario(HTTP / f"{name}.yaml"), agent=lambda ctx: RetriesTheDocumented(ctx, sdk=True))
    assert keeps.passed, format_timeline(keeps)


def test_the_rule_the_sdks_add() -> None:
    assert [retried_by_the_sdks_only(s, {}) for s in (408, 409, 429, 500, 529, 400)] == [True, True, False, False, False, False]
    assert retried_by_the_sdks_only(400, {"x-should-retry": "true"}) and not retried_by_the_sdks_only(408, {"x-should-retry": "false"})


def test_a_drawn_schedule_that_retries_a_408_asks_for_the_sdks_rule() -> None:
    def retries_one(schedule: Any) -> bool:
        retried = schedule.replies[: (schedule.requests or len(schedule.replies)) - 1]
        sdk_only = any(r.error is not None and retried_by_the_sdks_only(api_error(r.error).status, r.headers) for r in retried)
        return sdk_only and "mini_agent" not in schedule.needs  # (mini_agent's own way: an answer it may be asked to go on from)

    schedule = find(fault_schedules(max_retries=5, exceed=False), retries_one,
                    settings=settings(database=None, derandomize=True, max_examples=2000))
    assert schedule.needs[:2] == ("retries", "retries_as_the_sdks_do"), schedule


def test_one_retry_too_many_of_what_only_the_sdks_retry_asks_for_their_rule_too() -> None:
    """An agent that honours max_retries but keeps to the docs' transient failures stops at
    a 401 marked `x-should-retry: true`: its count is not held against it there."""
    def stops_after_sdk_only(schedule: Any) -> bool:
        retried = [r for r in schedule.replies if r.error is not None]
        return (schedule.end == "error" and "honours_max_retries" in schedule.needs
                and any(retried_by_the_sdks_only(api_error(r.error).status, r.headers) for r in retried))

    schedule = find(fault_schedules(max_retries=1, exceed=True), stops_after_sdk_only,
                    settings=settings(database=None, derandomize=True, max_examples=2000))
    assert "retries_as_the_sdks_do" in schedule.needs, schedule

"""``expect.usage``: what a turn or a scenario may use, summed over every request with the
retries, priced from the API's price table or the scenario's own. An agent whose retry
loop burns requests goes over by name, at the line of the bound."""

from __future__ import annotations

import re
from pathlib import Path

import anthropic
import pytest
from test_rate_limits import agent, early, honours_retry_after

from harness.oracle.prices import PRICES, price_of, prices_from
from harness.scenario.format.loader import load_scenario, problems_in
from harness.scenario.run.runner import run_scenario
from harness.scenario.run.wire_session import WireSession

LIBRARY = Path(__file__).resolve().parents[1] / "harness" / "library" / "scenarios"


def with_budget(tmp_path: Path, source: str, budget: str) -> Path:
    """A copy of a library scenario whose first turn's usage bound is ``budget``."""
    lines = (LIBRARY / source).read_text(encoding="utf-8").splitlines(keepends=True)
    at = next((n for n, line in enumerate(lines) if line.startswith("      usage:")), None)
    if at is None:
        at = next(n for n, line in enumerate(lines) if line == "    expect:\n") + 1
        lines.insert(at, "")
    lines[at] = budget
    path = tmp_path / Path(source).name
    path.write_text("".join(lines), encoding="utf-8")
    return path


def test_a_retry_loop_over_its_request_budget_fails_by_name_at_the_line_of_the_bound(tmp_path):
    path = with_budget(tmp_path, "limits/requests_bucket.yaml", "      usage: {requests: 5}\n")
    assert run_scenario(load_scenario(path), agent=agent(honours_retry_after)).problems == []
    [over] = run_scenario(load_scenario(path), agent=agent(early)).problems[-1:]
    assert re.fullmatch(r"turn 1: expect\.usage\.requests: at most 5, the agent used 14 \(11 of the requests after a failure\) "
                        r"\(.*requests_bucket\.yaml:\d+\)", over.text), over.text
    assert "usage: {requests: 5}" in path.read_text().splitlines()[over.line - 1]


def test_tokens_and_cost_add_up_over_the_answers_served(tmp_path):
    outcome = run_scenario(load_scenario(LIBRARY / "budgets" / "tool_loop_budget.yaml"))
    assert outcome.problems == []
    tight = with_budget(tmp_path, "budgets/tool_loop_budget.yaml",
                        "      usage: {output_tokens: 159, cache_read_input_tokens: 1999, cost_usd: 0.0001}\n")
    texts = [p.text for p in run_scenario(load_scenario(tight)).problems]
    assert any("expect.usage.output_tokens: at most 159, the agent used 160" in t for t in texts), texts
    assert any("expect.usage.cache_read_input_tokens: at most 1,999, the agent used 2,000" in t for t in texts)
    assert any(re.search(r"expect\.usage\.cost_usd: at most \$0\.0001, the agent used \$0\.0147", t) for t in texts)


def test_a_price_table_of_ones_own_prices_the_same_usage(tmp_path):
    expensive = with_budget(tmp_path, "budgets/tool_loop_budget.yaml",
                            "      usage: {cost_usd: 0.02, prices: {claude-opus: {input: 50, output: 250}}}\n")
    [problem] = [p for p in run_scenario(load_scenario(expensive)).problems if "cost_usd" in p.text]
    assert "at most $0.02, the agent used $0.1" in problem.text


def test_the_price_table_prices_by_the_longest_model_prefix_and_fills_in_cache_prices():
    assert price_of("claude-opus-5-5") is PRICES["claude-opus-5-5"]
    assert price_of("claude-sonnet-5-5") is PRICES["claude-sonnet"]
    assert price_of("some-other-model") is PRICES["claude-opus"]  # unknown: the highest prices
    own = prices_from({"claude-sonnet": {"input": 2, "output": 10}})["claude-sonnet"]
    assert (own.cache_write, own.cache_write_1h, own.cache_read) == (2.5, 4.0, pytest.approx(0.2))
    usage = {"input_tokens": 1_000_000, "cache_creation_input_tokens": 1_000_000,
             "cache_creation": {"ephemeral_1h_input_tokens": 1_000_000}, "output_tokens": 1_000_000}
    assert own.cost(usage) == 2 + 4 + 10


def test_a_usage_bound_is_checked_in_the_file(tmp_path):
    path = with_budget(tmp_path, "budgets/retries_cost.yaml", "      usage: {requets: 3}\n")
    [problem] = problems_in(path)
    assert "unknown key 'requets'" in str(problem) and "did you mean 'requests'" in str(problem)


def test_the_fault_api_fixture_holds_a_client_to_the_usage_bounds(tmp_path):
    """The same bounds for a test that drives the fake API itself (``fault_api``): per turn
    and for the scenario, retries counted."""
    path = tmp_path / "budget.yaml"
    path.write_text(
        "name: budget\nabout: A retry costs a request.\nturns:\n  - user: Hi\n    replies: [error: overloaded, text: Hello.]\n"
        "    expect: {usage: {requests: 1}}\nexpect: {usage: {requests: 1}}\n",
        encoding="utf-8",
    )
    session = WireSession.from_file(path)
    client = session.client()
    with pytest.raises(anthropic.InternalServerError):
        client.messages.create(model="claude-sonnet-4-5", max_tokens=64, messages=[{"role": "user", "content": "Hi"}])
    client.messages.create(model="claude-sonnet-4-5", max_tokens=64, messages=[{"role": "user", "content": "Hi"}])
    texts = [str(p) for p in session.problems() if p.kind.value == "expectation"]
    assert [t.split(" (")[0] for t in texts] == [
        "turn 1: expect.usage.requests: at most 1, the agent used 2",
        "expect.usage.requests: at most 1, the agent used 2",
    ], texts

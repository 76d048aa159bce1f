"""``notices`` are matched each after the one before, and a miss says so in those words."""

from __future__ import annotations

from harness.scenario.format.loader import load_scenario
from harness.scenario.format.problem import Kind
from harness.scenario.run.runner import run_scenario

OUT_OF_ORDER = """\
name: notices-out-of-order
about: The 529 notice comes first, so a pattern for it after "Retrying" finds nothing.
settings: {max_retries: 2}
turns:
  - user: hi
    replies:
      - error: overloaded
        headers: {retry-after: "1"}
      - text: hello
    expect:
      mini_agent:
        notices: ["Retrying", "529"]
"""


def test_a_notice_pattern_is_looked_for_after_the_one_before_it(tmp_path):
    path = tmp_path / "scenario.yaml"
    path.write_text(OUT_OF_ORDER, encoding="utf-8")
    [problem] = run_scenario(load_scenario(path)).problems
    assert problem.kind is Kind.EXPECTATION and str(problem).startswith(
        "turn 1: expect.mini_agent.notices[1]: no notice matching '529' after the one 'Retrying' matched; the turn showed ["
    )
    assert "in order" not in problem.text

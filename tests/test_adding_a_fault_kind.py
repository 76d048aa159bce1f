"""A fault kind is one module: ``harness.wire.faults.pace``, the worked example of
docs/architecture.md, is read, checked, written, served, named, counted and drawn by the
harness as it is; and a kind of a test's own joins and leaves the registry with nothing
else changed."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import find

from harness.report.coverage import coverage_matrix, matrix_rows
from harness.scenario.format.dump import (
    dump_scenario,
    without_positions,
    write_scenario,
)
from harness.scenario.format.loader import load_scenario, problems_in
from harness.scenario.format.schema import json_schema
from harness.scenario.run.hits import fault_hits
from harness.scenario.run.runner import run_scenario
from harness.strategies import replies
from harness.wire.faults import Cut, Pace
from harness.wire.faults.base import (
    WHOLE_STREAM,
    ByteFault,
    fault_kinds,
    register,
    setting,
    unregister,
)
from harness.wire.planner import plan_reply
from harness.wire.replies import Reply

ROOT = Path(__file__).resolve().parents[1]
IDS = {"request_id": "req_1", "message_id": "msg_1", "model": "claude-opus-5-5"}


def scenario(tmp_path: Path, fault: str) -> Path:
    path = tmp_path / "paced.yaml"
    path.write_text(
        "name: paced\nabout: A paced answer.\nturns:\n  - user: hi\n    replies:\n"
        f"      - text: Hello there, this is a paced answer.\n        {fault}\n",
        encoding="utf-8",
    )
    return path


def test_the_format_reads_the_kind_and_the_schema_names_it(tmp_path):
    [turn] = load_scenario(scenario(tmp_path, "pace: {first_event: 0.5, events_per_s: 10}")).turns
    assert turn.replies[0].fault(Pace) == Pace(first_event=0.5, events_per_s=10)
    reply_keys = json_schema()["properties"]["turns"]["items"]["properties"]["replies"]["items"]["properties"]
    assert reply_keys["pace"]["properties"]["jitter"] == {
        "type": "number", "minimum": 0, "maximum": 1, "description": "each wait varies by up to this share of itself"}


@pytest.mark.parametrize(
    ("fault", "problem"),
    [
        ("pace: {jitter: 2}", "`turns[0].replies[0].pace.jitter` must be from 0 to 1, got 2"),
        ("pace: {gaps: [0.5, -1]}", "`turns[0].replies[0].pace.gaps[1]` must be at least 0, got -1"),
        ("pace: 3", "`turns[0].replies[0].pace` must be a pace, got 3"),
        ("paec: {}", "unknown key 'paec' in reply `turns[0].replies[0]` (did you mean 'pace'?)"),
    ],
)
def test_the_format_checks_the_kind_at_its_line_and_column(tmp_path, fault, problem):
    [found] = problems_in(scenario(tmp_path, fault))
    assert re.match(r".*paced\.yaml:7:\d+: ", str(found)) and found.line == 7
    assert problem in str(found)


def test_the_writer_writes_it_back_as_a_person_would(tmp_path):
    loaded = load_scenario(scenario(tmp_path, "pace: {first_event: 0.5, seed: 3, jitter: 0.2}\n        cut: 4"))
    assert "    pace: {first_event: 0.5, jitter: 0.2, seed: 3}\n    cut: 4\n" in dump_scenario(loaded)
    again = load_scenario(write_scenario(loaded, tmp_path / "again.yaml"))
    assert without_positions(again) == without_positions(loaded)


def test_the_planner_applies_it_in_its_place_in_the_pipeline():
    reply = Reply(message={"text": "Hello there, this is a paced answer."},
                  faults=(Cut(after_event=4), Pace(first_event=0.5, events_per_s=10)))
    assert [type(f) for f in reply.faults] == [Pace, Cut]  # a pace times the frames a cut then lets through
    plan = plan_reply(reply, streaming=True, **IDS)
    assert plan.ending == "fin" and len(plan.chunks) == 4
    assert plan.delays == [0.5, 0.1, 0.1, 0.1]
    whole = plan_reply(Reply(message=reply.message, faults=(Pace(headers=0.2, first_event=0.5),)), streaming=False, **IDS)
    assert (whole.head_delay, whole.delays) == (0.2, [0.5])


def test_its_label_shows_in_the_timeline_words():
    reply = Reply(message={"text": "Hi"}, faults=(Pace(first_event=0.8, events_per_s=20, jitter=0.3, seed=7),))
    assert reply.describe() == "text · paced first event 0.8s, 20 events/s ±30%"


def test_a_run_serves_it_and_the_coverage_matrix_counts_it(tmp_path):
    outcome = run_scenario(load_scenario(scenario(tmp_path, "pace: {first_event: 0.5, events_per_s: 4}")))
    assert outcome.problems == []
    first = outcome.requests[0]
    assert first.finished - first.time == pytest.approx(0.5 + 0.25 * (len(first.plan.chunks) - 1))
    assert ("pace", "whole stream") in fault_hits(outcome)
    assert ("pace", ("whole stream",)) in matrix_rows()
    [row] = [row for row in coverage_matrix([("paced", fault_hits(outcome))])["rows"] if row["kind"] == "pace"]
    assert row["cells"]["whole stream"] == ["paced"]


def test_the_strategies_draw_it_as_wire_noise():
    drawn = find(replies(), lambda reply: (reply.fault(Pace) or Pace()).first_event > 0).fault(Pace)
    assert drawn is not None and drawn.first_event > 0


@dataclass(frozen=True)
class Hiccup(ByteFault):
    """A kind of this test's own: one second before the first frame."""

    key = "hiccup"
    places = (WHOLE_STREAM,)

    seconds: float = setting(1.0, minimum=0)

    def apply(self, plan, frames):
        plan.delays = [self.seconds, *plan.delays[1:]]

    def label(self):
        return f"hiccup {self.seconds:g}s"

    def hits(self):
        return [(self.key, WHOLE_STREAM)]


def test_a_kind_of_ones_own_joins_the_format_and_leaves_it_again(tmp_path):
    before = fault_kinds()
    assert "unknown key 'hiccup'" in str(problems_in(scenario(tmp_path, "hiccup: {seconds: 2}"))[0])
    register(Hiccup)
    try:
        assert fault_kinds() == (*before, Hiccup)
        assert load_scenario(scenario(tmp_path, "hiccup: {seconds: 2}")).turns[0].replies[0].fault(Hiccup) == Hiccup(2.0)
        with pytest.raises(ValueError, match="'hiccup' is registered already"):
            register(Hiccup)
    finally:
        unregister(Hiccup)
    assert fault_kinds() == before
    with pytest.raises(ValueError, match="not the last registered"):
        unregister(Cut)


def test_the_worked_example_in_the_architecture_page_is_the_harness_module():
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = page.split("## Adding a fault kind", 1)[1]
    [module] = re.findall(r"^```python\n(.*?)^```$", section, re.S | re.M)[:1]
    assert module == (ROOT / "harness" / "wire" / "faults" / "pace.py").read_text(encoding="utf-8")
    [written] = re.findall(r"^```yaml\n(.*?)^```$", section, re.S | re.M)[:1]
    assert "pace: {first_event: 0.8, events_per_s: 20, jitter: 0.3, seed: 7}" in written

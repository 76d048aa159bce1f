"""A new fault kind is one module: ``pace_fault.Pace``, the worked example of
docs/architecture.md, registered here for these tests only, is read, checked, written,
served, named, counted and drawn by the harness as it is, no other module changed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import find
from pace_fault import Pace

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
from harness.wire.faults import Cut
from harness.wire.faults.base import fault_kinds, register, unregister
from harness.wire.planner import plan_reply
from harness.wire.replies import Reply

ROOT = Path(__file__).resolve().parents[1]
IDS = {"request_id": "req_1", "message_id": "msg_1", "model": "claude-opus-5-5"}


@pytest.fixture
def pace():
    register(Pace)
    yield Pace
    unregister(Pace)


def scenario(tmp_path: Path, fault: str) -> Path:
    path = tmp_path / "paced.yaml"
    path.write_text(
        "name: paced\nabout: A paced answer.\nturns:\n  - user: hi\n    replies:\n"
        f"      - text: Hello there, this is a paced answer.\n        {fault}\n",
        encoding="utf-8",
    )
    return path


def test_the_format_reads_a_registered_kind_and_the_schema_names_it(pace, tmp_path):
    [turn] = load_scenario(scenario(tmp_path, "pace: [0.5, 0.1]")).turns
    assert turn.replies[0].fault(pace) == Pace((0.5, 0.1))
    reply_keys = json_schema()["properties"]["turns"]["items"]["properties"]["replies"]["items"]["properties"]
    assert reply_keys["pace"]["items"] == {"type": "number", "minimum": 0}


@pytest.mark.parametrize(
    ("fault", "problem"),
    [
        ("pace: [0.5, -1]", "`turns[0].replies[0].pace[1]` must be at least 0, got -1"),
        ("pace: 3", "`turns[0].replies[0].pace` must be a list of a number at least 0, got 3"),
        ("paec: [1]", "unknown key 'paec' in reply `turns[0].replies[0]` (did you mean 'pace'?)"),
    ],
)
def test_the_format_checks_a_registered_kind_at_its_line_and_column(pace, tmp_path, fault, problem):
    [found] = problems_in(scenario(tmp_path, fault))
    assert re.match(r".*paced\.yaml:7:\d+: ", str(found)) and found.line == 7
    assert problem in str(found)


def test_an_unregistered_kind_is_an_unknown_key(tmp_path):
    [found] = problems_in(scenario(tmp_path, "pace: [0.5]"))
    assert "unknown key 'pace'" in str(found)


def test_the_writer_writes_it_back_as_a_person_would(pace, tmp_path):
    loaded = load_scenario(scenario(tmp_path, "pace: [0.5, 0.1]\n        cut: 4"))
    assert "    cut: 4\n    pace: [0.5, 0.1]\n" in dump_scenario(loaded)
    again = load_scenario(write_scenario(loaded, tmp_path / "again.yaml"))
    assert without_positions(again) == without_positions(loaded)


def test_the_planner_applies_it_in_its_place_in_the_pipeline(pace):
    reply = Reply(message={"text": "Hello there, this is a paced answer."}, faults=(Cut(after_event=4), Pace((0.5, 0.1))))
    assert [type(f) for f in reply.faults] == [Cut, Pace]  # registered last, so applied last
    plan = plan_reply(reply, streaming=True, **IDS)
    assert plan.ending == "fin" and len(plan.chunks) == 4
    assert plan.delays == [0.5, 0.1, 0.1, 0.1]
    whole = plan_reply(Reply(message=reply.message, faults=(Pace((0.5,)),)), streaming=False, **IDS)
    assert whole.form == "the message whole: event-level faults have no JSON form"


def test_its_label_shows_in_the_timeline_words(pace):
    reply = Reply(message={"text": "Hi"}, faults=(Pace((0.5, 0.1, 0.1, 0.2)),))
    assert reply.describe() == "text · paced 0.5s, 0.1s, 0.1s …"


def test_a_run_serves_it_and_the_coverage_matrix_counts_it(pace, tmp_path):
    outcome = run_scenario(load_scenario(scenario(tmp_path, "pace: [0.5, 0.25]")))
    assert outcome.problems == []
    first = outcome.requests[0]
    assert first.finished - first.time == pytest.approx(0.5 + 0.25 * (len(first.plan.chunks) - 1))
    assert ("pace", "whole stream") in fault_hits(outcome)
    assert ("pace", ("whole stream",)) in matrix_rows()
    [row] = [row for row in coverage_matrix([("paced", fault_hits(outcome))])["rows"] if row["kind"] == "pace"]
    assert row["cells"]["whole stream"] == ["paced"]


def test_the_strategies_draw_it_as_wire_noise(pace):
    assert find(replies(), lambda reply: reply.fault(pace) is not None).fault(pace).delays


def test_registering_and_unregistering_leaves_the_kinds_as_they_were():
    before = fault_kinds()
    register(Pace)
    try:
        assert fault_kinds() == (*before, Pace)
        with pytest.raises(ValueError, match="'pace' is registered already"):
            register(Pace)
    finally:
        unregister(Pace)
    assert fault_kinds() == before
    with pytest.raises(ValueError, match="not the last registered"):
        unregister(Cut)


def test_the_worked_example_in_the_architecture_page_is_this_module():
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = page.split("## Adding a fault kind", 1)[1]
    [module] = re.findall(r"^```python\n(.*?)^```$", section, re.S | re.M)[:1]
    assert module == (ROOT / "tests" / "pace_fault.py").read_text(encoding="utf-8")

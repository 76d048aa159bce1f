"""Problems are records: where a problem points (file, line, turn, request) is said by the
check that found it and read by every report from the record, never from the sentence."""

from __future__ import annotations

from pathlib import Path

import anthropic
import pytest

from harness.scenario.format.loader import load_scenario
from harness.scenario.format.problem import Kind, Problem
from harness.scenario.run.results import problem_record, scenario_record
from harness.scenario.run.runner import run_scenario

TWO_TURNS = """\
name: impatient
about: The second turn's 529 asks for a wait the agent does not make.
turns:
  - user: hi
    replies:
      - text: Hello.
  - user: again
    replies:
      - error: overloaded
        headers: {retry-after: "3"}
      - text: Hello again.
    expect:
      requests: 3
"""


class Impatient:
    """Asks again at once after a failure, once."""

    def __init__(self, ctx: object) -> None:
        self.client = ctx.client.with_options(max_retries=0)  # type: ignore[attr-defined]

    def run_turn(self, text: str) -> None:
        for _ in range(2):
            try:
                self.client.messages.create(model="claude-opus-5-5", max_tokens=100, messages=[{"role": "user", "content": text}])
                return
            except anthropic.APIError:
                continue


def line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


@pytest.fixture
def two_turns(tmp_path: Path) -> Path:
    path = tmp_path / "impatient.yaml"
    path.write_text(TWO_TURNS, encoding="utf-8")
    return path


def test_a_file_mistake_prints_as_compilers_do_and_other_problems_as_their_sentence() -> None:
    mistake = Problem.at((3, 5), "`turns` needs at least 1 item(s)")
    assert str(mistake) == "3:5: `turns` needs at least 1 item(s)"
    assert str(mistake.in_file("s.yaml")) == "s.yaml:3:5: `turns` needs at least 1 item(s)"
    assert str(Problem("workspace: 'a' climbs out", Kind.FILE_MISTAKE, file="s.yaml")) == "s.yaml: workspace: 'a' climbs out"
    invariant = Problem("turn 2: request 3 came too soon", Kind.INVARIANT, file="s.yaml", line=9, turn=2, request=3)
    assert str(invariant) == "turn 2: request 3 came too soon"
    assert str(invariant.under("session 'a'")) == "session 'a': turn 2: request 3 came too soon"


def test_the_old_positional_form_of_a_file_mistake_is_refused() -> None:
    with pytest.raises(TypeError):
        Problem(3, 5, "a message")  # type: ignore[arg-type,call-arg]


def test_a_run_s_problems_say_their_kind_turn_request_and_line(two_turns: Path) -> None:
    outcome = run_scenario(load_scenario(two_turns), agent=Impatient)
    found = {(p.kind, p.turn, p.request, p.line) for p in outcome.problems}
    assert found == {
        (Kind.INVARIANT, 2, 3, None),  # request 3 came before the retry-after the 529 asked for
        (Kind.EXPECTATION, 2, None, line_of(TWO_TURNS, "requests: 3")),
    }, [str(p) for p in outcome.problems]


def test_the_report_reads_each_problem_s_line_from_its_record(two_turns: Path) -> None:
    outcome = run_scenario(load_scenario(two_turns), agent=Impatient)
    record = scenario_record(two_turns, outcome, outcome.problems, 0.0)
    by_kind = {p["kind"]: p for p in record["problems"]}
    assert by_kind["invariant"]["line"] == line_of(TWO_TURNS, "user: again")  # no line of its own: its turn's
    assert by_kind["invariant"]["turn"] == 2 and by_kind["invariant"]["request"] == 3
    assert by_kind["expectation"]["line"] == line_of(TWO_TURNS, "requests: 3")
    assert [t["failing"] for t in record["turns"]] == [False, True, False]


def test_the_line_follows_the_record_not_the_words_of_the_sentence(two_turns: Path) -> None:
    """A sentence naming turn 1 and request 1 is about turn 2 when its record says so."""
    scenario = load_scenario(two_turns)
    about_turn_2 = Problem("turn 1: request 1 and the reply on line 6", Kind.INVARIANT, turn=2)
    assert problem_record(about_turn_2, scenario)["line"] == line_of(TWO_TURNS, "user: again")
    assert problem_record(Problem("turn 1: request 1", Kind.INVARIANT), scenario)["line"] is None
    assert problem_record(Problem("the reply", Kind.HARNESS, line=11, turn=2), scenario)["line"] == 11
    broken = Problem.at((4, 7), "unknown key").in_file(str(two_turns))
    assert problem_record(broken, None) == {"text": f"{two_turns}:4:7: unknown key", "line": 4, "kind": "file_mistake",
                                            "turn": None, "request": None}

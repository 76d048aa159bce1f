"""``harness run|lint|play|schema|check-history``: exit codes, what is printed, and clean
one-line errors instead of tracebacks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import main

PASSING = """\
name: answer-after-overload
about: One 529, then the answer.
settings: {max_retries: 2}
turns:
  - user: Say hello
    replies:
      - error: overloaded
        headers: {retry-after: "1"}
      - text: Hello from the fake API.
    expect: {requests: 2, sleeps: [1.0], end: end_turn}
"""

FAILING = """\
name: expects-too-much
about: The expect block asks for three requests; the agent needs one.
turns:
  - user: Say hello
    replies:
      - text: Hello.
    expect: {requests: 3}
"""

BROKEN = """\
name: broken
about: A misspelt fault key.
turns:
  - user: hi
    replies:
      - eror: overloaded
"""


@pytest.fixture
def scenarios(tmp_path: Path) -> Path:
    """A folder with a passing and a failing scenario."""
    folder = tmp_path / "scenarios"
    folder.mkdir()
    (folder / "passing.yaml").write_text(PASSING, encoding="utf-8")
    (folder / "failing.yaml").write_text(FAILING, encoding="utf-8")
    return folder


def test_run_on_a_passing_scenario_exits_0_with_a_summary_table_and_its_timeline(scenarios, capsys):
    assert main(["run", str(scenarios / "passing.yaml")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["scenario", "result", "requests", "virtual", "s", "wall", "ms", "not", "checked"]
    assert out[1].split()[:4] == ["answer-after-overload", "pass", "3", "1.0"]  # 2 requests + the probe turn
    assert out[2:5] == ["1 passed, 0 failed", "", f"scenario answer-after-overload ({scenarios / 'passing.yaml'})"]
    assert any("→ request 3: POST /v1/messages" in line for line in out[5:])  # one scenario run: its timeline
    assert not any("✗" in line for line in out)


def test_run_on_a_folder_with_a_failure_exits_1_and_prints_its_timeline(scenarios, capsys):
    assert main(["run", str(scenarios)]) == 1
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split()[1] for line in out.splitlines()[1:3]}
    assert rows == {"expects-too-much": "FAIL", "answer-after-overload": "pass"}
    assert "1 passed, 1 failed" in out
    timeline = out.split("1 passed, 1 failed\n", 1)[1]
    assert f"scenario expects-too-much ({scenarios / 'failing.yaml'})" in timeline
    assert "turn 1 > Say hello" in timeline
    assert "→ request 1: POST /v1/messages (1 messages) ← text [200]" in timeline
    assert timeline.rstrip().endswith(f"✗ turn 1: expect.requests: expected 3, the agent made 1 ({scenarios / 'failing.yaml'}:7)")
    assert "answer-after-overload (" not in timeline


def test_run_json_has_one_result_per_scenario(scenarios, capsys):
    assert main(["run", "--json", str(scenarios)]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["passed"] is False
    by_name = {r["name"]: r for r in report["scenarios"]}
    assert set(by_name) == {"answer-after-overload", "expects-too-much"}
    passing, failing = by_name["answer-after-overload"], by_name["expects-too-much"]
    assert (passing["passed"], passing["requests"], passing["virtual_seconds"], passing["problems"]) == (True, 3, 1.0, [])
    assert passing["file"] == str(scenarios / "passing.yaml")
    assert failing["passed"] is False and (passing["result"], failing["result"]) == ("pass", "fail")
    assert failing["problems"] == [f"turn 1: expect.requests: expected 3, the agent made 1 ({scenarios / 'failing.yaml'}:7)"]


def test_run_reports_a_broken_file_with_its_position(scenarios, capsys):
    broken = scenarios / "broken.yaml"
    broken.write_text(BROKEN, encoding="utf-8")
    assert main(["run", str(broken)]) == 1
    out = capsys.readouterr().out
    assert "broken  FAIL" in out
    assert f"\n{broken}:6:9: unknown key 'eror' in reply" in out


def test_run_on_an_empty_folder_fails(tmp_path, capsys):
    assert main(["run", str(tmp_path)]) == 1
    assert "0 passed, 0 failed" in capsys.readouterr().out


def test_lint_prints_path_line_col_for_each_problem_and_exits_1(scenarios, capsys):
    (scenarios / "broken.yaml").write_text(BROKEN.replace("about: A misspelt fault key.\n", ""), encoding="utf-8")
    assert main(["lint", str(scenarios)]) == 1
    lines = capsys.readouterr().out.splitlines()
    broken = scenarios / "broken.yaml"
    assert lines[0].startswith(f"{broken}:5:9: unknown key 'eror' in reply `turns[0].replies[0]` (did you mean 'error'?)")
    assert lines[1] == f"{broken}:1:1: the scenario is missing the required key `about`"
    assert lines[2:] == ["3 file(s), 2 problem(s), 0 note(s)"]


def test_lint_exits_0_on_good_files(scenarios, capsys):
    assert main(["lint", str(scenarios)]) == 0
    assert capsys.readouterr().out == "2 file(s), 0 problem(s), 0 note(s)\n"


def test_schema_prints_the_json_schema(capsys):
    assert main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["title"] == "Fault scenario"
    assert schema["required"] == ["name", "about", "turns"]


def test_schema_writes_to_a_file_with_o(tmp_path, capsys):
    target = tmp_path / "scenario.schema.json"
    assert main(["schema", "-o", str(target)]) == 0
    assert capsys.readouterr().out == ""
    assert json.loads(target.read_text(encoding="utf-8"))["properties"]["turns"]["minItems"] == 1


def test_play_prints_the_transcript_and_a_summary(scenarios, capsys):
    assert main(["play", str(scenarios / "passing.yaml")]) == 0
    out = capsys.readouterr().out
    assert "> Say hello\n" in out
    assert "Hello from the fake API." in out
    assert "> Are you still there?" in out  # the probe turn
    assert out.rstrip().endswith("3 requests, 1.0s of virtual time")


def test_play_lists_the_problems_of_a_failing_scenario(scenarios, capsys):
    assert main(["play", str(scenarios / "failing.yaml")]) == 1
    assert "✗ turn 1: expect.requests: expected 3, the agent made 1" in capsys.readouterr().out


def test_check_history_exits_0_on_a_valid_conversation(tmp_path, capsys):
    history = tmp_path / "good.json"
    history.write_text(json.dumps([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]))
    assert main(["check-history", str(history)]) == 0
    assert capsys.readouterr().out == f"{history}: valid\n"


def test_check_history_exits_1_and_names_each_violation(tmp_path, capsys):
    history = tmp_path / "bad.json"
    tool_use = {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}}
    history.write_text(
        json.dumps(
            [
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": [tool_use]},
                {"role": "user", "content": "no tool result"},
            ]
        )
    )
    assert main(["check-history", str(history)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("messages.2: `tool_use` ids were found without `tool_result` blocks")
    assert lines[-1] == f"{history}: 1 violation(s)"


@pytest.mark.parametrize(
    "argv",
    [["run", "{missing}"], ["lint", "{missing}"], ["play", "{missing}"], ["check-history", "{missing}"]],
    ids=["run", "lint", "play", "check-history"],
)
def test_a_missing_path_is_one_clean_line_and_exit_2(tmp_path, capsys, argv):
    missing = tmp_path / "nowhere.yaml"
    assert main([a.format(missing=missing) for a in argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert len(captured.err.splitlines()) == 1
    assert captured.err.startswith(f"harness: {missing}")
    assert "Traceback" not in captured.err


def test_a_history_file_that_is_not_json_is_exit_2_with_its_position(tmp_path, capsys):
    history = tmp_path / "notjson.json"
    history.write_text("{oops")
    assert main(["check-history", str(history)]) == 2
    assert capsys.readouterr().err.startswith(f"harness: {history}:1:2: not valid JSON")


def test_no_command_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exited:
        main([])
    assert exited.value.code == 2
    assert "usage: harness" in capsys.readouterr().err

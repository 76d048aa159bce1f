"""Every path a scenario names stays where it belongs: workspace keys inside the run's
temporary folder, ``cassette:`` and ``transcript:`` inside the scenario's project, links
included; breaches are lint errors at the line, and a scenario built in Python cannot
write outside either. Replaying a cassette runs its tool calls in a fresh temporary
folder unless ``--in-place`` says otherwise; ``lint --show-commands`` lists them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness.cassette.replay import replay_session
from harness.cli import main
from harness.scenario.format.loader import load_scenario
from harness.scenario.format.model import Scenario, ScenarioError, Turn
from harness.scenario.format.sandbox import copy_into
from harness.scenario.run.runner import run_scenario
from harness.wire.replies import Reply

ROOT = Path(__file__).resolve().parent.parent
RUNS_COMMANDS = ROOT / "tests" / "nasty" / "cassettes" / "runs_commands.yaml"
HEAD = "name: paths\nabout: paths a scenario names\n"
TURN = "turns:\n  - user: hi\n    replies:\n      - text: hello\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project folder (it has a pyproject.toml) inside a folder that must stay untouched."""
    folder = tmp_path / "project"
    (folder / "scenarios").mkdir(parents=True)
    (folder / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    return folder


def problems(path: Path) -> list[str]:
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path)
    return [str(problem) for problem in caught.value.problems]


@pytest.mark.parametrize(
    ("key", "says"),
    [
        ("../escape.txt", "climbs out with `..`"),
        ("a/../../escape.txt", "climbs out with `..`"),
        ("/tmp/escape.txt", "is an absolute path"),
        ("~/escape.txt", "is an absolute path"),
        ("dir/", "names a folder, not a file"),
        (".", "names a folder, not a file"),
    ],
)
def test_a_workspace_key_that_leaves_the_workspace_is_a_lint_error_at_its_line(project: Path, key: str, says: str) -> None:
    path = project / "scenarios" / "x.yaml"
    path.write_text(HEAD + f"workspace:\n  ok.txt: fine\n  {key!r}: pwned\n" + TURN)
    (problem,) = problems(path)
    assert problem.startswith(f"{path}:5:3: `workspace`: the workspace key") and says in problem
    assert "relative to the temporary workspace" in problem or "folder" in problem


def test_a_file_another_key_needs_as_a_folder_is_a_lint_error(project: Path) -> None:
    path = project / "scenarios" / "x.yaml"
    path.write_text(HEAD + "workspace: {a: file, a/b: inside}\n" + TURN)
    assert problems(path) == [f"{path}:3:22: `workspace`: 'a/b' needs 'a' to be a folder, but it is a file here"]


def test_a_cassette_outside_the_project_is_a_lint_error_even_through_a_link(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "c.yaml").write_text("interactions: []\n")
    (project / "linked").symlink_to(outside)
    for cassette in ("../../elsewhere/c.yaml", "../linked/c.yaml", str(outside / "c.yaml")):
        path = project / "scenarios" / "x.yaml"
        path.write_text(HEAD + f"cassette: {cassette}\n" + "turns:\n  - user: hi\n    replies:\n      - recorded: 1\n")
        (problem,) = problems(path)
        assert problem.startswith(f"{path}:3:11: `cassette`: ") and "stay inside its project" in problem


def test_a_cassette_inside_the_project_may_be_reached_with_dot_dot() -> None:
    overlay = ROOT / "scenarios" / "overlays" / "loopback_cut_after_event_5_of_interaction_2.yaml"
    assert "cassette: ../../cassettes/" in overlay.read_text()
    assert load_scenario(overlay).turns


def test_a_transcript_outside_the_project_is_neither_read_nor_written(project: Path, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    path = project / "scenarios" / "x.yaml"
    path.write_text(HEAD + "agent: mini_agent\n" + TURN + "expect:\n  transcript: ../../outside.transcript\n")
    assert problems(path)[0].startswith(f"{path}:") and "outside" in problems(path)[0]
    monkeypatch.setenv("HARNESS_UPDATE_GOLDEN", "1")
    assert main(["run", str(path)]) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["project"]


def test_the_runner_refuses_a_scenario_built_in_python_whose_workspace_leaves_it(tmp_path: Path) -> None:
    target = tmp_path / "escape.txt"
    for key in (f"../{'../' * 12}{target}", str(target), "a/../../x"):
        scenario = Scenario("built", "built in Python", tmp_path / "built.yaml", (Turn("hi", (Reply(message={"text": "ok"}),)),),
                            workspace={key: "pwned"})
        with pytest.raises(ScenarioError) as caught:
            run_scenario(scenario)
        [problem] = caught.value.problems
        assert problem.text.startswith("workspace: ") and str(problem) == f"{scenario.path}: {problem.text}"
    assert not target.exists() and sorted(os.listdir(tmp_path)) == []


def test_copying_a_folder_into_a_workspace_leaves_out_links_that_lead_out(tmp_path: Path) -> None:
    source, workspace = tmp_path / "source", tmp_path / "workspace"
    (source / "src").mkdir(parents=True)
    (source / "src" / "main.py").write_text("print(1)\n")
    (source / "inside.txt").symlink_to(source / "src" / "main.py")
    (source / "outside.txt").symlink_to("/etc/hostname")
    (source / "up").symlink_to(tmp_path)
    os.mkfifo(source / "pipe")
    workspace.mkdir()
    left_out = copy_into(source, workspace)
    assert sorted(left_out) == ["outside.txt", "pipe", "up"]
    assert (workspace / "inside.txt").read_text() == "print(1)\n" and not (workspace / "inside.txt").is_symlink()


def test_replay_runs_recorded_commands_in_a_fresh_workspace_never_here(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = replay_session(RUNS_COMMANDS)
    assert "Wrote 18 bytes to <cwd>/written-by-replay.txt" in result.transcript
    assert os.listdir(tmp_path) == []
    assert main(["replay", str(RUNS_COMMANDS)]) == 0 and os.listdir(tmp_path) == []


def test_replay_in_place_is_the_explicit_way_to_run_them_in_a_folder(tmp_path: Path) -> None:
    assert main(["replay", str(RUNS_COMMANDS), "--cwd", str(tmp_path), "--in-place"]) == 0
    assert sorted(os.listdir(tmp_path)) == ["replay-bash-marker", "written-by-replay.txt"]


def test_replay_with_cwd_works_on_a_copy_of_the_folder(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# Mine\n")
    assert main(["replay", str(RUNS_COMMANDS), "--cwd", str(tmp_path)]) == 0
    assert os.listdir(tmp_path) == ["README.md"]


def test_show_commands_lists_every_command_and_write_before_anything_runs(capsys: pytest.CaptureFixture[str]) -> None:
    hook = ROOT / "scenarios" / "hooks" / "stop_failure_hook_on_401.yaml"
    assert main(["lint", "--show-commands", str(RUNS_COMMANDS), str(hook), str(ROOT / "scenarios" / "tools" / "bash_timeout.yaml")]) == 0
    out = capsys.readouterr().out
    assert "interaction 1: Bash runs: touch replay-bash-marker && echo done" in out
    assert "interaction 2: Write writes written-by-replay.txt (18 bytes)" in out
    assert "settings.stop_failure_hook runs (when a turn ends on an API error): cat > stop_failure.json" in out
    assert "turn 1, reply 1: Bash runs: echo booting; echo warn >&2; sleep 5; echo never" in out
    assert out.rstrip().endswith("3 command(s), 1 file write(s), 0 file read(s), 0 other tool call(s)")

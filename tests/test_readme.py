"""The README's examples stay true: its YAML scenarios load (and pass, run as written),
its Python blocks run (the agent they name is ``readme_agent.MyAgent``), and every line
of its shell blocks either runs offline here — placeholders swapped for real things, and
files written only to a temporary folder — or says in a comment what it needs (the API
key, the network, a recording, a client of yours) or that it runs until Ctrl+C; those,
and pytest and make lines, are parsed with the real argument parsers."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

import harness
from harness.cli import _parser
from harness.scenario.format.loader import load_scenario, problems_in
from harness.scenario.run.runner import run_scenario

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
AGENT = Path(__file__).with_name("readme_agent.py")
NEEDS = re.compile(r"#\s*(needs |runs until Ctrl\+C)")
PLACEHOLDERS = {"my_agent:make_agent": "examples.careful_agent:make_agent"}
OUTPUTS = ("report.html", "junit.xml", "scenario.schema.json", "conversation.json")


def blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", README, re.S | re.M)


def shell_lines() -> list[str]:
    """Each command of the README's ``sh`` blocks, continuation lines joined."""
    lines = []
    for block in blocks("sh"):
        lines += [line.strip() for line in block.replace("\\\n", " ").splitlines() if line.strip()]
    return lines


def words_of(line: str) -> tuple[list[str], str]:
    """The command's words (environment assignments left out) and its comment."""
    command, _, comment = line.partition(" #")
    words = shlex.split(command)
    while words and re.fullmatch(r"[A-Z_]+=\S*", words[0]):
        words = words[1:]
    return words, comment


SCENARIOS = [b for b in blocks("yaml") if isinstance(yaml.safe_load(b), dict) and "turns" in yaml.safe_load(b)]
HARNESS_LINES = [line for line in shell_lines() if words_of(line)[0][:1] == ["harness"]]


def test_the_readme_has_examples_of_every_kind():
    assert len(SCENARIOS) >= 2 and len(blocks("python")) >= 3 and len(HARNESS_LINES) >= 8


def test_the_first_scenario_loads_and_passes_for_mini_agent_and_for_another_agent(tmp_path):
    path = tmp_path / "scenarios" / "example.yaml"
    path.parent.mkdir()
    path.write_text(SCENARIOS[0], encoding="utf-8")
    outcome = run_scenario(load_scenario(path))
    assert outcome.passed, outcome.problems
    sys.path.insert(0, str(AGENT.parent))
    from readme_agent import make_agent

    other = run_scenario(load_scenario(path), agent=make_agent)
    assert other.passed and other.not_checked, other.problems


def test_the_editor_line_heads_a_scenario_that_still_loads(tmp_path):
    [line] = [b for b in blocks("yaml") if b.startswith("# yaml-language-server:")]
    path = tmp_path / "example.yaml"
    path.write_text(line + SCENARIOS[0], encoding="utf-8")
    assert problems_in(path) == []


def test_the_overlay_fragment_loads_beside_the_cassettes(tmp_path):
    [fragment] = [b for b in SCENARIOS if "cassette:" in b]
    shutil.copytree(ROOT / "cassettes", tmp_path / "cassettes")  # a copy: a link out of the project is refused
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")  # the project the paths stay inside
    path = tmp_path / "scenarios" / "overlays" / "fragment.yaml"
    path.parent.mkdir(parents=True)
    path.write_text("name: fragment\nabout: the README's overlay\n" + fragment, encoding="utf-8")
    assert problems_in(path) == []


def test_the_factory_block_builds_an_agent_that_passes_a_library_scenario():
    [block] = [b for b in blocks("python") if "def make_agent(ctx)" in b]
    namespace: dict = {}
    exec(AGENT.read_text(encoding="utf-8"), namespace)
    exec(block, namespace)
    outcome = run_scenario(load_scenario(ROOT / "scenarios/http/overloaded_then_success.yaml"), agent=namespace["make_agent"])
    assert outcome.passed, outcome.problems


def test_the_public_api_section_lists_every_name_harness_offers_once():
    section = README.split("## The public API\n", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"^- `(\w+)` — ", section, re.M)
    assert len(listed) == len(set(listed)) and sorted(listed) == harness.__all__


def test_the_fault_api_block_passes_as_a_test(pytester):
    [block] = [b for b in blocks("python") if "fault_api" in b]
    scenario = re.search(r'mark\.scenario\("([^"]+)"\)', block).group(1)  # type: ignore[union-attr]
    (pytester.path / scenario).parent.mkdir(parents=True)
    (pytester.path / scenario).write_text((ROOT / scenario).read_text(encoding="utf-8"), encoding="utf-8")
    pytester.makepyfile(test_readme_block=AGENT.read_text(encoding="utf-8") + "\n\nimport pytest\n\n\n" + block)
    result = pytester.runpytest("-p", "harness.pytest_plugin", "-p", "no:hypothesispytest", "test_readme_block.py")
    result.assert_outcomes(passed=1)


def test_the_cassette_block_defines_a_marked_test():
    [block] = [b for b in blocks("python") if "cassette_client" in b]
    namespace: dict = {"pytest": pytest}
    exec(block, namespace)
    test = namespace["test_summary"]
    assert [m.name for m in test.pytestmark] == ["cassette"]


@pytest.mark.parametrize("line", HARNESS_LINES)
def test_each_harness_line_runs_offline_or_says_what_it_needs(line, tmp_path):
    words, comment = words_of(line)
    swapped = [PLACEHOLDERS.get(w, str(tmp_path / w) if w in OUTPUTS else w) for w in words]
    try:
        _parser().parse_args(swapped[1:])
    except SystemExit:
        pytest.fail(f"`{line}` does not parse")
    if NEEDS.search(line):
        return
    if "conversation.json" in words:
        history = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
        (tmp_path / "conversation.json").write_text(json.dumps(history), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "harness", *swapped[1:]], cwd=ROOT, capture_output=True, text=True,
                          timeout=180, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, f"`{line}` exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    for written in (w for w in words if w in OUTPUTS and w != "conversation.json"):
        assert (tmp_path / written).stat().st_size > 0


def test_the_other_shell_lines_name_commands_that_exist():
    help_text = subprocess.run([sys.executable, "-m", "pytest", "--help"], cwd=ROOT, capture_output=True, text=True,
                               timeout=120).stdout
    targets = set(re.findall(r"^([a-z][\w-]*):", (ROOT / "Makefile").read_text(), re.M))
    for line in shell_lines():
        words, comment = words_of(line)
        if not words or words[0] in ("harness", "export"):
            continue
        if words[0] == "make":
            assert set(words[1:]) <= targets, line
        elif words[0] == "pytest" or words[1:3] == ["-m", "pytest"]:
            for option in (w.split("=")[0] for w in words if w.startswith("-")):
                assert re.search(rf"(^|[ ,]){re.escape(option)}[ =,\n]", help_text, re.M), f"pytest has no {option}: {line}"
            for path in (w for w in words[1:] if not w.startswith("-") and "/" in w):
                assert (ROOT / path).exists(), line
        else:
            assert NEEDS.search(line), f"`{line}` neither runs here nor says what it needs"


def test_the_events_listing_shown_is_what_the_command_prints():
    shown = README.split("harness events scenarios/stream/cut_after_event.yaml --turn 1 --reply 1\n```\n\n```\n", 1)[1]
    shown = shown.split("```", 1)[0]
    printed = subprocess.run([sys.executable, "-m", "harness", "events", "scenarios/stream/cut_after_event.yaml",
                              "--turn", "1", "--reply", "1"], cwd=ROOT, capture_output=True, text=True, timeout=120).stdout
    for line in shown.splitlines():
        if line.strip() != "…":
            assert line in printed.splitlines(), line


def test_the_yaml_error_shown_is_what_a_broken_file_gets(tmp_path):
    [example] = [line for line in README.splitlines() if "not valid YAML:" in line and line.startswith("scenarios/y.yaml")]
    path = tmp_path / "scenarios" / "y.yaml"
    path.parent.mkdir()
    path.write_text('name: y\nabout: "why\n', encoding="utf-8")
    assert [str(p) for p in problems_in(path)] == [example.replace("scenarios/y.yaml", str(path))]


def test_the_timeline_shown_ends_as_a_failing_expectation_does():
    shown = textwrap.dedent(README.split("last lines naming the file and line of each expectation that failed:\n\n```\n", 1)[1])
    last = shown.split("```", 1)[0].splitlines()[-1]
    assert re.fullmatch(r"  ✗ turn 1: expect\.mini_agent\.sleeps\[1\]: expected \[1\.5, 2\.0\], slept 1\.000s \((.+):(\d+)\)", last)
    path, line = re.search(r"\((.+):(\d+)\)$", last).groups()  # type: ignore[union-attr]
    assert "sleeps:" in (ROOT / path).read_text(encoding="utf-8").splitlines()[int(line) - 1]


def test_fault_api_does_what_the_readme_says(pytester):
    """SDK retries off, the workspace not created, ``next_turn()``, the path from the rootdir."""
    (pytester.path / "scenarios").mkdir()
    (pytester.path / "scenarios" / "two.yaml").write_text(
        "name: two\nabout: two turns\nworkspace: {README.md: x}\nturns:\n"
        "  - user: a\n    replies: [{text: one}]\n  - user: b\n    replies: [{text: two}]\n", encoding="utf-8")
    pytester.mkdir("sub")
    pytester.makepyfile(**{"sub/test_claims": '''
import os
import pytest

@pytest.mark.scenario("scenarios/two.yaml")
def test_claims(fault_api, tmp_path):
    client = fault_api.client()
    assert client.max_retries == 0
    assert not os.path.exists("README.md") and not any(tmp_path.iterdir())
    ask = lambda: client.messages.create(model="m", max_tokens=9, messages=[{"role": "user", "content": "a"}])
    assert ask().content[0].text == "one"
    fault_api.next_turn()
    assert ask().content[0].text == "two"
'''})
    result = pytester.runpytest("-p", "harness.pytest_plugin", "-p", "no:hypothesispytest", "sub")
    result.assert_outcomes(passed=1)


def test_the_policy_table_names_every_policy_and_the_example_declares_them_as_the_harness_reads_them():
    from harness.scenario.checks.policies import declared_policies
    from harness.scenario.format.policy_names import POLICIES

    section = README.split("### What an agent may choose: policies\n", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"^\| `(\w+)(?:: \w+)?` \|", section, re.M)
    assert listed == list(POLICIES)
    [block] = [b for b in blocks("python") if "harness_policies" in b]
    namespace: dict = {}
    exec(block, namespace)
    assert declared_policies(namespace["MyAgent"]()) == {"retries": 4, "gives_up_on_final_errors": True, "never_raises": True}


def test_the_side_requests_example_is_a_declaration_the_harness_reads_and_its_keys_are_the_ones_it_knows():
    from harness.scenario.fake_api.side_requests import SideRequests
    from harness.scenario.format.side_requests import WHEN_KEYS, side_rules

    [block] = [textwrap.dedent(b) for b in re.findall(r"^  ```python\n(.*?)^  ```$", README, re.S | re.M)
               if "harness_side_requests" in b]
    namespace: dict = {}
    exec(block, namespace)
    policy = SideRequests([])
    policy.rules = side_rules(namespace["MyAgent"].harness_side_requests)
    title = {"model": "m", "system": "Write a short title for this.", "messages": [{"role": "user", "content": "hi"}]}
    route = {"model": "claude-haiku-4-5", "tool_choice": {"type": "tool", "name": "route"}, "messages": []}
    assert policy.rule_for(title) is policy.rules[0] and policy.rule_for(route) is policy.rules[1]
    assert policy.rule_for({**title, "system": "You are a coding agent."}) is None
    section = README.split("- **Side requests.**", 1)[1].split("\n- **", 1)[0]
    assert re.findall(r"`(\w+)` \(", section)[: len(WHEN_KEYS)] == list(WHEN_KEYS)

"""The pytest plugin, run on generated projects: YAML under ``scenarios/`` becomes test
items named after their scenarios, failures print the timeline, broken files print
``path:line:col`` without a traceback, and ``fault_api`` checks a test's own client."""

from __future__ import annotations

import os

import pytest

pytest_plugins = ["pytester"]

# ``-p harness.pytest_plugin`` is a no-op when the pytest11 entry point already loaded it;
# hypothesis's plugin is left out because re-importing it costs seconds per inner session.
PLUGIN = ("-p", "harness.pytest_plugin", "-p", "no:hypothesispytest")

SAYS_HELLO = """\
name: says-hello
about: One question, one answer.
turns:
  - user: hi
    replies:
      - text: hello
"""

TOO_FEW_REPLIES = """\
name: too-few-replies
about: The agent asks again after its tool call, but the turn has one reply.
workspace: {README.md: "# Demo\\n"}
turns:
  - user: Read it
    replies:
      - tool_use: {name: Read, input: {file_path: README.md}}
"""

BROKEN = """\
name: broken
about: A misspelt fault key.
turns:
  - user: hi
    replies:
      - eror: overloaded
"""

OVERLOADED_ONCE = """\
name: overloaded-once
about: One 529, then the answer.
settings: {max_retries: 2}
turns:
  - user: hi
    replies:
      - error: overloaded
        headers: {retry-after: "1"}
      - text: hello
    expect: {requests: 2}
"""

TWO_TURNS = """\
name: two-turns
about: Two replies in the first turn, one in the second.
turns:
  - user: hi
    replies:
      - text: hello
      - text: never asked for
  - user: again
    replies:
      - text: hello again
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """A project with a passing, a failing and a broken scenario."""
    pytester.makefile(".yaml", **{"scenarios/says_hello": SAYS_HELLO, "scenarios/http/too_few": TOO_FEW_REPLIES})
    pytester.makefile(".yml", **{"scenarios/broken": BROKEN})
    return pytester


def outcomes_by_id(result: pytest.RunResult) -> dict[str, str]:
    """``{node id: PASSED|FAILED}`` from a ``-rA`` summary."""
    found = {}
    for line in result.outlines:
        verdict, _, rest = line.partition(" ")
        if verdict in ("PASSED", "FAILED", "ERROR") and "::" in rest:
            found[rest.split(" - ")[0]] = verdict
    return found


@pytest.mark.skipif(bool(os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD")), reason="entry points are off")
def test_the_plugin_is_active_through_its_entry_point(pytester):
    result = pytester.runpytest("--markers")
    result.stdout.fnmatch_lines(["@pytest.mark.scenario(path, tool_map=None): bind the fault_api fixture to a scenario file*"])


def test_scenario_files_are_collected_as_items_named_after_the_scenario(project):
    result = project.runpytest(*PLUGIN, "--collect-only", "-q")
    result.stdout.fnmatch_lines(
        ["scenarios/broken.yml::broken", "scenarios/http/too_few.yaml::too-few-replies", "scenarios/says_hello.yaml::says-hello"]
    )


def test_yaml_outside_a_scenarios_folder_is_not_collected(pytester):
    pytester.makefile(".yaml", **{"config/says_hello": SAYS_HELLO})
    result = pytester.runpytest(*PLUGIN, "--collect-only", "-q")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_other_folder_names_can_be_configured(pytester):
    pytester.makefile(".yaml", **{"faults/says_hello": SAYS_HELLO})
    pytester.makeini("[pytest]\nharness_scenario_dirs = faults\n")
    pytester.runpytest(*PLUGIN).assert_outcomes(passed=1)


def test_k_selects_scenarios_by_name(project):
    result = project.runpytest(*PLUGIN, "-k", "says-hello", "-rA")
    result.assert_outcomes(passed=1, deselected=2)
    assert outcomes_by_id(result) == {"scenarios/says_hello.yaml::says-hello": "PASSED"}


def test_a_failing_scenario_prints_its_timeline(project):
    result = project.runpytest(*PLUGIN, "-k", "too-few-replies")
    result.assert_outcomes(failed=1, deselected=2)
    result.stdout.fnmatch_lines(
        [
            "*_ scenario: too-few-replies _*",
            "scenario too-few-replies (*too_few.yaml)",
            "  The agent asks again after its tool call, but the turn has one reply.",
            "  t=   0.000s turn 1 > Read it",
            "  t=   0.000s   → request 1: POST /v1/messages (1 messages) ← tool_use [200]",
            "  t=   0.000s     ⚙ tool Read called",
            "  t=   0.000s   → request 2: POST /v1/messages (3 messages) ← no reply left [500]",
            "  t=   0.000s     ■ turn ended: error",
            "  t=   0.000s the probe turn > Are you still there?",
            "  ✗ the agent made request 2 but turn 1 has 1 replies",
        ]
    )
    result.stdout.no_fnmatch_line("*Traceback*")
    result.stdout.no_fnmatch_line("*harness/*.py*")


def test_a_broken_file_fails_with_its_position_and_no_traceback(project):
    result = project.runpytest(*PLUGIN, "-k", "broken")
    result.assert_outcomes(failed=1, deselected=2)
    broken = project.path / "scenarios" / "broken.yml"
    result.stdout.fnmatch_lines(
        [
            "*_ scenario file: broken.yml _*",
            f"{broken}:6:9: unknown key 'eror' in reply `turns?0?.replies?0?` (did you mean 'error'?); valid keys: *",
            "*= short test summary info =*",
        ],
        consecutive=True,
    )
    result.stdout.no_fnmatch_line("*Traceback*")
    result.stdout.no_fnmatch_line("*ScenarioFailed*")


def test_xdist_runs_scenarios_in_parallel_with_the_same_outcomes(project):
    result = project.runpytest_subprocess(*PLUGIN, "-p", "xdist", "-n", "2", "-rA")
    result.assert_outcomes(passed=1, failed=2)
    assert outcomes_by_id(result) == {
        "scenarios/says_hello.yaml::says-hello": "PASSED",
        "scenarios/http/too_few.yaml::too-few-replies": "FAILED",
        "scenarios/broken.yml::broken": "FAILED",
    }
    result.stdout.fnmatch_lines(["  ✗ the agent made request 2 but turn 1 has 1 replies"])
    result.stdout.no_fnmatch_line("*Traceback*")


# --- the fault_api fixture ---------------------------------------------------------------

TEST_CLIENT = """
import anthropic
import pytest

def ask(client, text):
    return client.messages.create(
        model="claude-opus-5-5", max_tokens=256, messages=[{"role": "user", "content": text}]
    )
"""


def test_fault_api_passes_when_the_wire_invariants_hold(pytester):
    pytester.makefile(".yaml", **{"wire/overloaded_once": OVERLOADED_ONCE})
    pytester.makepyfile(
        TEST_CLIENT
        + """
@pytest.mark.scenario("wire/overloaded_once.yaml")
def test_retries_the_same_request_after_retry_after(fault_api):
    client = fault_api.client()
    with pytest.raises(anthropic.APIStatusError) as caught:
        ask(client, "hi")
    assert caught.value.status_code == 529
    fault_api.clock.sleep(float(caught.value.response.headers["retry-after"]))
    assert ask(client, "hi").content[0].text == "hello"
"""
    )
    pytester.runpytest(*PLUGIN).assert_outcomes(passed=1)


def test_fault_api_clients_with_the_sdks_retries_wait_on_its_clock(pytester):
    pytester.makefile(".yaml", **{"wire/overloaded_once": OVERLOADED_ONCE})
    pytester.makepyfile(
        TEST_CLIENT
        + """
@pytest.mark.scenario("wire/overloaded_once.yaml")
def test_the_sdk_retries(fault_api):
    assert ask(fault_api.client().with_options(max_retries=2), "hi").content[0].text == "hello"
    assert fault_api.clock.now() >= 1.0  # the SDK's wait for retry-after, on the virtual clock
"""
    )
    pytester.runpytest(*PLUGIN).assert_outcomes(passed=1)


CALLS_READ = """\
name: calls-read
about: A call of the standard Read, answered, then the answer.
turns:
  - user: read it
    replies:
      - tool_use: {name: Read, input: {file_path: notes.txt}}
      - text: done
"""


def test_fault_api_renames_the_standard_tools_by_the_markers_tool_map(pytester):
    pytester.makefile(".yaml", **{"wire/calls_read": CALLS_READ})
    pytester.makepyfile(
        """
import pytest

OPEN = {"name": "open_file", "description": "Open a file.",
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}

@pytest.mark.scenario("wire/calls_read.yaml", tool_map={"Read": {"name": "open_file", "input": {"file_path": "path"}}})
def test_its_own_names(fault_api):
    client, history = fault_api.client(), [{"role": "user", "content": "read it"}]
    call = client.messages.create(model="m", max_tokens=64, tools=[OPEN], messages=history).content[0]
    assert (call.name, call.input) == ("open_file", {"path": "notes.txt"})
    history += [{"role": "assistant", "content": [call.model_dump()]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call.id, "content": "alpha"}]}]
    assert client.messages.create(model="m", max_tokens=64, tools=[OPEN], messages=history).content[0].text == "done"

@pytest.mark.scenario("wire/calls_read.yaml", tool_map={"Read": "open_file"})
def test_a_broken_map(fault_api):
    pass
"""
    )
    result = pytester.runpytest(*PLUGIN)
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["@pytest.mark.scenario: tool_map*Read* must be a mapping with a `name`*"])
    result.stdout.no_fnmatch_line("*Traceback*")


def test_fault_api_fails_at_teardown_when_replies_are_left_unused(pytester):
    pytester.makefile(".yaml", **{"wire/overloaded_once": OVERLOADED_ONCE})
    pytester.makepyfile(
        TEST_CLIENT
        + """
@pytest.mark.scenario("wire/overloaded_once.yaml")
def test_gives_up_after_one_529(fault_api):
    with pytest.raises(anthropic.APIStatusError):
        ask(fault_api.client(), "hi")
"""
    )
    result = pytester.runpytest(*PLUGIN)
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*_ ERROR at teardown of test_gives_up_after_one_529 _*",
            "turn 1: expect.requests: expected 2, the client made 1 (*.yaml:*)",  # where the scenario says it
            "turn 1: 1 reply(ies) never requested",
        ]
    )
    result.stdout.no_fnmatch_line("*Traceback*")


def test_fault_api_fails_at_teardown_when_a_retry_sends_a_different_body(pytester):
    pytester.makefile(".yaml", **{"wire/overloaded_once": OVERLOADED_ONCE})
    pytester.makepyfile(
        TEST_CLIENT
        + """
@pytest.mark.scenario("wire/overloaded_once.yaml")
def test_retry_that_rewrites_the_question(fault_api):
    client = fault_api.client()
    with pytest.raises(anthropic.APIStatusError):
        ask(client, "hi")
    fault_api.clock.sleep(1.0)
    ask(client, "hi, again")
"""
    )
    result = pytester.runpytest(*PLUGIN)
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "turn 1: request 2 retries request 1 but changes the conversation*",
            '*-*"content": "hi"*',
            '*+*"content": "hi, again"*',
        ]
    )


def test_fault_api_fails_at_teardown_when_retry_after_is_not_honoured(pytester):
    pytester.makefile(".yaml", **{"wire/overloaded_once": OVERLOADED_ONCE})
    pytester.makepyfile(
        TEST_CLIENT
        + """
@pytest.mark.scenario("wire/overloaded_once.yaml")
def test_retries_too_soon(fault_api):
    client = fault_api.client()
    with pytest.raises(anthropic.APIStatusError):
        ask(client, "hi")
    fault_api.clock.sleep(0.25)
    ask(client, "hi")
"""
    )
    result = pytester.runpytest(*PLUGIN)
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["turn 1: request 2 came 0.250s after request 1, which asked for retry-after 1s"])


def test_fault_api_checks_every_turn_after_next_turn(pytester):
    pytester.makefile(".yaml", **{"wire/two_turns": TWO_TURNS})
    pytester.makepyfile(
        TEST_CLIENT
        + """
@pytest.mark.scenario("wire/two_turns.yaml")
def test_moves_on_with_a_reply_left_in_turn_1(fault_api):
    client = fault_api.client()
    assert ask(client, "hi").content[0].text == "hello"
    fault_api.next_turn()
    assert ask(client, "again").content[0].text == "hello again"
"""
    )
    result = pytester.runpytest(*PLUGIN)
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["turn 1: 1 reply(ies) never requested"])
    result.stdout.no_fnmatch_line("turn 2: *")


def test_fault_api_without_a_scenario_marker_is_a_usage_error(pytester):
    pytester.makepyfile("def test_forgot_the_marker(fault_api):\n    pass\n")
    result = pytester.runpytest(*PLUGIN)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*fault_api needs @pytest.mark.scenario('path/to/scenario.yaml')*"])

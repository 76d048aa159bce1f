"""Hypothesis-made hostile input for the readers of the harness: scenario files, saved
conversations and cassettes, as near misses of the real thing (valid keys with wrong,
huge, negative or nested values; raw text with control bytes; aliases). Every reader
answers with its own error naming the file and line, or with a result: never another
exception. Then every command, on every kind of file it reads (scenarios, cassettes,
recorded requests, redaction rules, baselines, agent names): a clean error naming the
file, never the CLI's "internal error". The hand-made nasties are in
``test_nasty_corpus``."""

from __future__ import annotations

import copy
import json
import os
import re
import socket
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.cassette.redaction.config import RULES_VARIABLE
from harness.cassette.scan import scan_file
from harness.cassette.show import file_actions
from harness.cli import main
from harness.oracle.history_file import HistoryFileError, check_history_file
from harness.scenario.format.loader import load_scenario
from harness.scenario.format.model import ScenarioError
from harness.scenario.format.schema import KIND_FIELDS, MESSAGE_FIELDS
from harness.scenario.run.runner import run_scenario
from harness.serve.report import build_server
from harness.wire.cassette_file import CassetteError, load_cassette
from harness.wire.sse import message_events

FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
WHERE = re.compile(r":\d+:\d+: ")  # path:line:col
REPLY_KEYS = [*MESSAGE_FIELDS, *KIND_FIELDS, "cut", "drip", "pings", "stall", "error_event", "insert", "duplicate",
              "swap", "end_early", "bad_data", "interrupt", "headers", "message", "body", "connection"]
SAFE_TOOLS = ("Read", "Unknown")  # runs never call Bash or Write with made-up input

scalars = st.one_of(
    st.integers(min_value=-(10**12), max_value=10**12), st.floats(allow_nan=True), st.booleans(), st.none(),
    st.text(max_size=30), st.sampled_from(["/[/", "/(?P<x/", "", " ", "\x00", "\x1b[31m", "../x", "/etc/passwd", "~"]),
)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                      max_leaves=20)


@st.composite
def replies(draw: st.DrawFn) -> dict[str, Any]:
    reply = draw(st.dictionaries(st.sampled_from(REPLY_KEYS), values, max_size=3))
    if "tool_use" in reply:
        reply["tool_use"] = {"name": draw(st.sampled_from(SAFE_TOOLS)), "input": draw(values)}
    reply.pop("events", None), reply.pop("content", None), reply.pop("recorded", None)
    return reply


@st.composite
def scenario_documents(draw: st.DrawFn) -> Any:
    turns = draw(st.lists(st.fixed_dictionaries(
        {"user": st.one_of(st.text(max_size=20), values)},
        optional={"replies": st.lists(replies(), max_size=3), "expect": st.dictionaries(
            st.sampled_from(["requests", "sleeps", "notices", "end", "tools", "text", "tool_results"]), values, max_size=2)},
    ), max_size=3))
    document = {"name": draw(st.one_of(st.just("fuzz"), values)), "about": "fuzz", "turns": turns}
    extra = draw(st.dictionaries(st.sampled_from(["settings", "workspace", "expect", "probe", "agent"]), values, max_size=2))
    return draw(st.one_of(st.just({**document, **extra}), values))


def mangled(text: str, data: st.DataObject) -> str:
    """``text`` with a few characters replaced by hostile ones."""
    chars = list(text)
    for _ in range(data.draw(st.integers(0, 3))):
        if chars:
            at = data.draw(st.integers(0, len(chars) - 1))
            chars[at] = data.draw(st.sampled_from(["\x01", "\x7f", "\ufeff", "&a ", "*a", "[", "{", ":", "\t", "'", '"', "!!binary "]))
    return "".join(chars)


@FUZZ
@given(document=scenario_documents(), data=st.data())
def test_a_made_up_scenario_loads_or_is_refused_at_a_line(tmp_path_factory: Any, document: Any, data: st.DataObject) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "scenario.yaml"
    text = yaml.safe_dump(document, allow_unicode=True)
    path.write_text(mangled(text, data) if data.draw(st.booleans()) else text, encoding="utf-8", errors="surrogatepass")
    try:
        scenario = load_scenario(path)
    except ScenarioError as error:
        printed = [str(p) for p in error.problems]
        assert printed and all(str(path) in p and WHERE.search(p) for p in printed), printed
        return
    try:
        run_scenario(scenario)  # only Read and unknown tools: nothing outside the workspace is touched
    except ScenarioError as error:
        assert all(str(path) in str(p) for p in error.problems)


@FUZZ
@given(document=values, data=st.data())
def test_a_made_up_conversation_file_is_checked_or_refused_at_a_line(tmp_path_factory: Any, document: Any, data: st.DataObject) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "history.json"
    messages = data.draw(st.lists(st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant", "system", 5]),
                                                         "content": values}), max_size=3))
    body = data.draw(st.sampled_from([document, messages, {"messages": messages, "model": document, "max_tokens": document}]))
    path.write_text(mangled(json.dumps(body), data), encoding="utf-8", errors="surrogatepass")
    try:
        violations = check_history_file(path)
    except HistoryFileError as error:
        assert str(error).startswith(f"{path}:") and WHERE.search(str(error) + " ")
        return
    assert all(isinstance(v, str) and v for v in violations)


@FUZZ
@given(interactions=st.lists(st.fixed_dictionaries({"request": values, "response": values}), max_size=3), data=st.data())
def test_a_made_up_cassette_is_read_or_refused_and_scanning_it_never_fails(tmp_path_factory: Any, interactions: Any,
                                                                              data: st.DataObject) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "cassette.yaml"
    path.write_text(mangled(yaml.safe_dump({"interactions": interactions, "version": 1}), data), encoding="utf-8",
                    errors="surrogatepass")
    try:
        load_cassette(path)
    except CassetteError as error:
        assert str(error).startswith(str(path))
    try:
        list(file_actions(path))
    except (CassetteError, ScenarioError) as error:
        assert str(path) in str(error)
    assert isinstance(scan_file(path), list)


# --- every command, on every kind of file it reads ------------------------------------------
#
# Each file goes through the commands that read it, in process (``harness.cli.main``). A
# command may fail, but as the CLI fails on bad input: a line naming the file (with its
# line where there is one) and exit 2; never a traceback, never "internal error".

ROOT = Path(__file__).resolve().parent.parent
LIBRARY = ROOT / "harness" / "library"
BASE_CASSETTE = LIBRARY / "cassettes" / "loopback_read_readme.yaml"
PLAIN_SCENARIO = "name: plain\nabout: fuzz\nturns:\n  - user: hi\n    replies:\n      - text: hello\n"
COMMANDS = settings(max_examples=int(os.environ.get("HARNESS_FUZZ_EXAMPLES", "30")), deadline=None,
                    suppress_health_check=list(HealthCheck))  # HARNESS_FUZZ_EXAMPLES=1000 searches longer
SAFE_AGENTS = ["", ":", "no.such.module:factory", "os:getcwd", "json:loads", "math:pi", "json", "harness:nothing",
               "a b:c", "..:x", "json:JSONDecodeError", "harness.agents.mini_agent:settings_from_cassette"]
HOSTILE = st.sampled_from(["http://[zz/v1/messages", "", "hello", "\x00", "!!binary", "ftp://x", 10**30, -1, None, [], {}])


def harness(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    """``harness ARGV`` in process: its exit code and what it said."""
    capsys.readouterr()
    code = main(list(argv))
    said = capsys.readouterr()
    return code, said.out + said.err


def assert_clean(code: int, said: str, *named: Path) -> None:
    """A failure the CLI owns up to as bad input: exit 2 naming one of ``named``."""
    assert "internal error" not in said and "Traceback" not in said, said
    if code == 2 and named:
        assert any(str(path) in said or path.name in said for path in named), said


def mutated(data: Any, draw: st.DrawFn, count: int) -> Any:
    """``data`` with ``count`` of its values (anywhere, JSON request bodies inside included)
    replaced by made-up or hostile ones."""
    for _ in range(count):
        paths = list(_paths(data))
        path = draw(st.sampled_from(paths))
        replacement = draw(st.one_of(values, HOSTILE))
        data = _replace(data, path, replacement) if path else replacement
    return data


def _paths(node: Any, prefix: tuple = ()) -> Any:
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "body" and isinstance(value, str) and value.startswith("{"):
                yield from _paths(json.loads(value), (*prefix, key, "json"))
            else:
                yield from _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _paths(value, (*prefix, index))


def _replace(node: Any, path: tuple, value: Any) -> Any:
    if path[:1] == ("json",):
        return json.dumps(_replace(json.loads(node), path[1:], value)) if len(path) > 1 else json.dumps(value)
    copied = copy.copy(node)
    copied[path[0]] = _replace(node[path[0]], path[1:], value) if len(path) > 1 else value
    return copied


@st.composite
def cassette_texts(draw: st.DrawFn) -> str:
    """A real recorded cassette with a few of its values made up, or anything YAML."""
    data = yaml.safe_load(BASE_CASSETTE.read_text())
    data = mutated(data, draw, draw(st.integers(1, 3))) if draw(st.integers(0, 4)) else draw(values)
    return yaml.safe_dump(data, allow_unicode=True, width=1_000_000)


@st.composite
def raw_event_scenarios(draw: st.DrawFn) -> str:
    """A scenario whose reply is raw events: a real stream (text, then a tool call) with a
    few of its values made up."""
    spec = {"text": "Reading it.", "tool_use": {"name": "Read", "input": {"file_path": "README.md"}}}
    events = mutated(message_events(spec, message_id="msg_fuzz"), draw, draw(st.integers(1, 3)))
    document = {"name": "raw", "about": "fuzz", "workspace": {"README.md": "hi\n"},
                "turns": [{"user": "hi", "replies": [{"events": events}, {"text": "done"}]}]}
    return yaml.safe_dump(document, allow_unicode=True, width=1_000_000)


@pytest.fixture(scope="module")
def refusing_api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The fault server answering every request with a 400: a recording ends at once."""
    path = tmp_path_factory.mktemp("api") / "refuse.yaml"
    path.write_text(PLAIN_SCENARIO.replace("- text: hello", "- error: invalid_request"))
    server = build_server(load_scenario(path), host="127.0.0.1", port=0, time_scale=0.0, log=None, log_path=None)
    server.start()
    try:
        yield server.url
    finally:
        server.close()


@pytest.fixture
def quiet_environment(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder to work in; harness run's --lf memory and the redaction rules kept apart."""
    folder = tmp_path_factory.mktemp("commands")
    monkeypatch.setenv("HARNESS_CACHE_DIR", str(folder / "cache"))
    monkeypatch.delenv(RULES_VARIABLE, raising=False)
    return folder


@COMMANDS
@given(document=st.one_of(scenario_documents(), raw_event_scenarios()), data=st.data())
def test_every_command_that_reads_a_scenario_fails_cleanly_on_a_made_up_one(
    capsys: pytest.CaptureFixture[str], quiet_environment: Path, document: Any, data: st.DataObject,
) -> None:
    path = quiet_environment / f"scenario{data.draw(st.integers(0, 10**6))}.yaml"
    text = document if isinstance(document, str) else yaml.safe_dump(document, allow_unicode=True)
    path.write_text(mangled(text, data) if data.draw(st.booleans()) else text, encoding="utf-8", errors="surrogatepass")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        for argv in (["lint", str(path)], ["lint", "--show-commands", str(path)], ["events", str(path)],
                     ["run", str(path)], ["play", str(path)], ["serve", str(path), "--port", port]):
            code, said = harness(capsys, *argv)
            assert_clean(code, said, *([path] if argv[0] != "serve" else []))  # serve may fail on its port


@COMMANDS
@given(text=cassette_texts(), data=st.data())
def test_every_command_that_reads_a_cassette_fails_cleanly_on_a_made_up_one(
    capsys: pytest.CaptureFixture[str], quiet_environment: Path, refusing_api: str, text: str, data: st.DataObject,
) -> None:
    path = quiet_environment / f"cassette{data.draw(st.integers(0, 10**6))}.yaml"
    path.write_text(mangled(text, data) if data.draw(st.booleans()) else text, encoding="utf-8", errors="surrogatepass")
    overlay = path.with_name(f"overlay_{path.name}")
    overlay.write_text(PLAIN_SCENARIO.replace("- text: hello", "- recorded: 1") + f"cassette: {path.name}\n")
    closed = f"http://127.0.0.1:{_closed_port()}"
    for argv in (["replay", str(path)], ["replay", "--engine", "vcr", str(path)], ["scan", str(path)],
                 ["lint", "--show-commands", str(path)], ["drift", str(path), "--base-url", closed],
                 ["lint", str(overlay)], ["run", str(overlay)]):
        code, said = harness(capsys, *argv)
        assert_clean(code, said, path, overlay)
    mode = data.draw(st.sampled_from(["all", "new_episodes", "once", "none"]))
    recorded = path.with_name(f"recorded_{path.name}")
    recorded.write_bytes(path.read_bytes())
    code, said = harness(capsys, "record", "--cassette", str(recorded), "--record-mode", mode, "--base-url", refusing_api,
                         "--", "hi")
    assert_clean(code, said, recorded)


@COMMANDS
@given(document=values, data=st.data())
def test_check_history_fails_cleanly_on_a_made_up_recorded_request(
    capsys: pytest.CaptureFixture[str], quiet_environment: Path, document: Any, data: st.DataObject,
) -> None:
    path = quiet_environment / "requests.jsonl"
    lines = data.draw(st.lists(st.one_of(
        st.fixed_dictionaries({"headers": st.one_of(values, st.dictionaries(st.just("anthropic-beta"), values)), "body": values}),
        st.fixed_dictionaries({"path": st.sampled_from(["/v1/messages", "/v1/models", 5]), "request": values}),
        st.just(document),
    ), min_size=1, max_size=3))
    path.write_text("\n".join(json.dumps(line) for line in lines), encoding="utf-8")
    for betas in ([], ["--betas", ""], ["--betas", "files-api-2025-04-14,x"]):
        code, said = harness(capsys, "check-history", str(path), *betas)
        assert_clean(code, said, path)


@COMMANDS
@given(rules=st.lists(st.one_of(st.text(max_size=30), st.sampled_from(
    ["literal: ab", "pattern x: (", "pattern : a", "allow: [", "allow: .*", "pattern key: (?P<secret>a+)", "literal:"])), max_size=4),
    baseline=values, agent=st.sampled_from(SAFE_AGENTS))
def test_rules_files_baselines_and_agent_names_made_up_fail_cleanly(
    capsys: pytest.CaptureFixture[str], quiet_environment: Path, monkeypatch: pytest.MonkeyPatch, rules: list[str],
    baseline: Any, agent: str,
) -> None:
    scenario = quiet_environment / "plain.yaml"
    scenario.write_text(PLAIN_SCENARIO)
    rules_file, baseline_file = quiet_environment / "rules.txt", quiet_environment / "baseline.json"
    rules_file.write_text("\n".join(rules), encoding="utf-8", errors="surrogatepass")
    baseline_file.write_text(json.dumps(baseline))
    code, said = harness(capsys, "run", "--baseline", str(baseline_file), str(scenario))
    assert_clean(code, said, baseline_file)
    code, said = harness(capsys, "run", "--agent", agent, str(scenario))
    assert_clean(code, said)
    assert code != 2 or "agent" in said, said  # the agent name is what is wrong
    monkeypatch.setenv(RULES_VARIABLE, str(rules_file))
    code, said = harness(capsys, "scan", str(BASE_CASSETTE))
    assert_clean(code, said, rules_file)


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]

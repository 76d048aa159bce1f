"""Hypothesis-made hostile input for the readers of the harness: scenario files, saved
conversations and cassettes, as near misses of the real thing (valid keys with wrong,
huge, negative or nested values; raw text with control bytes; aliases). Every reader
answers with its own error naming the file and line, or with a result: never another
exception. The hand-made nasties are in ``test_nasty_corpus``."""

from __future__ import annotations

import json
import re
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.cassette.scan import scan_file
from harness.cassette.show import file_actions
from harness.oracle.history_file import HistoryFileError, check_history_file
from harness.scenario.format.loader import load_scenario
from harness.scenario.format.model import ScenarioError
from harness.scenario.format.schema import KIND_FIELDS, MESSAGE_FIELDS
from harness.scenario.run.runner import run_scenario
from harness.wire.cassette_file import CassetteError, load_cassette

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

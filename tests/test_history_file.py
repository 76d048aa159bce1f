"""`harness check-history FILE`: saved conversations in, readable violation lines out."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from harness.oracle.history_file import HistoryFileError, check_history_file

GOOD = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello."}]
DANGLING = [
    {"role": "user", "content": "Read it"},
    {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_A", "name": "Read", "input": {}}]},
    {"role": "user", "content": "Never mind"},
]
DANGLING_LINE = (
    "messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_A. "
    "Each `tool_use` block must have a corresponding `tool_result` block in the next message."
)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "history.json"
    path.write_text(text)
    return path


def test_valid_message_list_has_no_violations(tmp_path: Path) -> None:
    assert check_history_file(write(tmp_path, json.dumps(GOOD, indent=2))) == []


def test_message_list_with_a_dangling_tool_use_is_reported(tmp_path: Path) -> None:
    assert check_history_file(write(tmp_path, json.dumps(DANGLING))) == [DANGLING_LINE]


def test_request_body_is_checked_as_a_whole_request(tmp_path: Path) -> None:
    body: dict[str, Any] = {"model": "m", "max_tokens": 1, "messages": GOOD, "tools": [{"name": "a.b", "input_schema": {}}]}
    assert check_history_file(write(tmp_path, json.dumps(body))) == [
        "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'"
    ]


def test_json_lines_are_reported_with_their_line_numbers(tmp_path: Path) -> None:
    lines = [json.dumps(GOOD), "", json.dumps({"messages": DANGLING}), json.dumps(DANGLING)]
    assert check_history_file(write(tmp_path, "\n".join(lines) + "\n")) == [
        f"line 3: {DANGLING_LINE}",
        f"line 4: {DANGLING_LINE}",
    ]


def test_invalid_json_names_the_file_line_column_and_what_was_expected(tmp_path: Path) -> None:
    path = write(tmp_path, '[\n  {"role": "user", "content": "Hi"}\n  {"role": "assistant"}\n]')
    with pytest.raises(HistoryFileError) as caught:
        check_history_file(path)
    assert str(caught.value) == (
        f"{path}:3:3: not valid JSON (Expecting ',' delimiter); "
        'expected a JSON list of messages, a request object with "messages", a recorded request, or JSON Lines of these'
    )


def test_invalid_json_line_is_reported_at_its_own_line(tmp_path: Path) -> None:
    path = write(tmp_path, json.dumps(GOOD) + "\n" + json.dumps(GOOD) + "\n" + '{"messages": [}\n')
    with pytest.raises(HistoryFileError, match=rf"^{re.escape(str(path))}:3:15: not valid JSON \(Expecting value\)"):
        check_history_file(path)


def test_garbage_after_a_multi_line_document_is_reported_where_it_starts(tmp_path: Path) -> None:
    document = json.dumps(GOOD, indent=2)
    path = write(tmp_path, document + "\nextra")
    garbage_line = document.count("\n") + 2
    with pytest.raises(HistoryFileError, match=rf"^{re.escape(str(path))}:{garbage_line}:1: not valid JSON \(Extra data\)"):
        check_history_file(path)


def test_empty_file_is_an_error(tmp_path: Path) -> None:
    path = write(tmp_path, "\n")
    with pytest.raises(HistoryFileError, match=rf"^{re.escape(str(path))}:1:1: the file is empty; expected a JSON list"):
        check_history_file(path)


@pytest.mark.parametrize(("document", "found"), [({"model": "m"}, 'an object without "messages"'), ("hi", "a string")])
def test_json_that_is_not_a_conversation_is_an_error(tmp_path: Path, document: Any, found: str) -> None:
    path = write(tmp_path, json.dumps(document))
    with pytest.raises(HistoryFileError, match=rf"^{re.escape(str(path))}:1:1: found {found}; expected a JSON list"):
        check_history_file(path)


def test_missing_file_is_an_error_not_a_traceback(tmp_path: Path) -> None:
    with pytest.raises(HistoryFileError, match="cannot read the file"):
        check_history_file(tmp_path / "absent.json")


def test_history_file_error_is_a_value_error() -> None:
    assert issubclass(HistoryFileError, ValueError)


# --- betas -------------------------------------------------------------------------------

THINKING_BUDGET = {"model": "m", "max_tokens": 1024, "thinking": {"type": "enabled", "budget_tokens": 1024}, "messages": GOOD[:1]}
BUDGET_LINE = (
    "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at "
    "https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size"
)


def test_a_rule_a_beta_lifts_is_judged_only_when_the_betas_are_known(tmp_path: Path) -> None:
    path = write(tmp_path, json.dumps(THINKING_BUDGET))
    assert check_history_file(path) == []
    assert check_history_file(path, betas=[]) == [BUDGET_LINE]
    assert check_history_file(path, betas=["interleaved-thinking-2025-05-14"]) == []


def test_a_recorded_request_is_judged_with_the_betas_its_headers_name(tmp_path: Path) -> None:
    lines = [
        {"headers": {"anthropic-beta": "interleaved-thinking-2025-05-14"}, "body": THINKING_BUDGET},
        {"headers": {"content-type": "application/json"}, "body": json.dumps(THINKING_BUDGET)},
        {"body": THINKING_BUDGET},  # no headers kept: the option's betas, here none known
    ]
    path = write(tmp_path, "\n".join(map(json.dumps, lines)))
    assert check_history_file(path) == [f"line 2: {BUDGET_LINE}"]
    assert check_history_file(path, betas=[]) == [f"line 2: {BUDGET_LINE}", f"line 3: {BUDGET_LINE}"]


def test_a_line_of_the_servers_log_is_a_recorded_request(tmp_path: Path) -> None:
    asked = {"number": 1, "method": "POST", "path": "/v1/messages", "request": {"headers": {}, "body": json.dumps({"messages": DANGLING})}}
    listed = {"number": 2, "method": "GET", "path": "/v1/models", "request": {"headers": {}, "body": None}}
    path = write(tmp_path, json.dumps(asked) + "\n" + json.dumps(listed) + "\n")
    assert check_history_file(path) == [f"line 1: {DANGLING_LINE}"]


def test_a_recorded_request_whose_body_is_not_a_conversation_is_refused_at_its_line(tmp_path: Path) -> None:
    path = write(tmp_path, json.dumps(GOOD) + "\n" + json.dumps({"headers": {}, "body": "{not json"}) + "\n")
    with pytest.raises(HistoryFileError, match=re.escape(f"{path}:2:1: the recorded request's body is not JSON")):
        check_history_file(path)

"""A session checked request after request (``ConversationChecker``) gets exactly the
verdicts of checking every request whole (``check_request``), while reading only what
each request adds to the conversation an earlier request sent."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.oracle import check_request
from harness.oracle.conversations import ConversationChecker
from harness.wire import json_body

CACHED = {"cache_control": {"type": "ephemeral"}}
FILE = {"type": "file", "file_id": "file_1"}
MESSAGES: list[Any] = [  # valid and broken messages, each rule's trigger somewhere among them
    {"role": "user", "content": "Hi"},
    {"role": "user", "content": "Déjà vu, \u2028 and \"quotes\"]"},
    {"role": "user", "content": " "},
    {"role": "user", "content": ""},
    {"role": "user", "content": []},
    {"role": "user", "content": [{"type": "text", "text": "again", **CACHED}, {"type": "text", "text": "and", **CACHED}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_a", **CACHED,
                                  "content": [{"type": "text", "text": "r", **CACHED}]}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_a", "content": "ok"}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_b", "content": [{"type": "text", "text": "b"}]},
                                 {"type": "tool_result", "tool_use_id": "toolu_a"}]},
    {"role": "user", "content": [{"type": "text", "text": "first"}, {"type": "tool_result", "tool_use_id": "toolu_a"}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "srvtoolu_1",
                                  "content": [{"type": "document", "source": FILE}]}]},
    {"role": "user", "content": [{"type": "image", "source": FILE, **CACHED}]},
    {"role": "assistant", "content": "Sure."},
    {"role": "assistant", "content": "Sure. "},
    {"role": "assistant", "content": []},
    {"role": "assistant", "content": [{"type": "text", "text": "Reading."}, {"type": "tool_use", "id": "toolu_a", "name": "Read", "input": {}}]},
    {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_a", "name": "Read", "input": {}},
                                      {"type": "tool_use", "id": "toolu_b", "name": "Read", "input": [1]}]},
    {"role": "assistant", "content": [{"type": "tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}]},
    {"role": "assistant", "content": [{"type": "thinking", "thinking": "hm", "signature": "sig_a"}, {"type": "text", "text": "Done."}]},
    {"role": "assistant", "content": [{"type": "text", "text": "x"}, {"type": "thinking", "thinking": "hm", "signature": "sig_b"}]},
    {"role": "assistant", "content": [{"type": "redacted_thinking", "data": "d"}, {"type": "tool_use", "id": "bad id", "name": "", "input": {}}]},
    {"role": "system", "content": "Be brief."},
    {"role": "system", "content": []},
    {"role": "tool", "content": "x"},
    {"content": "no role"},
    "not a message",
    {"role": "user", "content": [{"type": "text"}, 7]},
]
VALID_ROUND = [MESSAGES[15], MESSAGES[7]]  # a tool call and its answer
STEPS = ("add", "add", "add", "add", "retry", "edit", "drop", "other")


@st.composite
def sessions(draw: st.DrawFn) -> list[tuple[dict[str, Any], bytes | None]]:
    """The requests of a few interleaved conversations, each mostly growing by one to
    three messages a request, sometimes sent again, cut back, or with an earlier message
    replaced (an edit is another conversation); the tools, the model and thinking change
    between requests. Each request is its bytes (written compact or spaced, escaped or
    not, now and then with a decoy ``messages`` key before the real one) and the body
    parsed from them; the bytes are given to the checker or not."""
    conversations: list[list[Any]] = [[MESSAGES[0]]]
    requests = []
    message = st.sampled_from(MESSAGES)
    for _ in range(draw(st.integers(1, 14))):
        step = draw(st.sampled_from(STEPS))
        which = draw(st.integers(0, len(conversations) - 1))
        messages = list(conversations[which])
        if step == "add":
            messages += draw(st.lists(st.one_of(message, st.just(VALID_ROUND[0]), st.just(VALID_ROUND[1])), min_size=1, max_size=3))
        elif step == "edit" and messages:
            messages[draw(st.integers(0, len(messages) - 1))] = draw(message)
        elif step == "drop":
            del messages[len(messages) - draw(st.integers(1, 2)):]
        elif step == "other":
            messages = [draw(message)]
            conversations.append(messages)
            which = len(conversations) - 1
        conversations[which] = messages
        tools = draw(st.sampled_from([[], [{"name": "Read", "input_schema": {"type": "object"}, **CACHED}],
                                      [{"type": "web_search_20250305", "name": "web_search"}]]))
        body = {"model": draw(st.sampled_from(["claude-a", "claude-b"])), "max_tokens": 100, "messages": messages, "tools": tools}
        if draw(st.booleans()):
            body["thinking"] = {"type": "enabled", "budget_tokens": 1024}
        text = json.dumps(body, ensure_ascii=draw(st.booleans()), separators=draw(st.sampled_from([(",", ":"), (", ", ": ")])))
        if draw(st.integers(0, 9)) == 0:
            text = '{"messages": ' + json.dumps(conversations[0]) + ", " + text[1:]
        content = text.encode()
        requests.append((json_body.loads(content), content if draw(st.booleans()) else None))
    return requests


@given(sessions(), st.sampled_from([None, [], ["files-api-2025-04-14"]]), st.sampled_from([{}, {"sig_a": "claude-a"}]))
def test_checking_a_session_request_by_request_gives_every_whole_verdict(
    requests: list[tuple[dict[str, Any], bytes | None]], betas: list[str] | None, signatures: dict[str, str],
) -> None:
    checker = ConversationChecker()
    for number, (body, content) in enumerate(requests, start=1):
        signatures = {**signatures, "sig_b": "claude-b"} if number == 3 else signatures  # handed out mid-session
        expected = check_request(body, signatures=signatures, betas=betas)
        assert checker.check_request(body, content=content, signatures=signatures, betas=betas) == expected, f"request {number}"


def _session(rounds: int) -> list[Any]:
    return [MESSAGES[0], *VALID_ROUND * rounds]


def test_a_growing_session_is_read_from_where_the_previous_request_ended() -> None:
    checker = ConversationChecker()
    for rounds in range(1, 6):
        messages = _session(rounds)
        assert checker.check_request({"messages": json.loads(json.dumps(messages))}) == []
        assert checker.shared == (0 if rounds == 1 else len(messages) - 2)  # only the round added


@pytest.mark.parametrize("as_bytes", [False, True])
def test_an_earlier_message_edited_is_another_conversation_and_is_caught(as_bytes: bool) -> None:
    checker = ConversationChecker()
    messages = _session(4)
    first = json.dumps({"messages": messages}).encode()
    assert checker.check_request(json_body.loads(first), content=first if as_bytes else None) == []
    edited = json.loads(json.dumps([*messages, *VALID_ROUND]))
    edited[2]["content"][0]["tool_use_id"] = "toolu_x"  # same length and shape as before, one id changed
    content = json.dumps({"messages": edited}).encode()
    found = [str(v) for v in checker.check_request(json_body.loads(content), content=content if as_bytes else None)]
    assert checker.shared == 2  # read again from the message edited
    assert found == [str(v) for v in check_request({"messages": edited})]
    assert any("unexpected `tool_use_id`" in text for text in found)


def test_an_assistant_message_that_was_last_is_read_again() -> None:
    """Judged as the final message before (its trailing whitespace allowed … or not), it is
    any message now."""
    checker = ConversationChecker()
    prefilled = [MESSAGES[0], {"role": "assistant", "content": "Sure. "}]  # "Sure. ": trailing whitespace, refused as the final message
    assert checker.check_request({"messages": prefilled}) == check_request({"messages": prefilled}) != []
    later = {"messages": [*prefilled, MESSAGES[0]]}
    assert checker.check_request(later) == check_request(later) == []
    assert checker.shared == 1


def test_a_retried_request_rereads_only_its_last_message() -> None:
    checker = ConversationChecker()
    body = {"messages": [*_session(3), {"role": "assistant", "content": "Sure. "}]}  # ends with trailing whitespace: refused
    first = checker.check_request(body)
    again = checker.check_request(json.loads(json.dumps(body)))
    assert first == again == check_request(body) != []
    assert checker.shared == len(body["messages"]) - 1


def test_declaring_another_server_tool_reads_the_conversation_again() -> None:
    checker = ConversationChecker()
    messages = [MESSAGES[0], MESSAGES[17], MESSAGES[10]]  # a server tool's call answered by a tool_result
    assert checker.check_request({"messages": messages}) == []
    body = {"messages": [*messages, MESSAGES[12]], "tools": [{"type": "web_search_20250305", "name": "web_search"}]}
    found = checker.check_request(body)
    assert checker.shared == 0
    assert found == check_request(body) != []

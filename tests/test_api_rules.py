"""The API-validity oracle: each rule is broken by a minimal history, and only just kept by another."""

from __future__ import annotations

import inspect
import json
import re
from typing import Any

import pytest
import yaml
from conformance_paths import CONFORMANCE, FULL_SET
from hypothesis import assume, given
from hypothesis import strategies as st

from harness.oracle import Violation, check_history, check_request, error_body
from harness.oracle.blocks import block_shape
from harness.oracle.conversations import ConversationChecker
from harness.oracle.fields import FIELD_RULES
from harness.oracle.message_rules import (
    BLOCK_RULES,
    CONTENT_RULES,
    SYSTEM_RULES,
    non_empty_content,
)
from harness.oracle.request import BETA_RULES, REQUEST_RULES
from harness.oracle.signatures import signed_by_the_requested_model
from harness.oracle.turn_rules import TURN_RULES

Block = dict[str, Any]


def text(value: str) -> Block:
    return {"type": "text", "text": value}


def tool_use(tool_id: str, name: str = "Read") -> Block:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": {}}


def tool_result(tool_id: str) -> Block:
    return {"type": "tool_result", "tool_use_id": tool_id, "content": "ok"}


def thinking() -> Block:
    return {"type": "thinking", "thinking": "Let me see.", "signature": "c2ln"}


def user(*content: Block | str) -> dict[str, Any]:
    return {"role": "user", "content": content[0] if content and isinstance(content[0], str) else list(content)}


def assistant(*content: Block | str) -> dict[str, Any]:
    return {"role": "assistant", "content": content[0] if content and isinstance(content[0], str) else list(content)}


def request(*messages: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": list(messages), **fields}


def only(violations: list[Violation]) -> str:
    assert len(violations) == 1, violations
    return str(violations[0])


# --- messages and roles ---------------------------------------------------------------


def test_empty_messages_list_is_rejected() -> None:
    assert only(check_history([])) == "messages: at least one message is required"


def test_a_single_user_message_passes() -> None:
    assert check_history([user("Hi")]) == []


def test_a_conversation_may_open_with_an_assistant_message() -> None:
    assert check_history([assistant("How can I help?"), user("Hi")]) == []


def test_unknown_role_is_rejected() -> None:
    history = [user("Hi"), {"role": "tool", "content": "output"}]
    assert only(check_history(history)) == "messages.1.role: Input should be 'user' or 'assistant'"


def test_system_message_passes_as_the_docs_say_no_beta_is_required() -> None:
    history = [user("Hi"), {"role": "system", "content": "Be brief."}, assistant("Hello.")]
    assert check_history(history) == []


def test_system_message_between_tool_use_and_tool_result_is_skipped_for_pairing() -> None:
    history = [
        user("Read it"),
        assistant(tool_use("toolu_1")),
        {"role": "system", "content": "The user is waiting."},
        user(tool_result("toolu_1")),
    ]
    assert check_history(history) == []


def test_message_that_is_not_an_object_is_rejected_without_crashing() -> None:
    assert only(check_history([user("Hi"), "hello"])) == "messages.1: Input does not match the expected shape."


def test_message_without_content_is_rejected_without_crashing() -> None:
    assert only(check_history([{"role": "user"}])) == "messages.0.content: Field required"


# --- empty content and whitespace ----------------------------------------------------


@pytest.mark.parametrize("content", ["", []], ids=["string", "list"])
def test_empty_user_message_is_rejected(content: str | list[Any]) -> None:
    history = [user("Hi"), assistant("Hello."), {"role": "user", "content": content}]
    assert only(check_history(history)) == (
        "messages.2: all messages must have non-empty content except for the optional final assistant message"
    )


def test_empty_assistant_message_before_the_end_is_rejected() -> None:
    history = [user("Hi"), assistant(), user("Well?")]
    assert only(check_history(history)).startswith("messages.1: all messages must have non-empty content")


@pytest.mark.parametrize("content", ["", []], ids=["string", "list"])
def test_final_assistant_message_may_be_empty(content: str | list[Any]) -> None:
    assert check_history([user("Hi"), {"role": "assistant", "content": content}]) == []


def test_empty_text_block_is_rejected() -> None:
    history = [user(text("Look:"), text(""))]
    assert only(check_history(history)) == "messages: text content blocks must be non-empty (at messages.0.content.1)"


def test_one_character_text_block_passes() -> None:
    assert check_history([user(text("."))]) == []


@pytest.mark.parametrize("content", [" \n", [text(" "), text("\t")]], ids=["string", "blocks"])
def test_message_of_only_whitespace_text_is_rejected(content: str | list[Block]) -> None:
    history = [user("Hi"), {"role": "assistant", "content": content}, user("Go on")]
    assert only(check_history(history)) == "messages: text content blocks must contain non-whitespace text (at messages.1.content.0)"


def test_whitespace_text_beside_a_tool_use_is_accepted() -> None:
    # Seen accepted live: llm-anthropic's test_tools cassette sends text " " before two tool_use blocks.
    history = [user("Hi"), assistant(text(" "), tool_use("toolu_1")), user(tool_result("toolu_1"))]
    assert check_history(history) == []


def test_final_assistant_text_ending_in_whitespace_is_rejected() -> None:
    history = [user("Write a function"), assistant(text("```python\n"))]
    assert only(check_history(history)) == "messages: final assistant content cannot end with trailing whitespace (at messages.1.content.0)"


def test_final_assistant_text_without_trailing_whitespace_passes() -> None:
    assert check_history([user("Write a function"), assistant("  ```python")]) == []


def test_trailing_whitespace_before_the_final_message_passes() -> None:
    assert check_history([user("Hi"), assistant("Hello.\n"), user("Bye")]) == []


# --- tool_use blocks -----------------------------------------------------------------


def test_tool_use_id_outside_the_allowed_characters_is_rejected() -> None:
    history = [user("Hi"), assistant(tool_use("call:1")), user(tool_result("call:1"))]
    assert only(check_history(history)) == (
        "messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'"
    )


def test_tool_use_id_of_letters_digits_dash_and_underscore_passes() -> None:
    history = [user("Hi"), assistant(tool_use("aZ09_-")), user(tool_result("aZ09_-"))]
    assert check_history(history) == []


def test_tool_use_id_used_twice_in_one_turn_is_rejected() -> None:
    history = [
        user("Hi"),
        assistant(tool_use("toolu_1")),
        assistant(text("Again."), tool_use("toolu_1")),
        user(tool_result("toolu_1")),
    ]
    assert only(check_history(history)) == "messages.2.content.1: `tool_use` ids must be unique"


@pytest.mark.parametrize(
    ("name", "problem"),
    [("", "at least 1 character"), ("x" * 201, "at most 200 characters")],
    ids=["empty", "201-chars"],
)
def test_tool_use_name_of_wrong_length_is_rejected(name: str, problem: str) -> None:
    history = [user("Hi"), assistant(tool_use("toolu_1", name)), user(tool_result("toolu_1"))]
    assert only(check_history(history)) == f"messages.1.content.0.tool_use.name: String should have {problem}"


def test_tool_use_name_of_200_characters_passes() -> None:
    history = [user("Hi"), assistant(tool_use("toolu_1", "x" * 200)), user(tool_result("toolu_1"))]
    assert check_history(history) == []


def test_tool_result_in_an_assistant_message_is_rejected() -> None:
    history = [user("Hi"), assistant(tool_use("toolu_1"), tool_result("toolu_1"))]
    assert "messages.1: `tool_result` blocks can only be in `user` messages" in map(str, check_history(history))


# --- tool_use / tool_result pairing ----------------------------------------------------


def test_tool_use_without_result_in_next_message_is_rejected() -> None:
    history = [user("Read both"), assistant(tool_use("toolu_A"), tool_use("toolu_B")), user(tool_result("toolu_A"))]
    assert only(check_history(history)) == (
        "messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_B. "
        "Each `tool_use` block must have a corresponding `tool_result` block in the next message."
    )


def test_tool_use_answered_by_a_plain_user_message_is_rejected() -> None:
    history = [user("Read it"), assistant(tool_use("toolu_A")), user("Never mind")]
    assert only(check_history(history)).startswith(
        "messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_A."
    )


def test_tool_use_with_every_result_in_the_next_message_passes() -> None:
    history = [
        user("Read both"),
        assistant(tool_use("toolu_A"), tool_use("toolu_B")),
        user(tool_result("toolu_B"), tool_result("toolu_A"), text("Both read.")),
    ]
    assert check_history(history) == []


def test_tool_use_in_the_final_assistant_message_is_not_judged() -> None:
    assert check_history([user("Read it"), assistant(tool_use("toolu_A"))]) == []


def test_tool_results_after_other_content_are_rejected() -> None:
    history = [user("Read it"), assistant(tool_use("toolu_A")), user(text("Here:"), tool_result("toolu_A"))]
    assert only(check_history(history)) == (
        "messages.2: Did not find 1 `tool_result` block(s) at the beginning of this message. "
        "Messages following `tool_use` blocks must begin with a matching number of `tool_result` blocks."
    )


def test_tool_result_without_tool_use_in_previous_message_is_rejected() -> None:
    history = [
        user("Read it"),
        assistant(tool_use("toolu_A")),
        user(tool_result("toolu_A"), tool_result("toolu_Z")),
    ]
    assert only(check_history(history)) == (
        "messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_Z. "
        "Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
    )


def test_tool_result_answering_an_older_turn_is_rejected() -> None:
    history = [
        user("Read it"),
        assistant(tool_use("toolu_A")),
        user(tool_result("toolu_A")),
        assistant("Done."),
        user(tool_result("toolu_A")),
    ]
    assert only(check_history(history)).startswith("messages.4.content.0: unexpected `tool_use_id`")


def test_tool_result_in_the_first_message_is_rejected() -> None:
    assert only(check_history([user(tool_result("toolu_A"))])).startswith("messages.0.content.0: unexpected")


def test_consecutive_assistant_messages_are_one_turn_for_pairing() -> None:
    history = [
        user("Read both"),
        assistant(tool_use("toolu_A")),
        assistant(tool_use("toolu_B")),
        user(tool_result("toolu_A"), tool_result("toolu_B")),
    ]
    assert check_history(history) == []


def test_consecutive_user_messages_are_one_turn_for_pairing() -> None:
    history = [
        user("Read both"),
        assistant(tool_use("toolu_A"), tool_use("toolu_B")),
        user(tool_result("toolu_A")),
        user(tool_result("toolu_B")),
    ]
    assert check_history(history) == []


# --- thinking --------------------------------------------------------------------------


def test_thinking_after_text_in_an_assistant_message_is_rejected() -> None:
    history = [user("Hi"), assistant(text("Hmm."), thinking(), text("Hello.")), user("Bye")]
    assert only(check_history(history)) == (
        "messages.1.content.0: If an assistant message contains any thinking blocks, "
        "the first block must be `thinking` or `redacted_thinking`. Found `text`."
    )


def test_redacted_thinking_first_passes() -> None:
    history = [user("Hi"), assistant({"type": "redacted_thinking", "data": "ZW5j"}, thinking(), text("Hello.")), user("Bye")]
    assert check_history(history) == []


def test_final_assistant_message_ending_in_thinking_is_rejected() -> None:
    history = [user("Hi"), assistant(thinking())]
    assert only(check_history(history)) == "messages.1: The final block in an assistant message cannot be `thinking`."


def test_assistant_turn_ending_in_thinking_before_tool_results_is_rejected() -> None:
    history = [user("Read it"), assistant(thinking(), tool_use("toolu_A"), thinking()), user(tool_result("toolu_A"))]
    assert only(check_history(history)) == "messages.1: The final block in an assistant message cannot be `thinking`."


def test_assistant_turn_ending_after_its_thinking_passes() -> None:
    history = [user("Read it"), assistant(thinking(), tool_use("toolu_A")), user(tool_result("toolu_A"))]
    assert check_history(history) == []


def test_final_assistant_thinking_without_thinking_enabled_is_rejected() -> None:
    body = request(user("Hi"), assistant(thinking(), text("Hello")))
    assert only(check_request(body)) == (
        "messages.1.content.0: When thinking is disabled, an `assistant` message in the final position "
        "cannot contain `thinking`. To use thinking blocks, enable `thinking` in your request."
    )


@pytest.mark.parametrize("mode", [{"type": "enabled", "budget_tokens": 1024}, {"type": "adaptive"}])
def test_final_assistant_thinking_with_thinking_enabled_passes(mode: dict[str, Any]) -> None:
    assert check_request(request(user("Hi"), assistant(thinking(), text("Hello")), thinking=mode)) == []


# --- tools, cache_control, whole requests ------------------------------------------------


def test_tool_name_with_a_dot_is_rejected() -> None:
    body = request(user("Hi"), tools=[{"name": "fs.read", "input_schema": {"type": "object"}}])
    assert only(check_request(body)) == "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'"


def test_tool_name_of_129_characters_is_rejected() -> None:
    body = request(user("Hi"), tools=[{"name": "x" * 129, "input_schema": {"type": "object"}}])
    assert only(check_request(body)) == "tools.0.custom.name: String should have at most 128 characters"


def test_tool_name_of_128_characters_passes() -> None:
    body = request(user("Hi"), tools=[{"name": "x" * 128, "input_schema": {"type": "object"}}])
    assert check_request(body) == []


def test_two_tools_with_one_name_are_rejected() -> None:
    tools = [{"name": "Read", "input_schema": {"type": "object"}}, {"type": "web_search_20250305", "name": "Read"}]
    assert only(check_request(request(user("Hi"), tools=tools))) == "tools: Tool names must be unique."


def test_five_cache_control_blocks_are_rejected() -> None:
    mark = {"cache_control": {"type": "ephemeral"}}
    body = request(
        user({**text("a"), **mark}),
        assistant({**tool_use("toolu_A"), **mark}),
        user({**tool_result("toolu_A"), "content": [{**text("b"), **mark}]}),
        system=[{**text("You are terse."), **mark}],
        tools=[{"name": "Read", "input_schema": {"type": "object"}, **mark}],
    )
    assert only(check_request(body)) == "A maximum of 4 blocks with cache_control may be provided. Found 5."


def test_four_cache_control_blocks_pass() -> None:
    mark = {"cache_control": {"type": "ephemeral"}}
    body = request(user({**text("a"), **mark}, {**text("b"), **mark}), system=[{**text("s"), **mark}, {**text("t"), **mark}])
    assert check_request(body) == []


TTL_ORDER = ("cache_control.ttl: a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block. "
             "Note that blocks are processed in the following order: `tools`, `system`, `messages`.")
HOUR, FIVE, PLAIN = ({"cache_control": {"type": "ephemeral", "ttl": "1h"}}, {"cache_control": {"type": "ephemeral", "ttl": "5m"}},
                     {"cache_control": {"type": "ephemeral"}})
READ_TOOL = {"name": "Read", "input_schema": {"type": "object"}}


@pytest.mark.parametrize(("body", "at"), [
    (request(user({**text("a"), **FIVE}, {**text("b"), **HOUR})), "messages.0.content.1"),
    (request(user({**text("a"), **PLAIN}), assistant(text("ok")), user({**text("b"), **HOUR})), "messages.2.content.0"),
    (request(user({**text("a"), **HOUR}), system=[{**text("s"), **PLAIN}]), "messages.0.content.0"),
    (request(user("Hi"), tools=[{**READ_TOOL, **PLAIN}], system=[{**text("s"), **HOUR}]), "system.0"),
    (request(user("Hi"), assistant(tool_use("toolu_A")), user({**tool_result("toolu_A"), "content": [{**text("b"), **HOUR}]}),
             tools=[{**READ_TOOL, **FIVE}]), "messages.2.content.0.content.0"),
])
def test_a_one_hour_cache_block_after_a_five_minute_one_is_rejected(body: dict[str, Any], at: str) -> None:
    """The live API's 400 (2026): blocks are processed tools, system, messages; no ttl is 5 minutes."""
    assert only(check_request(body)) == f"{at}.{TTL_ORDER}"


def test_one_hour_cache_blocks_before_five_minute_ones_pass() -> None:
    body = request(user({**text("a"), **HOUR}, {**text("b"), **PLAIN}), assistant(text("ok")), user({**text("c"), **FIVE}),
                   tools=[{**READ_TOOL, **HOUR}])
    assert check_request(body) == []


def test_the_ttl_order_holds_for_a_conversation_read_from_where_it_was() -> None:
    checker = ConversationChecker()
    first = request(user({**text("a"), **PLAIN}), assistant(text("ok")), user("b"))
    assert checker.check_request(first) == []
    grown = request(*first["messages"], assistant(text("ok")), user({**text("c"), **HOUR}))
    assert only(checker.check_request(grown)) == f"messages.4.content.0.{TTL_ORDER}" == only(check_request(grown))


def test_unknown_block_types_pass() -> None:
    history = [
        user({"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}}),
        assistant(
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "x"}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
            text("Found it."),
        ),
        user({"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "x"}}),
    ]
    assert check_history(history) == []


def test_request_without_messages_is_rejected() -> None:
    assert only(check_request({"model": "claude-sonnet-4-5", "max_tokens": 10})) == "messages: Field required"


def test_violations_come_earliest_message_first() -> None:
    history = [user("Hi"), assistant(tool_use("toolu_A")), user("?"), assistant(), user("Bye")]
    assert [v.path for v in check_history(history)] == ["messages.2", "messages.3"]


def test_long_valid_history_passes() -> None:
    history: list[dict[str, Any]] = [user("Start")]
    for i in range(5_000):
        history += [assistant(tool_use(f"toolu_{i}")), user(tool_result(f"toolu_{i}"))]
    assert check_history(history) == []


@st.composite
def agent_histories(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Histories an agent loop writes: each tool_use answered, results in any order."""
    history = [user("Start")]
    for turn in range(draw(st.integers(0, 6))):
        ids = [f"toolu_{turn}_{i}" for i in range(draw(st.integers(0, 3)))]
        history.append(assistant(text("Working."), *map(tool_use, ids)))
        history.append(user(*draw(st.permutations([tool_result(i) for i in ids]))) if ids else user("Next"))
    return history


@given(agent_histories())
def test_histories_written_by_an_agent_loop_pass(history: list[dict[str, Any]]) -> None:
    assert check_history(history) == []


@given(agent_histories(), st.data())
def test_dropping_any_tool_result_is_caught(history: list[dict[str, Any]], data: st.DataObject) -> None:
    results = [(i, k) for i, m in enumerate(history) if isinstance(m["content"], list)
               for k, block in enumerate(m["content"]) if block["type"] == "tool_result"]
    assume(results)
    i, k = data.draw(st.sampled_from(results))
    del history[i]["content"][k]
    history[i]["content"] = history[i]["content"] or [text("(lost)")]
    assert any("were found without `tool_result` blocks" in v.message for v in check_history(history))


# --- the 400 body -----------------------------------------------------------------------


def test_error_body_reports_the_first_violation_as_the_api_does() -> None:
    violations = check_history([user("Read it"), assistant(tool_use("toolu_A")), user("?"), assistant(), user("Bye")])
    assert error_body(violations, request_id="req_harness_1") == {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": str(violations[0])},
        "request_id": "req_harness_1",
    }


def test_error_body_of_a_pathless_violation_is_the_bare_message() -> None:
    body = error_body([Violation("", "A maximum of 4 blocks with cache_control may be provided. Found 5.")])
    assert body["error"]["message"] == "A maximum of 4 blocks with cache_control may be provided. Found 5."
    assert "request_id" not in body


def test_error_body_needs_a_violation() -> None:
    with pytest.raises(ValueError):
        error_body([])


# --- every request the live API accepted ---------------------------------------------------


def _recorded_requests() -> list[Any]:
    if not CONFORMANCE.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"recorded cassettes not found at {CONFORMANCE}"))]
    params = []
    for cassette in sorted(CONFORMANCE.glob("*.yaml")):
        for i, interaction in enumerate(yaml.safe_load(cassette.read_text())["interactions"]):
            sent = interaction["request"]
            if sent["method"] == "POST" and sent["uri"].endswith("/v1/messages"):
                params.append(pytest.param(json.loads(sent["body"]), id=f"{cassette.stem}-{i}"))
    return params


@pytest.mark.parametrize("body", _recorded_requests())
def test_request_accepted_by_the_live_api_passes(body: dict[str, Any]) -> None:
    assert check_request(body) == []


@pytest.mark.skipif(CONFORMANCE != FULL_SET, reason=f"the full set of recorded cassettes is not at {FULL_SET}")
def test_every_recorded_messages_request_is_checked() -> None:
    assert len(_recorded_requests()) == 27


# --- the rules themselves ------------------------------------------------------------


def test_every_rule_is_a_small_function_that_quotes_the_api_text_it_stands_on() -> None:
    rules = [
        *REQUEST_RULES, *BETA_RULES, *FIELD_RULES.values(), block_shape, *(r for rs in BLOCK_RULES.values() for r in rs),
        non_empty_content, *CONTENT_RULES, *SYSTEM_RULES, *(r for rs in TURN_RULES.values() for r in rs),
        signed_by_the_requested_model,
    ]
    assert len(set(rules)) >= 25
    for rule in set(rules):
        quoted = re.findall(r"``(.+?)``", inspect.getdoc(rule) or "", re.S)
        assert any(" " in text for text in quoted), f"{rule.__name__} quotes no API text"
        assert len(inspect.getsource(rule).splitlines()) <= 20, f"{rule.__name__} is not small"



def test_thinking_after_the_compaction_block_the_api_wrote_first_passes() -> None:
    compacted = {"type": "compaction", "content": "Summary: the user asked for a recipe app."}
    history = [user("Hi"), assistant(compacted, thinking(), text("Hello.")), user("Bye")]
    assert check_history(history) == []
    assert only(check_history([user("Hi"), assistant(text("Hmm."), compacted, thinking(), text("Hi.")), user("Bye")])).endswith(
        "Found `text`.")


SEARCH = {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {"query": "weather"}}
FOUND = {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": []}
WEB = {"type": "web_search_20250305", "name": "web_search"}
UNRESOLVED = "messages.1: `web_search` tool use with id `srvtoolu_01` was found without a corresponding `web_search_tool_result` block"


@pytest.mark.parametrize(("messages", "said"), [
    ((user("Hi"), assistant(text("Searching."), SEARCH), user("And?")), UNRESOLVED),  # the result dropped
    ((user("Hi"), assistant(SEARCH, tool_use("toolu_A")), user(tool_result("toolu_A"), text("also this"))), UNRESOLVED),
    ((user("Hi"), assistant(text("Searching."), SEARCH)), None),  # a paused turn sent back as it came
    ((user("Hi"), assistant(SEARCH, FOUND, text("Sunny.")), user("Thanks")), None),
    ((user("Hi"), assistant(SEARCH, tool_use("toolu_A")), user(tool_result("toolu_A"))), None),  # the search waits on the client
    ((user("Hi"), assistant(SEARCH, tool_use("toolu_A")), user(tool_result("toolu_A")), assistant(FOUND, text("Sunny.")),
      user("Thanks")), None),
])
def test_a_server_tools_call_needs_its_result_before_the_assistant_turn_ends(messages: tuple, said: str | None) -> None:
    """The tool use docs: a user message with anything but tool results ends the assistant
    turn, and a server tool's call without its result is then the API's 400."""
    body = request(*messages, tools=[WEB, {"name": "Read", "input_schema": {"type": "object"}}])
    assert [str(v) for v in check_request(body)] == ([said] if said else [])
    checker = ConversationChecker()
    for n in range(2, len(messages) + 1):  # read from where the shorter conversation ended: the same verdict
        verdict = checker.check_request(request(*messages[:n], tools=body["tools"]))
    assert [str(v) for v in verdict] == ([said] if said else [])


@pytest.mark.parametrize(("fields", "refused"), [
    ({"thinking": {"type": "enabled", "budget_tokens": 2048}, "temperature": 0.7}, True),
    ({"thinking": {"type": "enabled", "budget_tokens": 2048}, "temperature": "0.2"}, True),
    ({"thinking": {"type": "enabled", "budget_tokens": 2048}, "temperature": 1}, False),
    ({"thinking": {"type": "enabled", "budget_tokens": 2048}, "top_p": 0.95}, False),
    ({"thinking": {"type": "adaptive"}, "temperature": 0.7}, False),
    ({"temperature": 0.7}, False),
])
def test_a_temperature_other_than_1_beside_enabled_thinking_is_refused(fields: dict, refused: bool) -> None:
    """The live API's text (2025 and 2026): thinking is not compatible with temperature changes."""
    said = [str(v) for v in check_request(request(user("Hi"), max_tokens=4096, **fields))]
    assert said == (["`temperature` may only be set to 1 when thinking is enabled. Please consult our documentation at "
                     "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
                     "#important-considerations-when-using-extended-thinking"] if refused else [])

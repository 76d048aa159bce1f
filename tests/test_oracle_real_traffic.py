"""The oracle on real traffic: each rule shown on a body the live API answered (trimmed
from public recordings, their sources in ``harness/library/cassettes/conformance/requests``)
or on one a public report quotes the API's 400 for, and shown to fail on the near miss."""

from __future__ import annotations

import copy
from typing import Any

from harness.oracle import check_request
from harness.oracle.betas import BETAS, lifted_rules
from harness.oracle.request import BETA_RULES

Body = dict[str, Any]


def said(body: Body, **kwargs: Any) -> list[str]:
    return [violation.api_text for violation in check_request(body, **kwargs)]


def user(*content: Any) -> Body:
    return {"role": "user", "content": list(content)}


def assistant(*content: Any) -> Body:
    return {"role": "assistant", "content": list(content)}


def text(value: str) -> Body:
    return {"type": "text", "text": value}


def tool_use(tool_id: str, name: str, **fields: Any) -> Body:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": fields}


def tool_result(tool_id: str, value: str) -> Body:
    return {"type": "tool_result", "tool_use_id": tool_id, "content": [text(value)], "is_error": False}


# pydantic-ai, tests/cassettes/test_tool_search/test_cross_provider_capability_replay[google-…-anthropic-…].yaml:
# a conversation begun on Gemini, which numbers its calls afresh; the API answered 200.
ID_REUSED_IN_A_LATER_TURN: Body = {
    "model": "claude-sonnet-4-5", "max_tokens": 4096, "tool_choice": {"type": "auto"},
    "tools": [{"name": "load_capability", "input_schema": {"type": "object"}},
              {"name": "lookup_refund_policy", "input_schema": {"type": "object"}, "defer_loading": True}],
    "messages": [
        user(text("Can I get a refund on order-123?")),
        assistant(tool_use("0usajhl5", "load_capability", id="refunds")),
        user(tool_result("0usajhl5", '{"instructions":"Use the refund policy tool."}')),
        assistant(tool_use("0usajhl5", "search_tools", queries=["lookup_refund_policy"])),
        user(tool_result("0usajhl5", "lookup_refund_policy")),
        assistant(tool_use("8ci92gmp", "lookup_refund_policy", order_id="order-123")),
        user(tool_result("8ci92gmp", "order-123: refund allowed for 30 days")),
        assistant(text("Yes, a refund is allowed for order-123 within 30 days.")),
        user(text("And what about order-456?")),
    ],
}

# pydantic-ai, tests/cassettes/test_code_execution_files_vcr/…cache_prefix_stable[messages-sonnet-5].yaml #3:
# the model's own turn, code execution first and thinking after its result; answered 200.
THINKING_AFTER_A_SERVER_TOOL: Body = {
    "model": "claude-sonnet-5", "max_tokens": 4096, "container": "container_018t3shgKLWFUp5P77cqGq3D",
    "tools": [{"name": "code_execution", "type": "code_execution_20260120"}],
    "messages": [
        user(text("Use the code execution tool to read the uploaded CSV file and report the sum of the `value` column."),
             {"type": "container_upload", "file_id": "file_011CcaGqp49CHWC9QwfT9KUR"}),
        assistant(
            {"type": "server_tool_use", "id": "srvtoolu_01NckMdz71RTvrHtP9ZrG6KQ", "name": "bash_code_execution",
             "input": {"command": "python3 -c 'print(100.0)'"}},
            {"type": "bash_code_execution_tool_result", "tool_use_id": "srvtoolu_01NckMdz71RTvrHtP9ZrG6KQ",
             "content": {"type": "bash_code_execution_result", "stdout": "Sum: 100.0\n", "stderr": "", "return_code": 0,
                         "content": []}},
            {"type": "thinking", "thinking": "", "signature": "EqwCCmMIDxgCKkAqDq8szuZd3fCFfIa5z+xGqvcSUHD83FDfe3qukVlM"},
            text("The sum of the `value` column is 100."),
        ),
        user(text("Use the code execution tool again to report the average of the `value` column.")),
    ],
}

# pydantic-ai, tests/models/anthropic/cassettes/test_unpaired_native_tool_calls/
# test_in_flight_native_tool_call_history_is_accepted.yaml: a server tool's call beside a client one; 200.
SERVER_AND_CLIENT_CALLS: Body = {
    "model": "claude-sonnet-4-5", "max_tokens": 4096, "tool_choice": {"type": "auto"},
    "tools": [{"name": "add", "input_schema": {"type": "object"}}, {"name": "web_search", "type": "web_search_20250305"}],
    "messages": [
        user(text("Look up the 10-year Treasury duration, then add 2 and 2.")),
        assistant({"type": "server_tool_use", "id": "srvtoolu_01EoSNE7k4dUJyGatASCV5qs", "name": "web_search",
                   "input": {"query": "10-year Treasury modified duration"}},
                  tool_use("toolu_01WjXqPrN8vKsRt2YbLmZdQe", "add", a=2, b=2)),
        user(tool_result("toolu_01WjXqPrN8vKsRt2YbLmZdQe", "4")),
    ],
}

# chatlas, tests/_vcr/test_provider_anthropic_files/test_anthropic_file_lifecycle.yaml #2: sent with
# anthropic-beta: files-api-2025-04-14, answered 200.
FILE_DOCUMENT: Body = {
    "model": "claude-sonnet-4-6", "max_tokens": 4096, "stream": True, "tools": [],
    "messages": [user(text("Reply with the single word: ok"),
                      {"type": "document", "source": {"type": "file", "file_id": "file_011CdTdZVCFsK7adq7aaf4ie"},
                       "cache_control": {"type": "ephemeral", "ttl": "5m"}})],
}


def test_a_tool_use_id_used_again_in_a_later_turn_each_answered_passes() -> None:
    assert said(ID_REUSED_IN_A_LATER_TURN) == []


def test_a_tool_use_id_used_twice_within_one_turn_is_refused() -> None:
    body = copy.deepcopy(ID_REUSED_IN_A_LATER_TURN)
    body["messages"][1]["content"].append(tool_use("0usajhl5", "load_capability", id="billing"))  # two parallel calls
    assert said(body) == ["messages.1.content.1: `tool_use` ids must be unique"]


def test_thinking_after_a_server_tools_result_in_the_models_own_turn_passes() -> None:
    assert said(THINKING_AFTER_A_SERVER_TOOL) == []
    assert said({**THINKING_AFTER_A_SERVER_TOOL, "thinking": {"type": "adaptive"}}) == []


def test_thinking_after_a_client_block_is_still_refused() -> None:
    body = copy.deepcopy(THINKING_AFTER_A_SERVER_TOOL)
    body["messages"][1]["content"].insert(0, text("Let me look."))
    assert said(body) == ["messages.1.content.0: If an assistant message contains any thinking blocks, the first "
                          "block must be `thinking` or `redacted_thinking`. Found `text`."]


def test_the_legacy_unset_sampling_values_are_left_to_the_model() -> None:
    # @langchain/anthropic's defaults: top_k and top_p -1, "unset".
    body = {"model": "claude-3-haiku-20240307", "max_tokens": 2048, "temperature": 1, "top_k": -1, "top_p": -1,
            "messages": [{"role": "user", "content": "Hello"}]}
    assert said(body) == []
    assert said({**body, "top_p": -0.5}) == ["top_p: Input should be greater than or equal to 0"]


def test_max_tokens_not_above_the_thinking_budget_is_refused_without_interleaved_thinking() -> None:
    # The API's words, quoted in github.com/liuw1535/antigravity2api-nodejs/issues/149 (2026).
    body = {"model": "claude-opus-4-5", "max_tokens": 16000, "thinking": {"type": "enabled", "budget_tokens": 16000},
            "messages": [{"role": "user", "content": "Hello"}]}
    assert said(body, betas=[]) == [
        "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at "
        "https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size"
    ]
    assert said({**body, "max_tokens": 16001}, betas=[]) == []
    assert said(body, betas=["interleaved-thinking-2025-05-14"]) == []  # "budget_tokens can exceed max_tokens"
    assert said(body) == []  # betas unknown: not judged
    assert said({**body, "thinking": {"type": "adaptive"}}, betas=[]) == []


def test_a_client_tool_use_carrying_a_declared_server_tools_call_is_not_answered_by_a_tool_result() -> None:
    body = copy.deepcopy(SERVER_AND_CLIENT_CALLS)
    assert said(body) == []
    call = body["messages"][1]["content"][0]
    call["type"] = "tool_use"  # the server tool's call, kept as a client one (a conversation moved between providers)
    body["messages"][2]["content"].insert(0, tool_result(call["id"], "3 results"))
    assert said(body) == [
        "messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: "
        "srvtoolu_01EoSNE7k4dUJyGatASCV5qs. Each `tool_use` block must have a corresponding `tool_result` block "
        "in the next message."
    ]
    body["tools"] = body["tools"][:1]  # the server tool not declared: a client call like any other
    assert said(body) == []


def test_a_message_that_is_none_of_the_forms_does_not_match_the_expected_shape() -> None:
    assert said({"model": "claude-sonnet-4-5", "max_tokens": 10, "messages": ["Invalid content"]}) == [
        "messages.0: Input does not match the expected shape."
    ]
    assert said({"model": "claude-sonnet-4-5", "max_tokens": 10, "messages": [{}]}) == [
        "messages.0: Input does not match the expected shape."
    ]


def test_a_file_source_needs_the_files_beta() -> None:
    assert said(FILE_DOCUMENT, betas=["files-api-2025-04-14"]) == []
    assert said(FILE_DOCUMENT) == []  # betas unknown: not judged
    assert said(FILE_DOCUMENT, betas=["interleaved-thinking-2025-05-14"]) == [
        "messages.0.content.1.document.source: Input tag 'file' found using 'type' does not match any of the "
        "expected tags: 'base64', 'content', 'text', 'url'"
    ]


def test_a_file_source_inside_a_tool_result_needs_the_files_beta_too() -> None:
    image = {"type": "image", "source": {"type": "file", "file_id": "file_011CcaGqp49CHWC9QwfT9KUR"}}
    body = copy.deepcopy(SERVER_AND_CLIENT_CALLS)
    body["messages"][2]["content"][0]["content"] = [image]
    assert said(body, betas=[]) == [
        "messages.2.content.0.tool_result.content.0.image.source: Input tag 'file' found using 'type' does not "
        "match any of the expected tags: 'base64', 'url'"
    ]


def test_every_beta_rule_is_lifted_by_a_beta_in_the_table() -> None:
    names = {rule.__name__ for rule in BETA_RULES}
    assert names == lifted_rules(BETAS)
    assert lifted_rules(["no-such-beta-2099-01-01"]) == set()

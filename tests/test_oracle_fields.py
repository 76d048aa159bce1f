"""The oracle checks a request's field types and ranges and its blocks' shapes as the
API's validation does, in its words; what the API accepts (lax numbers, unknown fields,
unknown block types, a system message after a user turn) stays accepted."""

from __future__ import annotations

from typing import Any

import pytest

from harness.oracle import check_history, check_request, error_body

USER = {"role": "user", "content": "Hi"}


def body(**fields: Any) -> dict[str, Any]:
    return {"model": "claude-opus-5-5", "max_tokens": 100, "messages": [USER], **fields}


def said(found: list[Any]) -> list[str]:
    return [str(v) for v in found]


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"model": 5}, "model: Input should be a valid string"),
        ({"model": ""}, "model: String should have at least 1 character"),
        ({"max_tokens": -1}, "max_tokens: must be greater than or equal to 0"),
        ({"max_tokens": "ten"}, "max_tokens: Input should be a valid integer, unable to parse string as an integer"),
        ({"max_tokens": 1.5}, "max_tokens: Input should be a valid integer, got a number with a fractional part"),
        ({"max_tokens": [1]}, "max_tokens: Input should be a valid integer"),
        ({"temperature": "hot"}, "temperature: Input should be a valid number, unable to parse string as a number"),
        ({"temperature": 1.5}, "temperature: Input should be less than or equal to 1"),
        ({"temperature": -0.1}, "temperature: Input should be greater than or equal to 0"),
        ({"top_p": 3}, "top_p: Input should be less than or equal to 1"),
        ({"top_p": {}}, "top_p: Input should be a valid number"),
        ({"top_p": 10**400}, "top_p: Input should be a finite number"),
        ({"top_k": 1.5}, "top_k: Input should be a valid integer, got a number with a fractional part"),
    ],
)
def test_a_field_of_the_wrong_type_or_out_of_range_is_refused_in_the_apis_words(fields: dict, expected: str) -> None:
    assert said(check_request(body(**fields))) == [expected]


@pytest.mark.parametrize(
    "fields",
    [{"max_tokens": 0}, {"max_tokens": "100"}, {"max_tokens": 100.0}, {"temperature": "0.5"}, {"temperature": 0},
     {"temperature": 1}, {"top_p": 0.9}, {"top_k": 40}, {"a_field_from_next_year": {"x": 1}}],
)
def test_what_the_api_accepts_stays_accepted(fields: dict) -> None:
    assert check_request(body(**fields)) == []


def test_a_saved_conversation_without_model_or_max_tokens_is_still_a_conversation() -> None:
    assert check_request({"messages": [USER]}) == []


@pytest.mark.parametrize(
    ("block", "expected"),
    [
        ({"type": "text", "text": 5}, "messages.0.content.0.text.text: Input should be a valid string"),
        ({"type": "text"}, "messages.0.content.0.text.text: Field required"),
        ({"type": "image"}, "messages.0.content.0.image.source: Field required"),
        ({"text": "no type"}, "messages.0.content.0: Unable to extract tag using discriminator 'type'"),
        ({"type": "tool_result", "tool_use_id": 7, "content": "x"},
         "messages.0.content.0.tool_result.tool_use_id: Input should be a valid string"),
        ({"type": "tool_result", "tool_use_id": "t", "content": 5}, "messages.0.content.0.tool_result.content: Input should be a valid list"),
        ({"type": "tool_result", "tool_use_id": "t", "content": [{"type": "text", "text": None}]},
         "messages.0.content.0.tool_result.content.0.text.text: Input should be a valid string"),
    ],
)
def test_a_known_block_of_the_wrong_shape_is_refused_at_its_path(block: dict, expected: str) -> None:
    assert said(check_history([{"role": "user", "content": [block]}]))[0] == expected


def test_a_block_of_a_type_the_oracle_does_not_know_passes_untouched() -> None:
    blocks = [{"type": "search_result", "source": 5, "anything": [1, 2]}, {"type": "text", "text": "ok"}]
    assert check_history([{"role": "user", "content": blocks}]) == []


def test_a_tool_use_needs_a_name_and_an_input() -> None:
    history = [USER, {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": 5}]}]
    assert said(check_history(history))[:2] == [
        "messages.1.content.0.tool_use.input: Field required",
        "messages.1.content.0.tool_use.name: Input should be a valid string",
    ]


def test_roles_a_missing_role_and_system_messages() -> None:
    assert said(check_history([{"content": "x"}])) == ["messages.0: Input does not match the expected shape."]
    assert said(check_history([{"role": "tool", "content": "x"}])) == ["messages.0.role: Input should be 'user' or 'assistant'"]
    assert said(check_history([{"role": "system", "content": "Be brief."}, USER])) == [
        "messages.0: use the top-level 'system' parameter for the initial system prompt"
    ]
    assert check_history([{"role": "system", "content": []}, USER]) == []  # the directive-only form
    assert said(check_history([USER, {"role": "system", "content": [{"type": "text"}]}])) == [
        "messages.1.content.0.text.text: Field required"
    ]
    assert check_history([USER, {"role": "system", "content": "Be brief."}, {"role": "assistant", "content": "Ok."}]) == []
    assert check_history([{"role": "system", "content": []}, USER]) == []  # the directive-only form


def test_validation_is_reported_before_the_rules_about_the_conversation() -> None:
    history = [USER, {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Read", "input": {}}]},
               {"role": "user", "content": [{"type": "text", "text": 5}]}]
    request = body(messages=history, temperature="hot")
    found = said(check_request(request))
    assert found[0] == "temperature: Input should be a valid number, unable to parse string as a number"
    assert found[1] == "messages.2.content.0.text.text: Input should be a valid string"
    assert error_body(check_request(request))["error"]["message"] == found[0]

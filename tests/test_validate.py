"""The JSON-Schema subset that guards tool input, keyword by keyword, both ways."""

from __future__ import annotations

from typing import Any

import pytest

from mini_agent.tools import InputValidationError
from mini_agent.tools.validate import check_input, validate


def typed(kind: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"x": {"type": kind}}}


@pytest.mark.parametrize(
    ("kind", "value"),
    [
        ("string", "s"),
        ("integer", 3),
        ("integer", 3.0),
        ("number", 3),
        ("number", 2.5),
        ("boolean", False),
        ("array", [1]),
        ("object", {}),
        ("null", None),
        (["string", "null"], None),
    ],
)
def test_type_accepts_values_of_that_type(kind: Any, value: Any) -> None:
    assert validate(typed(kind), {"x": value}) == []


@pytest.mark.parametrize(
    ("kind", "value", "provided"),
    [
        ("string", 1, "integer"),
        ("integer", True, "boolean"),
        ("integer", 2.5, "number"),
        ("integer", "3", "string"),
        ("number", False, "boolean"),
        ("boolean", 0, "integer"),
        ("array", {}, "object"),
        ("object", [], "array"),
        ("null", "", "string"),
    ],
)
def test_type_rejects_values_of_another_type(kind: str, value: Any, provided: str) -> None:
    assert validate(typed(kind), {"x": value}) == [
        f"The parameter `x` type is expected as `{kind}` but provided as `{provided}`"
    ]


def test_a_list_of_types_names_them_all_when_none_match() -> None:
    assert validate(typed(["string", "null"]), {"x": 1}) == [
        "The parameter `x` type is expected as `string` or `null` but provided as `integer`"
    ]


def test_an_unknown_type_in_the_schema_is_a_schema_bug() -> None:
    with pytest.raises(ValueError, match="unknown type 'strnig' in schema"):
        validate(typed("strnig"), {"x": "s"})


def test_required_is_satisfied_by_presence() -> None:
    assert validate({"type": "object", "required": ["file_path"]}, {"file_path": ""}) == []


def test_required_reports_each_missing_parameter() -> None:
    schema = {"type": "object", "required": ["file_path", "content"]}
    assert validate(schema, {}) == [
        "The required parameter `file_path` is missing",
        "The required parameter `content` is missing",
    ]


def test_enum_accepts_a_listed_value() -> None:
    assert validate({"enum": ["a", "b", 1]}, "b") == []
    assert validate({"enum": ["a", "b", 1]}, 1.0) == []


def test_enum_rejects_an_unlisted_value() -> None:
    schema = {"type": "object", "properties": {"mode": {"type": "string", "enum": ["a", "b"]}}}
    assert validate(schema, {"mode": "c"}) == ["The parameter `mode` must be one of: `a`, `b`"]


def test_enum_does_not_take_true_for_one() -> None:
    assert validate({"enum": [1, None]}, True) == ["The input must be one of: `1`, `null`"]


def test_additional_properties_false_rejects_unknown_parameters() -> None:
    schema = {"type": "object", "properties": {"file_path": {}}, "additionalProperties": False}
    assert validate(schema, {"file_path": "a", "path": "a"}) == ["An unexpected parameter `path` was provided"]


def test_unknown_parameters_are_allowed_when_additional_properties_is_not_false() -> None:
    assert validate({"type": "object", "properties": {}}, {"path": "a"}) == []


def test_additional_properties_as_a_schema_checks_the_extra_values() -> None:
    schema = {"type": "object", "additionalProperties": {"type": "integer"}}
    assert validate(schema, {"a": 1}) == []
    assert validate(schema, {"b": "1"}) == [
        "The parameter `b` type is expected as `integer` but provided as `string`"
    ]


def test_items_accepts_an_array_of_matching_items() -> None:
    assert validate({"type": "array", "items": {"type": "string"}}, ["a", "b"]) == []


def test_items_reports_each_wrong_item_by_index() -> None:
    schema = typed("array")
    schema["properties"]["x"]["items"] = {"type": "string"}
    assert validate(schema, {"x": ["a", 2, None]}) == [
        "The parameter `x.1` type is expected as `string` but provided as `integer`",
        "The parameter `x.2` type is expected as `string` but provided as `null`",
    ]


EDITS = {
    "type": "object",
    "properties": {
        "edits": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"],
                "additionalProperties": False,
            },
        }
    },
}


def test_properties_are_checked_recursively() -> None:
    assert validate(EDITS, {"edits": [{"text": "a"}, {"text": "b"}]}) == []


def test_nested_problems_use_dotted_paths() -> None:
    assert validate(EDITS, {"edits": [{"text": 1}, {"txt": "b"}]}) == [
        "The parameter `edits.0.text` type is expected as `string` but provided as `integer`",
        "The required parameter `edits.1.text` is missing",
        "An unexpected parameter `edits.1.txt` was provided",
    ]


@pytest.mark.parametrize(("value", "kind"), [([], "array"), ("x", "string"), (None, "null"), (1.5, "number")])
def test_input_that_is_not_an_object_is_one_line(value: Any, kind: str) -> None:
    schema = {"type": "object", "required": ["file_path"]}
    assert validate(schema, value) == [f"The input type is expected as `object` but provided as `{kind}`"]


def test_check_input_passes_valid_input_silently() -> None:
    check_input("Read", EDITS, {"edits": []})


def test_check_input_raises_with_the_problems_and_the_tool_name() -> None:
    with pytest.raises(InputValidationError) as caught:
        check_input("Edit", EDITS, {"edits": [{}]})
    assert caught.value.problems == ["The required parameter `edits.0.text` is missing"]
    assert str(caught.value) == (
        "Edit failed due to the following issue:\nThe required parameter `edits.0.text` is missing"
    )
    assert isinstance(caught.value, ValueError)

"""Where a request body's messages end in its bytes, and when a later body continues an
earlier one byte for byte (``harness.wire.message_offsets``)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from harness.wire.message_offsets import continued, offsets

MESSAGES = [{"role": "user", "content": "Déjà vu"}, {"role": "assistant", "content": "ok \u2028 \"]\""}, {"role": "user", "content": "3"}]


def _bytes(messages: list[Any], *, spaced: bool = False, ascii_only: bool = True, model: str = "claude-a") -> bytes:
    separators = (", ", ": ") if spaced else (",", ":")
    body = {"max_tokens": 5, "messages": messages, "model": model}
    return json.dumps(body, separators=separators, ensure_ascii=ascii_only).encode()


@pytest.mark.parametrize("spaced", [False, True])
@pytest.mark.parametrize("ascii_only", [False, True])
def test_each_message_ends_where_its_json_ends(spaced: bool, ascii_only: bool) -> None:
    data = _bytes(MESSAGES, spaced=spaced, ascii_only=ascii_only)
    found = offsets(data)
    assert found is not None and found.count == len(MESSAGES) and list(found.ends) == [1, 2, 3]
    start = data.index(b"[", data.index(b'"messages"')) + 1
    for end, message in zip(found.ends.values(), MESSAGES, strict=True):
        assert json.loads(data[start:end].decode().lstrip(", ")) == message
        start = end
    assert data[found.tail - 1:found.tail] == b"]" and json.loads(b"{" + data[found.tail:].lstrip(b", ")) == {"model": "claude-a"}


def test_a_longer_conversation_continues_the_earlier_bytes() -> None:
    earlier = offsets(_bytes(MESSAGES[:2], ascii_only=False))
    assert earlier is not None
    later = _bytes(MESSAGES, ascii_only=False)
    found = continued(later, earlier, 1)
    assert found is not None and found == offsets(later)


@pytest.mark.parametrize(
    "later",
    [
        _bytes([{"role": "user", "content": "Deja vu"}, *MESSAGES[1:]]),  # an earlier message edited
        _bytes(MESSAGES, model="claude-b"),  # what follows the messages changed
        _bytes(MESSAGES, spaced=True),  # written otherwise
        _bytes(MESSAGES)[:-1] + b"\xff}",  # not UTF-8
    ],
)
def test_bytes_that_differ_before_the_new_messages_or_after_them_do_not_continue(later: bytes) -> None:
    earlier = offsets(_bytes(MESSAGES[:2]))
    assert earlier is not None and continued(later, earlier, 1) is None


def test_a_second_messages_key_in_place_of_the_rest_does_not_continue() -> None:
    """The earlier body's rest (``,"model":"claude-aaaa…"}``) replaced by as many bytes that
    name ``messages`` again: the parsed messages are the decoy, as many as the real ones."""
    earlier_bytes = _bytes(MESSAGES[:2], model="claude-" + "a" * 60)
    earlier = offsets(earlier_bytes)
    assert earlier is not None
    rest = earlier_bytes[earlier.tail:]
    decoy = b',"messages":[1,2,3]'
    later = _bytes(MESSAGES)[: -len(b',"model":"claude-a"}')] + decoy + b" " * (len(rest) - len(decoy) - 1) + b"}"
    assert len(json.loads(later)["messages"]) == 3 and json.loads(later)["messages"] == [1, 2, 3]
    assert continued(later, earlier, 1) is None


@pytest.mark.parametrize(
    "data",
    [b'{"messages":[1],"messages":[2]}', b'{"messages":[1],"\\u006dessages":[2]}', b"[1]", b'{"model":"x"}',
     b'{"messages":{}}', b'{"messages":[1,]}', b'{"messages":[1]} x'],
)
def test_a_body_that_is_not_one_messages_array_has_no_offsets(data: bytes) -> None:
    assert offsets(data) is None

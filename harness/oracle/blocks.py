"""The shape of content blocks the API knows, as its validation reports it.

Paths follow the API's: the block's place, its type, its field
(``messages.0.content.1.text.text: Input should be a valid string``, as the live API
answered a text block whose text was null). A block of a type not listed here passes
untouched -- the API adds block types (documents, search results, server tools …)
faster than a checker learns them, and a false alarm is worse than a miss. Sources:
the SDK's block types (which fields are required, which are strings); the live API's
texts for a text block (above) and for a missing field (``Field required``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from harness.oracle import wording
from harness.oracle.wording import Violation

_REQUIRED_STRINGS: dict[str, tuple[str, ...]] = {
    "text": ("text",),
    "thinking": ("thinking", "signature"),
    "redacted_thinking": ("data",),
    "tool_result": ("tool_use_id",),
}
_REQUIRED: dict[str, tuple[str, ...]] = {"tool_use": ("name", "input"), "image": ("source",), "document": ("source",)}
_MAPPING = (dict, Mapping)


def block_shape(at: str, block: Mapping[str, Any]) -> Iterable[Violation]:
    """Shape violations of one content block (a mapping) at path ``at``: a known type's
    required fields (``messages.N.content.K.image.source: Field required``) and their
    types (``messages.N.content.K.text.text: Input should be a valid string``)."""
    kind = block.get("type")
    if not isinstance(kind, str):
        yield Violation(at, wording.NO_DISCRIMINATOR)
        return
    for name in _REQUIRED_STRINGS.get(kind, ()):
        if name not in block:
            yield Violation(f"{at}.{kind}.{name}", wording.FIELD_REQUIRED)
        elif not isinstance(block[name], str):
            yield Violation(f"{at}.{kind}.{name}", wording.VALID_STRING)
    for name in _REQUIRED.get(kind, ()):
        if name not in block:
            yield Violation(f"{at}.{kind}.{name}", wording.FIELD_REQUIRED)
    if kind == "tool_use" and "name" in block and not isinstance(block["name"], str):
        yield Violation(f"{at}.tool_use.name", wording.VALID_STRING)
    if kind == "tool_result":
        yield from _tool_result_content(at, block.get("content"))


def _tool_result_content(at: str, content: Any) -> Iterable[Violation]:
    """A tool_result's content: absent, text, or a list of blocks (text ones checked)."""
    if content is None or isinstance(content, str):
        return
    if not isinstance(content, list):
        yield Violation(f"{at}.tool_result.content", wording.NOT_A_LIST)
        return
    for j, inner in enumerate(content):
        where = f"{at}.tool_result.content.{j}"
        if not isinstance(inner, _MAPPING):
            yield Violation(where, wording.NOT_AN_OBJECT)
        else:
            yield from block_shape(where, inner)

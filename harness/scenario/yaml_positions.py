"""YAML loading that remembers where every mapping key, value and list item stands,
so that a mistake can be reported as ``path:line:col``.

Bounded: a file over ``MAX_BYTES``, nesting deeper than ``MAX_DEPTH``, or a document
that aliases blow up past ``MAX_UNITS`` (a "billion laughs" file of nested aliases;
``harness.wire.plain_yaml.check_expanded``) is refused with a ``YamlError`` before
anything walks it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from harness.wire.files import read_regular
from harness.wire.plain_yaml import check_expanded, limit_for
from harness.wire.yaml_errors import yaml_error_message

Position = tuple[int, int]  # 1-based line and column
MAX_BYTES = 16 * 1024 * 1024
MAX_DEPTH = 64
MAX_UNITS = 1_000_000  # values, plus one each 64 characters of text


class LocatedDict(dict):
    """A mapping from YAML with the position of itself, each key and each value."""

    pos: Position = (1, 1)
    key_pos: dict[Any, Position]
    value_pos: dict[Any, Position]


class LocatedList(list):
    """A sequence from YAML with the position of itself and of each item."""

    pos: Position = (1, 1)
    item_pos: list[Position]


class YamlError(ValueError):
    """A file that is not YAML, or has the same key twice; the message starts with ``path:line:col:``."""


def position(node: yaml.Node) -> Position:
    return node.start_mark.line + 1, node.start_mark.column + 1


class _Loader(yaml.SafeLoader):
    """The safe loader, with a depth limit while composing and a size limit on the
    document its aliases make."""

    depth = 0

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node:
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                line, col = _at(self.peek_event().start_mark)
                raise YamlError(f"{line}:{col}: nested more than {MAX_DEPTH} levels deep; a scenario needs far fewer")
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1

    def compose_document(self) -> yaml.Node:
        node = super().compose_document()
        check_expanded(node, min(MAX_UNITS, limit_for(self.buffer)))
        return node


def _at(mark: Any) -> Position:
    return (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)


def _construct_map(loader: _Loader, node: yaml.MappingNode) -> LocatedDict:
    loader.flatten_mapping(node)
    result = LocatedDict()
    result.pos, result.key_pos, result.value_pos = position(node), {}, {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        try:
            hash(key)
        except TypeError:
            line, col = position(key_node)
            raise YamlError(f"{line}:{col}: a mapping key must be a plain value (text or a number), not {_kind(key)}") from None
        if key in result:
            (line, col), (first, _) = position(key_node), result.key_pos[key]
            raise YamlError(f"{line}:{col}: the key {key!r} appears twice in this mapping (first on line {first})")
        result[key] = loader.construct_object(value_node, deep=True)
        result.key_pos[key], result.value_pos[key] = position(key_node), position(value_node)
    return result


def _construct_seq(loader: _Loader, node: yaml.SequenceNode) -> LocatedList:
    result = LocatedList(loader.construct_object(item, deep=True) for item in node.value)
    result.pos, result.item_pos = position(node), [position(item) for item in node.value]
    return result


_Loader.add_constructor("tag:yaml.org,2002:map", _construct_map)
_Loader.add_constructor("tag:yaml.org,2002:seq", _construct_seq)


def _kind(value: Any) -> str:
    return "a mapping" if isinstance(value, dict) else "a list" if isinstance(value, list) else type(value).__name__


def load_located(path: Path) -> Any:
    """The YAML document in ``path``, with positions; YamlError for broken files."""
    try:
        text = read_regular(path, max_bytes=MAX_BYTES).decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise YamlError(f"{path}:1:1: cannot read it: {error}") from None
    return loads_located(text, str(path))


def loads_located(text: str, name: str = "<text>") -> Any:
    """``load_located`` on text already read; ``name`` prefixes the messages."""
    try:
        return yaml.load(text, Loader=_Loader)
    except YamlError as error:
        raise YamlError(f"{name}:{error}") from None
    except yaml.YAMLError as error:
        (line, col), sentence = yaml_error_message(error, text)
        raise YamlError(f"{name}:{line}:{col}: {sentence}") from None
    except (RecursionError, ValueError, TypeError, OverflowError) as error:
        raise YamlError(f"{name}:1:1: not valid YAML: {error}") from None

"""YAML loading that remembers where every mapping key, value and list item stands,
so that a mistake can be reported as ``path:line:col``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from harness.wire.yaml_errors import yaml_error_message

Position = tuple[int, int]  # 1-based line and column


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
    pass


def _construct_map(loader: _Loader, node: yaml.MappingNode) -> LocatedDict:
    loader.flatten_mapping(node)
    result = LocatedDict()
    result.pos, result.key_pos, result.value_pos = position(node), {}, {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
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


def load_located(path: Path) -> Any:
    """The YAML document in ``path``, with positions; YamlError for broken files."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise YamlError(f"{path}: cannot read: {error}") from None
    try:
        return yaml.load(text, Loader=_Loader)
    except YamlError as error:
        raise YamlError(f"{path}:{error}") from None
    except yaml.YAMLError as error:
        (line, col), sentence = yaml_error_message(error, text)
        raise YamlError(f"{path}:{line}:{col}: {sentence}") from None

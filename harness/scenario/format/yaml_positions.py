"""YAML loading that remembers where every mapping key, value and list item stands,
so that a mistake can be reported as ``path:line:col``.

Bounded: a file over ``MAX_BYTES``, nesting deeper than ``MAX_DEPTH``, or a document
that aliases blow up past ``MAX_UNITS`` (a "billion laughs" file of nested aliases;
``harness.wire.plain_yaml.check_expanded``) is refused with a ``YamlError`` before
anything walks it. libyaml reads when PyYAML has it (``_FastLoader``), the pure-Python
loader where the two would differ and for every error message."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Protocol

import yaml

from harness.scenario.format.problem import Problem
from harness.wire.errors import HarnessError
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


class YamlError(HarnessError, ValueError):
    """A file that is not YAML, or has the same key twice: ``problem`` says where (its
    message starts with ``path:line:col:``)."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(str(problem))
        self.problem = problem


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
                at = _at(self.peek_event().start_mark)
                raise YamlError(Problem.at(at, f"nested more than {MAX_DEPTH} levels deep; a scenario needs far fewer"))
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
    _expect(node, yaml.MappingNode, "a mapping")
    loader.flatten_mapping(node)
    result = LocatedDict()
    result.pos, result.key_pos, result.value_pos = position(node), {}, {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        try:
            hash(key)
        except TypeError:
            problem = f"a mapping key must be a plain value (text or a number), not {_kind(key)}"
            raise YamlError(Problem.at(position(key_node), problem)) from None
        if key in result:
            first = result.key_pos[key][0]
            raise YamlError(Problem.at(position(key_node), f"the key {key!r} appears twice in this mapping (first on line {first})"))
        result[key] = loader.construct_object(value_node, deep=True)
        result.key_pos[key], result.value_pos[key] = position(key_node), position(value_node)
    return result


def _construct_seq(loader: _Loader, node: yaml.SequenceNode) -> LocatedList:
    _expect(node, yaml.SequenceNode, "a list")
    result = LocatedList(loader.construct_object(item, deep=True) for item in node.value)
    result.pos, result.item_pos = position(node), [position(item) for item in node.value]
    return result


def _expect(node: yaml.Node, kind: type, what: str) -> None:
    """A ``!!map`` or ``!!seq`` tag on a node of another kind is an error, as PyYAML has it."""
    if not isinstance(node, kind):
        raise yaml.constructor.ConstructorError(None, None, f"the tag {node.tag.replace('tag:yaml.org,2002:', '!!')} needs {what} here, not a {node.id}", node.start_mark)


_Loader.add_constructor("tag:yaml.org,2002:map", _construct_map)
_Loader.add_constructor("tag:yaml.org,2002:seq", _construct_seq)


def _kind(value: Any) -> str:
    return "a mapping" if isinstance(value, dict) else "a list" if isinstance(value, list) else type(value).__name__


def load_located(path: Path) -> Any:
    """The YAML document in ``path``, with positions; YamlError for broken files."""
    try:
        text = read_regular(path, max_bytes=MAX_BYTES).decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise YamlError(Problem.at((1, 1), f"cannot read it: {error}").in_file(str(path))) from None
    return loads_located(text, str(path))


class _FastLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """libyaml's parser and composer (when PyYAML has them) with the same constructors:
    the same values and positions, several times faster. Used only on text whose
    nesting a first pass over its events has bounded, and only when it reads the text
    without an error: every error is the pure-Python loader's, with its wording. Where
    the two are known to differ, the pure-Python loader reads alone: text with a tab or
    a block scalar's ``|`` or ``>`` right before a ``#`` (libyaml takes some of those
    that PyYAML refuses), and documents with an empty value (libyaml places it at the
    next token, PyYAML where it was left out)."""


_FastLoader.add_constructor("tag:yaml.org,2002:map", _construct_map)
_FastLoader.add_constructor("tag:yaml.org,2002:seq", _construct_seq)
class _PurePythonReads(HarnessError):
    """Text the fast path leaves to the pure-Python loader."""


_BLOCK_BEFORE_COMMENT = re.compile(r"[|>][-+0-9]*#")
_FAST = bool(getattr(yaml, "__with_libyaml__", False))


def _fast_load(text: str) -> Any:
    """The document through libyaml; yaml.YAMLError (or YamlError) when anything is off,
    _PurePythonReads where the pure-Python loader would read it otherwise."""
    if "\t" in text or _BLOCK_BEFORE_COMMENT.search(text):
        raise _PurePythonReads
    depth = 0
    for event in yaml.parse(text, Loader=_FastLoader):  # nesting first: libyaml composes by recursion in C
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            if depth > MAX_DEPTH:
                raise _PurePythonReads  # which says how deep, at its line
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1
    loader = _FastLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        check_expanded(node, min(MAX_UNITS, limit_for(text)))
        if _has_empty_value(node):
            raise _PurePythonReads
        return loader.construct_document(node)
    finally:
        loader.dispose()


def _has_empty_value(root: yaml.Node) -> bool:
    """Whether a value is left out (``key:`` with nothing after it): an empty plain scalar."""
    stack, seen = [root], set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.ScalarNode):
            if node.value == "" and not node.style:  # plain: None in PyYAML, "" in libyaml
                return True
        elif isinstance(node, yaml.SequenceNode):
            stack += node.value
        else:
            stack += [part for pair in node.value for part in pair]
    return False


def loads_located(text: str, name: str = "<text>") -> Any:
    """``load_located`` on text already read; ``name`` prefixes the messages."""
    if _FAST:
        try:
            return _fast_load(text)
        except (_PurePythonReads, yaml.YAMLError, RecursionError, ValueError, TypeError, OverflowError):  # YamlError is a ValueError
            pass  # read again below, for the pure-Python loader's own message
    try:
        return yaml.load(text, Loader=_Loader)
    except YamlError as error:
        raise YamlError(error.problem.in_file(name)) from None
    except yaml.YAMLError as error:
        at, sentence = yaml_error_message(error, text)
        raise YamlError(Problem.at(at, sentence).in_file(name)) from None
    except (RecursionError, ValueError, TypeError, OverflowError) as error:
        raise YamlError(Problem.at((1, 1), f"not valid YAML: {error}").in_file(name)) from None


class Checks(Protocol):
    """What ``load_checked`` needs of a spec (``harness.scenario.format.spec.Spec``)."""

    def check(self, value: Any, pos: Position, name: str) -> list[Any]: ...


def load_checked(path: str | Path, spec: Checks, name: str, error: type[Exception]) -> Any:
    """The YAML (or JSON) document in ``path``, checked against ``spec``; ``error`` naming
    ``path:line:col`` for every mistake."""
    try:
        document = load_located(Path(path))
    except YamlError as broken:
        raise error(str(broken.problem)) from None
    problems = spec.check(document, (1, 1), name)
    if problems:
        raise error("\n".join(str(p.in_file(str(path))) for p in problems))
    return document

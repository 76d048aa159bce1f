"""``yaml.load`` with the safe loader, faster on the documents cassettes are made of.

PyYAML's C loader composes the node tree in C but builds every value in Python, through
generators; for a cassette of hundreds of interactions that building is a third of the
load. Here strings, mappings and sequences are built straight from the nodes and only
other scalars (ints, ``!!binary``, …) go to PyYAML's ``SafeConstructor``. A document the
shortcut does not cover (aliases, merge keys, tagged collections, unhashable keys) is
loaded by ``yaml.load`` instead, so the result is always what ``yaml.load`` gives.

``check_expanded`` bounds what aliases can make of a document (a "billion laughs" file):
it measures the document as if every alias were written out — each node measured once,
so a bomb is measured without being expanded — and raises ``AliasBomb`` past the limit.
``load`` applies it before anything is built.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Any, BinaryIO, Iterator

import yaml
from yaml.constructor import SafeConstructor

from harness.wire.errors import HarnessError

LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_STR = "tag:yaml.org,2002:str"
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
_MERGE = "tag:yaml.org,2002:merge"


UNITS_FREE = 1_000_000
"""Size units (one a value, one more each 64 characters of text) any document may
reach with its aliases expanded, on top of twice its own length."""


class _NotPlain(HarnessError):
    """A node the shortcut leaves to ``yaml.load``."""


class AliasBomb(HarnessError, yaml.MarkedYAMLError):
    """A document whose aliases, written out, would make it far larger than its text."""


def load(text: str | bytes | BinaryIO, *, size: int | None = None) -> Any:
    """``yaml.load(text, Loader=CSafeLoader)``, built faster; raises what it raises, and
    AliasBomb for a document that aliases blow up. ``text`` may be a binary file, read in
    pieces (no copy of a large file beside what is built from it), with its ``size``."""
    with _collection_paused():
        return _load(text, limit_for(text if size is None else size))  # its node tree is gone when collection resumes


def limit_for(text: str | bytes | int) -> int:
    """The expanded size allowed to a document of this text (or this many characters)."""
    length = text if isinstance(text, int) else len(text)
    return UNITS_FREE + 2 * (length // 64 + 1)


def check_expanded(root: yaml.Node, limit: int) -> None:
    """Raise AliasBomb if ``root`` with its aliases written out exceeds ``limit`` units,
    or if an alias refers to a value that contains it."""
    sizes: dict[int, int] = {}
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        children = _children(node)
        if not children_done:
            if id(node) in sizes:
                continue
            sizes[id(node)] = -1  # in progress: met again below itself, it is a recursive alias
            stack.append((node, True))
            for child in children:
                if sizes.get(id(child)) == -1:
                    raise AliasBomb(problem="an alias refers to a value that contains it (a recursive alias)", problem_mark=child.start_mark)
                stack.append((child, False))
            continue
        own = 1 + (len(node.value) // 64 if isinstance(node, yaml.ScalarNode) else 0)
        sizes[id(node)] = total = own + sum(sizes[id(child)] for child in children)
        if total > limit:
            raise AliasBomb(
                problem=f"this value would hold more than {limit:,} size units once its aliases are written out "
                "(an alias bomb?); write it out, or use fewer aliases",
                problem_mark=node.start_mark,
            )


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _load(text: str | bytes | BinaryIO, limit: int) -> Any:
    node = yaml.compose(text, Loader=LOADER)
    if node is None:
        return None
    check_expanded(node, limit)
    try:
        return _Builder().build(node)
    except (_NotPlain, TypeError, RecursionError):
        if not isinstance(text, (str, bytes)):
            text.seek(0)
        return yaml.load(text, Loader=LOADER)


@contextmanager
def _collection_paused() -> Iterator[None]:
    """No garbage collection while a document loads. Its node tree (tens of thousands of
    objects for a long cassette) is garbage the moment the load returns, but collections
    in the middle would move it to the oldest generation, and that sets off a collection
    of the whole heap: ~85 ms in a process with the SDK loaded, ~0.2 ms a request when a
    400-interaction cassette is replayed. Collection resumes after (if it was on)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class _Builder:
    def __init__(self) -> None:
        self.seen: set[int] = set()
        self.constructor = SafeConstructor()

    def build(self, node: yaml.Node) -> Any:
        if id(node) in self.seen:  # an alias: the same node a second time
            raise _NotPlain
        self.seen.add(id(node))
        tag = node.tag
        if isinstance(node, yaml.ScalarNode):
            return node.value if tag == _STR else self.constructor.construct_object(node, deep=True)
        if tag == _MAP and isinstance(node, yaml.MappingNode):
            mapping = {}
            for key, value in node.value:
                if key.tag == _MERGE:
                    raise _NotPlain
                mapping[self.build(key)] = self.build(value)  # an unhashable key: TypeError
            return mapping
        if tag == _SEQ and isinstance(node, yaml.SequenceNode):
            return [self.build(item) for item in node.value]
        raise _NotPlain

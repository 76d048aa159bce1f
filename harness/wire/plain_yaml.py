"""``yaml.load`` with the safe loader, faster on the documents cassettes are made of.

PyYAML's C loader composes the node tree in C but builds every value in Python, through
generators; for a cassette of hundreds of interactions that building is a third of the
load. Here strings, mappings and sequences are built straight from the nodes and only
other scalars (ints, ``!!binary``, …) go to PyYAML's ``SafeConstructor``. A document the
shortcut does not cover (aliases, merge keys, tagged collections, unhashable keys) is
loaded by ``yaml.load`` instead, so the result is always what ``yaml.load`` gives.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Any, Iterator

import yaml
from yaml.constructor import SafeConstructor

LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_STR = "tag:yaml.org,2002:str"
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
_MERGE = "tag:yaml.org,2002:merge"


class _NotPlain(Exception):
    """A node the shortcut leaves to ``yaml.load``."""


def load(text: str) -> Any:
    """``yaml.load(text, Loader=CSafeLoader)``, built faster; raises what it raises."""
    with _collection_paused():
        return _load(text)  # its node tree is gone when collection resumes


def _load(text: str) -> Any:
    node = yaml.compose(text, Loader=LOADER)
    if node is None:
        return None
    try:
        return _Builder().build(node)
    except (_NotPlain, TypeError, RecursionError):
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

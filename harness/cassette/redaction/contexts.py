"""Where only the context says "secret": what a credential-named file holds.

``credential_texts(document)`` reads a JSON document (a request body, a reassembled tool
input) for the strings that come from, or go to, a file whose name says key, secret,
token, credential or password (``secrets/api_token.txt``, ``~/.aws/credentials``,
``deploy.key``):

    the content of a tool_result            answering a tool_use whose input names such a
                                            file (a Read of it, a ``cat`` of it)
    the other strings of an object          that names one (a Write's ``content``)

``file_token_spans(text)`` then gives the tokens in such a text that look like a secret
(16+ characters, entropy ≥ 3, not a phrase, a number or a path): a key of no known
shape, kept in a file named for it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from harness.cassette.redaction.checks import generic_value

_PATH = re.compile(r"[\w.~/\\-]*[/.][\w.~/\\-]*")  # a word with a '/' or a '.': a file name
_PART = re.compile(r"[._\-]+|(?<=[a-z])(?=[A-Z])")
_CREDENTIAL_PARTS = frozenset({
    "key", "keys", "secret", "secrets", "token", "tokens", "credential", "credentials", "password", "passwords",
    "passwd", "pwd", "apikey", "pem", "p12", "pfx", "keystore",
})
_MAYBE = re.compile(r"(?i)key|secret|token|credential|passw|pwd|\.p(?:em|12|fx)")
_FILE_TOKEN = re.compile(r"(?<![A-Za-z0-9_+/=.~-])[A-Za-z0-9_+/=.~-]{16,}(?![A-Za-z0-9_+/=.~-])")


def credential_file(text: str) -> bool:
    """Whether ``text`` names a file whose name says credential (also inside a command)."""
    for word in _PATH.findall(text):
        base = re.split(r"[/\\]", word.rstrip("/\\"))[-1]
        if any(part.lower() in _CREDENTIAL_PARTS for part in _PART.split(base)):
            return True
    return False


def credential_texts(document: str) -> frozenset[str]:
    """The strings of the JSON ``document`` that a credential-named file holds (see the
    module doc); empty for text that is not JSON or names no such file."""
    if not _MAYBE.search(document):
        return frozenset()
    try:
        value = json.loads(document)
    except ValueError:
        return frozenset()
    named: set[str] = set()
    texts: set[str] = set()
    results: list[dict[str, Any]] = []
    stack: list[Any] = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack += node
            continue
        if not isinstance(node, dict):
            continue
        strings = [v for v in node.values() if isinstance(v, str)]
        naming = [s for s in strings if credential_file(s)]
        if naming:
            texts.update(s for s in strings if s not in naming)
        tool_input = node.get("input")
        if node.get("type") in ("tool_use", "server_tool_use") and isinstance(tool_input, dict):
            if isinstance(node.get("id"), str) and any(credential_file(s) for s in _strings(tool_input)):
                named.add(node["id"])
        if node.get("type") == "tool_result":
            results.append(node)
        stack += [v for v in node.values() if isinstance(v, (dict, list))]
    for result in results:  # a recorded body may hold any JSON where an id belongs
        if isinstance(result.get("tool_use_id"), str) and result["tool_use_id"] in named:
            texts.update(_strings(result.get("content")))
    return frozenset(texts)


def file_token_spans(text: str) -> Iterator[tuple[int, int]]:
    """The secret-looking tokens of a text a credential-named file holds."""
    for match in _FILE_TOKEN.finditer(text):
        if generic_value(match.group()):
            yield match.span()


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)

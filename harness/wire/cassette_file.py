"""Read vcrpy cassettes without vcrpy: the interactions, and each response body as the
bytes the client would have read, whatever form the recorder stored it in (text,
``!!binary``, gzip- or deflate-compressed, vcrpy's older httpx ``content`` form).

Errors are ``CassetteError`` (a ``ValueError``) naming the file and, where YAML knows
it, ``line:col``.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from harness.wire import plain_yaml
from harness.wire.yaml_errors import yaml_error_message

_GZIP_MAGIC = b"\x1f\x8b"


class CassetteError(ValueError):
    """A cassette that cannot be read: not YAML, or not shaped like a vcrpy cassette."""


def load_cassette(path: str | Path) -> list[dict]:
    """The interactions of the vcrpy cassette at ``path``, each ``{request, response}``."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CassetteError(f"{path}: cannot read cassette: {exc}") from None
    try:
        data = plain_yaml.load(text)
    except yaml.YAMLError as exc:
        (line, col), sentence = yaml_error_message(exc, text)
        raise CassetteError(f"{path}:{line}:{col}: {sentence}") from None
    if not isinstance(data, Mapping) or "interactions" not in data:
        raise CassetteError(f"{path}: not a vcrpy cassette: no top-level 'interactions' key")
    interactions = data["interactions"]
    if not isinstance(interactions, list):
        raise CassetteError(f"{_where(path, text, ['interactions'])}: 'interactions' must be a list")
    for n, interaction in enumerate(interactions):
        for key in ("request", "response"):
            if not isinstance(interaction, Mapping) or not isinstance(interaction.get(key), Mapping):
                where = _where(path, text, ["interactions", n])
                raise CassetteError(f"{where}: interaction {n} has no '{key}' mapping")
    return interactions


def response_body_bytes(response: Mapping[str, Any]) -> bytes:
    """The body of a recorded response as the client reads it: text encoded as UTF-8,
    ``!!binary`` as is, then gzip or deflate undone (by ``Content-Encoding`` or by the
    gzip magic bytes)."""
    body = response.get("body")
    if isinstance(body, Mapping):
        raw = body.get("string")
    elif "content" in response:  # vcrpy's older httpx format
        raw = response["content"]
    else:
        raw = body
    if raw is None:
        return b""
    if isinstance(raw, str):
        raw = raw.encode("utf-8")
    if not isinstance(raw, bytes):
        raise CassetteError(f"response body must be a string or bytes, not {type(raw).__name__}")
    encoding = content_encoding(response.get("headers") or {})
    try:
        if raw.startswith(_GZIP_MAGIC) or encoding in ("gzip", "x-gzip"):
            return gzip.decompress(raw)
        if encoding == "deflate":
            return zlib.decompress(raw)
    except (OSError, EOFError, zlib.error) as exc:
        claim = f"Content-Encoding {encoding}" if encoding else "gzip magic bytes"
        raise CassetteError(f"response body has {claim} but does not decompress: {exc}") from None
    if encoding not in ("", "identity"):
        raise CassetteError(f"response body has unsupported Content-Encoding {encoding!r}")
    return raw


def content_encoding(headers: Mapping[str, Any]) -> str:
    """The ``Content-Encoding`` of vcrpy headers (any case, a list or a string), lower-cased."""
    for name, value in headers.items():
        if name.lower() == "content-encoding":
            values = value if isinstance(value, list) else [value]
            return ", ".join(str(v) for v in values).strip().lower()
    return ""


def _where(path: Path, text: str, keys: list[str | int]) -> str:
    """``path:line:col`` of the node at ``keys``, found by composing the YAML again
    (only on the error path); just ``path`` if it cannot be found."""
    node = yaml.compose(text, Loader=plain_yaml.LOADER)
    for key in keys:
        if isinstance(node, yaml.MappingNode):
            node = next((v for k, v in node.value if k.value == key), None)
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
            node = node.value[key]
        else:
            node = None
        if node is None:
            return str(path)
    return f"{path}:{node.start_mark.line + 1}:{node.start_mark.column + 1}"

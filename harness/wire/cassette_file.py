"""Read vcrpy cassettes without vcrpy: the interactions, and each response body as the
bytes the client would have read, whatever form the recorder stored it in (text,
``!!binary``, gzip- or deflate-compressed, vcrpy's older httpx ``content`` form).

Errors are ``CassetteError`` (a ``ValueError``) naming the file and, where YAML knows
it, ``line:col``.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from harness.wire import plain_yaml
from harness.wire.errors import HarnessError
from harness.wire.files import open_regular, read_regular
from harness.wire.yaml_errors import yaml_error_message

_GZIP_MAGIC = b"\x1f\x8b"
MAX_CASSETTE_BYTES = 1024 * 1024 * 1024
MAX_BODY_BYTES = 512 * 1024 * 1024  # a response body, decompressed


class CassetteError(HarnessError, ValueError):
    """A cassette that cannot be read: not YAML, or not shaped like a vcrpy cassette."""


def load_cassette(path: str | Path) -> list[dict]:
    """The interactions of the vcrpy cassette at ``path``, each ``{request, response}``."""
    return read_cassette(path).interactions


@dataclass(frozen=True)
class CassetteFile:
    """A cassette as read: its interactions and vcrpy's ``metadata`` block (empty if none)."""

    interactions: list[dict]
    metadata: dict[str, Any]


def read_cassette(path: str | Path) -> CassetteFile:
    """The vcrpy cassette at ``path``, checked. YAML reads the file in pieces: a cassette
    of tens of megabytes is never held beside what is built from it."""
    path = Path(path)
    try:
        with open_regular(path, max_bytes=MAX_CASSETTE_BYTES) as stream:
            data = plain_yaml.load(stream, size=os.fstat(stream.fileno()).st_size)
    except OSError as exc:
        raise CassetteError(f"{path}: cannot read cassette: {exc}") from None
    except yaml.reader.ReaderError as exc:
        if "UTF-8" in str(exc.reason):  # not text at all: no line to name
            raise CassetteError(f"{path}: cannot read cassette: {exc.reason} at byte {exc.position}") from None
        (line, col), sentence = yaml_error_message(exc, _text(path))
        raise CassetteError(f"{path}:{line}:{col}: {sentence}") from None
    except yaml.YAMLError as exc:
        (line, col), sentence = yaml_error_message(exc, _text(path))
        raise CassetteError(f"{path}:{line}:{col}: {sentence}") from None
    if not isinstance(data, Mapping) or "interactions" not in data:
        raise CassetteError(f"{path}: not a vcrpy cassette: no top-level 'interactions' key")
    interactions = data["interactions"]
    if not isinstance(interactions, list):
        raise CassetteError(f"{located(path, ['interactions'])}: 'interactions' must be a list")
    for n, interaction in enumerate(interactions):
        for key in ("request", "response"):
            if not isinstance(interaction, Mapping) or not isinstance(interaction.get(key), Mapping):
                raise CassetteError(f"{located(path, ['interactions', n])}: interaction {n} has no '{key}' mapping")
        problem = _shape_problem(interaction)
        if problem:
            key, message = problem
            raise CassetteError(f"{located(path, ['interactions', n, *key])}: interaction {n}: {message}")
    metadata = data.get("metadata") or {}
    if not isinstance(metadata, Mapping):
        raise CassetteError(f"{located(path, ['metadata'])}: 'metadata' must be a mapping")
    return CassetteFile(interactions, dict(metadata))


def _text(path: Path) -> str:
    """The file's text, read again on an error path to say where the mistake is."""
    return read_regular(path, max_bytes=MAX_CASSETTE_BYTES).decode("utf-8", "replace")


_SCALAR = (str, int, float, bool)


def _shape_problem(interaction: Mapping[str, Any]) -> tuple[list[str], str] | None:
    """Where and how an interaction departs from what vcrpy writes, or None."""
    request, response = interaction["request"], interaction["response"]
    for key in ("method", "uri"):
        if key in request and not isinstance(request[key], str):
            return ["request", key], f"request {key} must be text, not {type(request[key]).__name__}"
    try:
        urlsplit(request.get("uri", ""))
    except ValueError as error:  # "Invalid IPv6 URL": a bracket that does not close
        return ["request", "uri"], f"the request uri is not a URL ({error})"
    body = request.get("body")
    if isinstance(body, Mapping):
        body = body.get("string")
    if body is not None and not isinstance(body, (str, bytes)):
        return ["request", "body"], f"the request body must be text or bytes, not {type(body).__name__}"
    for side, part in (("request", request), ("response", response)):
        headers = part.get("headers")
        if headers is None:
            continue
        if not isinstance(headers, Mapping):
            return [side, "headers"], f"{side} headers must be a mapping of names to lists of values"
        for name, values in headers.items():
            if not all(isinstance(v, _SCALAR) for v in (values if isinstance(values, list) else [values])):
                return [side, "headers"], f"{side} header {name!r} must have text values"
    status = response.get("status")
    code = status.get("code") if isinstance(status, Mapping) else status
    if code is not None and (isinstance(code, bool) or not isinstance(code, int) or not 100 <= code <= 599):
        return ["response", "status"], f"the response status must be a number from 100 to 599, not {code!r}"
    try:
        _check_body(response)
    except CassetteError as error:
        return ["response", "body"], str(error)
    return None


def _check_body(response: Mapping[str, Any]) -> None:
    """CassetteError unless ``response_body_bytes`` can read the body; text that is not
    compressed is not encoded to find out (a body of tens of megabytes is read once, at
    replay)."""
    body = response.get("body")
    raw = body.get("string") if isinstance(body, Mapping) else response.get("content", body)
    if isinstance(raw, str) and content_encoding(response.get("headers") or {}) in ("", "identity"):
        return
    response_body_bytes(response)


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
            return inflate(raw, gzip=True)
        if encoding == "deflate":
            return inflate(raw, gzip=False)
    except (OSError, EOFError, zlib.error) as exc:
        claim = f"Content-Encoding {encoding}" if encoding else "gzip magic bytes"
        raise CassetteError(f"response body has {claim} but does not decompress: {exc}") from None
    if encoding not in ("", "identity"):
        raise CassetteError(f"response body has unsupported Content-Encoding {encoding!r}")
    return raw


def inflate(data: bytes, *, gzip: bool, max_bytes: int = MAX_BODY_BYTES) -> bytes:
    """``data`` decompressed (gzip, else zlib-deflate), refusing to grow past
    ``max_bytes`` (a small body that inflates to gigabytes); zlib.error when it is not
    compressed, or too big."""
    inflater = zlib.decompressobj(wbits=31 if gzip else 15)
    out = inflater.decompress(data, max_bytes + 1)
    if len(out) > max_bytes or inflater.unconsumed_tail:
        raise zlib.error(f"it inflates past {max_bytes:,} bytes")
    if not inflater.eof:
        raise zlib.error("the compressed data is truncated")
    return out


def content_encoding(headers: Mapping[str, Any]) -> str:
    """The ``Content-Encoding`` of vcrpy headers (any case, a list or a string), lower-cased."""
    for name, value in headers.items():
        if name.lower() == "content-encoding":
            values = value if isinstance(value, list) else [value]
            return ", ".join(str(v) for v in values).strip().lower()
    return ""


def located(path: Path, keys: list[str | int]) -> str:
    """``path:line:col`` of the node at ``keys`` (``["interactions", 3, "request"]``),
    found by composing the YAML again (only on the error path); just ``path`` if it
    cannot be found."""
    node = yaml.compose(_text(path), Loader=plain_yaml.LOADER)
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

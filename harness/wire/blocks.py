"""A message spec's content blocks as the live API streams them: each block's
``content_block_start`` and the deltas that fill it (text in pieces of whole words, a
call's input JSON in pieces of ~10 characters after an empty one, thinking then its
signature). ``sse.message_events`` puts them in a message.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any

TOOL_USE_KEYS = frozenset({"name", "input", "json", "id"})
STREAMED_CALLS = ("tool_use", "server_tool_use", "mcp_tool_use")
"""Calls whose input the live API streams as ``input_json_delta`` (a server tool's too)."""
_THINKING_KEYS = frozenset({"thinking", "signature"})
_TEXT_PIECE = 20  # characters per text/thinking delta, as a floor
_JSON_PIECE = 10  # characters per input_json_delta, as a floor (the live API sends ~10)
_MAX_PIECES = 50  # longer content gets longer pieces, to keep the SDK's per-delta cost bounded
_WORDS = re.compile(r"\s*\S+|\s+")
_INPUT_JSON = json.JSONEncoder(ensure_ascii=False).encode  # json.dumps(value, ensure_ascii=False), built once


def as_list(value: Any) -> list:
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def delta_events(delta_type: str, key: str, pieces: list[str]) -> list[dict]:
    return [{"type": delta_type, key: piece} for piece in pieces]


def given_pieces(text: Any) -> list[str]:
    """A message's ``text``: a string, cut here into pieces; or the pieces themselves, as
    the fake API writes a text it rewrote (non-empty strings)."""
    if isinstance(text, list) and text and all(isinstance(piece, str) and piece for piece in text):
        return text
    if not isinstance(text, str):
        raise ValueError(f"text must be a string, not {text!r}")
    return text_pieces(text)


def text_pieces(text: str) -> list[str]:
    """``text`` in pieces of whole words, each at least ~20 characters but the last."""
    size = max(_TEXT_PIECE, len(text) // _MAX_PIECES)
    pieces, current = [], ""
    for word in _WORDS.findall(text):
        current += word
        if len(current) >= size:
            pieces.append(current)
            current = ""
    return pieces + [current] if current else pieces


def json_pieces(value: Any) -> list[str]:
    """``value`` as the live API streams tool input: an empty piece, then the JSON in
    chunks; an empty object is the empty piece alone."""
    raw = _INPUT_JSON(value)
    if raw == "{}":
        return [""]
    size = max(_JSON_PIECE, len(raw) // _MAX_PIECES)
    return [""] + [raw[i : i + size] for i in range(0, len(raw), size)]


def thinking_block(item: Any, seed: str) -> tuple[dict, list[dict]]:
    if isinstance(item, str):
        text, signature = item, None
    elif isinstance(item, Mapping) and isinstance(item.get("thinking"), str) and item.keys() <= _THINKING_KEYS:
        text, signature = item["thinking"], item.get("signature")
    else:
        raise ValueError(f"thinking must be a string or {{thinking, signature}}, not {item!r}")
    if signature is None:
        signature = base64.b64encode(hashlib.shake_256(f"{seed}\0{text}".encode()).digest(96)).decode()
    filled = delta_events("thinking_delta", "thinking", text_pieces(text))
    filled.append({"type": "signature_delta", "signature": signature})
    return {"type": "thinking", "thinking": "", "signature": ""}, filled


def raw_block(block: Any, seed: str) -> tuple[dict, list[dict]]:
    """A raw content block as the live API streams it: text, thinking and a call's input
    in deltas after an empty start (``input: {}``), anything else (a tool's result, a
    redacted thinking block) whole in its ``content_block_start``."""
    if not isinstance(block, Mapping) or "type" not in block:
        raise ValueError(f"content blocks must be mappings with a type, not {block!r}")
    kind = block["type"]
    if kind == "text" and isinstance(block.get("text"), str) and block["text"]:
        return {**block, "text": ""}, delta_events("text_delta", "text", text_pieces(block["text"]))
    if kind == "thinking" and isinstance(block.get("thinking"), str):
        start, pieces = thinking_block({k: block[k] for k in _THINKING_KEYS if k in block}, seed)
        return {**block, **start}, pieces
    if kind in STREAMED_CALLS and isinstance(block.get("input"), Mapping):
        return {**block, "input": {}}, delta_events("input_json_delta", "partial_json", json_pieces(block["input"]))
    return dict(block), []


def tool_use_block(tool: Any, default_id: str) -> tuple[dict, list[dict]]:
    if not isinstance(tool, Mapping) or "name" not in tool:
        raise ValueError(f"tool_use must be a mapping with a name, not {tool!r}")
    unknown = tool.keys() - TOOL_USE_KEYS
    if unknown:
        raise ValueError(f"unknown tool_use key(s) {sorted(unknown)}; valid keys: {sorted(TOOL_USE_KEYS)}")
    if "input" in tool and "json" in tool:
        raise ValueError(f"tool_use {tool['name']!r}: give input or json, not both")
    raw = tool.get("json")
    if raw is None:
        pieces = json_pieces(tool.get("input", {}))
    else:
        pieces = ["", raw] if isinstance(raw, str) else list(raw)
    block = {
        "type": "tool_use",
        "id": tool.get("id", default_id),
        "name": tool["name"],
        "input": {},
        "caller": {"type": "direct"},
    }
    return block, delta_events("input_json_delta", "partial_json", pieces)

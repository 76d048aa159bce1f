"""Where real sessions put secrets, as request and response bodies.

Requests (``PLACES``): a file the agent Reads (``cat -n`` lines: a TAB before the key,
the key at the start of a line), a ``.env`` printed by Bash, a tool_use input, a URL in
the user's text, request headers shown by ``curl -v``, text after ``\\n`` and ``\\t``.
``ENCODINGS`` write each the ways JSON encoders do: ASCII-escaped, raw UTF-8 compact,
``\\/`` for every slash, ``\\u``-escaped letters and digits.

Responses: ``error_body`` is the API's error JSON quoting what it refused (a 400 that
echoes the request's text); ``stream`` writes an SSE message whose one content block (text, thinking or
tool input JSON) is split in two deltas at a given position; ``split_points`` gives
every position in and around a secret.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from redaction.fakes import Fake

Body = dict[str, object]


def numbered(text: str) -> str:
    """``text`` as mini_agent's Read returns it: ``cat -n`` style (number, TAB, line)."""
    return "\n".join(f"{number:6}\t{line}" for number, line in enumerate(text.split("\n"), 1))


def file_text(fake: Fake) -> str:
    """A config file holding the fake twice: as a ``NAME=value`` line and alone on a line."""
    return f"# settings\n{fake.line}\n{fake.value}\nDEBUG=1\n"


def _request(*messages: Body) -> Body:
    return {"model": "claude-sonnet-4-5", "max_tokens": 1024, "stream": True, "messages": list(messages)}


def _tool_round(name: str, tool_input: Body, result: str) -> Body:
    return _request(
        {"role": "user", "content": "Check the project settings."},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_01", "name": name, "input": tool_input}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": result}]},
    )


def read_result(fake: Fake) -> Body:
    return _tool_round("Read", {"file_path": "config/.env"}, numbered(file_text(fake)))


def bash_env(fake: Fake) -> Body:
    return _tool_round("Bash", {"command": "cat .env"}, f"[stdout]\n{file_text(fake)}\nexit code: 0")


def tool_use_input(fake: Fake) -> Body:
    return _tool_round("Write", {"file_path": ".env", "content": file_text(fake)}, "Wrote 120 bytes")


def url_in_text(fake: Fake) -> Body:
    return _request({"role": "user", "content": f"Use {fake.value} for the deploy, then tell me what changed."})


def curl_headers(fake: Fake) -> Body:
    shown = fake.value.replace("\n", "\n> ")
    result = f"[stderr]\n> POST /v1/items HTTP/1.1\n> Host: api.example.com\n> {shown}\n< HTTP/1.1 200 OK\nexit code: 0"
    return _tool_round("Bash", {"command": "curl -v https://api.example.com/v1/items"}, result)


def after_escapes(fake: Fake) -> Body:
    blocks = [{"type": "text", "text": f"line one\n{fake.value}"}, {"type": "text", "text": f"col\t{fake.value}\tend"}]
    return _request({"role": "user", "content": blocks})


def error_body(fake: Fake) -> Body:
    """The API's error body, its message quoting the offending text (as a 400 does)."""
    quoted = fake.line
    return {"type": "error", "error": {"type": "invalid_request_error",
                                       "message": f"messages.0.content.0.text: unexpected value {quoted!r}"},
            "request_id": "req_011CPlanted"}


PLACES: dict[str, Callable[[Fake], Body]] = {
    "read": read_result, "bash-env": bash_env, "tool-input": tool_use_input, "url": url_in_text,
    "headers": curl_headers, "escapes": after_escapes,
}


def _u_escaped(value: object) -> str:
    """JSON with every ASCII letter and digit in strings written as ``\\uXXXX``."""
    if isinstance(value, dict):
        return "{" + ",".join(f"{_u_escaped(k)}:{_u_escaped(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(map(_u_escaped, value)) + "]"
    if isinstance(value, str):
        chars = (f"\\u{ord(c):04x}" if c.isalnum() and c.isascii() else json.dumps(c)[1:-1] for c in value)
        return '"' + "".join(chars) + '"'
    return json.dumps(value)


ENCODINGS: dict[str, Callable[[object], str]] = {
    "ascii": json.dumps,
    "utf8-compact": lambda body: json.dumps(body, ensure_ascii=False, separators=(",", ":")),
    "escaped-slashes": lambda body: json.dumps(body).replace("/", "\\/"),
    "u-escaped": _u_escaped,
}


def stream(kind: str, content: str, split: int) -> bytes:
    """An SSE message with one content block of ``kind`` (``text``, ``thinking`` or
    ``tool_use``, whose ``content`` is the input JSON text) sent as two deltas split at
    ``split``."""
    start, delta_type, field = {
        "text": ({"type": "text", "text": ""}, "text_delta", "text"),
        "thinking": ({"type": "thinking", "thinking": "", "signature": ""}, "thinking_delta", "thinking"),
        "tool_use": ({"type": "tool_use", "id": "toolu_01", "name": "Bash", "input": {}}, "input_json_delta",
                     "partial_json"),
    }[kind]
    events: list[Body] = [
        {"type": "message_start", "message": {"id": "msg_01", "type": "message", "role": "assistant", "content": [],
                                              "model": "claude-sonnet-4-5", "usage": {"input_tokens": 9}}},
        {"type": "content_block_start", "index": 0, "content_block": start},
        *({"type": "content_block_delta", "index": 0, "delta": {"type": delta_type, field: piece}}
          for piece in (content[:split], content[split:])),
    ]
    if kind == "thinking":
        events.append({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta",
                                                                             "signature": "RXF1YWxseUZha2U="}})
    events += [{"type": "content_block_stop", "index": 0},
               {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 20}},
               {"type": "message_stop"}]
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e, separators=(',', ':'))}\n\n" for e in events).encode()


def stream_content(kind: str, fake: Fake) -> str:
    """What the model streams around the fake: prose, or a Bash call's input JSON."""
    if kind == "tool_use":
        return json.dumps({"command": f"printf '%s\\n' '{fake.line}' >> .env"})
    return f"Found it in the config:\n{fake.value}\nKeep it private."


def split_points(content: str, secret: str) -> range:
    """Every split position from just before ``secret`` (as written in ``content``) to just after it."""
    written = secret if secret in content else json.dumps(secret)[1:-1]
    at = content.index(written)
    return range(max(at - 1, 0), min(at + len(written) + 2, len(content) + 1))

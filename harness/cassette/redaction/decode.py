"""Decode first, then look: the views of a body in which secrets are searched.

``explode(root)`` gives every leaf view of a body and every ``(member name, value view)``
pair: a JSON document is walked to each string (keys too, the API's own vocabulary
left out); an SSE stream is reassembled per content block (text, thinking and tool-input
JSON; signatures stay ordinary strings) and a reassembled tool input is walked as JSON
in turn; text with backslash escapes gets an unescaped view; a base64 string that holds
(possibly gzipped) text gets an opaque view, a document of its own.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import json
import re
import zlib
from collections.abc import Callable

from harness.cassette.redaction.views import ESCAPE, View, child, concat, opaque

_JSON_STRING = re.compile(r'"([^"\\]*(?:\\.[^"\\]*)*)"(\s*:\s*)?', re.S)  # a string, and the colon of a key
SSE_DATA = re.compile(r"^data: ?([^\r\n]*)", re.M)
_SSE_START = re.compile(r"\A\s*(?:(?:event|data|id|retry):|:)")
_BASE64 = re.compile(r"[A-Za-z0-9+/]{24,}={0,2}")
_CUT_DELTA = re.compile(r'"index":\s*(\d+).*?"(text|thinking|partial_json)":\s*"((?:[^"\\]|\\.)*)\\?\Z')
_DELTA_FIELDS = {"text_delta": "text", "thinking_delta": "thinking", "input_json_delta": "partial_json"}
MAX_DEPTH = 6
# Member names and type names of the Messages API: never a secret, so not scanned
# (most strings of an event stream are these).
VOCABULARY = frozenset("""
type index delta text thinking signature partial_json content_block content_block_start content_block_delta
content_block_stop message message_start message_delta message_stop ping error text_delta thinking_delta
input_json_delta signature_delta citations_delta role user assistant content model id usage input_tokens
output_tokens cache_creation_input_tokens cache_read_input_tokens cache_creation ephemeral_5m_input_tokens
ephemeral_1h_input_tokens service_tier standard stop_reason stop_sequence stop_details end_turn max_tokens
tool_use tool_result tool_use_id name input is_error messages stream system tools input_schema properties
required description object string integer number boolean array items source base64 media_type data image
document cache_control ephemeral server_tool_use web_search_tool_result redacted_thinking
""".split())


Pair = tuple[str, View]
Keep = Callable[[str, str], bool]  # (member name, plain string) -> may it matter?


def json_members(parent: View, text: str, base: int, keep: Keep | None = None) -> tuple[list[View], list[Pair]]:
    """Every string of the JSON document ``text`` (at ``parent.text[base:]``), keys
    included (API vocabulary left out), and each ``(member name, string value)`` pair.
    With ``keep``, a string without escapes that holds no structure (JSON, a stream,
    base64) is left out unless ``keep(member name, string)`` says it may matter."""
    views: list[View] = []
    pairs: list[Pair] = []
    key, value_at = "", -1
    for match in _JSON_STRING.finditer(text):
        raw, colon = match.group(1, 2)
        name = key if match.start() == value_at else ""
        if raw in VOCABULARY or (keep is not None and _plain(raw) and not keep("" if colon else name, raw)):
            text_of = raw
        else:
            view = child(parent, raw, base + match.start(1), kind="json", key="" if colon else name, json_string=True)
            text_of = view.text
            if text_of:
                views.append(view)
                if view.key:
                    pairs.append((name, view))
        key, value_at = (text_of, match.end()) if colon else ("", -1)
    return views, pairs


def _plain(raw: str) -> bool:
    """A JSON string that is itself and nothing more: no escape, no document inside."""
    if "\\" in raw:
        return False
    head = raw[:64].lstrip()[:1]
    if head in ("{", "[") or (len(raw) >= 24 and not len(raw) % 4 and _BASE64.fullmatch(raw)):
        return False
    return not (_SSE_START.match(raw) and "\ndata:" in "\n" + raw)


def sse_members(parent: View) -> tuple[list[View], list[Pair]]:
    """The strings of every ``data:`` JSON of an SSE stream, with text, thinking and
    tool-input deltas reassembled per content block; a ``data:`` line that is not JSON
    is kept as a text view, and if it is a delta cut short, what it has of its string
    ends its block."""
    views: list[View] = []
    pairs: list[Pair] = []
    blocks: dict[tuple[int, str], list[View]] = {}
    for line in SSE_DATA.finditer(parent.text):
        payload, base = line.group(1), line.start(1)
        try:
            event = json.loads(payload)
        except ValueError:
            views.append(child(parent, payload, base, kind="sse-data") if payload else View("", parent))
            cut = _CUT_DELTA.search(payload)
            if cut:  # a stream cut inside a delta: its start still continues its block
                kind = next(k for k, f in _DELTA_FIELDS.items() if f == cut.group(2))
                fragment = child(parent, cut.group(3), base + cut.start(3), kind=kind)
                blocks.setdefault((int(cut.group(1)), kind), []).append(fragment)
            continue
        strings, members = json_members(parent, payload, base)
        fragment = _delta_fragment(event, members)
        if fragment is not None:
            blocks.setdefault((event.get("index", 0), fragment.kind), []).append(fragment)
            strings = [s for s in strings if s is not fragment]
            members = [m for m in members if m[1] is not fragment]
        views += strings
        pairs += members
    views += [concat(parent, fragments, kind=kind) for (_, kind), fragments in blocks.items()]
    return [v for v in views if v.text], pairs


def _delta_fragment(event: object, members: list[Pair]) -> View | None:
    if not isinstance(event, dict) or event.get("type") != "content_block_delta":
        return None
    delta = event.get("delta")
    kind = delta.get("type") if isinstance(delta, dict) else None
    name = _DELTA_FIELDS.get(kind) if isinstance(kind, str) else None
    found = [view for key, view in members if key == name]
    if not found:
        return None
    found[-1].kind = str(kind)
    return found[-1]


def unescaped(view: View) -> View | None:
    """``view`` with JSON-style escapes (``\\n``, ``\\u0061``, ``\\/``) decoded, if it has any."""
    if "\\" not in view.text or not ESCAPE.search(view.text):
        return None
    return child(view, view.text, 0, kind="unescaped", key=view.key)


def base64_text(view: View) -> View | None:
    """The text a whole-base64 string holds (gunzipped if need be), as an opaque view."""
    if len(view.text) % 4 or not _BASE64.fullmatch(view.text):
        return None
    try:
        data = base64.b64decode(view.text, validate=True)
        gzipped = data[:2] == b"\x1f\x8b"
        text = (gzip.decompress(data) if gzipped else data).decode("utf-8")
    except (binascii.Error, ValueError, OSError, EOFError, zlib.error):
        return None
    if "\0" in text:
        return None

    def encode(new: str) -> str:
        raw = new.encode("utf-8")
        return base64.b64encode(gzip.compress(raw, mtime=0) if gzipped else raw).decode("ascii")

    return opaque(view, text, encode)


def explode(top: View, keep: Keep | None = None) -> tuple[list[View], list[Pair]]:
    """Every leaf view under ``top`` (JSON walked, SSE reassembled, escapes and base64
    decoded) and every member pair. An opaque (base64) view is a leaf: its text is a
    document of its own, to explode from a new root. ``keep`` leaves out the plain JSON
    strings that cannot matter (see ``json_members``; stream deltas are always kept,
    their pieces matter only together)."""
    leaves: list[View] = []
    pairs: list[Pair] = []
    stack = [(top, 0)]
    while stack:
        view, depth = stack.pop()
        structured = _structure(view, keep) if depth < MAX_DEPTH else None
        if structured is not None:
            pairs += structured[1]
            stack += [(v, depth + 1) for v in structured[0]]
            continue
        leaves.append(view)
        if depth < MAX_DEPTH and view.encode is None:
            stack += [(v, depth + 1) for v in (unescaped(view), base64_text(view)) if v is not None]
    return leaves, pairs


def _structure(view: View, keep: Keep | None) -> tuple[list[View], list[Pair]] | None:
    head = view.text[:64].lstrip()[:1]
    if head in ("{", "["):
        try:
            json.loads(view.text)
        except ValueError:
            return None
        return json_members(view, view.text, 0, keep)
    if _SSE_START.match(view.text) and "\ndata:" in "\n" + view.text:
        return sse_members(view)
    return None

"""Decode first: the three ways keys got past the old scanner (a JSON escape before the
key, ``\\u``-escaped letters, a key split across deltas) are seen in the decoded views,
and each decoded character maps back to its escaped source."""

from __future__ import annotations

import base64
import gzip
import json

from harness.cassette.redaction import decode, views
from harness.cassette.redaction.find import find_secrets
from harness.cassette.scan import scan_text
from redaction.fakes import FAKES

KEY = FAKES[0].value  # sk-ant-api03-FAKE…


def test_a_key_after_a_json_newline_or_tab_escape_is_found_in_the_raw_line_too():
    for escape in ("\\n", "\\t", "\\n     2\\t"):
        line = f'{{"content": "first{escape}{KEY}"}}'
        assert [f.kind for f in scan_text(line, "body.txt")] == ["anthropic-key"], escape


def test_u_escaped_letters_are_decoded_and_mapped_back_to_their_escapes():
    raw = json.dumps({"k": KEY}).replace("a", "\\u0061")
    leaves, _ = decode.explode(views.root(raw))
    (leaf,) = [leaf for leaf in leaves if leaf.text == KEY]
    (hit,) = find_secrets(leaf.text)
    ((start, end),) = views.to_root(leaf, hit.start, hit.end)
    assert raw[start:end] == KEY.replace("a", "\\u0061")


def test_a_surrogate_pair_is_one_character_mapped_to_twelve():
    raw = '"x\\ud83d\\ude00y"'
    view = views.child(views.root(raw), raw[1:-1], 1, kind="json")
    assert view.text == "x\U0001F600y"
    assert views.to_root(view, 1, 2) == [(2, 14)]


def test_a_reassembled_block_maps_a_span_to_a_run_in_each_fragment():
    events = [{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": t}}
              for t in ("say " + KEY[:10], KEY[10:] + " ok")]
    body = "".join(f"event: content_block_delta\ndata: {json.dumps(e)}\n\n" for e in events)
    leaves, _ = decode.explode(views.root(body))
    (block,) = [leaf for leaf in leaves if leaf.kind == "text_delta"]
    assert block.text == f"say {KEY} ok"
    runs = views.to_root(block, 4, 4 + len(KEY))
    assert [body[s:e] for s, e in runs] == [KEY[:10], KEY[10:]]


def test_tool_input_json_is_reassembled_then_walked_to_its_strings():
    partial = json.dumps({"command": f"export K={KEY}"})
    events = [{"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": p}}
              for p in (partial[:20], partial[20:])]
    body = "".join(f"data: {json.dumps(e)}\n\n" for e in events)
    leaves, pairs = decode.explode(views.root(body))
    assert f"export K={KEY}" in [leaf.text for leaf in leaves]
    assert [key for key, _ in pairs] == ["command"]


def test_a_base64_text_document_is_an_opaque_view_that_encodes_itself_back():
    data = base64.b64encode(gzip.compress(f"token: {KEY}\n".encode())).decode()
    view = decode.base64_text(views.View(data))
    assert view is not None and view.text == f"token: {KEY}\n"
    assert gzip.decompress(base64.b64decode(view.encode("changed"))) == b"changed"


def test_an_image_is_not_decoded_as_text():
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(256))).decode()
    assert decode.base64_text(views.View(png)) is None

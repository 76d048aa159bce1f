"""Real recorded streams (vcrpy cassettes from another project, in ../shared/conformance):
harness.wire.cassette_file reads them whatever their storage, harness.wire.sse decodes them, and
re-encoding loses nothing the SDK sees."""

from __future__ import annotations

import functools
import gzip
import json
import re
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import pytest
import yaml
from conformance_paths import CONFORMANCE

from harness.wire.cassette_file import CassetteError, load_cassette, response_body_bytes
from harness.wire.sse import encode_event, encode_events
from harness.wire.sse_parse import decode_events, final_message, parse_frames

PADDING = re.compile(rb" +}\n\n\Z")  # the live API pads JSON with spaces before its last brace


class ServeBody(httpx2.BaseTransport):
    """Answers every request with one fixed 200 SSE body."""

    def __init__(self, body: bytes) -> None:
        self.body = body

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=self.body)


def sdk_stream_final(body: bytes) -> dict:
    """What the SDK's stream helper makes of an SSE body."""
    http_client = httpx2.Client(transport=ServeBody(body))
    client = anthropic.Anthropic(api_key="test", max_retries=0, http_client=http_client)
    messages = [{"role": "user", "content": "hi"}]
    with client.beta.messages.stream(model="claude-sonnet-4-5", max_tokens=1024, messages=messages) as stream:
        return stream.get_final_message().model_dump(by_alias=True)  # API names: "from", not "from_"


def without_none(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: without_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_none(v) for v in value]
    return value


@functools.cache
def interactions(path: Path) -> list[dict]:
    return load_cassette(path)


def recorded_interactions() -> list[Any]:
    if not CONFORMANCE.is_dir():
        return [pytest.param(None, 0, marks=pytest.mark.skip(reason=f"no conformance cassettes at {CONFORMANCE}"))]
    return [
        pytest.param(path, n, id=f"{path.stem}[{n}]")
        for path in sorted(CONFORMANCE.glob("*.yaml"))
        for n in range(len(interactions(path)))
    ]


def recorded_stream(path: Path, index: int) -> bytes:
    """The SSE body of interaction ``index``, or a skip if it is not a streamed answer."""
    response = interactions(path)[index]["response"]
    content_type = " ".join(response["headers"].get("Content-Type") or response["headers"].get("content-type") or [])
    if not content_type.startswith("text/event-stream"):
        pytest.skip(f"not a streamed response: {content_type or 'no content-type'}")
    return response_body_bytes(response)


@pytest.mark.parametrize(("path", "index"), recorded_interactions())
def test_recorded_stream_reads_the_same_through_the_sdk_after_decode_and_re_encode(path, index):
    body = recorded_stream(path, index)
    assert sdk_stream_final(encode_events(decode_events(body))) == sdk_stream_final(body)


@pytest.mark.parametrize(("path", "index"), recorded_interactions())
def test_final_message_agrees_with_the_sdk_on_recorded_streams(path, index):
    body = recorded_stream(path, index)
    ours, sdk = final_message(decode_events(body)), sdk_stream_final(body)
    for key in ("id", "model", "content", "stop_reason", "stop_sequence", "usage"):
        assert without_none(ours[key]) == without_none(sdk[key]), key


@pytest.mark.parametrize(("path", "index"), recorded_interactions())
def test_our_framing_is_the_live_framing_without_its_padding(path, index):
    body = recorded_stream(path, index)
    frames = parse_frames(body)
    assert frames[0].start == 0 and frames[-1].end == len(body)
    assert all(a.end == b.start for a, b in zip(frames, frames[1:])), "frames tile the body"
    for frame in frames:
        assert encode_event(json.loads(frame.data)) == PADDING.sub(b"}\n\n", body[frame.start : frame.end])


# --- cassette_bodies on made-up cassettes ---------------------------------------------


def sse_response(body: Any, headers: dict | None = None) -> dict:
    return {"status": {"code": 200, "message": "OK"}, "headers": headers or {}, "body": {"string": body}}


STREAM = b'event: message_stop\ndata: {"type":"message_stop"}\n\n'


@pytest.mark.parametrize(
    "response",
    [
        sse_response(STREAM.decode()),
        sse_response(STREAM),
        sse_response(gzip.compress(STREAM), {"Content-Encoding": ["gzip"]}),
        sse_response(gzip.compress(STREAM)),
        {"status_code": 200, "headers": {}, "content": STREAM.decode()},
    ],
    ids=["text", "binary", "gzip-by-header", "gzip-by-magic-bytes", "old-httpx-form"],
)
def test_response_body_is_the_bytes_the_client_read_however_stored(response):
    assert response_body_bytes(response) == STREAM


def test_empty_body_is_empty_bytes():
    assert response_body_bytes(sse_response(None)) == b""


@pytest.mark.parametrize(
    ("headers", "message"),
    [
        ({"content-encoding": "gzip"}, "has Content-Encoding gzip but does not decompress"),
        ({"Content-Encoding": ["br"]}, "unsupported Content-Encoding 'br'"),
    ],
)
def test_body_that_cannot_be_decoded_is_a_cassette_error(headers, message):
    with pytest.raises(CassetteError, match=message):
        response_body_bytes(sse_response(STREAM, headers))


def test_gzip_binary_cassette_loads_with_safe_yaml(tmp_path):
    interaction = {"request": {"method": "POST"}, "response": sse_response(gzip.compress(STREAM), {})}
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({"interactions": [interaction], "version": 1}))
    assert "!!binary" in path.read_text()
    assert response_body_bytes(load_cassette(path)[0]["response"]) == STREAM


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("interactions: [\n  {request: {}\n", r"c\.yaml:3:1: not valid YAML: "),
        ("- just a list\n", r"c\.yaml: not a vcrpy cassette: no top-level 'interactions' key"),
        ("interactions:\n  request: {}\n", r"c\.yaml:2:3: 'interactions' must be a list"),
        ("version: 1\ninteractions:\n- request: {}\n  response: {}\n- request: {}\n",
         r"c\.yaml:5:3: interaction 1 has no 'response' mapping"),
        ("interactions: !!python/object:os.system {}\n", r"c\.yaml:1:15: not valid YAML: "),
    ],
    ids=["not-yaml", "no-interactions", "interactions-not-a-list", "no-response", "unsafe-tag"],
)
def test_bad_cassette_is_reported_with_file_line_and_column(tmp_path, text, message):
    path = tmp_path / "c.yaml"
    path.write_text(text)
    with pytest.raises(CassetteError, match=message):
        load_cassette(path)


def test_missing_cassette_is_a_cassette_error(tmp_path):
    with pytest.raises(CassetteError, match=r"nope\.yaml: cannot read cassette"):
        load_cassette(tmp_path / "nope.yaml")


def test_a_cassette_that_is_not_utf8_is_a_cassette_error_naming_the_byte(tmp_path):
    path = tmp_path / "latin1.yaml"
    path.write_bytes(b"interactions: []\nnote: caf\xe9\n")
    with pytest.raises(CassetteError, match=r"latin1\.yaml: cannot read cassette: .* at byte 26"):
        load_cassette(path)


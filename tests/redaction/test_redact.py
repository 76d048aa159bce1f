"""Redaction: placeholders are keyed and deterministic, configured literals and
credential-named environment values are redacted verbatim in every form, gzip and base64
bodies are rewritten validly, and a secret that cannot be redacted safely is an error,
never returned."""

from __future__ import annotations

import base64
import gzip
import json
import re

import pytest

from harness.cassette.redaction.redact import RedactionError, Redactor, untagged
from redaction.fakes import FAKES
from redaction.leaks import leaked
from redaction.places import ENCODINGS, numbered, stream

KEY = FAKES[0]


def test_a_placeholder_names_the_kind_and_a_keyed_tag_of_the_secret(redactor):
    out = redactor.redact_text(f"key={KEY.value}")
    assert re.fullmatch(r"key=<redacted:anthropic-key:[0-9a-f]{8}>", out)
    assert out == redactor.redact_text(f"key={KEY.value}")
    assert out != Redactor(key=b"other").redact_text(f"key={KEY.value}")
    assert out != redactor.redact_text(f"key={FAKES[2].value}")


def test_a_recorded_request_and_the_same_request_resent_redact_to_the_same_bytes(redactor):
    history = {"messages": [{"role": "user", "content": f"use {KEY.value}"}]}
    recorded = redactor.redact_body(json.dumps(history).encode())
    history["messages"].append({"role": "assistant", "content": "ok"})
    resent = redactor.redact_body(json.dumps(history).encode())
    assert json.loads(resent)["messages"][0] == json.loads(recorded)["messages"][0]


def test_credential_named_environment_values_are_redacted_in_every_form():
    value = "s3rvice-" + "Passphrase-42"
    redactor = Redactor(key=b"k", env={"MY_SERVICE_TOKEN": value, "HOME": "/root", "MAX_TOKENS": "8192", "USER": "ci"})
    body = {"messages": [{"role": "user", "content": f"value is {value}; home is /root"}]}
    for encoding, dumps in ENCODINGS.items():
        out = redactor.redact_body(dumps(body).encode()).decode()
        assert value not in json.loads(out)["messages"][0]["content"], encoding
        assert "<redacted:env-MY_SERVICE_TOKEN:" in json.loads(out)["messages"][0]["content"]
        assert "/root" in json.loads(out)["messages"][0]["content"]
    for split in range(len(value) + 12):
        out = redactor.redact_body(stream("text", f"the value {value} ok", split))
        assert value[2:-2] not in "".join(re.findall(r'"text":"([^"]*)"', out.decode())), split


def test_configured_literals_are_redacted_even_when_they_look_like_nothing():
    redactor = Redactor(key=b"k", literals=["plainwords", "changeme"])
    out = redactor.redact_body(json.dumps({"t": numbered("a\nplainwords\nchangeme\n")}).encode())
    assert "plainwords" not in out.decode() and "changeme" not in out.decode()
    assert out.decode().count("<redacted:literal:") == 2


def test_a_gzip_body_stays_gzip_and_a_clean_one_is_untouched(redactor):
    body = gzip.compress(json.dumps({"k": KEY.value}).encode())
    out = redactor.redact_body(body)
    assert leaked(gzip.decompress(out), KEY) == [] and json.loads(gzip.decompress(out))
    clean = gzip.compress(b'{"k": "nothing here"}')
    assert redactor.redact_body(clean) == clean


def test_a_base64_document_is_redacted_inside_and_encoded_back(redactor):
    source = base64.b64encode(f"ANTHROPIC_API_KEY={KEY.value}\n".encode()).decode()
    body = json.dumps({"type": "document", "source": {"type": "base64", "media_type": "text/plain", "data": source}})
    out = json.loads(redactor.redact_body(body.encode()))
    decoded = base64.b64decode(out["source"]["data"]).decode()
    assert decoded.startswith("ANTHROPIC_API_KEY=<redacted:anthropic-key:")


def test_a_body_that_is_not_json_is_still_redacted_as_text(redactor):
    cut = f'event: content_block_delta\ndata: {{"type":"content_block_delta","delta":{{"text":"{KEY.value}'
    assert leaked(redactor.redact_body(cut.encode()), KEY) == []
    html = f"<html><body>Error for key {KEY.value}</body></html>".encode("latin-1")
    assert leaked(redactor.redact_body(html), KEY) == []


def test_a_secret_in_a_binary_body_is_an_error_that_does_not_show_it(redactor):
    body = b"\x89PNG\r\n\x1a\n\x00\x01" + KEY.value.encode() + b"\xff\x00"
    with pytest.raises(RedactionError) as error:
        redactor.redact_body(body)
    assert "anthropic-key" in str(error.value) and KEY.value[14:30] not in str(error.value)
    assert redactor.redact_body(b"\x89PNG\x00\x01\xff") == b"\x89PNG\x00\x01\xff"


def test_matching_ignores_the_tag_so_a_replay_never_depends_on_the_key():
    one, other = Redactor(key=b"a").redact_text(KEY.line), Redactor(key=b"b").redact_text(KEY.line)
    assert one != other and untagged(one) == untagged(other) == "ANTHROPIC_API_KEY=<redacted:anthropic-key>"


def test_a_200_kb_request_is_redacted_to_its_last_line(redactor):
    """Its speed is the bench's business; here, that a key after 4,000 lines is found."""
    lines = "\n".join(f"line {n}: the quick brown fox, value {n * 7}" for n in range(4000))
    body = json.dumps({"messages": [{"role": "user", "content": numbered(lines + "\n" + KEY.line)}]}).encode()
    assert len(body) > 200_000
    out = redactor.redact_body(body)
    assert leaked(out, KEY) == [] and json.loads(out)["messages"][0]["content"].count("\n") == 4000


def test_a_redactor_never_shows_its_key_or_the_values_it_redacts():
    values = ("hmac-key-xyz", "lit-secret-1", "env" + "-secret-12")
    shown = repr(Redactor(key=values[0].encode(), literals=[values[1]], env={"A_TOKEN": values[2]}))
    assert not any(s in shown for s in values)

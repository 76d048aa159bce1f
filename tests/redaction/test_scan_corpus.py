"""The scanner misses no planted fake: in a request body of a cassette (every place,
every encoding), in a gzip ``!!binary`` response, in an SSE stream split at every
position, in a header, in a plain file. Its excerpts never show a secret."""

from __future__ import annotations

import gzip
import json
from bisect import bisect_right

import pytest
import yaml

from harness.cassette.scan import PUBLIC_PREFIX, Finding, scan_text
from redaction.fakes import FAKES, ONE_PER_FAMILY, fake_id, unknown_token
from redaction.leaks import WINDOW
from redaction.places import (
    ENCODINGS,
    PLACES,
    error_body,
    file_text,
    split_points,
    stream,
    stream_content,
)

DUMPER = getattr(yaml, "CDumper", yaml.Dumper)  # as vcrpy


def cassette(*interactions: tuple[str, str | bytes], headers: dict | None = None) -> str:
    """A cassette as vcrpy writes it (bytes become ``!!binary``), one interaction per
    ``(request body, response body)``."""
    return yaml.dump({"interactions": [{
        "request": {"body": request, "headers": headers or {"content-type": ["application/json"]},
                    "method": "POST", "uri": "https://api.anthropic.com/v1/messages"},
        "response": {"body": {"string": response}, "headers": {"content-type": ["text/event-stream"]},
                     "status": {"code": 200, "message": "OK"}},
    } for request, response in interactions], "version": 1}, Dumper=DUMPER)


def by_interaction(text: str, findings: list[Finding]) -> list[set[str]]:
    """The kinds found in each interaction of the cassette ``text``."""
    starts = [n for n, line in enumerate(text.splitlines(), 1) if line.startswith("- request:")]
    found: list[set[str]] = [set() for _ in starts]
    for finding in findings:
        found[bisect_right(starts, finding.line) - 1].add(finding.kind.split(" (")[0])
    return found


def kinds(findings: list[Finding]) -> set[str]:
    return {f.kind.split(" (")[0] for f in findings}


def assert_masked(findings: list[Finding], fake) -> None:
    """No window of a secret past its public prefix (``sk-ant-api03-``) is shown."""
    shown = "\n".join(map(str, findings))
    for secret in fake.secrets:
        prefix = PUBLIC_PREFIX.match(secret)
        secret = secret[prefix.end() :] if prefix else secret
        assert not any(secret[i : i + WINDOW] in shown for i in range(len(secret) - WINDOW + 1)), shown


@pytest.mark.parametrize("fake", FAKES, ids=fake_id)
def test_every_planted_request_is_reported_with_its_family(fake):
    planted = [(dumps(build(fake)), "ok") for build in PLACES.values() for dumps in ENCODINGS.values()]
    text = cassette(*planted)
    findings = scan_text(text, "c.yaml")
    assert all(by_interaction(text, findings)), findings  # something in every interaction
    assert_masked(findings, fake)


@pytest.mark.parametrize("fake", FAKES, ids=fake_id)
def test_a_secret_in_an_error_body_is_reported(fake):
    text = cassette(*[('{"model": "claude-sonnet-4-5"}', dumps(error_body(fake))) for dumps in ENCODINGS.values()])
    findings = scan_text(text, "c.yaml")
    assert all(by_interaction(text, findings)), findings
    assert_masked(findings, fake)


@pytest.mark.parametrize("fake", ONE_PER_FAMILY, ids=fake_id)
def test_a_secret_in_a_gzip_binary_stream_is_found(fake):
    body = gzip.compress(stream("text", stream_content("text", fake), 5))
    findings = scan_text(cassette(("{}", body)), "c.yaml")
    assert findings and all(f.kind.endswith(" (in a base64 body)") for f in findings), findings
    assert_masked(findings, fake)


@pytest.mark.parametrize("fake", ONE_PER_FAMILY, ids=fake_id)
@pytest.mark.parametrize("kind", ["text", "thinking", "tool_use"])
def test_a_secret_split_across_deltas_in_a_recorded_stream_is_found(fake, kind):
    content = stream_content(kind, fake)
    splits = split_points(content, fake.secrets[0])
    splits = splits if kind == "text" else splits[::4]  # every position of all three: test_redact_corpus
    text = cassette(*(("{}", stream(kind, content, split).decode()) for split in splits))
    assert all(by_interaction(text, scan_text(text, "c.yaml")))


def test_secret_headers_are_reported_whatever_they_look_like_and_cloudflare_cookies_are_not():
    session = unknown_token(8, 26)
    headers = {"authorization": ["Bearer short-but-real"], "x-api-key": ["tok3n"], "content-type": ["application/json"],
               "set-cookie": [f"_cfuvid={unknown_token(7, 43)}-1775384635; HttpOnly; Path=/"],
               "cookie": [f"sessionid={session}; theme=dark"]}
    findings = scan_text(cassette(("{}", "ok"), headers=headers), "c.yaml")
    assert sorted(kinds(findings)) == ["api-key-header", "authorization", "cookie"]
    assert all("short-but-real" not in str(f) and session[:8] not in str(f) for f in findings)


@pytest.mark.parametrize("fake", FAKES, ids=fake_id)
def test_a_plain_file_holding_a_fake_is_reported_at_its_line(fake):
    findings = scan_text(file_text(fake), ".env")
    assert min(f.line for f in findings) == 2
    assert_masked(findings, fake)


def test_a_json_file_with_u_escaped_keys_is_read_decoded():
    fake = FAKES[0]
    findings = scan_text(ENCODINGS["u-escaped"]({"env": file_text(fake)}), "settings.json")
    assert findings and findings[0].line == 1


def test_high_entropy_strings_of_unknown_shape_are_reported_in_decoded_text():
    token = unknown_token()
    text = cassette((json.dumps({"messages": [{"role": "user", "content": f"use\n{token} now"}]}), "ok"))
    assert [f.kind for f in scan_text(text, "c.yaml")] == ["high-entropy-string"]
    assert token not in str(scan_text(text, "c.yaml"))

"""The secret scanner: what looks like a key is reported with file:line, wherever a
cassette hides it (a header, a folded string, a gzip body); placeholders are not; the
scrubber removes everything the scanner would report; the shipped cassettes are clean."""

from __future__ import annotations

import base64
import gzip
from pathlib import Path

import pytest

from harness.cassette.scan import scan_paths, scan_text
from harness.cassette.scrub import redact_text, scrub_body
from harness.cli import main

ROOT = Path(__file__).resolve().parents[1]
KEY = "sk-ant-api03-" + "Zx9" * 30  # the shape of a real key, built so this file holds none


def cassette_with(headers: str = "", body: str = "hello") -> str:
    return f"""interactions:
- request:
    body: '{body}'
    headers:
      content-type:
      - application/json
{headers}    method: POST
    uri: https://api.anthropic.com/v1/messages
  response:
    body:
      string: ok
    headers: {{}}
    status: {{code: 200, message: OK}}
version: 1
"""


def test_an_anthropic_key_is_reported_with_its_line_and_masked():
    findings = scan_text(f"first line\nexport ANTHROPIC_API_KEY={KEY}\n", "env.sh")
    assert [(f.path, f.line, f.kind) for f in findings] == [("env.sh", 2, "Anthropic API key")]
    assert KEY not in str(findings[0]) and str(findings[0]).startswith("env.sh:2: Anthropic API key: sk-ant-a")


def test_a_bearer_token_in_an_authorization_header_is_reported():
    text = cassette_with("      authorization:\n      - Bearer abcdefghijklmnop1234\n")
    findings = scan_text(text, "c.yaml")
    assert [(f.line, f.kind) for f in findings] == [(8, "Bearer token")]


def test_an_x_api_key_value_is_reported_whatever_it_looks_like():
    text = cassette_with("      x-api-key:\n      - short-but-real\n")
    assert [(f.line, f.kind) for f in scan_text(text, "c.yaml")] == [(8, "x-api-key header value")]


def test_a_key_that_yaml_folded_over_two_lines_is_still_found():
    text = cassette_with(body="the header was Authorization: Bearer\n      tok3nthatwasfoldedbyyaml and more")
    findings = scan_text(text, "c.yaml")
    assert [(f.line, f.kind) for f in findings] == [(3, "Bearer token")]


def test_a_key_inside_a_gzip_binary_body_is_found():
    packed = base64.encodebytes(gzip.compress(f'data: {{"echo": "{KEY}"}}\n\n'.encode())).decode()
    text = "interactions:\n- response:\n    body:\n      string: !!binary |\n" + "".join(
        f"        {line}\n" for line in packed.splitlines()
    )
    findings = scan_text(text, "c.yaml")
    assert [(f.line, f.kind) for f in findings] == [(4, "Anthropic API key (in a gzip body)")]


@pytest.mark.parametrize(
    "text",
    [
        "authorization: Bearer <redacted>",
        "x-api-key: $ANTHROPIC_API_KEY",
        "x-api-key: ${ANTHROPIC_API_KEY}",
        "Authorization: Bearer ********",
        "use sk-ant-… as the key",
        "Bearer tokens are described in RFC 6750",
    ],
)
def test_placeholders_and_prose_are_not_secrets(text):
    assert scan_text(text, "notes.md") == []


@pytest.mark.parametrize(
    "text",
    [
        f"key={KEY}",
        "Authorization: Bearer abcdefghijklmnop1234",
        '{"x-api-key": "0123456789abcdef"}',
        "AKIAIOSFODNN7EXAMPLE and ghp_" + "a" * 36,
    ],
)
def test_the_scrubber_removes_everything_the_scanner_reports(text):
    assert scan_text(text, "t") != []
    assert scan_text(redact_text(text), "t") == []
    assert "<redacted>" in redact_text(text)


def test_scrubbing_a_body_also_drops_request_ids_and_the_working_directory(tmp_path):
    body = f'{{"request_id": "req_011CXYZ", "path": "{tmp_path}/notes.txt", "other": "{tmp_path}x"}}'
    assert scrub_body(body, tmp_path) == (
        f'{{"request_id": "<redacted>", "path": "<cwd>/notes.txt", "other": "{tmp_path}x"}}'.encode()
    )


def test_scan_command_prints_file_and_line_and_exits_1(tmp_path, capsys):
    (tmp_path / "clean.yaml").write_text(cassette_with())
    (tmp_path / "leaky.yaml").write_text(cassette_with(body=KEY))
    assert main(["scan", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert f"{tmp_path / 'leaky.yaml'}:3: Anthropic API key: sk-ant-a…" in out
    assert "2 file(s) scanned, 1 possible secret(s)" in out


def test_scan_command_exits_0_when_clean_and_2_on_a_missing_path(tmp_path, capsys):
    (tmp_path / "clean.yaml").write_text(cassette_with())
    assert main(["scan", str(tmp_path / "clean.yaml")]) == 0
    assert main(["scan", str(tmp_path / "nothing-here")]) == 2


def test_the_shipped_cassettes_hold_no_secrets():
    findings = scan_paths([ROOT / "cassettes"])
    assert findings == [], "\n".join(map(str, findings))


def test_a_recorded_response_keeps_only_allowlisted_headers_and_a_readable_body():
    from harness.cassette.scrub import scrub_response

    response = {
        "status": {"code": 529, "message": "Overloaded"},
        "headers": {
            "Content-Type": ["application/json"], "Content-Encoding": ["gzip"], "retry-after": ["2"],
            "request-id": ["req_011CX"], "anthropic-organization-id": ["b320df16"], "set-cookie": ["_cfuvid=abc"],
            "cf-ray": ["9e77d7154a79ccf8-SJC"],
        },
        "body": {"string": gzip.compress(b'{"type": "error", "request_id": "req_011CX", "echo": "' + KEY.encode() + b'"}')},
    }
    scrubbed = scrub_response(response)
    assert scrubbed["headers"] == {"Content-Type": ["application/json"], "retry-after": ["2"]}
    assert scrubbed["body"]["string"] == b'{"type": "error", "request_id": "<redacted>", "echo": "<redacted>"}'

"""The secret scanner and the scrubber as the cassette package uses them: what looks like
a key is reported with file:line and a masked excerpt, wherever a cassette hides it (a
header, a folded string, a gzip body); placeholders are not; the scrubber removes
everything the scanner would report; the shipped cassettes are clean; ``harness scan``
exits 1 naming file, line and kind. The planted-secrets corpus is in tests/redaction/."""

from __future__ import annotations

import base64
import gzip
import re
from pathlib import Path

import pytest
import yaml

from harness.cassette.scan import scan_paths, scan_text
from harness.cassette.scrub import (
    redact_text,
    scrub_body,
    scrub_headers,
    scrub_response,
)
from harness.cli import main

ROOT = Path(__file__).resolve().parents[1]
KEY = "sk-ant-api03-" + "Zx9" * 30  # the shape of a real key, built so this file holds none
TOKEN = "abcdefgh" + "ijklmnop" + "1234"  # a Bearer token's shape
PLACEHOLDER = r"<redacted:[a-z-]+:[0-9a-f]{8}>"


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
    assert [(f.path, f.line, f.kind) for f in findings] == [("env.sh", 2, "anthropic-key")]
    shown = str(findings[0])
    assert shown.startswith("env.sh:2: anthropic-key") and KEY[13:] not in shown  # then 24 characters before the key
    assert shown.endswith(" ANTHROPIC_API_KEY=" + "sk-ant-api03-…(103 chars)")


def test_a_bearer_token_in_an_authorization_header_is_reported():
    text = cassette_with(f"      authorization:\n      - Bearer {TOKEN}\n")
    assert [(f.line, f.kind) for f in scan_text(text, "c.yaml")] == [(8, "authorization")]


def test_an_x_api_key_value_is_reported_whatever_it_looks_like():
    text = cassette_with("      x-api-key:\n      - short-but-real\n")
    assert [(f.line, f.kind) for f in scan_text(text, "c.yaml")] == [(8, "api-key-header")]


def test_a_key_that_yaml_folded_over_two_lines_is_reported_on_the_line_of_the_token():
    text = cassette_with(body="the header was Authorization: Bearer\n      tok3nthatwasfoldedbyyaml and more")
    assert [(f.line, f.kind) for f in scan_text(text, "c.yaml")] == [(4, "authorization")]


def test_a_key_inside_a_gzip_binary_body_is_found():
    packed = base64.encodebytes(gzip.compress(f'data: {{"echo": "{KEY}"}}\n\n'.encode())).decode()
    text = "interactions:\n- response:\n    body:\n      string: !!binary |\n" + "".join(
        f"        {line}\n" for line in packed.splitlines()
    )
    findings = scan_text(text, "c.yaml")
    assert [(f.line, f.kind) for f in findings] == [(4, "anthropic-key (in a base64 body)")]


@pytest.mark.parametrize(
    "text",
    [
        "authorization: Bearer <redacted>",
        "x-api-key: $ANTHROPIC_API_KEY",
        "x-api-key: ${ANTHROPIC_API_KEY}",
        "Authorization: Bearer ********",
        "use sk-ant-… as the key",
        "Bearer tokens are described in RFC 6750",
        "ANTHROPIC_API_KEY=<redacted:anthropic-key:0123abcd>",
    ],
)
def test_placeholders_and_prose_are_not_secrets(text):
    assert scan_text(text, "notes.md") == []


@pytest.mark.parametrize(
    "text",
    [
        f"key={KEY}",
        f"Authorization: Bearer {TOKEN}",
        '{"x-api-key": "0123456789' + 'abcdef"}',
        "AKIA" + "IOSFODNN7EXAMPLE and ghp_" + "a" * 36,
    ],
)
def test_the_scrubber_removes_everything_the_scanner_reports(text):
    assert scan_text(text, "t") != []
    assert scan_text(redact_text(text), "t") == []
    assert re.search(PLACEHOLDER, redact_text(text))


def test_scrubbing_a_body_also_drops_request_ids_and_the_working_directory(tmp_path):
    body = f'{{"request_id": "req_011CXYZ", "path": "{tmp_path}/notes.txt", "other": "{tmp_path}x"}}'
    assert scrub_body(body, tmp_path) == (
        f'{{"request_id": "<redacted>", "path": "<cwd>/notes.txt", "other": "{tmp_path}x"}}'.encode()
    )


def test_scan_command_prints_file_line_and_kind_never_the_secret_and_exits_1(tmp_path, capsys):
    (tmp_path / "clean.yaml").write_text(cassette_with())
    (tmp_path / "leaky.yaml").write_text(cassette_with(body=KEY))
    assert main(["scan", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert f"{tmp_path / 'leaky.yaml'}:3: anthropic-key: sk-ant-api03-…(103 chars)" in out
    assert "2 file(s) scanned, 1 possible secret(s)" in out and KEY[13:25] not in out


def test_scan_command_exits_0_when_clean_and_2_on_a_missing_path(tmp_path, capsys):
    (tmp_path / "clean.yaml").write_text(cassette_with())
    assert main(["scan", str(tmp_path / "clean.yaml")]) == 0
    assert main(["scan", str(tmp_path / "nothing-here")]) == 2


def test_the_shipped_cassettes_hold_no_secrets():
    findings = scan_paths([ROOT / "cassettes"])
    assert findings == [], "\n".join(map(str, findings))


def test_the_pre_commit_hook_runs_harness_scan_on_the_files_of_a_commit(tmp_path, capsys):
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "harness-scan" and hook["language"] == "python" and hook["pass_filenames"] is True
    assert hook["entry"].split() == ["harness", "scan"]
    (tmp_path / "leaky.yaml").write_text(cassette_with(body=KEY))
    assert main([*hook["entry"].split()[1:], str(tmp_path / "leaky.yaml")]) == 1
    assert "anthropic-key" in capsys.readouterr().out


def test_a_recorded_response_keeps_only_allowlisted_headers_and_a_readable_body():
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
    body = scrubbed["body"]["string"].decode()
    assert re.fullmatch(r'\{"type": "error", "request_id": "<redacted>", "echo": "' + PLACEHOLDER + r'"\}', body)


def test_a_response_in_an_encoding_that_cannot_be_read_is_refused():
    from harness.cassette.redaction.redact import RedactionError

    response = {"status": {"code": 200, "message": "OK"}, "headers": {"Content-Encoding": ["br"]}, "body": {"string": b"\x1b\x03"}}
    with pytest.raises(RedactionError, match="content-encoding 'br' cannot be read"):
        scrub_response(response)


def test_headers_keep_their_names_and_lose_their_secrets():
    cookie = "theme=dark; sessionid=" + "-".join(["Qm9vb0dm", "YWtlU2Vz", "c2lvbjEy"])
    headers = {"Authorization": f"Bearer {TOKEN}", "x-api-key": ["tok3n"], "Cookie": cookie, "accept": "*/*"}
    scrubbed = scrub_headers(headers)
    assert list(scrubbed) == ["Authorization", "x-api-key", "Cookie", "accept"]
    assert re.fullmatch(r"Bearer <redacted:authorization:[0-9a-f]{8}>", scrubbed["Authorization"])
    assert re.fullmatch(r"<redacted:api-key-header:[0-9a-f]{8}>", scrubbed["x-api-key"][0])
    assert re.fullmatch(r"theme=dark; sessionid=<redacted:cookie:[0-9a-f]{8}>", scrubbed["Cookie"])
    assert scrubbed["accept"] == "*/*"
    assert scrub_headers(headers, frozenset({"accept"})) == {"accept": "*/*"}

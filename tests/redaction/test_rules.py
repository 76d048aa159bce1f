"""The rules: placeholders, prose, code and API vocabulary are not secrets; each family
finds its own shape; merged matches take the most specific name."""

from __future__ import annotations

import base64
import json

import pytest

from redaction.fakes import FAKES, UNKNOWN, unknown_token

KNOWN = {f.family for f in FAKES} - UNKNOWN - {"unknown-random-token"}

CFUVID = unknown_token(7, 43) + "-1775384635"  # Cloudflare's visitor id: random, and no credential

from harness.cassette.redaction.checks import is_placeholder, shannon
from harness.cassette.redaction.find import find_secrets, pair_secrets


@pytest.mark.parametrize("text", [
    "authorization: Bearer <redacted>", "x-api-key: $ANTHROPIC_API_KEY", "x-api-key: ${ANTHROPIC_API_KEY}",
    "Authorization: Bearer ********", "api_key = 'your-api-key-here'", "password: xxxxxxxx", "PASSWORD=changeme",
    "password: required", "Bearer tokens are described in RFC 6750", '"max_tokens": 8192', "budget_tokens: 1024",
    "api_key = os.environ['ANTHROPIC_API_KEY']", "token = process.env.GITHUB_TOKEN", "api_key=LOOPBACK_API_KEY",
    "postgres://user:password@localhost/db", "postgres://app:${DB_PASSWORD}@db/app", "mysql://root:<pass>@h/d",
    "scikit sk-learn is a library", "anthropic-ratelimit-input-tokens-reset: 2026-04-05T10:23:55Z",
    "-----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----",
    f"Set-Cookie: _cfuvid={CFUVID}; HttpOnly",
    "the monkey: abcDEF123456", "LOOPBACK_API_KEY = \"harness-loopback\"", "see http://example.com:8080@x",
    "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----",
    "a JWT header alone: eyJhbGciOiJIUzI1NiJ9", "AGE-SECRET-KEY-1 is how an age identity starts",
])
def test_placeholders_prose_and_code_are_not_secrets(text):
    assert find_secrets(text) == []


@pytest.mark.parametrize("fake", [f for f in FAKES if f.family in KNOWN], ids=lambda f: f.family)
def test_each_known_family_is_found_by_a_rule_whatever_its_context(fake):
    hits = find_secrets(f"\t{fake.value}\n")
    found = "".join(f"\t{fake.value}\n"[h.start : h.end] for h in hits)
    assert all(secret in found for secret in fake.secrets), hits


def test_a_match_found_by_several_rules_takes_the_name_of_the_maintained_one():
    jwt = next(f for f in FAKES if f.family == "jwt").value
    assert [h.label for h in find_secrets(f"Authorization: Bearer {jwt}")] == ["json-web-token"]


def test_a_truncated_private_key_is_redacted_up_to_where_its_lines_stop():
    pem = next(f for f in FAKES if f.family == "rsa-private-key")
    cut = "\n".join(pem.value.splitlines()[:3]) + "\n(more lines follow)"
    (hit,) = find_secrets(cut)
    assert cut[hit.start : hit.end].strip() == "\n".join(pem.secrets[:2])


def test_a_key_stored_under_a_secret_header_is_a_secret_whatever_it_looks_like():
    assert [h.label for h in pair_secrets("X-Api-Key", "tok3n")] == ["api-key-header"]
    assert [(h.start, h.label) for h in pair_secrets("authorization", "Bearer abc")] == [(7, "authorization")]
    assert pair_secrets("authorization", "Bearer <redacted:authorization:0123abcd>") == []
    assert [h.label for h in pair_secrets("client_secret", "H5sJEcXIKJq7RcDz")] == ["generic-secret"]
    assert pair_secrets("content-type", "application/json") == []


def test_a_jwt_must_decode_as_the_maintained_rule_set_says():
    header = base64.urlsafe_b64encode(json.dumps({"alg": "none"}).encode()).decode().rstrip("=")
    assert [h.label for h in find_secrets(f"{header}.eyJzdWIiOjF9.")] == ["json-web-token"]
    assert find_secrets(f"{header}.eyJub3QganNvbg.") == []  # the payload is no JSON


def test_entropy_and_placeholders():
    assert shannon("aaaa") == 0 and round(shannon("abcd"), 6) == 2
    assert is_placeholder("<redacted:anthropic-key:0123abcd>") and not is_placeholder("Fake-9x")

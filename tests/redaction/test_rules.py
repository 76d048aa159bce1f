"""The rules: placeholders, prose, code and API vocabulary are not secrets; each family
finds its own shape; merged matches take the most specific name."""

from __future__ import annotations

import base64
import json

import pytest

from redaction.fakes import FAKES, unknown_token

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
    "eyJmb28iOjF9.eyJmb28iOjF9.c2lnbmF0dXJl", "-----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----",
    f"Set-Cookie: _cfuvid={CFUVID}; HttpOnly",
    "the monkey: abcDEF123456", "LOOPBACK_API_KEY = \"harness-loopback\"", "see http://example.com:8080@x",
])
def test_placeholders_prose_and_code_are_not_secrets(text):
    assert find_secrets(text) == []


@pytest.mark.parametrize("fake", FAKES, ids=lambda f: f.family)
def test_each_family_finds_its_own_shape_and_names_it(fake):
    hits = find_secrets(f"\t{fake.line}\n")
    assert fake.family in [h.label for h in hits]


def test_a_match_found_by_several_rules_takes_the_most_specific_name():
    jwt = next(f for f in FAKES if f.family == "jwt").value
    assert [h.label for h in find_secrets(f"Authorization: Bearer {jwt}")] == ["jwt"]


def test_a_truncated_private_key_is_redacted_up_to_where_its_lines_stop():
    pem = next(f for f in FAKES if f.family == "private-key")
    cut = "\n".join(pem.value.splitlines()[:3]) + "\n(more lines follow)"
    (hit,) = find_secrets(cut)
    assert cut[hit.start : hit.end].strip() == "\n".join(pem.secrets[:2])


def test_a_key_stored_under_a_secret_header_is_a_secret_whatever_it_looks_like():
    assert [h.label for h in pair_secrets("X-Api-Key", "tok3n")] == ["api-key-header"]
    assert [(h.start, h.label) for h in pair_secrets("authorization", "Bearer abc")] == [(7, "authorization")]
    assert pair_secrets("authorization", "Bearer <redacted:authorization:0123abcd>") == []
    assert [h.label for h in pair_secrets("client_secret", "H5sJEcXIKJq7RcDz")] == ["generic-secret"]
    assert pair_secrets("content-type", "application/json") == []


def test_a_jwt_must_have_a_header_with_alg():
    header = base64.urlsafe_b64encode(json.dumps({"alg": "none"}).encode()).decode().rstrip("=")
    assert [h.label for h in find_secrets(f"{header}.eyJzdWIiOjF9.")] == ["jwt"]


def test_entropy_and_placeholders():
    assert shannon("aaaa") == 0 and round(shannon("abcd"), 6) == 2
    assert is_placeholder("<redacted:anthropic-key:0123abcd>") and not is_placeholder("Fake-9x")

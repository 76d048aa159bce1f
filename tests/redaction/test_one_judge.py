"""One judge: for every finder the recorder and the scanner share — each rule of the
maintained set, each of the project's own, the member pairs, the high-entropy report,
and the credential-file context — the scanner finds
its example without redaction and nothing after it. And where the project keeps its own
finder, the maintained set has a gap the test shows."""

from __future__ import annotations

import json

import pytest

from harness.cassette.redaction import maintained
from harness.cassette.redaction.checks import lower
from harness.cassette.redaction.find import DEFAULT_RULES, RuleSet, find_secrets
from harness.cassette.scan import scan_text
from redaction.fakes import BY_FAMILY, FAKES, unknown_token
from redaction.places import file_text

MAINTAINED = RuleSet(maintained.rules())
EXTRA = [  # shapes of maintained rules that no corpus family carries
    'cloudant_password = "' + "0a1b2c3d4e5f" * 5 + '0a1b"',
    "ibm_cos_hmac_secret_access_key = '" + "0a1b2c3d4e5f" * 4 + "'",
    "ibm_cloud_iam_api_key: " + unknown_token(3, 44),
    "softlayer_api_key = '" + "a1b2c3d4" * 8 + "'",
    "https://api.softlayer.com/soap/v3/" + "a1b2c3d4" * 8,
    "https://acct:" + "0a1b2c3d4e5f" * 5 + "0a1b@acct.cloudant.com",
    "sk-" + unknown_token(4, 20) + "T3BlbkFJ" + unknown_token(5, 20),
    "TWILIO_SID=AC" + "a1b2c3d4" * 4,
    "GR1348941" + unknown_token(6, 24),
    'aws_secret = "' + unknown_token(9, 40) + '"',
    "https://hooks.slack.com/workflows/" + unknown_token(10, 30),
    "xoxe.xoxp-1-" + unknown_token(11, 40),
    "AP6" + unknown_token(12, 20) + " ",
    "user: admin  authorization=Digest " + unknown_token(13, 30),
    "Bearer " + unknown_token(14, 30),
    "https://" + unknown_token(15, 30) + "@github.com/org/repo",
    'aws_secret_key = "' + unknown_token(17, 40) + '"',
    "cloudant_password = 'abcdefghijklmnopqrstuvwx'",
    "https://acct:abcdefghijklmnopqrstuvwx@acct.cloudant.com",
    "pypi-AgENdGVzdC5weXBpLm9yZw" + unknown_token(18, 80),
    "AKIAZ7FAKE2ABCDEFGHJ " + unknown_token(19, 40),
    "glcbt-" + unknown_token(21, 24), "glimt-" + unknown_token(22, 25), "glptt-" + unknown_token(23, 40),
    "glagent-" + unknown_token(24, 60), "gloas-" + unknown_token(25, 64),
]
EXAMPLES = [file_text(fake) for fake in FAKES] + [f"# example\n{text}\n" for text in EXTRA]


def rule_examples(rule) -> list[str]:
    return [text for text in EXAMPLES if any(e > s for s, e in rule.spans(text, lower(text)))]


@pytest.mark.parametrize("rule", DEFAULT_RULES.rules, ids=lambda r: f"{r.label}-{DEFAULT_RULES.rules.index(r)}")
def test_every_rule_is_found_by_the_scanner_and_gone_after_redaction(redactor, rule):
    examples = rule_examples(rule)
    assert examples, f"no example for {rule.label}: add a family to the corpus"
    for text in examples:
        assert scan_text(text, "example.env"), text
        redacted = redactor.redact_text(text)
        assert redacted != text and scan_text(redacted, "example.env") == [], redacted


@pytest.mark.parametrize("text", [
    f"deploy with {unknown_token(20, 32)} tomorrow",  # high entropy, no known shape
    'export ZORBLAX_CREDENTIAL="' + unknown_token(26, 30).lower() + '"',  # a credential-named variable
])
def test_the_judges_own_finders_are_found_and_gone_after_redaction(redactor, text):
    assert scan_text(text, "notes.txt")
    assert scan_text(redactor.redact_text(text), "notes.txt") == []


def body_reading(path: str, content: str) -> str:
    return json.dumps({"model": "m", "messages": [
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": path}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": content}]},
    ]})


def test_a_token_in_a_file_named_for_a_credential_is_a_secret_and_the_same_token_elsewhere_is_not(redactor):
    token = "0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d"  # lower-case hex: no shape, not random-looking
    named, plain = body_reading("~/.zorblax/api_token", token), body_reading("notes/build-id.txt", token)
    assert [f.kind for f in scan_text(named, "body.json")] == ["credential-file"]
    assert token not in redactor.redact_text(named)
    assert scan_text(plain, "body.json") == [] and redactor.redact_text(plain) == plain


# -- where the project keeps its own finder: the maintained set's gaps ---------------------


@pytest.mark.parametrize("family", [
    "anthropic-key", "anthropic-admin-key", "anthropic-oauth", "openai-key-unmarked", "aws-secret-access-key",
    "github-pat", "slack-app-token", "stripe-restricted-test", "stripe-webhook-secret", "google-api-key",
    "google-oauth", "google-client-secret", "npm-token", "huggingface-token", "age-secret-key", "redis-url",
    "url-query-token", "aws-presigned-url", "bearer-header", "api-key-header", "session-cookie", "password-assignment",
    "unknown-key-block", "unknown-secret-key-token",
])
def test_a_family_the_maintained_set_misses_is_found_by_the_projects_own_finders(family):
    text = file_text(BY_FAMILY[family])
    secret = BY_FAMILY[family].secrets[0]
    assert not any(text[h.start : h.end] == secret or secret in text[h.start : h.end]
                   for h in find_secrets(text, MAINTAINED)), "the maintained set covers it now: drop the own rule"
    assert any(secret in text[h.start : h.end] for h in find_secrets(text)), family


def test_the_maintained_private_key_rule_gives_the_begin_line_and_the_projects_gives_the_key():
    from detect_secrets.plugins.private_key import PrivateKeyDetector

    pem = BY_FAMILY["rsa-private-key"].value
    assert list(PrivateKeyDetector().analyze_string(pem)) == ["BEGIN RSA PRIVATE KEY"]
    (hit,) = find_secrets(pem)
    assert all(line in pem[hit.start : hit.end] for line in BY_FAMILY["rsa-private-key"].secrets)


def test_a_maintained_rule_that_matches_the_start_of_a_longer_token_takes_all_of_it():
    key = "sk_live_" + unknown_token(16, 99)  # live keys are longer than the rule's 24 characters
    (hit,) = find_secrets(f"STRIPE={key}\n")
    assert f"STRIPE={key}\n"[hit.start : hit.end] == key

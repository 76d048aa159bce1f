"""The shapes of secret, as this project's own regexes, most specific first.

Each rule names the public rule sets it was checked against (gitleaks
``config/gitleaks.toml``, trufflehog ``pkg/detectors/*``, detect-secrets
``detect_secrets/plugins/*``, GitHub's supported secret-scanning patterns). Where those
pin an exact length (Anthropic's 95 characters ending ``AA``, GitHub's 36) these rules
take "at least": redacting a slightly odd shape is cheap, leaking it is not.

A rule's secret is its ``secret`` group. Token rules start at a token boundary (no
letter, digit or ``_`` before), which the decoded views make meaningful: after a JSON
``\\n`` or ``\\t`` there is a newline or a TAB, not an ``n`` or a ``t``.
``find.find_secrets(text)`` runs them.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import partial

from harness.cassette.redaction import finders
from harness.cassette.redaction.checks import (
    credential_like,
    has_digit,
    is_placeholder,
    random_looking,
    shannon,
)

_B = r"(?<![A-Za-z0-9_])"  # a token starts here
_BD = r"(?<![A-Za-z0-9_-])"  # … and is not the tail of a dashed word
_A = r"(?<![A-Za-z0-9])"  # … or only not after a letter or digit
_WORD = string.ascii_letters + string.digits + "_"
_DB_SCHEMES = frozenset({"postgres", "postgresql", "mysql", "mariadb", "mongodb", "mongodb+srv", "redis", "rediss",
                         "amqp", "amqps", "mssql", "sqlserver", "oracle", "clickhouse"})
_ASSIGN = r"[\"'\]]{0,2}[ \t]*(?:=>|:=|[:=])[ \t]*[\"']?"
SECRET_HEADERS = frozenset({
    "authorization", "proxy-authorization", "x-api-key", "api-key", "x-auth-token", "x-goog-api-key",
    "x-access-token", "private-token", "x-amz-security-token", "anthropic-admin-key", "ocp-apim-subscription-key",
})
_HEADER_NAMES = "|".join(sorted((h for h in SECRET_HEADERS if "authorization" not in h), key=len, reverse=True))
AUTH_SCHEME = re.compile(r"(?i)(?:bearer|basic|token|bot|digest|negotiate|ntlm|apikey|sso-key|aws4-hmac-sha256)[ \t]+")


@dataclass(frozen=True)
class Rule:
    """One shape of secret: a regex with a ``secret`` group and an optional check of the
    secret, or a ``finder`` function. A ``RuleSet`` runs it only on text holding one of
    its ``hints`` (lower-cased substrings)."""

    label: str
    hints: tuple[str, ...]
    regex: re.Pattern[str] | None = None
    check: Callable[[str], bool] | None = None
    finder: Callable[[str], Iterable[tuple[int, int]]] | None = None
    not_after: str = ""  # characters that may not come just before a match
    lowered: bool = False  # the regex runs on the lower-cased text (it was case-insensitive); a finder takes it too

    def spans(self, text: str, lowered: str) -> Iterator[tuple[int, int]]:
        """``(start, end)`` of each secret in ``text`` (``lowered`` is ``checks.lower(text)``)."""
        if self.finder is not None:
            yield from (self.finder(text, lowered) if self.lowered else self.finder(text))
            return
        assert self.regex is not None
        for match in self.regex.finditer(lowered if self.lowered else text):
            if self.not_after and match.start() and text[match.start() - 1] in self.not_after:
                continue
            secret = text[match.start("secret") : match.end("secret")]
            if not is_placeholder(secret) and (self.check is None or self.check(secret)):
                yield match.span("secret")


def _rule(label: str, hints: tuple[str, ...], pattern: str, check: Callable[[str], bool] | None = None) -> Rule:
    """A regex rule; a leading token boundary (``_B``, ``_BD``, ``_A``) is checked in
    Python, so that the regex starts with its literal prefix and ``re`` finds it fast; a
    case-insensitive pattern (lower-case literals) runs on the lower-cased text."""
    lowered = "(?i" in pattern
    if lowered:  # written case-insensitive, run on the lower-cased text
        pattern = pattern.replace("(?i)", "").replace("(?i:", "(?:")
    for boundary, chars in ((_B, _WORD), (_BD, _WORD + "-"), (_A, _WORD[:-1])):
        if pattern.startswith(boundary):
            return Rule(label, hints, re.compile(pattern[len(boundary) :]), check, not_after=chars, lowered=lowered)
    return Rule(label, hints, re.compile(pattern), check, lowered=lowered)


def _entropy_at_least(bits: float) -> Callable[[str], bool]:
    return lambda secret: shannon(secret) >= bits


FAMILY_RULES: tuple[Rule, ...] = (
    # gitleaks anthropic-admin-api-key; Anthropic admin keys (sk-ant-admin01-…).
    _rule("anthropic-admin-key", ("sk-ant-admin",), _BD + r"(?P<secret>sk-ant-admin\d\d-[A-Za-z0-9_-]{20,})"),
    # gitleaks anthropic-api-key, trufflehog anthropic (api03, 93 + "AA"); also oat01/ort01 OAuth tokens.
    _rule("anthropic-key", ("sk-ant-",), _BD + r"(?P<secret>sk-ant-[a-z]{2,8}\d\d-[A-Za-z0-9_-]{20,})"),
    # gitleaks openai-api-key, detect-secrets openai (the T3BlbkFJ marker is not required here).
    _rule("openai-key", ("sk-",), _BD + r"(?P<secret>sk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,})",
          random_looking),
    # trufflehog aws (40 base64 chars, entropy), detect-secrets aws (anchored on "aws … key" nearby):
    # named (aws_secret_access_key = …, "SecretAccessKey": …) or right after an access key id.
    _rule("aws-secret-access-key", ("secret",),
          r"(?i:aws[_.\- ]?secret(?:[_.\- ]?access)?(?:[_.\- ]?key)?|secret[_.\- ]?access[_.\- ]?key)[A-Za-z0-9_]{0,20}"
          + _ASSIGN + r"(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])", _entropy_at_least(3.5)),
    _rule("aws-secret-access-key", ("akia", "asia"),
          _A + r"(?:AKIA|ASIA)[A-Z0-9]{16}[\s\"',:;|=]{1,8}(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
          _entropy_at_least(3.5)),
    # AWS SigV4 signatures (Authorization: AWS4-HMAC-SHA256 …, Signature=<64 hex>).
    _rule("aws-signature", ("signature=",), r"(?i:signature)=(?P<secret>[0-9a-f]{64})(?![0-9a-f])"),
    # gitleaks github-fine-grained-pat (82 chars), GitHub secret scanning "GitHub Personal Access Token".
    _rule("github-pat", ("github_pat_",), _B + r"(?P<secret>github_pat_[A-Za-z0-9_]{40,})"),
    # gitleaks slack-webhook-url: workflow and trigger webhooks (detect-secrets knows services/ only).
    _rule("slack-webhook", ("hooks.slack.com",),
          r"(?i:hooks\.slack\.com)/(?:workflows|triggers)/(?P<secret>[A-Za-z0-9_/+-]{8,})"),
    # gitleaks slack-app-token, slack-config-refresh-token (detect-secrets knows xox?- tokens only).
    _rule("slack-token", ("xoxe", "xapp-"),
          _BD + r"(?P<secret>xoxe\.xox[bp]-\d-[A-Za-z0-9-]{20,}|xoxe-\d-[A-Za-z0-9-]{20,}|xapp-\d-[A-Za-z0-9-]{20,})",
          has_digit),
    # gitleaks stripe-access-token: test and prod keys, webhook signing secrets (detect-secrets knows live keys only).
    _rule("stripe-key", ("_test_", "_prod_", "whsec_"),
          _B + r"(?P<secret>(?:sk|rk|pk)_(?:test|prod)_[A-Za-z0-9]{10,}|whsec_[A-Za-z0-9+/=]{24,})",
          _entropy_at_least(3.0)),
    # gitleaks gcp-api-key (AIza + 35).
    _rule("google-api-key", ("aiza",), _BD + r"(?P<secret>AIza[A-Za-z0-9_-]{35})(?![A-Za-z0-9_-])"),
    # trufflehog googleoauth2 / gcpapplicationdefaultcredentials: access tokens and client secrets.
    _rule("google-oauth", ("ya29.", "gocspx-"),
          _BD + r"(?P<secret>ya29\.[A-Za-z0-9_-]{20,}|GOCSPX-[A-Za-z0-9_-]{20,})"),
    # gitleaks npm-access-token, detect-secrets npm.
    _rule("npm-token", ("npm_",), _B + r"(?P<secret>npm_[A-Za-z0-9]{36})(?![A-Za-z0-9])"),
    # gitleaks huggingface-access-token / huggingface-organization-api-token.
    _rule("huggingface-token", ("hf_", "api_org_"), _B + r"(?P<secret>(?:hf_|api_org_)[A-Za-z0-9]{30,})",
          _entropy_at_least(3.5)),
    # gitleaks private-key; detect-secrets private_key reports the BEGIN line only: here the body goes.
    Rule("private-key", ("private key",), finder=finders.pem_spans),
    # gitleaks age-secret-key (AGE-SECRET-KEY-1…), and any NAME-SECRET-KEY-… token of that form.
    _rule("secret-key", ("-secret-key-",),
          _BD + r"(?P<secret>[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*-SECRET-KEY-[A-Za-z0-9]{16,})"),
)
CONTEXT_RULES: tuple[Rule, ...] = (
    # A key block of a kind no rule names (-----BEGIN ZORBLAX SIGNING KEY-----): not a PUBLIC one.
    Rule("key-block", ("-----begin",), finder=finders.key_block_spans),
    # detect-secrets basic_auth, trufflehog uri, GitHub "database connection strings": user:PASSWORD@host
    # (postgres, mysql, mongodb(+srv), redis, amqp…, then any scheme), and a token as the whole userinfo.
    Rule("db-url-password", ("://",), finder=partial(finders.url_password_spans, schemes=_DB_SCHEMES)),
    Rule("url-password", ("://",), finder=finders.url_password_spans),
    Rule("url-userinfo", ("://",), finder=finders.url_userinfo_spans),
    # Query parameters that carry credentials: RFC 6750 §2.3 access_token, Google key=, AWS SigV4 and GCS
    # presigned URLs (X-Amz-Signature, X-Goog-Signature), Azure SAS sig=; trufflehog uri for the idea.
    _rule("url-query-secret", tuple(f"{name}=" for name in ("token", "auth", "key", "secret", "password", "passwd", "pwd",
                                                          "sig", "signature", "credential")),
          r"(?i)[?&;](?:access_token|refresh_token|id_token|auth_token|token|auth|key|api_key|apikey|api-key|secret"
          r"|client_secret|password|passwd|pwd|sig|signature|x-amz-signature|x-amz-credential|x-amz-security-token"
          r"|x-goog-signature|x-goog-credential)=(?P<secret>[^&#\s\"'<>\\]{4,})"),
    # gitleaks curl-auth-header, the harness's old rules: header values written in text.
    _rule("authorization", ("authorization",),
          _B + r"(?i:authorization" + _ASSIGN
          + r"(?:(?:bearer|basic|token|bot|digest|negotiate|ntlm|apikey|sso-key|aws4-hmac-sha256)[ \t]+)?+)"
          r"(?P<secret>[^\s\"'\\,;]{6,})", credential_like),
    _rule("api-key-header", ("-key", "-token"),
          _BD + r"(?i:" + _HEADER_NAMES + ")" + _ASSIGN + r"(?P<secret>[^\s\"'\\,;]{6,})",
          credential_like),
    _rule("bearer-token", ("bearer",), _BD + r"(?i:bearer)[ \t]+(?P<secret>[A-Za-z0-9._~+/=-]{16,})", credential_like),
    # gitleaks gitlab-session-cookie/sidekiq-secret style: session cookie values (see finders.BENIGN_COOKIES).
    Rule("cookie", ("cookie",), finder=finders.cookie_spans),
    # gitleaks generic-api-key, detect-secrets KeywordDetector: NAME = value with a credential-like NAME.
    Rule("generic-secret", ("key", "secret", "token", "pass", "pwd", "credential"), finder=finders.generic_spans),
)

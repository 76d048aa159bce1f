"""Fake secrets, one or more per family: the right shape, generated from a seed at run
time (no key-shaped literal lives in this file), and obviously fake (``FAKE`` inside
wherever the alphabet allows it). Never real keys: random characters fail every
provider's checksum and were never issued.

A ``Fake`` knows the line a file would hold it in (``.env`` style) and the parts that
must not survive redaction (``secrets``, each at least 12 characters).
"""

from __future__ import annotations

import base64
import json
import random
import string
from dataclasses import dataclass

_ALNUM = string.ascii_letters + string.digits
_B64 = _ALNUM + "+/"
_URLSAFE = _ALNUM + "_-"


@dataclass(frozen=True)
class Fake:
    """A planted secret: its family label, the value (the whole line where only the
    context makes it a secret), the ``.env``-style line, and the random parts that
    redaction must remove."""

    family: str
    value: str
    line: str
    secrets: tuple[str, ...]


def _pick(rng: random.Random, alphabet: str, n: int) -> str:
    """``n`` characters with a digit, a lower and an upper case letter (those of them
    that ``alphabet`` has): random-looking, as real keys are."""
    classes = [c for c in (str.isdigit, str.islower, str.isupper) if any(c(a) for a in alphabet)]
    while True:
        text = "".join(rng.choice(alphabet) for _ in range(n))
        if all(any(c(t) for t in text) for c in classes):
            return text


def _b64url(data: dict[str, object]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data, separators=(",", ":")).encode()).decode().rstrip("=")


def _token(family: str, name: str, value: str, secret: str | None = None) -> Fake:
    return Fake(family, value, f"{name}={value}", (secret or value,))


def _context(family: str, before: str, secret: str, after: str = "") -> Fake:
    """A secret that is one only in its context: the value is the whole line."""
    line = before + secret + after
    return Fake(family, line, line, (secret,))


def _url(family: str, name: str, template: str, secret: str) -> Fake:
    """A URL that is a secret because of one part of it (``{secret}`` in ``template``)."""
    url = template.format(secret=secret)
    return Fake(family, url, f"{name}={url}", (secret,))


def _pem(rng: random.Random, kind: str) -> Fake:
    body = [base64.b64encode(rng.randbytes(48)).decode() for _ in range(4)]
    value = "\n".join([f"-----BEGIN {kind}PRIVATE KEY-----", *body, f"-----END {kind}PRIVATE KEY-----"])
    return Fake("private-key", value, value, tuple(body))


def fakes(seed: int = 0) -> list[Fake]:
    """One fake per shape the rules know, deterministic for ``seed``."""
    rng = random.Random(seed)

    def pick(alphabet: str, n: int) -> str:
        return _pick(rng, alphabet, n)

    pw, hexsig = "FAKE" + pick(_ALNUM, 16), "".join(rng.choice("0123456789abcdef") for _ in range(64))
    jwt = ".".join([_b64url({"alg": "HS256", "typ": "JWT"}), _b64url({"sub": "fake-" + pick(_ALNUM, 8), "fake": True}),
                    pick(_URLSAFE, 43)])
    upper = string.ascii_uppercase + string.digits
    webhook = f"T{pick(upper, 8)}/B{pick(upper, 10)}/{pick(_ALNUM, 24)}"
    return [
        _token("anthropic-key", "ANTHROPIC_API_KEY", "sk-ant-api03-FAKE" + pick(_URLSAFE, 89) + "AA"),
        _token("anthropic-admin-key", "ANTHROPIC_ADMIN_KEY", "sk-ant-admin01-FAKE" + pick(_URLSAFE, 89) + "AA"),
        _token("anthropic-key", "CLAUDE_CODE_OAUTH_TOKEN", "sk-ant-oat01-FAKE" + pick(_URLSAFE, 84) + "AA"),
        _token("openai-key", "OPENAI_API_KEY", "sk-proj-FAKE" + pick(_URLSAFE, 40) + "T3BlbkFJ" + pick(_URLSAFE, 40)),
        _token("aws-access-key-id", "aws_access_key_id", "AKIAFAKE" + pick(string.ascii_uppercase + "234567", 12)),
        _context("aws-secret-access-key", "aws_secret_access_key = ", "FAKE" + pick(_B64, 36)),
        _token("github-token", "GH_TOKEN", "ghp_FAKE" + pick(_ALNUM, 32)),
        _token("github-pat", "GITHUB_PAT", "github_pat_11FAKE" + pick(_ALNUM, 16) + "_" + pick(_ALNUM, 59)),
        _token("gitlab-token", "GITLAB_PAT", "glpat-FAKE" + pick(_URLSAFE, 16)),
        _token("slack-token", "SLACK_BOT_TOKEN",
               f"xoxb-{rng.randrange(10**10, 10**11)}-{rng.randrange(10**11, 10**12)}-{pick(_ALNUM, 24)}"),
        _token("stripe-key", "STRIPE_SECRET", "sk_live_FAKE" + pick(_ALNUM, 24)),
        _token("stripe-key", "STRIPE_RESTRICTED", "rk_test_FAKE" + pick(_ALNUM, 24)),
        _token("google-api-key", "GOOGLE_API_KEY", "AIzaFAKE" + pick(_URLSAFE, 31)),
        _token("google-oauth", "GOOGLE_ACCESS", "ya29.FAKE" + pick(_URLSAFE, 60)),
        _token("npm-token", "NPM_TOKEN", "npm_FAKE" + pick(_ALNUM, 32)),
        _token("huggingface-token", "HF_TOKEN", "hf_FAKE" + pick(string.ascii_letters, 30)),
        _token("jwt", "SESSION_JWT", jwt),
        _pem(rng, "RSA "),
        _pem(rng, "OPENSSH "),
        _pem(rng, ""),
        _pem(rng, "EC "),
        _url("db-url-password", "DATABASE_URL", "postgres://app_user:{secret}@db.internal:5432/app", pw),
        _url("db-url-password", "MONGO_URL", "mongodb+srv://svc:{secret}@cluster0.fake.mongodb.net/db", pw + "x"),
        _url("db-url-password", "REDIS_URL", "redis://:{secret}@cache.internal:6379/0", pw + "r"),
        _url("db-url-password", "BROKER_URL", "amqp://guest:{secret}@mq.internal:5672/", pw + "q"),
        _url("url-password", "REMOTE", "https://deploy:{secret}@git.example.com/org/repo.git", pw + "h"),
        _url("url-query-secret", "FEED", "https://api.example.com/v1/items?page=2&access_token={secret}", pw + "t"),
        _url("aws-signature", "SIGNED",
             "https://bucket.s3.amazonaws.com/a.txt?X-Amz-Date=20260101&X-Amz-Signature={secret}", hexsig),
        _url("slack-webhook", "SLACK_WEBHOOK", "https://hooks.slack.com/services/{secret}", webhook),
        _context("authorization", "Authorization: Bearer ", pick(_URLSAFE, 40)),
        _context("api-key-header", "x-api-key" + ": ", pick(_ALNUM, 32)),
        _context("cookie", "Cookie: theme=dark; sessionid=", pick(_ALNUM, 32)),
        _context("generic-secret", "DB_PASSWORD=", "Fake-" + pick(_ALNUM + "!#%&*", 14)),
        _context("generic-secret", '"client_secret": "', pick(_ALNUM, 30), '"'),
    ]


FAKES = fakes()
ONE_PER_FAMILY = list({fake.family: fake for fake in reversed(FAKES)}.values())


def fake_id(fake: Fake) -> str:
    return f"{fake.family}-{FAKES.index(fake)}"


def unknown_token(seed: int = 1, n: int = 24) -> str:
    """A random-looking token of no known shape (what only the high-entropy report finds)."""
    return _pick(random.Random(seed), _ALNUM, n)

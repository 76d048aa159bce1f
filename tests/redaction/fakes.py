"""Fake secrets, generated: one ``Family`` a row of ``FAMILIES`` (a shape, an alphabet, a
length, the line a config file would hold it in), made from a seed at run time, so no
key-shaped literal lives in this file. Random characters fail every provider's checksum
and were never issued; ``FAKE`` (or ``fake``) is inside wherever the alphabet allows.

The rows cover the families the project once named, families the maintained rule set
knows that the project never named (Discord, Mailchimp, PyPI, Square, Artifactory,
Telegram, SendGrid, Twilio, Azure storage …) and families nobody knows, which only their
context gives away (a credential-named variable, a ``-----BEGIN … KEY-----`` block, a
``*-SECRET-KEY-*`` token, a credential-shaped URL). A ``Fake`` knows the ``.env``-style
line a file holds it in and the random parts that must not survive (``secrets``, each at
least 12 characters).
"""

from __future__ import annotations

import base64
import json
import random
import string
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace

ALNUM = string.ascii_letters + string.digits
UPPER = string.ascii_uppercase + string.digits
LOWER = string.ascii_lowercase + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "_-"
BECH32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"


@dataclass(frozen=True)
class Fake:
    """A planted secret: its family, the value (the whole line where only the context
    makes it a secret), the ``.env``-style line, and the random parts redaction must remove."""

    family: str
    value: str
    line: str
    secrets: tuple[str, ...]


@dataclass(frozen=True)
class Family:
    """A row: its name, whether a rule knows its shape (``known``: the maintained set or
    the project's own) or only its context gives it away, and how to make one."""

    name: str
    make: Callable[[Callable[[str, int], str]], Fake]
    known: bool = True


def pick(rng: random.Random, alphabet: str, n: int) -> str:
    """``n`` characters with a digit, a lower and an upper case letter (those of them that
    ``alphabet`` has): random-looking, as real keys are."""
    classes = [c for c in (str.isdigit, str.islower, str.isupper) if any(c(a) for a in alphabet)]
    while True:
        text = "".join(rng.choice(alphabet) for _ in range(n))
        if all(any(c(t) for t in text) for c in classes):
            return text


def _b64url(data: dict[str, object]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data, separators=(",", ":")).encode()).decode().rstrip("=")


def token(family: str, name: str, value: str, secret: str | None = None) -> Fake:
    return Fake(family, value, f"{name}={value}", (secret or value,))


def context(family: str, before: str, secret: str, after: str = "") -> Fake:
    """A secret that is one only in its context: the value is the whole line."""
    line = before + secret + after
    return Fake(family, line, line, (secret,))


def url(family: str, name: str, template: str, secret: str) -> Fake:
    """A URL that is a secret because of one part of it (``{secret}`` in ``template``)."""
    value = template.format(secret=secret)
    return Fake(family, value, f"{name}={value}", (secret,))


def block(family: str, kind: str, body: list[str]) -> Fake:
    value = "\n".join([f"-----BEGIN {kind}-----", *body, f"-----END {kind}-----"])
    return Fake(family, value, value, tuple(body))


def _pem(kind: str) -> Callable[[Callable[[str, int], str]], Fake]:
    return lambda p: block("private-key", kind, [p(B64, 64) for _ in range(3)] + [p(B64, 40) + "=="])


def _jwt(p: Callable[[str, int], str]) -> Fake:
    value = ".".join([_b64url({"alg": "HS256", "typ": "JWT"}), _b64url({"sub": "fake-" + p(ALNUM, 8), "fake": True}),
                      p(URLSAFE, 43)])
    return token("jwt", "SESSION_JWT", value, value.rsplit(".", 1)[1])


def _digits(p: Callable[[str, int], str], n: int) -> str:
    return str(int(p("123456789", 1)) * 10 ** (n - 1) + int(p(string.digits, n - 1)))


FAMILIES: tuple[Family, ...] = (
    Family("anthropic-key", lambda p: token("anthropic-key", "ANTHROPIC_API_KEY", "sk-ant-api03-FAKE" + p(URLSAFE, 89) + "AA")),
    Family("anthropic-admin-key", lambda p: token("anthropic-admin-key", "ANTHROPIC_ADMIN_KEY",
                                                  "sk-ant-admin01-FAKE" + p(URLSAFE, 89) + "AA")),
    Family("anthropic-oauth", lambda p: token("anthropic-oauth", "CLAUDE_CODE_OAUTH_TOKEN",
                                              "sk-ant-oat01-FAKE" + p(URLSAFE, 89) + "AA")),
    Family("openai-project-key", lambda p: token("openai-project-key", "OPENAI_API_KEY",
                                                 "sk-proj-FAKE" + p(URLSAFE, 60) + "T3BlbkFJ" + p(URLSAFE, 60))),
    Family("openai-key-unmarked", lambda p: token("openai-key-unmarked", "OPENAI_KEY", "sk-svcacct-FAKE" + p(URLSAFE, 44))),
    Family("aws-access-key-id", lambda p: token("aws-access-key-id", "aws_access_key_id", "AKIAFAKE" + p("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 12))),
    Family("aws-secret-access-key", lambda p: context("aws-secret-access-key", "aws_secret_access_key = ", "FAKE" + p(B64, 36))),
    Family("github-token", lambda p: token("github-token", "GH_TOKEN", "ghp_FAKE" + p(ALNUM, 32))),
    Family("github-oauth", lambda p: token("github-oauth", "GH_OAUTH", "gho_FAKE" + p(ALNUM, 32))),
    Family("github-pat", lambda p: token("github-pat", "GITHUB_PAT", "github_pat_11FAKE" + p(ALNUM, 18) + "_" + p(ALNUM, 59))),
    Family("gitlab-token", lambda p: token("gitlab-token", "GITLAB_PAT", "glpat-FAKE" + p(URLSAFE, 16))),
    Family("gitlab-runner-token", lambda p: token("gitlab-runner-token", "RUNNER", "glrt-FAKE" + p(URLSAFE, 20))),
    Family("slack-token", lambda p: token("slack-token", "SLACK_BOT_TOKEN", f"xoxb-{_digits(p, 11)}-{_digits(p, 12)}-{p(ALNUM, 24)}")),
    Family("slack-app-token", lambda p: token("slack-app-token", "SLACK_APP_TOKEN",
                                              f"xapp-1-A{p(UPPER, 10)}-{_digits(p, 13)}-{p(HEX, 64)}")),
    Family("slack-webhook", lambda p: url("slack-webhook", "SLACK_WEBHOOK", "https://hooks.slack.com/services/{secret}",
                                          f"T{p(UPPER, 8)}/B{p(UPPER, 10)}/{p(ALNUM, 24)}")),
    Family("stripe-key", lambda p: token("stripe-key", "STRIPE_SECRET", "sk_live_FAKE" + p(ALNUM, 20))),
    Family("stripe-restricted-test", lambda p: token("stripe-restricted-test", "STRIPE_RESTRICTED", "rk_test_FAKE" + p(ALNUM, 24))),
    Family("stripe-webhook-secret", lambda p: token("stripe-webhook-secret", "STRIPE_WEBHOOK", "whsec_FAKE" + p(ALNUM, 28))),
    Family("google-api-key", lambda p: token("google-api-key", "GOOGLE_API_KEY", "AIzaFAKE" + p(URLSAFE, 31))),
    Family("google-oauth", lambda p: token("google-oauth", "GOOGLE_ACCESS", "ya29.FAKE" + p(URLSAFE, 60))),
    Family("google-client-secret", lambda p: token("google-client-secret", "GOOGLE_CLIENT", "GOCSPX-FAKE" + p(URLSAFE, 24))),
    Family("npm-token", lambda p: token("npm-token", "NPM_TOKEN", "npm_FAKE" + p(ALNUM, 32))),
    Family("npmrc-auth-token", lambda p: context("npmrc-auth-token", "//registry.npmjs.org/:_authToken=",
                                                 str(uuid.UUID(p(HEX, 32))))),
    Family("huggingface-token", lambda p: token("huggingface-token", "HF_TOKEN", "hf_FAKE" + p(string.ascii_letters, 30))),
    Family("jwt", _jwt),
    Family("sendgrid-key", lambda p: token("sendgrid-key", "SENDGRID", f"SG.FAKE{p(URLSAFE, 18)}.{p(URLSAFE, 43)}")),
    Family("twilio-api-key", lambda p: token("twilio-api-key", "TWILIO_KEY", "SKfake" + p(HEX, 28))),
    Family("telegram-bot-token", lambda p: token("telegram-bot-token", "BOT", f"{_digits(p, 10)}:AA{p(URLSAFE, 33)}",)),
    Family("age-secret-key", lambda p: token("age-secret-key", "AGE_IDENTITY", "AGE-SECRET-KEY-1" + p(BECH32, 58))),
    Family("azure-storage-key", lambda p: context(
        "azure-storage-key", "DefaultEndpointsProtocol=https;AccountName=fakeacct;AccountKey=",
        p(B64, 86) + "==", ";EndpointSuffix=core.windows.net")),
    Family("discord-bot-token", lambda p: token("discord-bot-token", "DISCORD",
                                                f"M{p(URLSAFE, 23)}.{p(URLSAFE, 6)}.{p(URLSAFE, 27)}")),
    Family("mailchimp-key", lambda p: token("mailchimp-key", "MAILCHIMP", p(LOWER, 32) + "-us12", )),
    Family("pypi-token", lambda p: token("pypi-token", "PYPI", "pypi-AgEIcHlwaS5vcmc" + p(URLSAFE, 80))),
    Family("square-oauth-secret", lambda p: token("square-oauth-secret", "SQUARE", "sq0csp-" + p(URLSAFE, 43))),
    Family("artifactory-key", lambda p: context("artifactory-key", "artifactory: ", "AKC" + p(ALNUM, 70), " ")),
    Family("rsa-private-key", _pem("RSA PRIVATE KEY")),
    Family("openssh-private-key", _pem("OPENSSH PRIVATE KEY")),
    Family("ec-private-key", _pem("EC PRIVATE KEY")),
    Family("pkcs8-private-key", _pem("PRIVATE KEY")),
    Family("encrypted-private-key", _pem("ENCRYPTED PRIVATE KEY")),
    Family("pgp-private-key", _pem("PGP PRIVATE KEY BLOCK")),
    Family("postgres-url", lambda p: url("db-url-password", "DATABASE_URL",
                                         "postgres://app_user:{secret}@db.internal:5432/app", "FAKE" + p(ALNUM, 16))),
    Family("mongodb-url", lambda p: url("db-url-password", "MONGO_URL",
                                        "mongodb+srv://svc:{secret}@cluster0.fake.mongodb.net/db", "FAKE" + p(ALNUM, 16))),
    Family("redis-url", lambda p: url("db-url-password", "REDIS_URL", "redis://:{secret}@cache.internal:6379/0",
                                      "FAKE" + p(ALNUM, 16))),
    Family("amqp-url", lambda p: url("db-url-password", "BROKER_URL", "amqp://guest:{secret}@mq.internal:5672/",
                                     "FAKE" + p(ALNUM, 16))),
    Family("https-url-password", lambda p: url("url-password", "REMOTE", "https://deploy:{secret}@git.example.com/org/repo.git",
                                               "FAKE" + p(ALNUM, 16))),
    Family("url-query-token", lambda p: url("url-query-secret", "FEED",
                                            "https://api.example.com/v1/items?page=2&access_token={secret}", "FAKE" + p(ALNUM, 20))),
    Family("aws-presigned-url", lambda p: url("aws-signature", "SIGNED",
                                              "https://bucket.s3.amazonaws.com/a.txt?X-Amz-Date=20260101&X-Amz-Signature={secret}",
                                              p(HEX, 64))),
    Family("bearer-header", lambda p: context("authorization", "Authorization: Bearer ", p(URLSAFE, 40))),
    Family("api-key-header", lambda p: context("api-key-header", "x-api-key" + ": ", p(ALNUM, 32))),
    Family("session-cookie", lambda p: context("cookie", "Cookie: theme=dark; sessionid=", p(ALNUM, 32))),
    Family("password-assignment", lambda p: context("generic-secret", "DB_PASSWORD=", "Fake-" + p(ALNUM + "!#%&*", 14))),
    Family("client-secret-json", lambda p: context("generic-secret", '"client_secret": "', p(ALNUM, 30), '"')),
    Family("unknown-named-token", lambda p: context("unknown-named-token", "ACME_DEPLOY_TOKEN=", p(HEX, 40)), known=False),
    Family("unknown-credential-variable", lambda p: context("unknown-credential-variable", "export ZORBLAX_CREDENTIAL=",
                                                            p(LOWER, 36)), known=False),
    Family("unknown-key-block", lambda p: block("unknown-key-block", "ZORBLAX SIGNING KEY", [p(B64, 64), p(B64, 44)]),
           known=False),
    Family("unknown-secret-key-token", lambda p: token("unknown-secret-key-token", "ZORBLAX_ID",
                                                       "ZORBLAX-SECRET-KEY-1" + p(UPPER, 52)), known=False),
    Family("unknown-url-credential", lambda p: url("unknown-url-credential", "SYNC",
                                                   "zorblax+sync://robot:{secret}@sync.zorblax.example/v2", p(LOWER, 24)),
           known=False),
    Family("unknown-random-token", lambda p: token("unknown-random-token", "ZORBLAX", p(ALNUM, 32)), known=False),
)


def fakes(seed: int = 0) -> list[Fake]:
    """One fake per family, deterministic for ``seed``."""
    rng = random.Random(seed)
    return [replace(family.make(lambda alphabet, n: pick(rng, alphabet, n)), family=family.name) for family in FAMILIES]


FAKES = fakes()
ONE_PER_FAMILY = FAKES
BY_FAMILY = {fake.family: fake for fake in FAKES}
UNKNOWN = frozenset(family.name for family in FAMILIES if not family.known)


def fake_id(fake: Fake) -> str:
    return fake.family


def unknown_token(seed: int = 1, n: int = 24) -> str:
    """A random-looking token of no known shape (what only the high-entropy report finds)."""
    return pick(random.Random(seed), ALNUM, n)

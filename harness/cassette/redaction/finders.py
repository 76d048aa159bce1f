"""The rules that a single regex cannot express: PEM private-key blocks and key blocks of
any other kind (also cut off before their END line), cookies (per name, some names are
not credentials), credentials in URLs and generic ``NAME = value`` assignments (the name
is found first, then the value is checked).

Each finder takes a text and yields ``(start, end)`` of each secret in it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from harness.cassette.redaction.checks import (
    generic_value,
    is_placeholder,
    lower,
    random_looking,
)

# -- PEM ------------------------------------------------------------------------------
# Checked against gitleaks ``private-key`` and detect-secrets ``PrivateKeyDetector``.
# The words of a marker may be apart by any white space (and backslashes): in a cassette's
# raw YAML text, folding breaks a long line at a space ("-----END\n      RSA PRIVATE KEY-----").
_PEM_BEGIN = re.compile(r"-----BEGIN[\s\\]+(?:[A-Z0-9]+[\s\\]+)*PRIVATE[\s\\]+KEY(?:[\s\\]+BLOCK)?-----")
_PEM_END = re.compile(r"-----END[\s\\]+(?:[A-Z0-9]+[\s\\]+)*PRIVATE[\s\\]+KEY(?:[\s\\]+BLOCK)?-----")
# Any other key block, of a kind no rule names (``-----BEGIN ZORBLAX SIGNING KEY-----``); a
# PUBLIC key is no secret.
_BLOCK_BEGIN = re.compile(r"-----BEGIN[\s\\]+(?:(?!PUBLIC|PRIVATE)[A-Z0-9]+[\s\\]+)*KEY(?:[\s\\]+BLOCK)?-----")
_BLOCK_END = re.compile(r"-----END[\s\\]+(?:[A-Z0-9]+[\s\\]+)*KEY(?:[\s\\]+BLOCK)?-----")
# A line of a PEM body: base64, an RFC 1421 header (``Proc-Type: 4,ENCRYPTED``), maybe
# behind a ``cat -n`` line number; used to find where a block without END stops.
_PEM_LINE = re.compile(r"[ \t]*(?:\d+\t)?[ \t]*(?:[A-Za-z0-9+/= ]*|[A-Za-z-]+:[^\r\n]*)[ \t]*")
# A key's body has base64 runs (64 to a line); a placeholder, words and the framing of a
# stream the body was split across do not: a ``<redacted:…>`` body is no key.
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/]{16}")
_BASE64_CHAR = re.compile(r"[A-Za-z0-9+/]")


def pem_spans(text: str) -> Iterator[tuple[int, int]]:
    """The body of each private-key block, between its BEGIN and END lines, if it has a
    base64 run; a block without an END line (a Read that stopped, a stream that was cut)
    runs as far as its lines look like PEM, and any of it is a secret."""
    return _block_spans(text, _PEM_BEGIN, _PEM_END)


def key_block_spans(text: str) -> Iterator[tuple[int, int]]:
    """The body of each ``-----BEGIN … KEY-----`` block that is neither private (see
    ``pem_spans``) nor public, the same way."""
    return _block_spans(text, _BLOCK_BEGIN, _BLOCK_END)


def _block_spans(text: str, begins: re.Pattern[str], ends: re.Pattern[str]) -> Iterator[tuple[int, int]]:
    pos = 0
    while (begin := begins.search(text, pos)) is not None:
        end = ends.search(text, begin.end())
        if end and begins.search(text, begin.end(), end.start()):  # that END is another block's
            end = None  # (in raw YAML, folding can break an END line at its spaces)
        stop = end.start() if end else _pem_body_end(text, begin.end())
        if (_BASE64_RUN if end else _BASE64_CHAR).search(text, begin.end(), stop):  # cut short: any of it
            yield begin.end(), stop
        pos = end.end() if end else max(stop, begin.end())


def _pem_body_end(text: str, start: int) -> int:
    pos = start
    while pos < len(text):
        line_end = text.find("\n", pos)
        line_end = len(text) if line_end < 0 else line_end
        if not _PEM_LINE.fullmatch(text, pos, line_end):
            return pos
        pos = line_end + 1
    return len(text)


# -- cookies --------------------------------------------------------------------------
# Checked against gitleaks ``gitlab-session-cookie`` / ``sidekiq`` style rules: a cookie
# value is a credential when it is a session id. Cloudflare's visitor and bot-management
# ids and analytics ids are not credentials (and real Anthropic responses set them).
# A cookie value has no backslash (RFC 6265 cookie-octet), so in escaped text it ends at ``\n``.
_COOKIE = re.compile(r"cookie[\"'\]]{0,2}[ \t]*[:=][ \t]*[\"']?([^\r\n\"'\\]+)")  # on lower-cased text
_COOKIE_PAIR = re.compile(r"([^=;,\s\\]+)=([^;\r\n\\]*)")
BENIGN_COOKIES = frozenset({"_cfuvid", "__cf_bm", "__cflb", "_ga", "_gid", "_gat"})
_COOKIE_ATTRIBUTES = frozenset({"path", "domain", "expires", "max-age", "samesite", "priority", "version"})


def cookie_value_spans(value: str, base: int = 0) -> Iterator[tuple[int, int]]:
    """The credential values in a ``Cookie``/``Set-Cookie`` value (``a=b; c=d``)."""
    for pair in _COOKIE_PAIR.finditer(value):
        name, raw = pair.group(1).lower(), pair.group(2)
        stripped = raw.strip().strip('"')
        if name in BENIGN_COOKIES or name in _COOKIE_ATTRIBUTES or not generic_value(stripped):
            continue
        offset = pair.start(2) + raw.index(stripped)
        yield base + offset, base + offset + len(stripped)


def cookie_spans(text: str) -> Iterator[tuple[int, int]]:
    """Cookie values wherever ``Cookie:``/``Set-Cookie:`` appears in text."""
    lowered = lower(text)
    for match in _COOKIE.finditer(lowered):
        if match.start() and (lowered[match.start() - 1].isalnum() or lowered[match.start() - 1] == "_"):
            continue
        yield from cookie_value_spans(text[match.start(1) : match.end(1)], match.start(1))


# -- credentials in URLs ----------------------------------------------------------------
# detect-secrets basic_auth, GitHub "database connection strings": scheme://user:pass@host
# (the password is up to the last @ of the authority), and a token as the whole userinfo.
_SCHEME_BEFORE = re.compile(r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,30}\Z")
# ``…:password@host``, or ``…:passw`` where the text ends (a stream cut inside the URL).
_USER_PASSWORD = re.compile(
    r"[^\s:/?#@\"'<>\\\[\]]*:(?:(?P<secret>[^\s/?#\"'<>\\]+)@(?=[A-Za-z0-9\[%_-])|(?P<cut>[^\s/?#\"'<>\\@]+)\Z)"
)
_USER_TOKEN = re.compile(r"(?P<secret>[A-Za-z0-9_.~%+-]{20,})@(?=[A-Za-z0-9\[])")


def _authorities(text: str, schemes: frozenset[str] | None) -> Iterator[int]:
    """Where each ``scheme://`` authority starts (for ``schemes`` only, if given)."""
    pos = text.find("://")
    while pos >= 0:
        scheme = _SCHEME_BEFORE.search(text, max(0, pos - 31), pos)
        if scheme and (schemes is None or scheme.group().lower() in schemes):
            yield pos + 3
        pos = text.find("://", pos + 3)


def url_password_spans(text: str, schemes: frozenset[str] | None = None) -> Iterator[tuple[int, int]]:
    """The password of each ``scheme://user:password@host`` (not a port, not a placeholder)."""
    for start in _authorities(text, schemes):
        match = _USER_PASSWORD.match(text, start)
        group = "secret" if match and match.group("secret") else "cut"
        secret = match.group(group) if match else ""
        if secret and not is_placeholder(secret) and not (secret.isdigit() and len(secret) <= 5):
            yield match.span(group)


def url_userinfo_spans(text: str) -> Iterator[tuple[int, int]]:
    """A random-looking token that is the whole userinfo: ``https://<token>@github.com``."""
    for start in _authorities(text, None):
        match = _USER_TOKEN.match(text, start)
        if match and random_looking(match.group("secret")):
            yield match.span("secret")


# -- generic assignments --------------------------------------------------------------
# Checked against gitleaks ``generic-api-key`` (keywords, operators, entropy 3.5) and
# detect-secrets ``KeywordDetector`` (its denylist of names): the name must contain a
# credential word, the value must pass ``checks.generic_value``.
# Matched on the lower-cased text (case-insensitive regexes are ~10x slower); a bare
# "key" must follow "_", "." or "-" (``PRIVATE_KEY``) or be camel case (``stripeKey``).
_KEYWORD = r"(?:api[_.-]?key|apikey|secret|token|passw(?:or)?d|passphrase|pwd|credentials?|key(?![a-z]))"
# NAME = value, NAME: value, "name": "value", NAME := value, NAME => value (not ==, !=).
_ASSIGNMENT = re.compile(_KEYWORD + r"[a-z0-9_.-]{0,30}[\"'\]]{0,2}[ \t]*(?P<op>:=|=>|=|:)(?!=)[ \t]*(?P<q>[\"'`]?)")
# --api-key value, --password value.
_FLAG = re.compile(r"--[a-z0-9-]*" + _KEYWORD + r"[a-z0-9-]*[ \t]+(?P<q>[\"'`]?)")
_NAME_CHAR = re.compile(r"[A-Za-z0-9_.-]")
_QUOTED_VALUE = re.compile(r"[^\r\n\"'`\\]{1,300}")
_BARE_VALUE = re.compile(r"[^\s\"'`,;\\<>(){}\[\]]{1,300}")
# Names that contain a credential word but do not hold one (``max_tokens``, ``key_id``,
# ``password_file``, ``public_key``, ``csrf_token``): checked on the lower-cased name.
_NOT_CREDENTIAL = re.compile(
    r"tokens|tokeni[sz]|(?:[_.-]?(?:ids?|reset|remaining|url|uri|endpoint|file|path|dir|name|type|length|len|size|count"
    r"|limit|env|var|header|field|prefix|format|policy|mode|enabled|required|budget|usage|index|version"
    r"|algorithm|alg|kind|schema|ttl|expiry|expires(?:_at|_in)?|hint|label|description))$"
    r"|public|primary|foreign|sort|partition|cache|idempotency|csrf|xsrf|keyboard|hotkey|monkey"
)
_CODE_REFERENCE = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+")  # process.env.KEY, self.token


def _separated_or_camel(text: str, at: int) -> bool:
    """``key`` at ``at`` is a name part: after ``_ . -`` or camel case (``stripeKey``)."""
    before = text[at - 1 : at]
    return before in ("_", ".", "-") or (text[at] == "K" and before.islower())


def generic_spans(text: str) -> Iterator[tuple[int, int]]:
    """Values of ``NAME = value`` / ``NAME: value`` / ``"name": "value"`` / ``--name value``
    where NAME looks like a credential and the value like a secret."""
    lowered = lower(text)
    for assignment in (*_ASSIGNMENT.finditer(lowered), *_FLAG.finditer(lowered)):
        start = assignment.start()
        if assignment.re is _FLAG:
            if start and _NAME_CHAR.match(text, start - 1):
                continue
        elif lowered.startswith("key", start) and not _separated_or_camel(text, start):
            continue
        while start > 0 and assignment.start() - start < 40 and _NAME_CHAR.match(text, start - 1):
            start -= 1
        op = assignment.start("op") if assignment.re is _ASSIGNMENT else assignment.start("q")
        name = text[start:op].strip("\"'] \t").lower()
        if _NOT_CREDENTIAL.search(name):
            continue
        value = (_QUOTED_VALUE if assignment.group("q") else _BARE_VALUE).match(text, assignment.end())
        if value is None:
            continue
        secret = value.group().strip()
        after = text[value.end() : value.end() + 1]
        if _CODE_REFERENCE.fullmatch(secret) or (not assignment.group("q") and after in ("(", "[", ".")):
            continue
        if generic_value(secret):
            begin = value.start() + value.group().index(secret)
            yield begin, begin + len(secret)

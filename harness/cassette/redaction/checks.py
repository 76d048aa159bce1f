"""Small predicates the rules share: Shannon entropy, "is this a placeholder",
"does this name look like a credential", "is this token random".

Thresholds (documented in NOTES.md):

- a *generic* value (``password = …``, ``"api_key": "…"``) is a secret when it is at
  least ``GENERIC_MIN_LEN`` (8) characters, not a placeholder, and its Shannon entropy is
  at least ``GENERIC_MIN_ENTROPY`` (3.0 bits/char, the entropy of 8 distinct characters):
  ``changeme`` (2.75) and ``required`` (2.5) are not, ``password123`` (3.28) is;
- a *credential-like* token in free text (``Bearer …``, ``Authorization: …``) must in
  addition mix character classes (a digit, or upper and lower case, or a symbol), so
  ``Bearer authentication`` is prose.
"""

from __future__ import annotations

import math
import re
from collections import Counter

GENERIC_MIN_LEN = 8
GENERIC_MIN_ENTROPY = 3.0

# A whole value that stands for a secret instead of being one. Matched after stripping
# quotes and surrounding whitespace, case-insensitively.
_PLACEHOLDER = re.compile(
    r"""(?ix)^(?:
      <[^<>]*> | \[[^\[\]]*\] | \{\{?[^{}]*\}?\} | \(\s*[^()]*\s*\)    # <redacted>, [token], {{key}}
    | \$\{?[A-Za-z_][A-Za-z0-9_]*(?::?-[^}]*)?\}? | %[A-Za-z_][A-Za-z0-9_]*%  # $VAR, ${VAR:-x}, %VAR%
    | ([*x.#•_-]|…)\1* | (?:x{2,}[-_]?)+x*                            # ***, xxx, ..., xxxx-xxxx
    | your[-_ ][a-z0-9_ -]* | [a-z0-9_ -]*[-_ ](?:here|goes[-_ ]here)
    | (?:redacted|filtered|masked|hidden|removed|omitted|dummy|placeholder|example|sample
      |changeme|change[-_ ]?me|replace[-_ ]?me|fill[-_ ]?me|todo|tbd|none|null|nil|undefined
      |true|false|string|str|bytes|int|required|optional|secret|password|passwd|pwd|pass
      |token|api[-_ ]?key|key|value|test|testing|foo|bar|baz|foobar|admin|root|user|username)
    )$"""
)
_CREDENTIAL_NAME = re.compile(r"(?i)(?:^|_)(?:KEY|PAT|AUTH)$|PASSWORD|PASSWD|SECRET|TOKEN|API_?KEY|CREDENTIAL")
_PHRASE = re.compile(r"[a-z]{1,10}(?:[-_. ][a-z]{1,10})*|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_NUMERIC = re.compile(r"[\d\s:.,/+TZ-]+")
_PATH_LIKE = re.compile(r"^(?:~?/|\.\.?/|[A-Za-z]:\\|file:)")
_FILE_PATH = re.compile(r"(?:~|\.{1,2})?(?:/[\w.-]+)+\.[A-Za-z0-9]{1,8}")  # has a '.', which base64 never has


def lower(text: str) -> str:
    """``text.lower()`` with the same length (a character whose lower case is longer,
    like ``İ``, is kept), so offsets in it are offsets in ``text``; case-insensitive
    regexes are ~10x slower than plain ones on the lower-cased text."""
    lowered = text.lower()
    if len(lowered) != len(text):  # U+0130 is the only character whose lower case is longer
        lowered = "\u0130".join(part.lower() for part in text.split("\u0130"))
    return lowered


def shannon(value: str) -> float:
    """Shannon entropy of ``value`` in bits per character (0 for the empty string)."""
    n = len(value)
    if not n:
        return 0.0
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values())


def is_placeholder(value: str) -> bool:
    """Whether ``value`` is an obvious stand-in (``<redacted>``, ``***``, ``${API_KEY}``,
    ``your-api-key-here``) rather than a secret."""
    return bool(_PLACEHOLDER.match(value.strip().strip("'\"`")))


def generic_value(value: str) -> bool:
    """Whether the value of a credential-named assignment is a secret (see module doc);
    numbers, dates and times (``2026-04-05T10:23:55Z``), short lower-case words joined
    by ``-_. `` (``harness-loopback``), constant names (``LOOPBACK_API_KEY``) and file
    paths (``/run/secrets/db.key``: the file holds the secret, its name does not) are not."""
    return (
        len(value) >= GENERIC_MIN_LEN
        and not _NUMERIC.fullmatch(value)
        and not _PHRASE.fullmatch(value)
        and not _FILE_PATH.fullmatch(value)
        and not is_placeholder(value)
        and shannon(value) >= GENERIC_MIN_ENTROPY
    )


def mixed_classes(value: str) -> bool:
    """A digit, or both cases, or a symbol: not a plain word."""
    has = [any(c.isdigit() for c in value), any(c.islower() for c in value), any(c.isupper() for c in value)]
    return has[0] or (has[1] and has[2]) or any(not c.isalnum() for c in value)


def credential_like(value: str) -> bool:
    """A free-text token after ``Bearer``/``Authorization:`` that is a credential, not prose."""
    return generic_value(value) and mixed_classes(value)


def credential_env_name(name: str) -> bool:
    """``*_KEY``, ``*_TOKEN``, ``*_SECRET``, ``*PASSWORD*``, ``*_API_KEY``, ``*_PAT``…"""
    return bool(_CREDENTIAL_NAME.search(name))


def env_value_redactable(value: str) -> bool:
    """An environment value worth redacting verbatim: 8+ characters, not a number, a
    path or a placeholder (``GOOGLE_APPLICATION_CREDENTIALS=/path/key.json`` names a
    file; the file's content is what the rules look for)."""
    return (
        len(value) >= GENERIC_MIN_LEN
        and not value.isdigit()
        and not _PATH_LIKE.match(value)
        and not is_placeholder(value)
    )


def has_digit(value: str) -> bool:
    return any(c.isdigit() for c in value)


def random_looking(value: str) -> bool:
    """At least one digit and one letter, and entropy ≥ 3: not ``sk-some-long-name``."""
    return has_digit(value) and any(c.isalpha() for c in value) and shannon(value) >= 3.0


_API_ID = re.compile(r"(?:msg|msgbatch|toolu|srvtoolu|mcptoolu|req|file|batch|cntr|container|org|user|wrkspc|skill)_")
_HEX_OR_UUID = re.compile(r"[0-9a-fA-F]*")


def entropy_floor(length: int) -> float:
    """The least entropy of a high-entropy token of ``length`` characters: 80 % of
    log2(length) (the most ``length`` characters can have), and at most 4.0. Random
    base62 falls below it about once in 1,000 at 20 characters, never from 32 on."""
    return min(4.0, 0.8 * math.log2(length))


def random_token(value: str) -> bool:
    """A token of no known shape that looks random: not an API id (``msg_…``), not made
    of hex parts and short words (``9e77d7154a79ccf8-SJC``), upper and lower case and
    digits, entropy over ``entropy_floor``."""
    if _API_ID.match(value) or all(_HEX_OR_UUID.fullmatch(p) or len(p) <= 4 for p in re.split(r"[-_]", value)):
        return False
    if not (any(c.isupper() for c in value) and any(c.islower() for c in value) and any(c.isdigit() for c in value)):
        return False
    return shannon(value) >= entropy_floor(len(value))

"""What the redactor and the scanner use besides the shipped rules, and the key.

- **The key** that tags placeholders: ``$HARNESS_REDACTION_KEY`` if set, else a random
  key made once per process. Matching ignores tags (``redact.untagged``), so a replay
  never depends on the key; a team that wants re-recordings byte-identical on every
  machine shares one ``HARNESS_REDACTION_KEY`` (a CI secret). Never commit it: with it,
  a tag confirms a guessed password.
- **A rules file**, named by ``$HARNESS_REDACT_FILE``, one rule per line::

      # comments and blank lines are skipped
      literal: VALUE            VALUE (4+ characters) redacted verbatim wherever it appears
      pattern LABEL: REGEX      what REGEX matches (its group "secret" if it has one)
      allow: REGEX              a value the regex matches in full is no secret: neither
                                redacted nor reported (a known false positive)

  A literal is a secret itself: keep the file out of the repository.
- **Credential-named environment variables** (``*_KEY``, ``*_TOKEN``, ``*_SECRET``,
  ``*PASSWORD*``…): their values are redacted verbatim (``Redactor(env=…)``).

``configured(environ)`` gives the ``Settings`` made of all three (cached while they do
not change). Errors: ``RulesFileError`` names the file, the line and the valid
choices, never a value.
"""

from __future__ import annotations

import functools
import os
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from harness.cassette.redaction.checks import credential_env_name, env_value_redactable
from harness.cassette.redaction.redact import Redactor
from harness.wire.errors import HarnessError

KEY_VARIABLE = "HARNESS_REDACTION_KEY"
RULES_VARIABLE = "HARNESS_REDACT_FILE"
_PROCESS_KEY = secrets.token_bytes(32)
_LINE = re.compile(r"(?P<kind>[a-z]+)(?:[ \t]+(?P<label>\S+?))?[ \t]*:[ \t]?(?P<value>.*)")
_LABEL = re.compile(r"[A-Za-z0-9_.-]{1,40}")
CHOICES = "literal: VALUE, pattern LABEL: REGEX or allow: REGEX"


class RulesFileError(HarnessError, ValueError):
    """A rules file that cannot be read as rules."""


@dataclass(frozen=True, eq=False)
class Settings:
    """The redactor for recordings; its ``judge`` is the scanner's too."""

    redactor: Redactor


def redaction_key(environ: Mapping[str, str] = os.environ) -> bytes:
    """``$HARNESS_REDACTION_KEY``, else this process's random key."""
    value = environ.get(KEY_VARIABLE)
    return value.encode("utf-8") if value else _PROCESS_KEY


def configured(environ: Mapping[str, str] = os.environ) -> Settings:
    """The key, ``$HARNESS_REDACT_FILE``'s rules and the credential-named environment
    values, as ``Settings``; the same object while none of them changes."""
    rules_file = environ.get(RULES_VARIABLE) or None
    stamp = None
    if rules_file is not None:
        try:
            stat = Path(rules_file).stat()
        except OSError as error:
            raise RulesFileError(f"{rules_file} (${RULES_VARIABLE}): cannot be read: {error.strerror}") from None
        stamp = (stat.st_mtime_ns, stat.st_size)
    env = tuple(sorted((k, v) for k, v in environ.items() if credential_env_name(k) and env_value_redactable(v)))
    return _settings(redaction_key(environ), rules_file, stamp, env)


@functools.lru_cache(maxsize=8)
def _settings(key: bytes, rules_file: str | None, stamp: object, env: tuple[tuple[str, str], ...]) -> Settings:
    literals: list[str] = []
    patterns: list[tuple[str, re.Pattern[str]]] = []
    allowed: list[re.Pattern[str]] = []
    if rules_file is not None:
        literals, patterns, allowed = read_rules(Path(rules_file))
    return Settings(Redactor(key=key, literals=literals, env=dict(env), patterns=patterns, allowed=tuple(allowed)))


def read_rules(path: Path) -> tuple[list[str], list[tuple[str, re.Pattern[str]]], list[re.Pattern[str]]]:
    """The literals, ``(label, regex)`` patterns and allow regexes of a rules file."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise RulesFileError(f"{path}: cannot be read as UTF-8 text: {error}") from None
    literals: list[str] = []
    patterns: list[tuple[str, re.Pattern[str]]] = []
    allowed: list[re.Pattern[str]] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        where = f"{path}:{number}"
        match = _LINE.fullmatch(line)
        kind, label, value = match.group("kind", "label", "value") if match else ("", None, "")
        value = value.strip()
        if kind not in ("literal", "pattern", "allow") or (label is not None and kind != "pattern"):
            raise RulesFileError(f"{where}: not a rule; write {CHOICES}")
        if not value:
            raise RulesFileError(f"{where}: {kind} with nothing after the colon")
        if kind == "literal":
            if len(value) < 4:
                raise RulesFileError(f"{where}: a literal needs 4 characters or more (shorter ones are in too many words)")
            literals.append(value)
            continue
        regex = _compile(value, where)
        if kind == "allow":
            allowed.append(regex)
            continue
        label = label or "pattern"
        if not _LABEL.fullmatch(label):
            raise RulesFileError(f"{where}: label {label!r}: use letters, digits, '_', '.' or '-' (40 at most)")
        patterns.append((label, regex))
    return literals, patterns, allowed


def _compile(value: str, where: str) -> re.Pattern[str]:
    try:
        regex = re.compile(value)
    except re.error as error:
        raise RulesFileError(f"{where}: not a regular expression: {error}") from None
    if regex.fullmatch(""):
        raise RulesFileError(f"{where}: the regular expression matches the empty string")
    return regex

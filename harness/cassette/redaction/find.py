"""Run the rules: ``find_secrets(text)`` gives the secrets in a text as ``Hit``s (the
maintained set's, ``maintained``, then the project's own families and context rules),
overlapping matches merged and named after the most specific rule; ``pair_secrets``
checks a value against the key it is stored under; ``literal_rules`` and
``pattern_rules`` make rules of configured values and regexes. A ``RuleSet`` keeps its rules in priority order and skips, with one
regex search, the many short strings no rule can match.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from functools import partial
from typing import NamedTuple

from harness.cassette.redaction import finders, maintained
from harness.cassette.redaction.checks import is_placeholder, lower
from harness.cassette.redaction.rules import (
    AUTH_SCHEME,
    CONTEXT_RULES,
    FAMILY_RULES,
    SECRET_HEADERS,
    Rule,
)


class Hit(NamedTuple):
    """A secret at ``text[start:end]``, named by ``label``."""

    start: int
    end: int
    label: str


_CREDENTIAL_WORD = re.compile(r"key|secret|token|passw|pwd|passphrase|credential")
_COOKIES = ("cookie", "set-cookie")
_REMEMBERED_LENGTH = 512
_REMEMBERED_STRINGS = 50_000
# A name in our own placeholder's label is not a credential's name: ``<redacted:authorization:…``
# and ``"<redacted:env-DB_TOKEN:" in text`` (code that reads placeholders) assign nothing.
_AFTER_OWN_LABEL = re.compile(r"<redacted:[A-Za-z0-9_.-]*:?[\s\"'`]*\Z")
_ESCAPED_SPACE = re.compile(r"\\+[nrt]")
_OWN_PLACEHOLDER = re.compile(r"<redacted:[A-Za-z0-9_.-]+:[0-9a-f]{8}>")


class RuleSet:
    """Rules in priority order, with one regex of all their hints to skip, in a single
    search, the many short strings (``text_delta``, ``end_turn``) that no rule can match.
    What that search says of a short string is remembered: the same strings (tool
    schemas, a system prompt, the history) come back in every request of a session."""

    def __init__(self, rules: Iterable[Rule]) -> None:
        self.rules = tuple(rules)
        self.by_hint: dict[str, list[int]] = {}
        for n, rule in enumerate(self.rules):
            for hint in rule.hints:
                self.by_hint.setdefault(hint, []).append(n)
        self.hints = sorted(self.by_hint, key=len, reverse=True)
        self.unhinted = {n for n, rule in enumerate(self.rules) if not rule.hints}  # user patterns: always run
        self.gate = re.compile("|".join(map(re.escape, self.hints))) if self.hints else None
        self._hinted: dict[str, bool] = {}

    def hinted(self, lowered: str) -> bool:
        """Whether the lower-cased ``lowered`` holds a hint of some rule."""
        known = self._hinted.get(lowered)
        if known is None:
            known = self.gate is not None and self.gate.search(lowered) is not None
            if len(lowered) <= _REMEMBERED_LENGTH:
                if len(self._hinted) >= _REMEMBERED_STRINGS:
                    self._hinted.clear()
                self._hinted[lowered] = known
        return known

    def __add__(self, other: RuleSet) -> RuleSet:
        return RuleSet(self.rules + other.rules)

    def keeps(self, name: str, text: str) -> bool:
        """Whether a string stored under ``name`` may hold a secret by these rules or
        ``pair_secrets``: a hint of a rule in it, a rule with no hint, or a name that
        ``pair_secrets`` reads (``decode.explode``'s ``keep``)."""
        if self.unhinted or self.hinted(lower(text)):
            return True
        lowered = name.lower()
        return bool(name) and (lowered in SECRET_HEADERS or lowered in _COOKIES or bool(_CREDENTIAL_WORD.search(lowered)))


def find_secrets(text: str, rules: RuleSet | None = None) -> list[Hit]:
    """The secrets in ``text``, in order, overlapping matches merged under the label of
    the earliest (most specific) rule. Matches inside our own placeholders
    (``<redacted:…>``) or made of placeholders and punctuation are left out, so
    redacted text is clean."""
    rules = rules or DEFAULT_RULES
    lowered = lower(text)
    gated = not rules.hinted(lowered)
    if gated and not rules.unhinted:
        return []
    present = () if gated else {hint for hint in rules.hints if hint in lowered}
    candidates = sorted({n for hint in present for n in rules.by_hint[hint]} | rules.unhinted)
    found = [
        (s, e, n, rules.rules[n].label) for n in candidates for s, e in rules.rules[n].spans(text, lowered) if e > s
    ]
    if found and "<redacted:" in text:
        own = [m.span() for m in _OWN_PLACEHOLDER.finditer(text)]
        found = [
            hit for hit in found
            if not _only_placeholders(text[hit[0] : hit[1]]) and not any(s <= hit[0] and hit[1] <= e for s, e in own)
            and not _AFTER_OWN_LABEL.search(text, max(0, hit[0] - 64), hit[0])
        ]
    return merge(found)


def pair_secrets(key: str, value: str) -> list[Hit]:
    """Secrets in ``value`` because of the ``key`` it is stored under (a JSON member, a
    YAML mapping entry): a secret header's value whatever it looks like (after its
    scheme word), cookies, and credential-named keys with a secret-looking value."""
    name = key.strip().lower()
    if name in SECRET_HEADERS:
        scheme = AUTH_SCHEME.match(value) if "authorization" in name else None
        start = scheme.end() if scheme else 0
        rest = value[start:].strip()
        if not rest or is_placeholder(rest) or _only_placeholders(rest):
            return []
        label = "authorization" if "authorization" in name else "api-key-header"
        begin = value.index(rest, start)
        return [Hit(begin, begin + len(rest), label)]
    if name in _COOKIES:
        return merge([(s, e, 0, "cookie") for s, e in finders.cookie_value_spans(value)])
    if not _CREDENTIAL_WORD.search(name):
        return []
    shift = len(key) + 1
    hits = find_secrets(f"{key}={value}", _PAIR_RULES)
    return [Hit(h.start - shift, h.end - shift, h.label) for h in hits if h.start == shift]


def literal_rules(values: Mapping[str, str]) -> RuleSet:
    """Rules that find each of ``values`` (value → label) verbatim, longest first, one
    rule per label, whatever the value looks like; a value is its own hint."""
    by_label: dict[str, list[str]] = {}
    for value, label in values.items():
        by_label.setdefault(label, []).append(value)
    return RuleSet(_literal_rule(label, group) for label, group in by_label.items())


def pattern_rules(patterns: Iterable[tuple[str, re.Pattern[str]]]) -> RuleSet:
    """Rules of user-defined regexes ``(label, regex)``: the secret is the ``secret``
    group if there is one, else the whole match. They have no hints, so they run on
    every string."""
    return RuleSet(Rule(label, (), finder=partial(_pattern_spans, regex)) for label, regex in patterns)


def _pattern_spans(regex: re.Pattern[str], text: str) -> Iterator[tuple[int, int]]:
    group = "secret" if "secret" in regex.groupindex else 0
    for match in regex.finditer(text):
        if match.end(group) > match.start(group) and not is_placeholder(match.group(group)):
            yield match.span(group)


def _literal_rule(label: str, group: list[str]) -> Rule:
    regex = re.compile("|".join(map(re.escape, sorted(group, key=len, reverse=True))))
    return Rule(label, tuple({v.lower() for v in group}), finder=lambda text: (m.span() for m in regex.finditer(text)))


FAMILY = RuleSet(maintained.rules() + FAMILY_RULES)  # the maintained set first: its names win
CONTEXT = RuleSet(CONTEXT_RULES)
DEFAULT_RULES = FAMILY + CONTEXT
_PAIR_RULES = RuleSet(r for r in DEFAULT_RULES.rules if r.label in ("aws-secret-access-key", "generic-secret"))


def merge(found: list[tuple[int, int, int, str]]) -> list[Hit]:
    """``(start, end, priority, label)`` matches as non-overlapping ``Hit``s, each named
    after the lowest priority number among the matches it covers."""
    merged: list[Hit] = []
    best = 0
    for start, end, priority, label in sorted(found):
        if merged and start < merged[-1].end:
            last = merged[-1]
            if priority < best:
                best, last = priority, last._replace(label=label)
            merged[-1] = last._replace(end=max(last.end, end))
        else:
            merged.append(Hit(start, end, label))
            best = priority
    return merged


def _only_placeholders(text: str) -> bool:
    """Our placeholders, punctuation and white space, also JSON-escaped (``\\n`` in raw text)."""
    return not _ESCAPED_SPACE.sub("", _OWN_PLACEHOLDER.sub("", text)).strip(" \t\r\n\"'`:=,;")

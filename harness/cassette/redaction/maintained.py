"""The maintained rule set: detect-secrets' regex plugins, read from the installed package
and run as this project's rules, on the decoded views.

Every ``RegexBasedDetector`` plugin that detect-secrets ships (Yelp, Apache-2.0; AWS,
Azure storage, Artifactory, basic auth, Cloudant, Discord, GitHub, GitLab, IBM, JWT,
Mailchimp, npm, OpenAI, PyPI, SendGrid, Slack, SoftLayer, Square, Stripe, Telegram,
Twilio …, and whatever a new release adds) becomes one ``Rule`` named after its
``secret_type`` (``Telegram Bot Token`` → ``telegram-bot-token``). Its secret is what the
plugin reports — a regex's first non-empty group, else the whole match — trimmed of the
delimiters a regex matched around it and widened to the whole token it stands in
(``sk_live_`` and 24 characters matches the start of a longer live key: all of the key
goes). A plugin that filters its matches (JWT: the parts must decode) is asked again; a
placeholder (``postgres://user:PASSWORD@…`` in a README) is no secret, as for every rule.

Left out, each for a reason the tests show:

    IPPublicDetector        an address is not a credential
    PrivateKeyDetector      reports the BEGIN line, not the key: ``finders.pem_spans`` gives the body
    KeywordDetector         NAME = value by name: ``finders.generic_spans`` reads the decoded views
    *HighEntropyString      flags every thinking signature and base64 image of a real session;
                            ``judge`` reports high entropy with its context instead

detect-secrets runs each regex over every line; a 40 MB cassette read that way takes
minutes. Here each regex runs only where it can match: ``anchor`` reads the regex (with
``re``'s own parser) for the literal strings every match holds at a bounded distance
from its start (``AccountKey=``, ``-us``, the ``:`` of a Telegram token), and the regex is
tried only at the starts those strings allow. Its literals are the rule's hints.
"""

from __future__ import annotations

import functools
import re
import re._constants as sre_constants  # the parser and constants ``re`` itself uses
import re._parser as sre_parse
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from harness.cassette.redaction.checks import is_placeholder
from harness.cassette.redaction.rules import Rule

LEFT_OUT = frozenset({"IPPublicDetector", "PrivateKeyDetector"})
_MAX_SPREAD = 64  # at most this many possible starts before a literal; more and the regex runs whole
_MAX_LITERALS = 32
_DELIMITERS = " \t\r\n\"'=:"
_TOKEN_PUNCTUATION = "_-+/="


@dataclass(frozen=True)
class Anchor:
    """Literal strings one of which every match holds, ``before`` (min, max) characters
    after the match's start; ``folded`` when they are lower case and searched in the
    lower-cased text (the regex ignores case)."""

    literals: tuple[str, ...]
    before: tuple[int, int]
    folded: bool


def rules() -> tuple[Rule, ...]:
    """One rule per regex plugin of the installed detect-secrets (see the module doc)."""
    return _rules()


@functools.lru_cache(maxsize=1)
def _rules() -> tuple[Rule, ...]:
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.plugins.base import RegexBasedDetector

    found = []
    for secret_type, plugin_class in sorted(get_mapping_from_secret_type_to_class().items()):
        if not issubclass(plugin_class, RegexBasedDetector) or plugin_class.__name__ in LEFT_OUT:
            continue
        plugin = plugin_class()
        confirm = plugin.analyze_string if type(plugin).analyze_string is not RegexBasedDetector.analyze_string else None
        for regex in plugin.denylist:
            found.append(plugin_rule(label_of(secret_type), regex, confirm))
    return tuple(found)


def label_of(secret_type: str) -> str:
    """``Telegram Bot Token`` → ``telegram-bot-token`` (a placeholder's label)."""
    return re.sub(r"[^a-z0-9]+", "-", secret_type.lower()).strip("-")


def plugin_rule(label: str, regex: re.Pattern[str], confirm: Any = None) -> Rule:
    """A rule running ``regex`` where its anchor allows (everywhere if it has none)."""
    found = anchor(regex)
    hints = tuple(sorted({lit.lower() for lit in found.literals})) if found else ()
    return Rule(label, hints, finder=functools.partial(_spans, regex, found, confirm), lowered=True)


def _spans(
    regex: re.Pattern[str], found: Anchor | None, confirm: Any, text: str, lowered: str
) -> Iterator[tuple[int, int]]:
    starts = _starts(lowered if found.folded else text, found) if found else None
    matches = regex.finditer(text) if starts is None else _matches_at(regex, text, starts)
    for match in matches:
        span = _secret_span(match)
        if span is None or _not_a_secret(text[span[0] : span[1]]):
            continue
        if confirm is not None and text[span[0] : span[1]] not in set(confirm(match.group(0))):
            continue
        yield whole_token(text, *span)


def _not_a_secret(value: str) -> bool:
    """A placeholder, or a port number where a password would be (``host:8080@…``)."""
    return is_placeholder(value) or (value.isdigit() and len(value) <= 5)


def _starts(haystack: str, found: Anchor) -> list[int]:
    low, high = found.before
    starts: set[int] = set()
    for literal in found.literals:
        at = haystack.find(literal)
        while at >= 0:
            starts.update(range(max(0, at - high), at - low + 1))
            at = haystack.find(literal, at + 1)
    return sorted(starts)


def _matches_at(regex: re.Pattern[str], text: str, starts: list[int]) -> Iterator[re.Match[str]]:
    """What ``finditer`` finds, tried only at ``starts`` (each match's start is one)."""
    end = -1
    for start in starts:
        if start < end:
            continue
        match = regex.match(text, start)
        if match is not None and match.end() > match.start():
            end = match.end()
            yield match


def _secret_span(match: re.Match[str]) -> tuple[int, int] | None:
    """The plugin's secret: its first non-empty group, unless that group starts the match
    (it is the token's prefix, ``(ghp|gho)_…``: then the match), delimiters trimmed."""
    group = next((n for n in range(1, (match.re.groups or 0) + 1) if match.group(n)), 0)
    if group and match.start(group) == match.start():
        group = 0
    start, end = match.span(group)
    text = match.string
    while start < end and text[start] in _DELIMITERS:
        start += 1
    while end > start and text[end - 1] in _DELIMITERS:
        end -= 1
    return (start, end) if end > start else None


def whole_token(text: str, start: int, end: int) -> tuple[int, int]:
    """``start:end`` widened over the letters, digits, ``_`` and ``-`` (and the secret's
    own ``+/=``) around it: a regex that matched part of a token gives all of it."""
    own = {c for c in text[start:end] if c in _TOKEN_PUNCTUATION} | {"_", "-"}
    while end < len(text) and (text[end].isascii() and text[end].isalnum() or text[end] in own):
        end += 1
    while start > 0 and (text[start - 1].isascii() and text[start - 1].isalnum() or text[start - 1] in own):
        start -= 1
    return start, end


# -- reading a regex for its anchor ------------------------------------------------------


def anchor(regex: re.Pattern[str]) -> Anchor | None:
    """The best literals of ``regex`` (longest shortest string, then fewest strings, then
    fewest starts), or None if no literal is at a bounded distance from the start."""
    try:
        items = _flat(list(sre_parse.parse(regex.pattern, regex.flags)))
    except (re.error, TypeError, ValueError):
        return None
    folded = bool(regex.flags & re.IGNORECASE)
    best: tuple[tuple[int, int, int], Anchor] | None = None
    low = high = 0
    for index in range(len(items)):
        literals = _literals_from(items, index)
        if literals:
            strings = tuple(sorted({s.lower() if folded else s for s in literals}))
            score = (min(map(len, strings)), -len(strings), low - high)
            if best is None or score > best[0]:
                best = (score, Anchor(strings, (low, high), folded))
        width = _width(items[index])
        low, high = low + width[0], high + width[1]
        if high - low > _MAX_SPREAD or high >= sre_constants.MAXREPEAT:
            break
    return best[1] if best else None


def _flat(items: list[Any]) -> list[Any]:
    """Groups that change no flag, spliced into the sequence they stand in."""
    out: list[Any] = []
    for op, av in items:
        if op is sre_constants.SUBPATTERN and not av[1] and not av[2]:
            out += _flat(list(av[3]))
        else:
            out.append((op, av))
    return out


def _width(item: Any) -> tuple[int, int]:
    return sre_parse.SubPattern(sre_parse.State(), [item]).getwidth()


def _literals_from(items: list[Any], index: int) -> tuple[str, ...]:
    """The strings the literal items from ``index`` on spell (a character class or an
    alternation of literals multiplies them), up to the first item that is not literal
    (an alternation whose branches only start with literals ends them)."""
    strings = [""]
    for item in items[index:]:
        choices, whole = _choices(item)
        if not choices or len(strings) * len(choices) > _MAX_LITERALS:
            break
        strings = [s + c for s in strings for c in choices]
        if not whole:
            break
    return tuple(strings) if strings != [""] else ()


def _choices(item: Any) -> tuple[list[str], bool]:
    """The strings one item can spell, and whether it is all literal."""
    op, av = item
    if op is sre_constants.LITERAL:
        return [chr(av)], True
    if op is sre_constants.IN and all(o is sre_constants.LITERAL for o, _ in av):
        return [chr(c) for _, c in av], True
    if op is sre_constants.BRANCH:
        words: list[str] = []
        whole = True
        for branch in av[1]:
            flat = _flat(list(branch))
            starts = _literals_from(flat, 0)
            if not starts:
                return [], False
            words += starts
            whole = whole and all(o is sre_constants.LITERAL for o, _ in flat)
        return words, whole
    return [], False

"""One judge of what is a secret, for everything that writes or checks recorded traffic.

The recorder (and so the recording proxy, the serve log and the replay's mismatch diffs,
which all scrub through ``harness.cassette.scrub``), the redactor's own last check and
``harness scan`` ask the same ``Judge`` about the same decoded views, so whatever the
scanner would flag is never written.

    Judge(rules, allowed).document(top, quiet=False) -> Judged   every decoded view of a
                                                  body or file, with the secrets in each
    Judge.leaf(view, quiet, in_file) -> [Hit]     one decoded text
    Judge.pair(key, value) -> [Hit]               a value, because of the key it is under

What it calls a secret:

| what | where | label |
|---|---|---|
| a rule's match: the maintained set (detect-secrets), the project's own families, the user's literals and patterns, the context rules (URLs, headers, ``NAME = value``, key blocks) | any decoded text | the rule's |
| a value under a secret header, a cookie, a credential-named key | member pairs | the rule's |
| a random-looking token of no known shape (``checks.random_token``) | text that is not quiet: not a key, a header or a signature, id or base64 ``data`` (``QUIET_KEYS``), outside URLs | ``high-entropy-string`` |
| a secret-looking token (``contexts.file_token_spans``) | what a credential-named file holds | ``credential-file`` |

An ``allow:`` rule (a regex the whole secret matches) takes a value back out, for the
recorder and the scanner alike.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from harness.cassette.redaction import contexts, decode
from harness.cassette.redaction.checks import random_token
from harness.cassette.redaction.find import Hit, RuleSet, find_secrets, pair_secrets
from harness.cassette.redaction.views import View

QUIET_KEYS = frozenset({
    "signature", "data", "encrypted_content", "encrypted_index", "id", "tool_use_id", "request_id",
    "message_id", "previous_message_id", "request-id", "anthropic-organization-id",
})
HIGH_ENTROPY = "high-entropy-string"
CREDENTIAL_FILE = "credential-file"
_TOKEN = re.compile(r"(?<![A-Za-z0-9_+=-])[A-Za-z0-9_+=-]{20,128}(?![A-Za-z0-9_+=-])")
_CANDIDATE = re.compile(r"[A-Za-z0-9_+/=.~-]{16}")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s\"'<>]+")


@dataclass
class Judged:
    """A document judged: every decoded text view (and member value) with its secrets,
    and the opaque (base64) views, each a document of its own."""

    found: list[tuple[View, list[Hit]]] = field(default_factory=list)
    opaque: list[View] = field(default_factory=list)


@dataclass(frozen=True, eq=False)
class Judge:
    """The rules in force and the user's ``allow:`` regexes."""

    rules: RuleSet
    allowed: tuple[re.Pattern[str], ...] = ()

    def keeps(self, name: str, text: str) -> bool:
        """Whether a plain string under ``name`` may hold a secret (``decode.explode``'s
        ``keep``): a rule may match it, or it has a long enough token."""
        if self.rules.keeps(name, text):
            return True
        return len(text) >= 16 and name.lower() not in QUIET_KEYS and _CANDIDATE.search(text) is not None

    def document(self, top: View, *, quiet: bool = False) -> Judged:
        """Every view under ``top`` judged (see the module doc); ``quiet``: no
        high-entropy report anywhere in it (a YAML key, a header)."""
        leaves, pairs = decode.explode(top, self.keeps)
        judged = Judged()
        files = _FileContexts()
        for leaf in leaves:
            if leaf.encode is not None:
                judged.opaque.append(leaf)
            else:
                judged.found.append((leaf, self.leaf(leaf, quiet=quiet, in_file=files.holds(leaf))))
        judged.found += [(view, self.pair(key, view.text)) for key, view in pairs]
        return judged

    def leaf(self, view: View, *, quiet: bool = False, in_file: bool = False) -> list[Hit]:
        """The secrets in one decoded text."""
        text = view.text
        hits = find_secrets(text, self.rules)
        if in_file:
            hits = _add(hits, (Hit(s, e, CREDENTIAL_FILE) for s, e in contexts.file_token_spans(text)))
        if not quiet and view.key.lower() not in QUIET_KEYS and len(text) >= 20:
            hits = _add(hits, _entropy_hits(text))
        return self._allowed(text, hits)

    def pair(self, key: str, value: str) -> list[Hit]:
        """The secrets in ``value`` because of the ``key`` it is stored under."""
        return self._allowed(value, pair_secrets(key, value))

    def _allowed(self, text: str, hits: list[Hit]) -> list[Hit]:
        if not self.allowed or not hits:
            return hits
        return [h for h in hits if not any(regex.fullmatch(text[h.start : h.end]) for regex in self.allowed)]


def _entropy_hits(text: str) -> list[Hit]:
    urls = [m.span() for m in _URL.finditer(text)] if "://" in text else []
    return [Hit(m.start(), m.end(), HIGH_ENTROPY) for m in _TOKEN.finditer(text)
            if not any(s < m.end() and m.start() < e for s, e in urls) and random_token(m.group())]


def _add(hits: list[Hit], more: Iterable[Hit]) -> list[Hit]:
    """``hits`` and those of ``more`` that overlap none of them, in order."""
    extra = [h for h in more if not any(o.start < h.end and h.start < o.end for o in hits)]
    return sorted(hits + extra) if extra else hits


class _FileContexts:
    """Which views hold what a credential-named file holds (``contexts.credential_texts``
    of each JSON document above them, read once)."""

    def __init__(self) -> None:
        self._texts: dict[int, frozenset[str]] = {}

    def holds(self, leaf: View) -> bool:
        chain = [leaf]
        view = leaf.parent
        while view is not None:
            if view.text[:1] in ("{", "["):
                texts = self._texts.get(id(view))
                if texts is None:
                    texts = self._texts[id(view)] = contexts.credential_texts(view.text)
                if texts and any(v.text in texts for v in chain):
                    return True
            chain.append(view)
            view = view.parent
        return False

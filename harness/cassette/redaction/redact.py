"""Redact secrets in recorded bodies, on the decoded values, written back in place.

``Redactor(key=…).redact_body(body)`` takes a request body (JSON) or a response body
(SSE or JSON, maybe gzipped) and returns it with every secret replaced by
``<redacted:LABEL:TAG>``: TAG is the first 8 hex digits of HMAC-SHA256(key, secret). The
same secret gives the same placeholder, in every body redacted with the same key, so a
request recorded and the same request re-sent later redact to the same bytes; without
the key a placeholder says nothing about the secret (an unkeyed hash would let anyone
holding the cassette confirm a guessed password). ``untagged`` drops the tags, for
matching. Where the key comes from: ``harness.cassette.redaction.config``.

Edits are made on the source of the decoded characters: an escaped key is replaced
escape sequences and all; a key split across SSE deltas is replaced in the first
fragment and cut from the others, so the JSON still parses and the stream reassembles
to the redacted text. Besides the rules, ``literals`` and the values of credential-named
environment variables (``*_KEY``, ``*_TOKEN``, ``*_SECRET``, ``*PASSWORD*``…) are
redacted verbatim wherever they appear, and so is whatever a user's ``patterns`` match.

Fail closed: a body that is not UTF-8 is read as latin-1 (and redacted if it is text in
another 8-bit encoding); a possible secret in a binary body, an edit that would break
the JSON or the stream, or anything still found after redacting raise
``RedactionError``, which names the kind and offset, never the value.
"""

from __future__ import annotations

import gzip
import hashlib
import hmac
import json
import re
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from harness.cassette.redaction import decode, views
from harness.cassette.redaction.checks import credential_env_name, env_value_redactable
from harness.cassette.redaction.find import (
    CONTEXT,
    FAMILY,
    Hit,
    RuleSet,
    literal_rules,
    pattern_rules,
)
from harness.cassette.redaction.judge import Judge
from harness.wire.errors import HarnessError

_GZIP = b"\x1f\x8b"
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_TAG = re.compile(r"(<redacted:[A-Za-z0-9_.-]+):[0-9a-f]{8}>")
_LABEL_CHARS = re.compile(r"[^A-Za-z0-9_.-]")
Edit = tuple[int, int, str]


class RedactionError(HarnessError, ValueError):
    """A body holds a possible secret that cannot be redacted safely."""


def untagged(text: str) -> str:
    """``text`` with every placeholder's tag dropped (``<redacted:LABEL>``): the form in
    which bodies are matched, so a replay never depends on the key that tagged them."""
    return _TAG.sub(r"\1>", text) if "<redacted:" in text else text


@dataclass(frozen=True, eq=False)
class Redactor:
    """Redacts with one key what its ``judge`` calls a secret: the shipped rules,
    ``literals``, user ``patterns`` (label, compiled regex), credential-named ``env``
    values (pass ``os.environ`` to use the process's own), less what ``allowed`` regexes
    match in full."""

    key: bytes = field(repr=False)  # never in a repr: tracebacks and test reports print them
    literals: Iterable[str] = field(default=(), repr=False)
    env: Mapping[str, str] = field(default_factory=dict, repr=False)
    patterns: Iterable[tuple[str, re.Pattern[str]]] = field(default=(), repr=False)
    allowed: tuple[re.Pattern[str], ...] = field(default=(), repr=False)
    rules: RuleSet = field(init=False, repr=False)
    judge: Judge = field(init=False, repr=False)

    def __post_init__(self) -> None:
        env = self.env.items()
        values = {
            v: "env-" + _LABEL_CHARS.sub("_", name)
            for name, v in env
            if credential_env_name(name) and env_value_redactable(v)
        }
        values.update({v: "literal" for v in self.literals if len(v) >= 4})
        values.update({v.encode("utf-8").decode("latin-1"): label for v, label in list(values.items())})
        rules = FAMILY + literal_rules(values) + pattern_rules(self.patterns) + CONTEXT
        object.__setattr__(self, "rules", rules)
        object.__setattr__(self, "judge", Judge(rules, tuple(self.allowed)))

    def placeholder(self, label: str, secret: str) -> str:
        tag = hmac.new(self.key, secret.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()[:8]
        return f"<redacted:{label}:{tag}>"

    def redact_body(self, body: bytes) -> bytes:
        """``body`` with every secret replaced (gzip kept, recompressed deterministically)."""
        if body[:2] == _GZIP:
            try:
                inner = gzip.decompress(body)
            except (OSError, EOFError, zlib.error):
                return self._redact_binary(body)
            redacted = self.redact_body(inner)
            return body if redacted == inner else gzip.compress(redacted, mtime=0)
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            return self._redact_binary(body)
        if "\0" in text:
            return self._redact_binary(body)
        return self.redact_text(text).encode("utf-8")

    def redact_text(self, text: str, *, quiet: bool = False) -> str:
        """``text`` (a JSON or SSE body, a URI, any text) with every secret replaced;
        ``quiet`` (a header's value): no high-entropy report, as the scanner reads headers."""
        current = text
        for _ in range(3):
            edits = self.edits(views.root(current), quiet=quiet)
            if not edits:
                return current
            redacted = apply(current, edits)
            _check_structure(current, redacted)
            current = redacted
        left = self.edits(views.root(current), quiet=quiet)
        if left:
            raise RedactionError(f"still found after redacting: {_describe(left)}")
        return current

    def edits(self, top: views.View, *, quiet: bool = False) -> list[Edit]:
        """Non-overlapping ``(start, end, replacement)`` edits of ``top.text``: one for
        each secret the judge finds in it."""
        judged = self.judge.document(top, quiet=quiet)
        edits: list[Edit] = []
        for leaf in judged.opaque:
            inner = self.redact_text(leaf.text)
            if inner != leaf.text:
                assert leaf.parent is not None
                edits += _spread(views.to_root(leaf.parent, 0, len(leaf.parent.text)), leaf.encode(inner))
        for view, hits in judged.found:
            edits += self._hit_edits(view, hits)
        return _merge(edits)

    def _hit_edits(self, view: views.View, hits: list[Hit]) -> list[Edit]:
        edits: list[Edit] = []
        for hit in hits:
            placeholder = self.placeholder(hit.label, view.text[hit.start : hit.end])
            edits += _spread(views.to_root(view, hit.start, hit.end), placeholder)
        return edits

    def _redact_binary(self, body: bytes) -> bytes:
        """A body that is not UTF-8 (or holds NULs), read as latin-1: text in another
        8-bit encoding is redacted; in anything else a possible secret is an error."""
        text = body.decode("latin-1")
        if not _CONTROL.search(text):
            return self.redact_text(text).encode("latin-1")
        edits = self.edits(views.root(text))
        if edits:
            raise RedactionError(f"possible secret in a binary body, not redacted: {_describe(edits)}")
        return body


def apply(text: str, edits: list[Edit]) -> str:
    """``text`` with sorted, non-overlapping edits applied."""
    out, pos = [], 0
    for start, end, replacement in edits:
        out += [text[pos:start], replacement]
        pos = end
    out.append(text[pos:])
    return "".join(out)


def _spread(runs: list[tuple[int, int]], replacement: str) -> list[Edit]:
    """The first run becomes ``replacement``, the others (later fragments) are cut."""
    return [(s, e, replacement if n == 0 else "") for n, (s, e) in enumerate(runs)]


def _merge(edits: list[Edit]) -> list[Edit]:
    """Overlapping edits as one, keeping the replacement of the widest non-empty one."""
    merged: list[Edit] = []
    for start, end, replacement in sorted(edits):
        if merged and start < merged[-1][1]:
            s, e, r = merged[-1]
            widest = replacement if replacement and (not r or end - start > e - s) else r
            merged[-1] = (s, max(e, end), widest)
        else:
            merged.append((start, end, replacement))
    return merged


def _check_structure(before: str, after: str) -> None:
    """A body that parsed as JSON still does; every SSE ``data:`` line that parsed still does."""
    if _parses(before) and not _parses(after):
        raise RedactionError("redacting would break the JSON body; not redacted")
    old, new = _data_lines(before), _data_lines(after)
    if len(old) != len(new) or any(_parses(a) and not _parses(b) for a, b in zip(old, new, strict=True)):
        raise RedactionError("redacting would break the event stream; not redacted")


def _parses(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _data_lines(text: str) -> list[str]:
    return [m.group(1) for m in decode.SSE_DATA.finditer(text)] if "data:" in text else []


def _describe(edits: list[Edit]) -> str:
    labels = sorted({r.split(":")[1] for _, _, r in edits if r.startswith("<redacted:")})
    return f"{', '.join(labels) or 'secret'} at offset {edits[0][0]}"

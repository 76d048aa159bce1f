"""Did a fake survive? Every view of a body (raw, JSON strings, reassembled SSE blocks,
unescaped and base64-decoded text) is searched for every 12-character window of each
of the fake's secret parts."""

from __future__ import annotations

from harness.cassette.redaction import decode, views
from redaction.fakes import Fake

WINDOW = 12


def all_texts(text: str) -> list[str]:
    """``text`` and every decoded view under it, opaque (base64) views opened too."""
    leaves, _ = decode.explode(views.root(text))
    texts = [text]
    for leaf in leaves:
        texts += all_texts(leaf.text)[1:] if leaf.encode is not None else [leaf.text]
        if leaf.encode is not None:
            texts.append(leaf.text)
    return texts


def leaked(body: bytes | str, fake: Fake) -> list[int]:
    """Offsets (in the fake's secret parts, joined) of the windows still present."""
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    haystack = "\0".join(all_texts(text))
    found: list[int] = []
    offset = 0
    for secret in fake.secrets:
        found += [offset + i for i in range(max(len(secret) - WINDOW + 1, 1)) if secret[i : i + WINDOW] in haystack]
        offset += len(secret)
    return found

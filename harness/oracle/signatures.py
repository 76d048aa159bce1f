"""Thinking signed by another model: the one rule that needs what the API answered before.

A thinking block's ``signature`` is bound to the model that wrote it; sent back to another
model, the API refuses it: ``messages.N.content.K: Invalid `signature` in `thinking`
block`` (its 400 when a conversation with thinking switches models, as a fallback to
another model does). The rule needs the signatures the API handed out, each with its
model, which only the server holds: a fake API remembers them from its answers and gives
them to ``check_request(body, signatures=…)``. A signature it never handed out is not
judged (a recording, another server's answer).

Any JSON passes through without an exception: a block that is not an object, a
``signature`` that is not a string, messages that are not a list are simply not signed
thinking (the other rules say what is wrong with them).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from harness.oracle import wording
from harness.oracle.tallies import Tally
from harness.oracle.wording import Violation

_MAPPING = (dict, Mapping)


def signed_by_the_requested_model(body: Mapping[str, Any], tally: Tally, signatures: Mapping[str, str]) -> list[Violation]:
    """``messages.N.content.K: Invalid `signature` in `thinking` block`` -- a thinking block
    whose signature ``signatures`` names another model than the request's ``model``
    (``tally.signed``: the thinking blocks of ``messages`` and their signatures)."""
    model = body.get("model")
    return [
        Violation(f"messages.{m}.content.{k}", wording.INVALID_SIGNATURE)
        for m, k, signature in tally.signed
        if (signer := signatures.get(signature)) and signer != model
    ]


def signatures_in(events: Iterable[Any]) -> list[str]:
    """The thinking signatures a stream's events hand out (``signature_delta``), in order."""
    found = []
    for event in events:
        if isinstance(event, _MAPPING) and event.get("type") == "content_block_delta":
            delta = event.get("delta")
            if isinstance(delta, _MAPPING) and delta.get("type") == "signature_delta":
                signature = delta.get("signature")
                if isinstance(signature, str):
                    found.append(signature)
    return found

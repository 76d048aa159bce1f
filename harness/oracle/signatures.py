"""Thinking signed by another model: the one rule that needs what the API answered before.

A thinking block's ``signature`` is bound to the model that wrote it; sent back to another
model, the API refuses it: ``messages.N.content.K: Invalid `signature` in `thinking`
block`` (its 400 when a conversation with thinking switches models, as a fallback to
another model does). The rule needs the signatures the API handed out, each with its
model, which only the server holds: a fake API remembers them from its answers and gives
them to ``check_request(body, signatures=…)``. A signature it never handed out is not
judged (a recording, another server's answer).

The signature also binds the thinking text: a thinking block of the latest assistant
message whose text differs from what was handed out with its signature is refused:
``messages.N.content.K: `thinking` or `redacted_thinking` blocks in the latest assistant
message cannot be modified. These blocks must remain as they were in the original
response.`` (the live API, 2026; an agent that trims or edits its thinking). The rule
needs the texts handed out (``check_request(body, thoughts=…)``); earlier assistant
messages are not judged (the API drops their thinking).

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
        for m, k, signature, _ in tally.signed
        if (signer := signatures.get(signature)) and signer != model
    ]


def thinking_as_handed_out(tally: Tally, thoughts: Mapping[str, str]) -> list[Violation]:
    """``messages.N.content.K: `thinking` or `redacted_thinking` blocks in the latest
    assistant message cannot be modified. …`` -- a thinking block of the latest assistant
    message whose signature ``thoughts`` knows, with another text than it was handed out with."""
    return [
        Violation(f"messages.{m}.content.{k}", wording.THINKING_MODIFIED)
        for m, k, signature, text in tally.signed
        if m == tally.last_assistant and signature in thoughts and text != thoughts[signature]
    ]


def thoughts_in(events: Iterable[Any]) -> dict[str, str]:
    """Each thinking signature a stream's events hand out, with the thinking text it signs."""
    texts: dict[Any, str] = {}
    found = {}
    for event in events:
        delta = event.get("delta") if isinstance(event, _MAPPING) and event.get("type") == "content_block_delta" else None
        if not isinstance(delta, _MAPPING):
            continue
        if delta.get("type") == "thinking_delta" and isinstance(delta.get("thinking"), str):
            texts[event.get("index")] = texts.get(event.get("index"), "") + delta["thinking"]
        elif delta.get("type") == "signature_delta" and isinstance(delta.get("signature"), str):
            found[delta["signature"]] = texts.get(event.get("index"), "")
    return found

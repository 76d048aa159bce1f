"""Message threads as the fake API keeps them (the ``message-threads-2026-08-12`` beta).

A ``create`` request (``thread: {type: create}``) is a whole conversation; the server
keeps it, with its answer, under the answer's message id. A ``continue`` request
(``thread: {type: continue, previous_message_id: ID}``) sends only the messages after
that answer, and usually no ``system`` nor ``tools``: it stands for the stored thread
plus its new messages, and that is what the oracle checks.

Sources:
- platform.claude.com/docs/en/build-with-claude/message-threads: "Continue. Send only
  the messages since the previous response … Leave ``system`` and ``tools`` out of the
  request. The thread keeps the values from the create request. Use each new response
  ``id`` for the next turn." A thread the API can no longer continue answers a 404;
  the client sends the whole conversation again as a new ``create``.
- The error types of the official SDK, generated from the API's reference
  (``anthropic/types/thread_*_error_details.py``, ``_error_classes.py``): each error
  has ``error.details.error_code``; ``thread_not_found`` is a 404, the others 400s.
  Their descriptions are the messages below (the API's exact wording was not seen).
- The SDK's thread state (``lib/threads/_thread_state.py``): a reply that did not end
  with ``message_stop`` is not continued ("the server holds either the whole reply or
  none of it"); this server holds none of it.

Not modelled, knowingly: the 5-minute expiry, ``thread_continue_in_flight`` (two
continues at once), and which request fields a thread cannot carry (a scenario declares
``threads: unsupported`` instead, and every threaded request gets
``thread_unsupported_request``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.scenario.fake_api.conversation import (
    CREATE_ONLY_FIELDS,
    same_value,
    thread_field,
    with_thread,
    without_thread,
)
from harness.scenario.fake_api.policy import Pending, Policy, Refusal
from harness.scenario.fake_api.served import served_message
from harness.wire.plan import json_plan

THREADS_BETA = "message-threads-2026-08-12"
ERRORS = {  # error_code → (status, error.type, message)
    "thread_not_found": (
        404, "not_found_error",
        "No usable Thread state was found for `previous_message_id`. Replay the full conversation with "
        '`thread: {"type": "create"}` to start a new Thread.',
    ),
    "thread_already_continued": (
        400, "invalid_request_error",
        "The response that `previous_message_id` names has already been continued, and each response can be "
        "continued only once. Continue from the Thread's most recent response `id`.",
    ),
    "thread_fingerprint_mismatch": (
        400, "invalid_request_error",
        "A field that must stay the same across a Thread's turns differs from the value stored with the Thread: "
        '{fields}. Send the stored values, or replay the full conversation with `thread: {{"type": "create"}}` '
        "to change them.",
    ),
    "thread_unsupported_request": (
        400, "invalid_request_error",
        "The request combines `thread` with a request field or an organization setting that Threads do not "
        "support. Send the full conversation without `thread`, or change that field.",
    ),
}


@dataclass(frozen=True)
class ThreadRefusal:
    """A threaded request the server refuses: the API's status and error body."""

    code: str
    status: int
    error_type: str
    message: str

    def body(self, request_id: str) -> dict[str, Any]:
        error = {"type": self.error_type, "message": self.message, "details": {"error_code": self.code}}
        return {"type": "error", "error": error, "request_id": request_id}


def refusal(code: str, **names: str) -> ThreadRefusal:
    status, error_type, message = ERRORS[code]
    return ThreadRefusal(code, status, error_type, message.format(**names) if names else message)


class Threads(Policy):
    """The threads one fake API holds, by the message id of their latest answer: a policy
    (``policy``) that refuses the thread errors and keeps each threaded answer."""

    def __init__(self, *, supported: bool = True) -> None:
        self.supported = supported
        self._stored: dict[str, dict[str, Any]] = {}
        self._continued: set[str] = set()

    def refuse(self, pending: Pending) -> Refusal | None:
        """Set the whole conversation the request stands for; the API's answer to a thread
        error."""
        record = pending.record
        record.conversation, error = self.resolve(record.body)
        if error is None:
            return None
        record.refused = error.code
        return Refusal(json_plan(error.status, error.body(pending.request_id), pending.request_id))

    def resolve(self, body: dict[str, Any]) -> tuple[dict[str, Any] | None, ThreadRefusal | None]:
        """The whole conversation a request stands for, or why the server refuses it.
        The conversation is None for a ``continue`` the server cannot place."""
        thread = thread_field(body)
        kind = thread.get("type") if thread else None
        if kind not in ("create", "continue"):
            return body, None
        if not self.supported:
            return None if kind == "continue" else without_thread(body), refusal("thread_unsupported_request")
        if kind == "create":
            return without_thread(body), None
        previous = thread.get("previous_message_id")
        stored = self._stored.get(previous) if isinstance(previous, str) else None
        if stored is None:
            return None, refusal("thread_not_found")
        if previous in self._continued:
            return None, refusal("thread_already_continued")
        changed = [f for f in CREATE_ONLY_FIELDS if f in body and not same_value(f, body[f], stored.get(f))]
        if changed:
            return None, refusal("thread_fingerprint_mismatch", fields=", ".join(f"`{f}`" for f in changed))
        return with_thread(stored, body), None

    def answered(self, pending: Pending) -> None:
        """Keep the thread of a threaded request that got a whole answer."""
        record = pending.record
        thread = thread_field(record.body)
        if thread is None or not isinstance(record.conversation, dict):
            return
        message = served_message(record)
        if message is None:
            return
        if thread.get("type") == "continue":
            self._continued.add(str(thread.get("previous_message_id")))
        answer = {"role": "assistant", "content": [_as_param(b) for b in message.get("content") or []]}
        stored = {k: v for k, v in record.conversation.items() if k != "stream"}
        self._stored[str(message.get("id"))] = stored | {"messages": [*stored.get("messages", []), answer]}


def _as_param(block: Any) -> Any:
    """A response content block as a request sends it back (no response-only fields)."""
    if not isinstance(block, dict):
        return block
    keep = {"tool_use": ("type", "id", "name", "input"), "text": ("type", "text", "citations")}.get(str(block.get("type")))
    return {k: v for k, v in block.items() if keep is None or k in keep}

"""The small endpoints the fake API answers beside ``/v1/messages``, as the API shapes
them: token counting and the model list. They take no scripted reply and are no request
of the conversation: an agent that counts tokens before each message (as the docs
suggest, to manage rate limits and cost) or lists the models is judged on its messages
alone, in process as on a socket.

    is_side(method, path) -> bool
    side_answer(method, path, content, request_id) -> SideAnswer | None
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from harness.oracle import check_request, wording
from harness.oracle import error_body as violations_body
from harness.scenario.fake_api.usage import estimate_input_tokens
from harness.wire import json_body
from harness.wire.api_errors import error_body
from harness.wire.plan import WirePlan, json_plan

MODELS = (
    ("claude-opus-5-5", "Claude Opus 5.5", "2026-09-01T00:00:00Z"),
    ("claude-sonnet-5-5", "Claude Sonnet 5.5", "2026-09-01T00:00:00Z"),
    ("claude-haiku-5-5", "Claude Haiku 5.5", "2026-09-01T00:00:00Z"),
)


@dataclass
class SideAnswer:
    """The answer to a side request, what it was (for a log) and what the oracle found."""

    plan: WirePlan
    said: str
    checked: bool = True
    violations: list[str] = field(default_factory=list)


def is_side(method: str, path: str) -> bool:
    """Whether ``path`` (without a session prefix or query) is one of the side endpoints."""
    return (method, path) == ("POST", "/v1/messages/count_tokens") or method == "GET" and (
        path == "/v1/models" or path.startswith("/v1/models/"))


def side_answer(method: str, path: str, content: bytes, request_id: str) -> SideAnswer | None:
    """The answer when ``path`` is one of the side endpoints (``is_side``); None for anything else."""
    if not is_side(method, path):
        return None
    return count_tokens(content, request_id) if method == "POST" else models(path, request_id)


def count_tokens(content: bytes, request_id: str) -> SideAnswer:
    """``POST /v1/messages/count_tokens``: the oracle's verdict, then a rough count."""
    body = json_or_none(content)
    if not isinstance(body, dict):
        message = wording.NOT_AN_OBJECT if body is not None else json_body.invalid_json_message(content)
        return SideAnswer(json_plan(400, error_body("invalid_request_error", message, request_id), request_id),
                          "not a JSON object", checked=False)
    violations = check_request(body)
    if violations:
        plan = json_plan(400, violations_body(violations, request_id=request_id), request_id)
        return SideAnswer(plan, "rejected by the oracle", violations=[str(v) for v in violations])
    tokens = estimate_input_tokens(body)
    return SideAnswer(json_plan(200, {"input_tokens": tokens}, request_id), f"count_tokens {tokens}")


def models(path: str, request_id: str) -> SideAnswer:
    """``GET /v1/models`` and ``GET /v1/models/ID``: a small static list."""
    listed = [_model_info(*m) for m in MODELS]
    wanted = unquote(path.removeprefix("/v1/models").lstrip("/"))
    if not wanted:
        page = {"data": listed, "has_more": False, "first_id": listed[0]["id"], "last_id": listed[-1]["id"]}
        return SideAnswer(json_plan(200, page, request_id), f"{len(listed)} models", checked=False)
    found = next((m for m in listed if m["id"] == wanted), None)
    if found is None:
        plan = json_plan(404, error_body("not_found_error", f"model: {wanted}", request_id), request_id)
        return SideAnswer(plan, f"no model {wanted}", checked=False)
    return SideAnswer(json_plan(200, found, request_id), f"model {wanted}", checked=False)


def json_or_none(content: bytes) -> Any:
    """A request body as JSON, or None when it is not JSON (or nests too deep)."""
    try:
        return json_body.loads(content) if content else None
    except ValueError:
        return None


def _model_info(model_id: str, name: str, created: str) -> dict[str, Any]:
    return {"type": "model", "id": model_id, "display_name": name, "created_at": created, "lifecycle": "active"}

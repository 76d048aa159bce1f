"""The small endpoints the fault server answers beside ``/v1/messages``: token counting
and the model list, as the API shapes them."""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

from harness.oracle import check_request, wording
from harness.oracle import error_body as violations_body
from harness.scenario.fake_api.usage import estimate_input_tokens
from harness.serve.log import LogEntry
from harness.wire import json_body
from harness.wire.api_errors import error_body
from harness.wire.http11 import Request
from harness.wire.plan import WirePlan, json_plan

MODELS = (
    ("claude-opus-5-5", "Claude Opus 5.5", "2026-09-01T00:00:00Z"),
    ("claude-sonnet-5-5", "Claude Sonnet 5.5", "2026-09-01T00:00:00Z"),
    ("claude-haiku-5-5", "Claude Haiku 5.5", "2026-09-01T00:00:00Z"),
)


def count_tokens(request: Request, entry: LogEntry, request_id: str) -> WirePlan:
    """``POST /v1/messages/count_tokens``: the oracle's verdict, then a rough count."""
    body = json_or_none(request.body)
    if not isinstance(body, dict):
        entry.status, entry.answer, entry.checked = 400, "not a JSON object", False
        message = wording.NOT_AN_OBJECT if body is not None else json_body.invalid_json_message(request.body)
        return json_plan(400, error_body("invalid_request_error", message, request_id), request_id)
    violations = check_request(body)
    entry.violations = [str(v) for v in violations]
    if violations:
        entry.status, entry.answer = 400, "rejected by the oracle"
        return json_plan(400, violations_body(violations, request_id=request_id), request_id)
    tokens = estimate_input_tokens(body)
    entry.answer = f"count_tokens {tokens}"
    return json_plan(200, {"input_tokens": tokens}, request_id)


def models(path: str, entry: LogEntry, request_id: str) -> WirePlan:
    """``GET /v1/models`` and ``GET /v1/models/ID``: a small static list."""
    listed = [_model_info(*m) for m in MODELS]
    wanted = unquote(path.removeprefix("/v1/models").lstrip("/"))
    if not wanted:
        entry.answer = f"{len(listed)} models"
        page = {"data": listed, "has_more": False, "first_id": listed[0]["id"], "last_id": listed[-1]["id"]}
        return json_plan(200, page, request_id)
    found = next((m for m in listed if m["id"] == wanted), None)
    if found is None:
        entry.status, entry.answer = 404, f"no model {wanted}"
        return json_plan(404, error_body("not_found_error", f"model: {wanted}", request_id), request_id)
    entry.answer = f"model {wanted}"
    return json_plan(200, found, request_id)


def json_or_none(content: bytes) -> Any:
    """A request body as JSON, or None when it is not JSON (or nests too deep)."""
    try:
        return json_body.loads(content) if content else None
    except ValueError:
        return None


def _model_info(model_id: str, name: str, created: str) -> dict[str, Any]:
    return {"type": "model", "id": model_id, "display_name": name, "created_at": created, "lifecycle": "active"}

"""``harness drift``: does the live API still answer an agent's requests in the shape its
recordings claim?

    harness drift CASSETTE… [--base-url URL] [--agent MODULE:FACTORY] [--ignore FIELD…] [--json FILE]

Each recorded request is sent again, as recorded (its kept headers, its scrubbed body),
to ``--base-url`` (default ``ANTHROPIC_BASE_URL``, else the real API) with the key of
``ANTHROPIC_API_KEY``; or, under ``--agent``, the agent is run again over the cassette's
user lines against that URL, recorded as ``harness record`` records (scrubbed, scanned)
into a temporary cassette, and its answers compared in order. Each live answer is
compared with the recorded one by shape (``harness.cassette.shapes``): status, error
type, block types and their order, stop reason, tool names and argument keys, usage
magnitude, the headers an agent reads. Not the model's wording.

Exit 0: no drift; 1: drift (each difference named with its cassette, interaction and
field); 2: nothing could be compared (no key, a cassette that cannot be read, the URL
unreachable). ``--json FILE`` writes the report as the recorder writes a cassette:
scanned for secrets first, then atomically; a drift run keeps no live body anywhere.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from harness.cassette.scrub import KEPT_REQUEST_HEADERS, KEPT_RESPONSE_HEADERS
from harness.cassette.shapes import (
    SEEN_HEADERS,
    Difference,
    Shape,
    differences,
    shape_of,
)
from harness.wire.cassette_file import response_body_bytes

DEFAULT_BASE_URL = "https://api.anthropic.com"
Send = Callable[[str, str, Mapping[str, str], bytes], tuple[int, Mapping[str, Any], bytes]]


@dataclass
class InteractionDrift:
    """One recorded interaction against its live answer."""

    number: int  # from 1, as the cassette lists it
    method: str
    path: str
    recorded: Shape | None
    live: Shape | None
    differences: list[Difference] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "interaction": self.number, "method": self.method, "path": self.path,
            "recorded": self.recorded.as_json() if self.recorded else None,
            "live": self.live.as_json() if self.live else None,
            "differences": [{"field": d.field, "recorded": _plain(d.recorded), "live": _plain(d.live)}
                            for d in self.differences],
        }


@dataclass
class CassetteDrift:
    """A cassette's interactions compared, and what kept the comparison from running."""

    path: Path
    interactions: list[InteractionDrift] = field(default_factory=list)
    count_difference: Difference | None = None  # under --agent: not as many answers as recorded

    @property
    def drifted(self) -> bool:
        return self.count_difference is not None or any(i.differences for i in self.interactions)

    def lines(self) -> list[str]:
        """The report for people: one line a difference."""
        found = [f"{self.path}: {self.count_difference}"] if self.count_difference else []
        for item in self.interactions:
            found += [f"{self.path}: interaction {item.number} ({item.method} {item.path}): {d}" for d in item.differences]
        return found or [f"{self.path}: no drift in {len(self.interactions)} interaction(s)"]


def drift_of_requests(path: Path, interactions: Sequence[Mapping[str, Any]], send: Send, *,
                      ignore: Sequence[str] = ()) -> CassetteDrift:
    """Send every recorded request again and compare each answer with its recording."""
    report = CassetteDrift(path)
    for number, interaction in enumerate(interactions, 1):
        request = interaction["request"]
        method, target = str(request.get("method", "POST")), urlsplit(str(request.get("uri", ""))).path
        headers = {k: v for k, v in _headers(request).items() if k in KEPT_REQUEST_HEADERS}
        status, live_headers, body = send(method, target, headers, _request_body(request))
        report.interactions.append(_compared(number, method, target, interaction["response"],
                                             shape_of(status, live_headers, body), ignore))
    return report


def drift_of_answers(path: Path, recorded: Sequence[Mapping[str, Any]], live: Sequence[Mapping[str, Any]], *,
                     ignore: Sequence[str] = ()) -> CassetteDrift:
    """Compare a new recording of the same session with the old one, answer by answer in order."""
    report = CassetteDrift(path)
    if len(recorded) != len(live):
        report.count_difference = Difference("interactions", len(recorded), len(live))
    for number, (old, new) in enumerate(zip(recorded, live), 1):
        request = old["request"]
        method, target = str(request.get("method", "POST")), urlsplit(str(request.get("uri", ""))).path
        report.interactions.append(_compared(number, method, target, old["response"], recorded_shape(new["response"]), ignore))
    return report


def recorded_shape(response: Mapping[str, Any]) -> Shape:
    """The shape of a recorded response, with the header names it noted at the time."""
    status = response.get("status")
    code = status.get("code") if isinstance(status, Mapping) else status
    headers: dict[str, Any] = dict(_headers(response))
    headers |= {name: "" for name in response.get(SEEN_HEADERS) or () if isinstance(name, str)}
    return shape_of(int(code or 0), headers, response_body_bytes(response))


def known_headers(response: Mapping[str, Any]) -> set[str]:
    """The header names a recorded response can speak for: those a cassette keeps, and,
    when it noted them, every name it saw (the rate-limit family as one)."""
    known = set(KEPT_RESPONSE_HEADERS)
    if response.get(SEEN_HEADERS) is not None:
        known |= {"request-id", "anthropic-ratelimit-*"}
    return known


def _compared(number: int, method: str, target: str, response: Mapping[str, Any], live: Shape,
              ignore: Sequence[str]) -> InteractionDrift:
    recorded = recorded_shape(response)
    found = differences(recorded, live, known_headers(response), ignore=ignore)
    return InteractionDrift(number, method, target, recorded, live, found)


def http_sender(base_url: str, api_key: str, *, timeout: float = 600.0) -> Send:
    """Send a request to ``base_url`` with the key, reading the whole answer."""
    import httpx2

    client = httpx2.Client(base_url=base_url.rstrip("/"), timeout=timeout)

    def send(method: str, target: str, headers: Mapping[str, str], body: bytes) -> tuple[int, Mapping[str, Any], bytes]:
        response = client.request(method, target, headers={**headers, "x-api-key": api_key}, content=body)
        return response.status_code, dict(response.headers), response.content

    return send


def write_report(path: Path, reports: Sequence[CassetteDrift]) -> None:
    """The JSON report, scanned for secrets and written atomically, as a cassette is
    (nothing if the scan finds one: SecretsFound names it, masked)."""
    from harness.cassette.vcr_setup import write_scanned

    text = json.dumps({"drifted": any(r.drifted for r in reports), "cassettes": [
        {"cassette": str(r.path), "drifted": r.drifted,
         "count": r.count_difference and {"recorded": r.count_difference.recorded, "live": r.count_difference.live},
         "interactions": [i.as_json() for i in r.interactions]} for r in reports]}, indent=2) + "\n"
    write_scanned(path, text)


def api_key_for(base_url: str) -> str | None:
    """``ANTHROPIC_API_KEY``; on a loopback URL a placeholder will do."""
    key = os.environ.get("ANTHROPIC_API_KEY")
    host = urlsplit(base_url).hostname or ""
    return key or ("harness-drift" if host in ("127.0.0.1", "localhost", "::1") else None)


def _headers(part: Mapping[str, Any]) -> dict[str, str]:
    """The recorded headers, one text value each (vcrpy keeps a list; a hand-edited
    cassette may hold a number, which is sent as its text)."""
    headers = part.get("headers") or {}
    if not isinstance(headers, Mapping):
        return {}
    firsts = {str(k).lower(): v[0] if isinstance(v, list) and v else v for k, v in headers.items()}
    return {name: str(value) for name, value in firsts.items() if value is not None and value != []}


def _request_body(request: Mapping[str, Any]) -> bytes:
    body = request.get("body")
    if isinstance(body, Mapping):
        body = body.get("string")
    if body is None:
        return b""
    return body if isinstance(body, bytes) else str(body).encode("utf-8")


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, frozenset):
        return sorted(value)
    return value

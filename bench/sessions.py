"""Whole recorded sessions of 100 and 400 interactions replayed: by the harness's
CassetteTransport (body and order matching), by vcrpy, and by the SDK alone reading the
same answers (the session floor)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import vcr

from harness.cassette.index import CassetteTransport
from harness.cassette.vcr_setup import make_vcr

from . import workload
from .library import n_of
from .timing import Samples, interleaved, ratio


def sessions(tmp: Path, scale: float, *, vcr_400: bool, counts: tuple[int, int] = (100, 400)) -> dict[str, Any]:
    """Whole sessions of ``counts`` interactions (cassette load included), per request;
    vcrpy replays the longer one only if ``vcr_400``."""
    out: dict[str, Any] = {}
    for count in counts:
        path = tmp / f"session_{count}.yaml"
        requests = [workload.session_request(n) for n in range(1, count + 1)]
        workload.record_session(path, requests)
        bodies = [workload.reply_body(n) for n in range(1, count + 1)]

        def floor_pass() -> None:
            client = workload.floor_client(iter(bodies))
            for request in requests:
                workload.call(client, request)

        def harness_pass(match_on: str) -> None:
            client = workload.transport_client(CassetteTransport(path, match_on=match_on))
            for request in requests:
                workload.call(client, request)

        def vcr_pass(recorder: Any) -> None:
            client = workload.offline_client()
            with recorder.use_cassette(str(path)):
                for request in requests:
                    workload.call(client, request)

        contenders = {
            "floor": floor_pass,
            "harness_body": lambda: harness_pass("body"),
            "harness_order": lambda: harness_pass("order"),
        }
        slow = {
            "vcr_default": lambda: vcr_pass(vcr.VCR(record_mode="none")),
            "vcr_body": lambda: vcr_pass(make_vcr(record_mode="none", match_on="body")),
        }
        rounds = n_of(9, scale)
        samples = interleaved(contenders, rounds=rounds, batch=1, warmup=False)
        if count == counts[0] or vcr_400:
            slow_samples = interleaved(slow, rounds=1, batch=1, warmup=False)
            samples |= slow_samples
        per_request = {name: _per_request(s, count) for name, s in samples.items()}
        out[str(count)] = {
            "cassette_bytes": path.stat().st_size,
            "us_per_request": {name: s.summary() for name, s in per_request.items()},
            "ratios_to_session_floor": {
                name: ratio(s, per_request["floor"]) for name, s in per_request.items() if name != "floor"
            },
        }
    return out


def _per_request(samples: Samples, count: int) -> Samples:
    return Samples([c / count for c in samples.cpu], [w / count for w in samples.wall])

"""``python -m bench``: every benchmark in one run, side by side, printed and written to
``bench/results/latest.json``.

    a  the SDK's floor: the typical streamed tool_use reply through a bare MockTransport
    b  the same reply through ScenarioTransport, the oracle on; beside it b's own floor (parse, check, render)
    c  vcrpy replaying it from a one-interaction cassette; sessions of 100 and 400
       interactions replayed by vcrpy and by the harness's CassetteTransport
    d  one whole scenario (run_scenario on scenarios/http/overloaded_then_success.yaml)
    e  the whole scenario library, in process, one file after another, and as
       ``harness run --jobs 2`` runs it (two forked workers, the same results)
    f  hypothesis examples per second for the main history property, and sessions per
       second of the session state machine, each beside its generation floor
    and: how fast the commands that need no SDK start, against importing it; a session
    growing to 999 messages over 500 requests checked request after request, against
    checking its last request once; the oracle's cost per message at 10, 100 and 1,000 messages; a scenario with
    ten retries at the 30 s cap (300 s of virtual time); a 40 MB single-stream
    interaction replayed by CassetteTransport against the SDK's floor on the same bytes
    (``big_stream``), and its growth per megabyte from 10 to 40 MB; a 40 MB recorded
    cassette loaded from disk and replayed, CPU and peak memory (``big_cassette``); ``harness serve``
    under 50 keep-alive clients against a bare http.server; the checks read from the
    wire, on against off; the library under pytest with one worker and with two.

Options: ``--quick`` (fewer rounds, for a smoke run), ``--skip-vcr-400`` (vcrpy's
400-interaction replay takes tens of seconds), ``--output FILE``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import vcr

from harness.oracle import check_history
from harness.scenario.fake_api.clients import sync_client
from harness.scenario.fake_api.responder import Responder
from harness.scenario.fake_api.transport import ScenarioTransport
from harness.scenario.format.model import Scenario, Turn
from harness.scenario.run.runner import run_scenario
from harness.wire.replies import Reply

from . import (
    big_cassette,
    big_stream,
    cli_start,
    long_session,
    properties,
    serve_load,
    workload,
)
from .library import library, ms, n_of, one_scenario, pytest_scale, wire_checks
from .report import report
from .sessions import sessions
from .timing import interleaved, ratio, repeat

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).resolve().parent / "results" / "latest.json"

BIG_STREAM_MB = 40
BIG_CASSETTE_MB = 40
TARGETS = {
    "b_over_its_floor": 0.02,  # b/a less b's own floor (the request parsed and checked, the reply rendered) over a
    "session_400_over_floor": 1.2,  # CassetteTransport (body matching) over the same 400 requests through MockTransport
    "oracle_per_message_growth": 1.5,  # cost per message at 1,000 over cost at 10
    "long_session_over_last": 5.0,  # 500 growing requests checked one after another, over the last one checked once
    "cli_start_over_allowance": 1.0,  # the slowest command that needs no SDK over max(0.3 s, a fifth of importing the SDK)
    "ten_retries_wall_ms": 50.0,
    "library_wall_s": 3.0,
    "property_examples_per_s": 100.0,
    "big_stream_over_floor": 1.5,  # a 40 MB interaction replayed, over the SDK reading the same bytes
    "big_stream_growth_per_mb": 1.5,  # cost per MB at 40 MB over cost per MB at 10 MB: linear is 1
    "big_cassette_over_floor": 1.5,  # a 40 MB cassette loaded and replayed, over the SDK reading its response's bytes
    "big_cassette_memory_over_file": 3.0,  # the peak memory that loading and replaying it adds, over the file's size
    "serve_over_bare": 0.8,  # harness serve's requests/s under 50 keep-alive clients, over a bare http.server
    "wire_checks_on_over_off": 1.1,  # the library's CPU with the checks read from the wire, over without them
    "pytest_two_workers_speedup": 1.3,  # the library under pytest: one worker's wall over two workers' (same results)
    "state_machine_over_generation": 3.0,  # the session machine's time over hypothesis generating its steps alone
    "state_machine_harness_share": 0.05,  # the harness's own share of a profiled session machine run (the SDK's apart)
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds: a smoke run, not a measurement")
    parser.add_argument("--skip-vcr-400", action="store_true", help="leave out vcrpy's 400-interaction replay")
    parser.add_argument("--output", type=Path, default=RESULTS, help=f"the JSON file (default {RESULTS})")
    args = parser.parse_args(argv)
    os.chdir(ROOT)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="harness-bench-") as tmp:
        results = measure_all(Path(tmp), 0.25 if args.quick else 1.0, vcr_400=not args.skip_vcr_400)
    results["bench_seconds"] = round(time.perf_counter() - started, 1)
    report(results)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"\nwritten: {args.output.relative_to(ROOT) if args.output.is_relative_to(ROOT) else args.output}")
    return 0


def measure_all(
    tmp: Path,
    scale: float,
    *,
    vcr_400: bool = True,
    session_counts: tuple[int, int] = (100, 400),
    pytest_files: list[Path] | None = None,
) -> dict[str, Any]:
    """Every benchmark (``scale``: the fraction of the rounds; 1 is a measurement), with
    each target's verdict; ``tmp`` holds the cassettes it records; ``pytest_files`` are
    what the pytest scale-out runs (default: the library)."""
    results: dict[str, Any] = {"machine": _machine(), "quick": scale < 1}
    results["per_request"] = per_request(tmp, scale)
    results["sessions"] = sessions(tmp, scale, vcr_400=vcr_400, counts=session_counts)
    results["oracle"] = oracle_linearity(scale)
    results["long_session"] = long_session.measure(scale)
    results["cli_start"] = cli_start.measure(tmp, n_of(5, scale))
    results["ten_retries"] = ten_retries(scale)
    results["one_scenario"] = one_scenario(scale)
    results["library"] = library(scale)
    results["wire_checks"] = wire_checks(scale)
    results["property"] = properties.property_speed(scale, tmp)
    results["state_machine"] = properties.state_machine_speed(scale)
    results["big_stream"] = big_stream.measure(BIG_STREAM_MB if scale >= 0.25 else 2, rounds=n_of(5, scale))
    results["big_cassette"] = big_cassette.measure(tmp, BIG_CASSETTE_MB if scale >= 0.25 else 1, rounds=n_of(5, scale))
    results["serve"] = serve_load.measure() if scale >= 0.25 else serve_load.measure(clients=5, requests=4, rounds=1)
    results["pytest"] = pytest_scale(pytest_files, rounds=n_of(3, scale))
    results["targets"] = verdicts(results)
    return results


# -- a, b, c: one request ------------------------------------------------------------


def per_request(tmp: Path, scale: float) -> dict[str, Any]:
    """a, b and c side by side, interleaved; microseconds per request."""
    body = workload.reply_body(1)
    floor = workload.floor_client(itertools.repeat(body))
    harness = _endless_harness_client()
    one = tmp / "one.yaml"
    workload.record_cassette(one, 1)
    offline = workload.offline_client()

    def vcr_enter_and_replay() -> None:  # what one test does: load the cassette, one request
        with vcr.use_cassette(str(one), record_mode="none"):
            workload.call(offline)

    floor_again, required = workload.floor_client(itertools.repeat(body)), workload.required_work_client()
    contenders = {
        "a_sdk_floor": lambda: workload.call(floor),
        "a_again": lambda: workload.call(floor_again),  # a twin of a: its ratio is the bench's noise
        "b_harness_oracle": harness,
        "b_required_work": lambda: workload.call(required),  # parse, check, render: b's own floor
        "c_vcr_1": lambda: workload.call(offline),
        "c_vcr_1_with_load": vcr_enter_and_replay,
    }
    around = {"c_vcr_1": lambda: vcr.use_cassette(str(one), record_mode="none", allow_playback_repeats=True)}
    samples = interleaved(contenders, rounds=n_of(40, scale), batch=n_of(10, scale), around=around)
    a = samples["a_sdk_floor"]
    return {
        "reply_bytes": len(body),
        "request_bytes": len(json.dumps(workload.REQUEST)),
        "us": {name: s.summary() for name, s in samples.items()},
        "ratios": {name + "/a": ratio(s, a) for name, s in samples.items() if s is not a},
        "harness_own_us": _harness_own_cost(scale),
    }


def _harness_own_cost(scale: float) -> dict[str, float]:
    """What the harness itself does per request of b, timed alone (µs, CPU, median of
    rounds): ``ScenarioTransport.handle_request`` on the captured request — parse and
    record it, check it with the oracle, render the reply as SSE frames, build the
    response — without the SDK around it."""
    captured: list[httpx2.Request] = []

    def capture(request: httpx2.Request) -> httpx2.Response:
        captured.append(request)
        return httpx2.Response(200, headers=workload.SSE_HEADERS, content=workload.reply_body(1))

    workload.call(workload.transport_client(httpx2.MockTransport(capture)))
    request = captured[0]
    reply = Reply(message=workload.REPLY_SPEC)
    batch = 50

    def respond_batch() -> None:
        transport = ScenarioTransport(Responder([reply] * batch, check_requests=True))
        for _ in range(batch):
            transport.handle_request(request)

    samples = interleaved({"respond": respond_batch}, rounds=n_of(20, scale), batch=1)["respond"]
    return {"cpu_median_us": round(statistics.median(samples.cpu) / batch * 1e6, 1),
            "cpu_min_us": round(min(samples.cpu) / batch * 1e6, 1)}


def _endless_harness_client() -> Any:
    """b as a callable: ScenarioTransport with the oracle on, serving the reply again and
    again; its record of requests is cleared every 50 requests (a long run would
    otherwise grow the heap that every garbage collection walks)."""
    reply = Reply(message=workload.REPLY_SPEC)
    responder = Responder([], check_requests=True)
    client = sync_client(ScenarioTransport(responder), api_key=workload.API_KEY)
    refill = [reply] * 50

    def one() -> None:
        if not responder.unused:
            responder.requests.clear()
            responder.queue(refill, "bench")
        workload.call(client)

    return one


# -- the oracle ----------------------------------------------------------------------


def oracle_linearity(scale: float) -> dict[str, Any]:
    """check_history on 10, 100 and 1,000 messages of a tool-using conversation,
    interleaved, each batch checking ~2,000 messages."""
    sizes = (10, 100, 1000)
    histories = {size: workload.history(size) for size in sizes}
    for size, history in histories.items():
        assert len(history) == size and not check_history(history), "the bench history must be valid"
    contenders = {str(size): (lambda h=history: check_history(h)) for size, history in histories.items()}
    samples = interleaved(contenders, rounds=n_of(15, scale), batch={str(size): 2000 // size for size in sizes})
    out: dict[str, Any] = {}
    for size in sizes:
        us = samples[str(size)].summary()["cpu_median_us"]
        out[str(size)] = {"us_per_call": us, "us_per_message": round(us / size, 3)}
    out["growth_1000_over_10"] = round(out["1000"]["us_per_message"] / out["10"]["us_per_message"], 3)
    return out


# -- scenarios -----------------------------------------------------------------------


def ten_retries_scenario() -> Scenario:
    """Ten 529s, each with ``retry-after: 30`` (the cap), then the answer: 300 s virtual."""
    overloaded = Reply(error="overloaded", headers={"retry-after": "30"})
    turn = Turn(
        "Summarize the README",
        replies=(overloaded,) * 10 + (Reply(message={"text": "It is a demo."}),),
        expect={"requests": 11, "sleeps": [30.0] * 10, "end": "end_turn"},
    )
    return Scenario(
        name="ten-retries-at-the-cap",
        about="Ten retries of 30 s each: 300 s of virtual time in a few milliseconds.",
        path=ROOT / "bench" / "ten_retries.yaml",
        turns=(turn,),
        settings={"max_retries": 10, "retry_budget": 400},
        workspace={"README.md": "# Demo\n"},
    )


def ten_retries(scale: float) -> dict[str, Any]:
    scenario = ten_retries_scenario()
    outcome = run_scenario(scenario)
    samples = repeat(lambda: run_scenario(scenario), times=n_of(20, scale))
    return {
        "passed": outcome.passed,
        "problems": [str(p) for p in outcome.problems],
        "requests": len(outcome.requests),
        "virtual_seconds": sum(s for _, _, s in outcome.sleeps),
        "ms": ms(samples),
    }


# -- report --------------------------------------------------------------------------


def verdicts(results: dict[str, Any]) -> dict[str, Any]:
    """Each target with the measured figure (CPU time where the machine is shared)."""
    pr = results["per_request"]["ratios"]
    longest = results["sessions"][max(results["sessions"], key=int)]
    measured = {
        "b_over_its_floor": round(pr["b_harness_oracle/a"]["cpu_median"] - pr["b_required_work/a"]["cpu_median"], 3),
        "session_400_over_floor": longest["ratios_to_session_floor"]["harness_body"]["cpu_median"],
        "oracle_per_message_growth": results["oracle"]["growth_1000_over_10"],
        "long_session_over_last": results["long_session"]["incremental_over_last"],
        "cli_start_over_allowance": results["cli_start"]["slowest_over_allowance"],
        "ten_retries_wall_ms": results["ten_retries"]["ms"]["wall_median"],
        "library_wall_s": results["library"]["two_workers"]["s"]["wall_min"],
        "property_examples_per_s": results["property"]["examples_per_s_wall"],
        "big_stream_over_floor": results["big_stream"]["harness_over_floor"]["cpu_median"],
        "big_stream_growth_per_mb": results["big_stream"]["growth_per_mb_full_over_quarter"],
        "big_cassette_over_floor": results["big_cassette"]["harness_over_floor"]["cpu_median"],
        "big_cassette_memory_over_file": results["big_cassette"]["memory_over_file"],
        "serve_over_bare": results["serve"]["harness_over_bare"],
        "wire_checks_on_over_off": results["wire_checks"]["on_over_off"],
        "pytest_two_workers_speedup": results["pytest"]["speedup"],
        "state_machine_over_generation": results["state_machine"]["over_generation_floor"],
        "state_machine_harness_share": round(results["state_machine"]["shares"]["harness"]
                                             + results["state_machine"]["shares"]["checking"], 3),
    }
    at_least = {"property_examples_per_s", "serve_over_bare", "pytest_two_workers_speedup"}
    return {
        name: {
            "target": ("≥ " if name in at_least else "≤ ") + str(TARGETS[name]),
            "measured": value,
            "met": (value >= TARGETS[name] if name in at_least else value <= TARGETS[name])
            and (name != "pytest_two_workers_speedup" or results["pytest"]["identical_results"])
            and (name != "library_wall_s" or results["library"]["two_workers"]["identical_results"])
            and (name != "long_session_over_last" or results["long_session"]["identical_verdicts"]),
            **({"bound": results["pytest"]["speedup_bound"]} if name == "pytest_two_workers_speedup" else {}),
            **({"floor": results["state_machine"]["shares"]["checking"]} if name == "state_machine_harness_share" else {}),
            **({"ceiling": round(1000 / (results["property"]["sdk_alone_ms_per_example"]
                                          + results["property"]["generate_only_ms_per_example"]), 1)}
               if name == "property_examples_per_s" else {}),
            **({"b_over_a": pr["b_harness_oracle/a"]["cpu_median"], "noise": round(abs(1 - pr["a_again/a"]["cpu_median"]), 3)}
               if name == "b_over_its_floor" else {}),
        }
        for name, value in measured.items()
    }


def _machine() -> dict[str, Any]:
    return {
        "python": platform.python_version(),
        "anthropic": anthropic.__version__,
        "cpus": os.cpu_count(),
        "load": [round(x, 2) for x in os.getloadavg()],
    }


if __name__ == "__main__":
    sys.exit(main())

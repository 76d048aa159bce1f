"""``python -m bench``: every benchmark in one run, side by side, printed and written to
``bench/results/latest.json``.

    a  the SDK's floor: the typical streamed tool_use reply through a bare MockTransport
    b  the same reply through ScenarioTransport, the API-validity oracle on
    c  vcrpy replaying it from a one-interaction cassette; sessions of 100 and 400
       interactions replayed by vcrpy and by the harness's CassetteTransport
    d  one whole scenario (run_scenario on scenarios/http/overloaded_then_success.yaml)
    e  the whole scenario library, in process, one file after another
    f  hypothesis examples per second for the main history property
    and: the oracle's cost per message at 10, 100 and 1,000 messages; a scenario with
    ten retries at the 30 s cap (300 s of virtual time); a 40 MB single-stream
    interaction replayed by CassetteTransport against the SDK's floor on the same bytes
    (``big_stream``), and its growth per megabyte from 10 to 40 MB.

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

from harness.cassette.index import CassetteTransport
from harness.cassette.recorder import make_vcr
from harness.oracle import check_history
from harness.scenario.clients import sync_client
from harness.scenario.library import scenario_files
from harness.scenario.loader import load_scenario
from harness.scenario.model import Scenario, ScenarioError, Turn
from harness.scenario.responder import Responder
from harness.scenario.runner import run_scenario
from harness.scenario.transport import ScenarioTransport
from harness.wire.replies import Reply

from . import big_stream, serve_load, workload
from .timing import Samples, interleaved, ratio, repeat

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).resolve().parent / "results" / "latest.json"
ONE_SCENARIO = ROOT / "scenarios" / "http" / "overloaded_then_success.yaml"
BIG_STREAM_MB = 40
TARGETS = {
    "b_over_a": 1.05,
    "session_400_over_floor": 1.2,  # CassetteTransport (body matching) over the same 400 requests through MockTransport
    "oracle_per_message_growth": 1.5,  # cost per message at 1,000 over cost at 10
    "ten_retries_wall_ms": 50.0,
    "library_wall_s": 3.0,
    "property_examples_per_s": 100.0,
    "big_stream_over_floor": 1.5,  # a 40 MB interaction replayed, over the SDK reading the same bytes
    "big_stream_growth_per_mb": 1.5,  # cost per MB at 40 MB over cost per MB at 10 MB: linear is 1
    "serve_over_bare": 0.8,  # harness serve's requests/s under 50 keep-alive clients, over a bare http.server
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
    tmp: Path, scale: float, *, vcr_400: bool = True, session_counts: tuple[int, int] = (100, 400)
) -> dict[str, Any]:
    """Every benchmark (``scale``: the fraction of the rounds; 1 is a measurement), with
    each target's verdict; ``tmp`` holds the cassettes it records."""
    results: dict[str, Any] = {"machine": _machine(), "quick": scale < 1}
    results["per_request"] = per_request(tmp, scale)
    results["sessions"] = sessions(tmp, scale, vcr_400=vcr_400, counts=session_counts)
    results["oracle"] = oracle_linearity(scale)
    results["ten_retries"] = ten_retries(scale)
    results["one_scenario"] = one_scenario(scale)
    results["library"] = library(scale)
    results["property"] = property_speed(scale, tmp)
    results["big_stream"] = big_stream.measure(BIG_STREAM_MB if scale >= 0.25 else 2, rounds=_n(5, scale))
    results["serve"] = serve_load.measure() if scale >= 0.25 else serve_load.measure(clients=5, requests=4, rounds=1)
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

    floor_again = workload.floor_client(itertools.repeat(body))
    contenders = {
        "a_sdk_floor": lambda: workload.call(floor),
        "a_again": lambda: workload.call(floor_again),  # a twin of a: its ratio is the bench's noise
        "b_harness_oracle": harness,
        "c_vcr_1": lambda: workload.call(offline),
        "c_vcr_1_with_load": vcr_enter_and_replay,
    }
    around = {"c_vcr_1": lambda: vcr.use_cassette(str(one), record_mode="none", allow_playback_repeats=True)}
    samples = interleaved(contenders, rounds=_n(40, scale), batch=_n(10, scale), around=around)
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

    samples = interleaved({"respond": respond_batch}, rounds=_n(20, scale), batch=1)["respond"]
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
        rounds = _n(9, scale)
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


# -- the oracle ----------------------------------------------------------------------


def oracle_linearity(scale: float) -> dict[str, Any]:
    """check_history on 10, 100 and 1,000 messages of a tool-using conversation,
    interleaved, each batch checking ~2,000 messages."""
    sizes = (10, 100, 1000)
    histories = {size: workload.history(size) for size in sizes}
    for size, history in histories.items():
        assert len(history) == size and not check_history(history), "the bench history must be valid"
    contenders = {str(size): (lambda h=history: check_history(h)) for size, history in histories.items()}
    samples = interleaved(contenders, rounds=_n(15, scale), batch={str(size): 2000 // size for size in sizes})
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
    samples = repeat(lambda: run_scenario(scenario), times=_n(20, scale))
    return {
        "passed": outcome.passed,
        "problems": outcome.problems,
        "requests": len(outcome.requests),
        "virtual_seconds": sum(s for _, _, s in outcome.sleeps),
        "ms": _ms(samples),
    }


def one_scenario(scale: float) -> dict[str, Any]:
    scenario = load_scenario(ONE_SCENARIO)
    outcome = run_scenario(scenario)
    run = repeat(lambda: run_scenario(scenario), times=_n(20, scale))
    load_and_run = repeat(lambda: run_scenario(load_scenario(ONE_SCENARIO)), times=_n(20, scale))
    return {
        "file": str(ONE_SCENARIO.relative_to(ROOT)),
        "passed": outcome.passed,
        "requests": len(outcome.requests),
        "run_ms": _ms(run),
        "load_and_run_ms": _ms(load_and_run),
    }


def library(scale: float) -> dict[str, Any]:
    """Every file under scenarios/, loaded and run in this process, one after another."""
    files = scenario_files([ROOT / "scenarios"])
    outcomes: dict[str, Any] = {}

    def run_all() -> None:
        for path in files:
            try:
                outcomes[str(path.relative_to(ROOT))] = run_scenario(load_scenario(path)).passed
            except ScenarioError:
                outcomes[str(path.relative_to(ROOT))] = "invalid"

    samples = repeat(run_all, times=_n(3, scale))
    slowest = []
    for path in files:  # one more pass, timed per file (no collection before each), to name the slow ones
        cpu, wall = time.process_time(), time.perf_counter()
        _run_file(path)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        slowest.append((round(wall * 1000, 1), round(cpu * 1000, 1), str(path.relative_to(ROOT))))
    slowest.sort(reverse=True)
    return {
        "files": len(files),
        "passed": sum(v is True for v in outcomes.values()),
        "not_passed": sorted(k for k, v in outcomes.items() if v is not True),
        "s": {k: round(v / 1000, 3) for k, v in _ms(samples).items()},
        "slowest_ms_wall_cpu": slowest[:5],
    }


def _run_file(path: Path) -> None:
    try:
        run_scenario(load_scenario(path))
    except ScenarioError:
        pass


def property_speed(scale: float, tmp: Path) -> dict[str, Any]:
    """Examples per second of the main history property, as tests/properties runs it:
    ``harness.strategies.scenarios(interrupts=False)``, each run by
    ``harness.scenario.found.run_and_record`` with the history checks (every request API-valid,
    every tool_use answered once, no partial message in the history). Generation is
    timed too: it is part of what a property costs. A failing example is counted, not
    shrunk, and saved under a temporary folder. Two floors beside it: hypothesis alone
    (the same examples, a test that does nothing) and the SDK alone (the requests the
    runs made, answered with the same responses by a bare transport)."""
    from hypothesis import HealthCheck, Phase, given, settings

    from harness import strategies
    from harness.scenario.found import Counterexample, run_and_record

    try:
        from tests.properties.history_checks import HISTORY_CHECKS
    except ImportError:  # an installed copy without the test suite
        HISTORY_CHECKS = ()
    count = _n(200, scale)
    failures: list[str] = []
    run_cpu = [0.0]
    runs: list[list[tuple[dict[str, Any], list[str], Any]]] = []

    same_settings = settings(
        max_examples=count,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.generate],
    )

    @same_settings
    @given(strategies.scenarios(interrupts=False))
    def generate_only(scenario: Scenario) -> None:
        pass

    @same_settings
    @given(strategies.scenarios(interrupts=False))
    def history_stays_valid(scenario: Scenario) -> None:
        started = time.process_time()
        try:
            outcome = run_and_record(scenario, checks=HISTORY_CHECKS, folder=tmp / "found")
            runs.append([(r.body, r.betas, r.plan) for r in outcome.requests if isinstance(r.body, dict) and r.plan])
        except Counterexample as error:
            failures.append(str(error).splitlines()[-1])
        run_cpu[0] += time.process_time() - started

    generate_cpu = time.process_time()
    generate_only()
    generate_cpu = time.process_time() - generate_cpu
    cpu, wall = time.process_time(), time.perf_counter()
    history_stays_valid()
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    sdk_cpu = time.process_time()
    workload.replay_exchanges(runs)
    sdk_cpu = time.process_time() - sdk_cpu
    passed = max(1, count - len(failures))
    return {
        "property": "tests/properties/test_fault_schedules.py::test_any_fault_schedule_ends_the_turn_with_a_valid_history",
        "strategy": "harness.strategies.scenarios(interrupts=False)",
        "checks": [check.__name__ for check in HISTORY_CHECKS],
        "examples": count,
        "examples_per_s_wall": round(count / wall, 1),
        "examples_per_s_cpu": round(count / cpu, 1),
        "ms_per_example_cpu": {"all": round(cpu / count * 1000, 2), "run": round(run_cpu[0] / count * 1000, 2),
                               "generate": round((cpu - run_cpu[0]) / count * 1000, 2)},
        "generate_only_ms_per_example": round(generate_cpu / count * 1000, 2),
        "requests_per_example": round(sum(map(len, runs)) / passed, 2),
        "sdk_alone_ms_per_example": round(sdk_cpu / passed * 1000, 2),
        "examples_with_problems": len(failures),
        "first_problem": failures[0] if failures else None,
    }


# -- report --------------------------------------------------------------------------


def verdicts(results: dict[str, Any]) -> dict[str, Any]:
    """Each target with the measured figure (CPU time where the machine is shared)."""
    pr = results["per_request"]["ratios"]
    longest = results["sessions"][max(results["sessions"], key=int)]
    measured = {
        "b_over_a": pr["b_harness_oracle/a"]["cpu_median"],
        "session_400_over_floor": longest["ratios_to_session_floor"]["harness_body"]["cpu_median"],
        "oracle_per_message_growth": results["oracle"]["growth_1000_over_10"],
        "ten_retries_wall_ms": results["ten_retries"]["ms"]["wall_median"],
        "library_wall_s": results["library"]["s"]["wall_min"],
        "property_examples_per_s": results["property"]["examples_per_s_wall"],
        "big_stream_over_floor": results["big_stream"]["harness_over_floor"]["cpu_median"],
        "big_stream_growth_per_mb": results["big_stream"]["growth_per_mb_full_over_quarter"],
        "serve_over_bare": results["serve"]["harness_over_bare"],
    }
    at_least = {"property_examples_per_s", "serve_over_bare"}
    return {
        name: {
            "target": ("≥ " if name in at_least else "≤ ") + str(TARGETS[name]),
            "measured": value,
            "met": value >= TARGETS[name] if name in at_least else value <= TARGETS[name],
        }
        for name, value in measured.items()
    }


def report(results: dict[str, Any]) -> None:
    m = results["machine"]
    print(f"bench: Python {m['python']}, anthropic {m['anthropic']}, {m['cpus']} CPUs, load {m['load']}")
    print("times are per request; cpu = this process's CPU time (median of rounds), wall in brackets\n")
    pr = results["per_request"]
    print(f"one request  (reply {pr['reply_bytes']} B of SSE, request {pr['request_bytes']} B of JSON)")
    for name, s in pr["us"].items():
        r = pr["ratios"].get(name + "/a")
        tail = f"   {r['cpu_median']:.3f}× a" if r else ""
        print(f"  {name:22s} {s['cpu_median_us']:8.0f} µs  [{s['wall_median_us']:8.0f} µs wall]{tail}")
    print(f"  b/a = {pr['ratios']['b_harness_oracle/a']['cpu_median']:.3f}   c/a = {pr['ratios']['c_vcr_1/a']['cpu_median']:.3f}"
          f"   (a twin of a: {pr['ratios']['a_again/a']['cpu_median']:.3f}, the noise)")
    a_cpu = pr["us"]["a_sdk_floor"]["cpu_median_us"]
    own = pr["harness_own_us"]["cpu_median_us"]
    print(f"  the harness's own work per request, timed alone: {own:.0f} µs = {own / a_cpu:.1%} of a")
    for count, s in results["sessions"].items():
        print(f"\nsession of {count} interactions (cassette {s['cassette_bytes'] / 1e6:.1f} MB, load included)")
        for name, t in s["us_per_request"].items():
            r = s["ratios_to_session_floor"].get(name)
            tail = f"   {t['cpu_median_us'] / a_cpu:.2f}× a" + (f"   {r['cpu_median']:.2f}× session floor" if r else "")
            print(f"  {name:22s} {t['cpu_median_us']:8.0f} µs  [{t['wall_median_us']:8.0f} µs wall]{tail}")
    o = results["oracle"]
    print("\noracle (check_history): " + ", ".join(
        f"{n} messages {o[n]['us_per_call']:.0f} µs = {o[n]['us_per_message']:.2f} µs/message" for n in ("10", "100", "1000")
    ) + f"; growth per message 1,000 vs 10: {o['growth_1000_over_10']:.2f}×")
    t = results["ten_retries"]
    print(f"\nten retries at the cap: {t['requests']} requests, {t['virtual_seconds']:.0f} s virtual, "
          f"{t['ms']['wall_median']:.1f} ms wall (min {t['ms']['wall_min']:.1f}), {t['ms']['cpu_median']:.1f} ms CPU, "
          f"{'passed' if t['passed'] else 'FAILED: ' + '; '.join(t['problems'])}")
    d = results["one_scenario"]
    print(f"one scenario ({d['file']}, {d['requests']} requests): run {d['run_ms']['wall_median']:.1f} ms wall "
          f"({d['run_ms']['cpu_median']:.1f} ms CPU); load+run {d['load_and_run_ms']['wall_median']:.1f} ms wall")
    lib = results["library"]
    print(f"library: {lib['files']} files, {lib['passed']} passed, {lib['s']['wall_min']:.2f} s wall (min of runs), "
          f"{lib['s']['cpu_min']:.2f} s CPU; slowest: "
          + ", ".join(f"{name} {wall:.0f} ms" for wall, _, name in lib["slowest_ms_wall_cpu"][:3]))
    if lib["not_passed"]:
        print(f"  not passing: {', '.join(lib['not_passed'])}")
    p = results["property"]
    t = p["ms_per_example_cpu"]
    print(f"property ({p['strategy']} through run_and_record, {p['examples']} examples): "
          f"{p['examples_per_s_wall']:.0f} examples/s wall, {p['examples_per_s_cpu']:.0f}/s CPU "
          f"({t['generate']:.1f} ms generating + {t['run']:.1f} ms running each); "
          f"{p['examples_with_problems']} with problems")
    sdk, generate = p["sdk_alone_ms_per_example"], p["generate_only_ms_per_example"]
    print(f"  {p['requests_per_example']:.2f} requests an example; the SDK alone, sending them and reading the same "
          f"answers through a bare transport, needs {sdk:.1f} ms an example, hypothesis alone {generate:.1f} ms to "
          f"generate one (a run that does nothing): {sdk + generate:.1f} ms, a ceiling of "
          f"{1000 / (sdk + generate):.0f} examples/s with the agent and the harness free")
    b = results["big_stream"]
    full, quarter = f"{b['megabytes']:g}mb", f"{b['megabytes'] / 4:g}mb"
    print(f"big stream ({b['megabytes']:g} MB of text in blocks of {b['block_bytes'] // 1000} kB, one streamed message, replayed in 64 KiB "
          f"reads): harness {b['ms'][f'harness_{full}']:.0f} ms CPU, the SDK's floor {b['ms'][f'floor_{full}']:.0f} ms: "
          f"{b['harness_over_floor']['cpu_median']:.2f}× the floor; per MB at {full[:-2]} MB over {quarter[:-2]} MB: "
          f"{b['growth_per_mb_full_over_quarter']:.2f}× (the floor's own: {b['floor_growth_per_mb_full_over_quarter']:.2f}×)")
    v = results["serve"]
    print(f"serve: {v['clients']} keep-alive clients × {v['requests_each']} streamed requests: harness serve "
          f"{v['harness_rps']:.0f} requests/s, a bare http.server with the same bytes {v['bare_rps']:.0f}/s: "
          f"{v['harness_over_bare']:.2f}×")
    print("\ntargets")
    for name, v in results["targets"].items():
        print(f"  {'met ' if v['met'] else 'MISS'}  {name:28s} {v['target']:>8s}   measured {v['measured']}")
    print(f"\n(bench took {results['bench_seconds']:.0f} s)")


def _machine() -> dict[str, Any]:
    return {
        "python": platform.python_version(),
        "anthropic": anthropic.__version__,
        "cpus": os.cpu_count(),
        "load": [round(x, 2) for x in os.getloadavg()],
    }


def _ms(samples: Samples) -> dict[str, float]:
    return {
        "wall_median": round(statistics.median(samples.wall) * 1000, 2),
        "wall_min": round(min(samples.wall) * 1000, 2),
        "cpu_median": round(statistics.median(samples.cpu) * 1000, 2),
        "cpu_min": round(min(samples.cpu) * 1000, 2),
    }


def _n(count: int, scale: float) -> int:
    return max(1, round(count * scale))


if __name__ == "__main__":
    sys.exit(main())

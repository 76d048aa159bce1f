"""``python -m bench.profile``: where the harness's own per-request work goes.

The probe is the bench's ``_harness_own_cost``: ``ScenarioTransport.handle_request`` on
the bench's captured request, with the oracle on, rendering the bench's streamed
tool_use reply, without the SDK around it. Run under ``cProfile`` and printed by own
time (``--sort cumulative`` for the call tree's view). A sampling profiler gives the
same picture with less distortion: ``py-spy record -o profile.svg -- python -m
bench.profile --rounds 400`` (py-spy is not a dependency of the project).

``--machine``: the session state machine instead (``bench.properties``' settings), its
time shared out between the SDK, hypothesis, the agent and the harness (``bench.shares``),
then the harness's own functions, by own time.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time

import httpx2

from bench import shares, workload
from harness.scenario.fake_api.responder import Responder
from harness.scenario.fake_api.transport import ScenarioTransport
from harness.wire.replies import Reply

BATCH = 50


def captured_request() -> httpx2.Request:
    """The request the SDK sends for the bench's call."""
    captured: list[httpx2.Request] = []

    def capture(request: httpx2.Request) -> httpx2.Response:
        captured.append(request)
        return httpx2.Response(200, headers=workload.SSE_HEADERS, content=workload.reply_body(1))

    workload.call(workload.transport_client(httpx2.MockTransport(capture)))
    return captured[0]


def probe(request: httpx2.Request, rounds: int) -> None:
    """``rounds`` × ``BATCH`` requests through a fresh transport per batch."""
    reply = Reply(message=workload.REPLY_SPEC)
    for _ in range(rounds):
        transport = ScenarioTransport(Responder([reply] * BATCH, check_requests=True))
        for _ in range(BATCH):
            transport.handle_request(request)


def machine(top: int) -> None:
    """Profile the session state machine: each owner's share, the harness's top functions."""
    from hypothesis import HealthCheck, Phase, settings
    from hypothesis.stateful import run_state_machine_as_test

    from harness.library.properties.test_session_machine import AgentSession

    from .properties import STEPS

    same = settings(max_examples=50, stateful_step_count=STEPS, deadline=None, database=None, derandomize=True,
                    suppress_health_check=list(HealthCheck), phases=[Phase.generate])
    run_state_machine_as_test(AgentSession, settings=same)  # warm: imports, caches
    profiler = cProfile.Profile()
    profiler.runcall(run_state_machine_as_test, AgentSession, settings=same)
    owners = shares.shares(profiler)
    total = sum(owners.values())
    print("the session state machine, 50 sessions: " + ", ".join(f"{name} {seconds / total:.1%}" for name, seconds in owners.items()))
    rows = sorted(((row[2], func) for func, row in pstats.Stats(profiler).stats.items()  # type: ignore[attr-defined]
                   if shares.owner_of_file(func[0]) in ("harness", "checking")), reverse=True)
    for own, (filename, line, name) in rows[:top]:
        print(f"  {own * 1e3:8.1f} ms  {filename.rsplit('/harness/', 1)[-1]}:{line} {name}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.profile", description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40, help=f"batches of {BATCH} requests (default: %(default)s)")
    parser.add_argument("--sort", default="tottime", choices=("tottime", "cumulative"), help="pstats order")
    parser.add_argument("--top", type=int, default=25, help="functions shown (default: %(default)s)")
    parser.add_argument("--machine", action="store_true", help="the session state machine, its time by owner")
    args = parser.parse_args(argv)
    if args.machine:
        machine(args.top)
        return 0
    request = captured_request()
    probe(request, 2)  # warm: imports, caches
    started = time.process_time()
    probe(request, args.rounds)
    plain = (time.process_time() - started) / (args.rounds * BATCH) * 1e6
    profiler = cProfile.Profile()
    profiler.runcall(probe, request, args.rounds)
    print(f"the harness's own work: {plain:.0f} µs CPU a request without the profiler")
    pstats.Stats(profiler).sort_stats(args.sort).print_stats(args.top)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

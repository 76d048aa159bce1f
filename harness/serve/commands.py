"""``harness serve``: a scenario on a loopback socket until Ctrl+C, then (``--check``) the
report of every request and the wire-level checks of what the clients sent."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from typing import Callable

from harness.scenario.checks.policies import policy_options
from harness.scenario.fake_api.tool_map import ToolMap, ToolMapError
from harness.scenario.format.limits import load_limits
from harness.scenario.format.loader import load_scenario
from harness.scenario.format.side_requests import load_side_rules
from harness.scenario.format.tool_map_file import load_tool_map
from harness.serve.report import build_server, check_served
from harness.serve.server import FaultServer, ServerError


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve until Ctrl+C; with ``--check`` print the report and exit 1 on any problem.
    ``args.scrub`` (set by ``harness.cli``) is what the JSON log may keep."""
    scenario = load_scenario(args.scenario)
    policies = policy_options(getattr(args, "policy", None) or [])
    rate_limits = load_limits(args.limits) if getattr(args, "limits", None) else None
    tool_map = load_tool_map(args.tool_map) if getattr(args, "tool_map", None) else None
    side_rules = load_side_rules(args.side_requests) if getattr(args, "side_requests", None) else ()
    try:
        ToolMap(tool_map)
    except ToolMapError as error:
        print(f"harness: {args.tool_map}: {error}", file=sys.stderr)
        return 2
    log = lambda line: print(line, flush=True)  # noqa: E731
    server = build_server(
        scenario, host=args.host, port=args.port, time_scale=args.time_scale,
        log=log, log_path=args.log, scrub=getattr(args, "scrub", None), rate_limits=rate_limits, tool_map=tool_map,
        side_rules=side_rules, policies=policies,
    )
    try:
        server.start()
    except ServerError as error:
        print(f"harness: {error}", file=sys.stderr)
        return 2
    serve_forever(server, ready=lambda: print(
        f"serving {scenario.name} on {server.url} · ANTHROPIC_BASE_URL={server.url} · Ctrl+C to stop", flush=True))
    if not args.check:
        return 0
    report = check_served(scenario, server, policies)
    print("\n".join(["", *report.lines]))
    for problem in report.problems:
        print(f"✗ {problem}")
    for note in report.notes:
        print(f"⚠ {note}")
    verdict = "all checks hold" if not report.problems else f"{len(report.problems)} problem(s)"
    served = sum(len(responder.requests) for responder in server.responders().values())
    print(f"{served} request(s) to /v1/messages; {verdict}; {len(report.notes)} note(s)")
    return 1 if report.problems else 0


def serve_forever(server: FaultServer, ready: Callable[[], object] | None = None) -> None:
    """Serve until SIGINT or SIGTERM, then close cleanly; ``ready`` is called once both
    are heard (a signal sent after it is never lost). Call it from the main thread."""
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        server.start()
        if ready is not None:
            ready()
        while not stop.wait(0.5):
            pass
        server.close()  # a second Ctrl+C during the close changes nothing: the handlers are still ours
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        server.close()

"""``harness`` (also ``python -m harness``): run, lint, play and export scenarios, and
check saved conversations.

    harness run [PATHS…] [--json] [--update-golden]   run scenarios, a summary table; exit 1 on any failure
    harness lint [PATHS…]                             check scenario files without running them
    harness play SCENARIO                             the mini_agent REPL under a scenario, live
    harness schema [-o FILE]                          the JSON Schema of the scenario format
    harness serve SCENARIO [--port N] [--check]        the scenario on a loopback socket, for any client
    harness check-history FILE                        check a saved conversation against the API's rules
    harness record / replay / scan                    cassettes: see harness.cassette.commands
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable

from harness.cassette.commands import add_commands as add_cassette_commands
from harness.scenario.golden import UPDATE_VARIABLE
from harness.oracle.history_file import HistoryFileError, check_history_file
from harness.scenario.library import scenario_files
from harness.scenario.runner import Outcome, run_scenario
from harness.scenario.loader import ScenarioError, json_schema, load_scenario
from harness.scenario.timeline import format_timeline

DEFAULT_PATHS = ["scenarios"]


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return args.command(args)
    except (FileNotFoundError, ScenarioError, HistoryFileError) as error:
        print(f"harness: {error}", file=sys.stderr)
        return 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="harness", description="Fault scenarios for Anthropic-API agents.")
    commands = parser.add_subparsers(required=True, metavar="COMMAND")
    run = commands.add_parser("run", help="run scenarios and print a summary table")
    run.add_argument("paths", nargs="*", default=DEFAULT_PATHS, help="scenario files or folders (default: scenarios/)")
    run.add_argument("--json", action="store_true", help="print the results as JSON")
    run.add_argument("--update-golden", action="store_true", help="write golden transcripts anew")
    run.set_defaults(command=cmd_run)
    lint = commands.add_parser("lint", help="check scenario files without running them")
    lint.add_argument("paths", nargs="*", default=DEFAULT_PATHS)
    lint.set_defaults(command=cmd_lint)
    play = commands.add_parser("play", help="play a scenario through the mini_agent REPL")
    play.add_argument("scenario")
    play.set_defaults(command=cmd_play)
    schema = commands.add_parser("schema", help="write the JSON Schema of the scenario format")
    schema.add_argument("-o", "--output", help="a file to write (default: standard output)")
    schema.set_defaults(command=cmd_schema)
    serve = commands.add_parser("serve", help="serve a scenario on a loopback socket, for any client")
    serve.add_argument("scenario")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default: %(default)s)")
    serve.add_argument("--port", type=int, default=8123, help="port (default: %(default)s; 0 picks a free one)")
    serve.add_argument("--time-scale", type=float, default=1.0, help="multiply real delays (drip, stall) by this")
    serve.add_argument("--sessions", action="store_true", help="one reply queue per client session")
    serve.add_argument("--log", metavar="FILE", help="also write the request log as JSON Lines")
    serve.add_argument("--check", action="store_true", help="check the wire-level expectations at exit")
    serve.set_defaults(command=cmd_serve)
    history = commands.add_parser("check-history", help="check a saved conversation against the API's rules")
    history.add_argument("file")
    history.set_defaults(command=cmd_check_history)
    add_cassette_commands(commands)
    return parser


def cmd_run(args: argparse.Namespace) -> int:
    if args.update_golden:
        os.environ[UPDATE_VARIABLE] = "1"
    results: list[dict[str, Any]] = []
    failures: list[str] = []
    for path in scenario_files(args.paths):
        started = time.perf_counter()
        try:
            outcome: Outcome | None = run_scenario(load_scenario(path))
            problems = outcome.problems
        except ScenarioError as error:
            outcome, problems = None, error.problems
        elapsed = time.perf_counter() - started
        results.append(_result(path, outcome, problems, elapsed))
        if problems:
            failures.append(format_timeline(outcome) if outcome else "\n".join(problems))
    if args.json:
        print(json.dumps({"scenarios": results, "passed": not failures}, indent=2))
    else:
        _print_table(results)
        for failure in failures:
            print("\n" + failure)
    return 1 if failures or not results else 0


def cmd_lint(args: argparse.Namespace) -> int:
    problems: list[str] = []
    files = scenario_files(args.paths)
    for path in files:
        try:
            load_scenario(path)
        except ScenarioError as error:
            problems += error.problems
    for problem in problems:
        print(problem)
    print(f"{len(files)} file(s), {len(problems)} problem(s)")
    return 1 if problems else 0


def cmd_play(args: argparse.Namespace) -> int:
    outcome = run_scenario(load_scenario(args.scenario), write=_live(sys.stdout.write))
    print(f"\n{len(outcome.requests)} requests, {outcome.virtual_seconds:.1f}s of virtual time")
    for problem in outcome.problems:
        print(f"✗ {problem}")
    return 1 if outcome.problems else 0


def cmd_schema(args: argparse.Namespace) -> int:
    text = json.dumps(json_schema(), indent=2) + "\n"
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from harness.serve.report import build_server, check_served
    from harness.serve.server import ServerError, serve_forever

    scenario = load_scenario(args.scenario)
    log = _live(lambda line: sys.stdout.write(line + "\n"))
    server = build_server(
        scenario, host=args.host, port=args.port, time_scale=args.time_scale,
        sessions=args.sessions, log=log, log_path=args.log,
    )
    try:
        server.start()
    except ServerError as error:
        print(f"harness: {error}", file=sys.stderr)
        return 2
    print(f"serving {scenario.name} on {server.url} · ANTHROPIC_BASE_URL={server.url} · Ctrl+C to stop", flush=True)
    serve_forever(server)
    if not args.check:
        return 0
    problems = check_served(scenario, server)
    for problem in problems:
        print(f"✗ {problem}")
    print(f"{len(server.entries)} request(s); {'all checks hold' if not problems else f'{len(problems)} problem(s)'}")
    return 1 if problems else 0


def cmd_check_history(args: argparse.Namespace) -> int:
    violations = check_history_file(Path(args.file))
    for line in violations:
        print(line)
    print(f"{args.file}: {'valid' if not violations else f'{len(violations)} violation(s)'}")
    return 1 if violations else 0


def _result(path: Path, outcome: Outcome | None, problems: list[str], elapsed: float) -> dict[str, Any]:
    return {
        "file": str(path),
        "name": outcome.scenario.name if outcome else path.stem,
        "passed": not problems,
        "requests": len(outcome.requests) if outcome else 0,
        "virtual_seconds": round(outcome.virtual_seconds, 3) if outcome else 0,
        "wall_ms": round(elapsed * 1000, 1),
        "problems": problems,
    }


def _print_table(results: list[dict[str, Any]]) -> None:
    width = max((len(r["name"]) for r in results), default=10)
    print(f"{'scenario'.ljust(width)}  result  requests  virtual s  wall ms")
    for r in results:
        verdict = "pass" if r["passed"] else "FAIL"
        print(f"{r['name'].ljust(width)}  {verdict:6}  {r['requests']:8}  {r['virtual_seconds']:9.1f}  {r['wall_ms']:7.1f}")
    passed = sum(r["passed"] for r in results)
    print(f"{passed} passed, {len(results) - passed} failed")


def _live(write: Callable[[str], object]) -> Callable[[str], None]:
    def emit(text: str) -> None:
        write(text)
        sys.stdout.flush()

    return emit

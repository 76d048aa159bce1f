"""``harness`` (also ``python -m harness``): run, lint, play and export scenarios, and
check saved conversations.

    harness run [PATHS…] [--json] [--html F] [--junit F]   run scenarios, a summary table; exit 1 on any failure
    harness lint [PATHS…]                             check scenario files without running them
    harness play SCENARIO                             the mini_agent REPL under a scenario, live
    harness events SCENARIO [--turn N] [--reply K]   each reply's numbered events and byte offsets, as served
    harness schema [-o FILE]                          the JSON Schema of the scenario format
    harness serve SCENARIO [--port N] [--check]        the scenario on a loopback socket, for any client
    harness check-history FILE                        check a saved conversation against the API's rules
    harness record / replay / scan                    cassettes: see harness.cassette.commands
"""

from __future__ import annotations

import argparse
import sys

from harness.agents.loading import AgentSpecError
from harness.cassette.commands import cmd_record, cmd_replay, cmd_scan
from harness.cassette.recorder import MATCHING, RECORD_MODES
from harness.oracle.history_file import HistoryFileError, cmd_check_history
from harness.report.commands import cmd_run
from harness.scenario.commands import cmd_events, cmd_lint, cmd_play, cmd_schema
from harness.scenario.event_listing import ListingError
from harness.scenario.model import ScenarioError
from harness.serve.commands import cmd_serve

DEFAULT_PATHS = ["scenarios"]


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return args.command(args)
    except (FileNotFoundError, ScenarioError, HistoryFileError, AgentSpecError, ListingError) as error:
        print(f"harness: {error}", file=sys.stderr)
        return 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="harness", description="Fault scenarios for Anthropic-API agents.")
    commands = parser.add_subparsers(required=True, metavar="COMMAND")
    run = commands.add_parser("run", help="run scenarios and print a summary table")
    run.add_argument("paths", nargs="*", default=DEFAULT_PATHS, help="scenario files or folders (default: scenarios/)")
    run.add_argument("--json", action="store_true", help="print the results as JSON")
    run.add_argument("--html", metavar="FILE", help="also write a self-contained HTML report (timelines, fault coverage)")
    run.add_argument("--junit", metavar="FILE", help="also write JUnit XML, for CI systems")
    run.add_argument("--progress", action="store_true", help="a line per scenario on stderr (default: on a terminal only)")
    run.add_argument("--update-golden", action="store_true", help="write golden transcripts anew")
    run.add_argument("--agent", metavar="MODULE:FACTORY", help="the agent under test (default: mini_agent)")
    run.set_defaults(command=cmd_run)
    lint = commands.add_parser("lint", help="check scenario files without running them")
    lint.add_argument("paths", nargs="*", default=DEFAULT_PATHS)
    lint.set_defaults(command=cmd_lint)
    play = commands.add_parser("play", help="play a scenario through the mini_agent REPL")
    play.add_argument("scenario")
    play.add_argument("--agent", metavar="MODULE:FACTORY", help="the agent under test (default: mini_agent)")
    play.set_defaults(command=cmd_play)
    events = commands.add_parser(
        "events", help="each reply's numbered events and byte offsets, as served",
        description="Print every reply of a scenario as the fake API serves it: its SSE events numbered from 1 with "
        "their byte offsets, and where its fault ends the stream; choose after_event, in_event, after_bytes from it.",
    )
    events.add_argument("scenario")
    events.add_argument("--turn", type=int, metavar="N", help="only turn N (from 1)")
    events.add_argument("--reply", type=int, metavar="K", help="only reply K (from 1) of that turn")
    events.set_defaults(command=cmd_events)
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
    _cassette_parsers(commands)
    return parser


def _cassette_parsers(commands: argparse._SubParsersAction) -> None:
    """Add ``record``, ``replay`` and ``scan`` to the ``harness`` parser."""
    record = commands.add_parser(
        "record",
        help="record an agent's session (mini_agent by default) into a vcrpy cassette",
        description="Run the agent (--agent, else mini_agent) over the given lines (one turn each) against the real API "
        "(ANTHROPIC_API_KEY) or --base-url, recording every interaction with vcrpy. Headers are "
        "kept by allowlist, secrets redacted, the file scanned and written atomically.",
    )
    record.add_argument("--cassette", required=True, help="the cassette file to write")
    record.add_argument("--agent", metavar="MODULE:FACTORY", help="the agent to record (default: mini_agent)")
    record.add_argument("--base-url", help="an Anthropic-compatible server (default: ANTHROPIC_BASE_URL, else the real API)")
    record.add_argument("--model", help="the model (default: mini_agent's)")
    record.add_argument(
        "--record-mode", choices=RECORD_MODES, default="once",
        help="vcrpy's record mode; once (default) refuses an existing cassette, all records it again",
    )
    record.add_argument("--match-on", choices=tuple(MATCHING), default="body", help="how requests match recorded ones")
    record.add_argument("--cwd", default=".", help="the tools' working directory (default: here)")
    record.add_argument("lines", nargs="+", metavar="LINE", help="the user's lines, after --")
    record.set_defaults(command=cmd_record)

    replay = commands.add_parser(
        "replay",
        help="replay a cassette through an agent (mini_agent by default), offline",
        description="Drive the agent (--agent, else mini_agent) from a cassette with the network blocked and print the "
        "transcript; a request that differs from the recorded one fails with a diff.",
    )
    replay.add_argument("cassette")
    replay.add_argument("--agent", metavar="MODULE:FACTORY", help="the agent to replay it to (default: mini_agent)")
    replay.add_argument("--engine", choices=("harness", "vcr"), default="harness", help="the indexed transport, or vcrpy")
    replay.add_argument("--match-on", choices=tuple(MATCHING), default="body")
    replay.add_argument("--cwd", default=".", help="the tools' working directory (the recording's files must be there)")
    replay.add_argument("lines", nargs="*", metavar="LINE", help="the user's lines (default: read from the cassette)")
    replay.set_defaults(command=cmd_replay)

    scan = commands.add_parser("scan", help="look for API keys and tokens in files; exit 1 on any")
    scan.add_argument("paths", nargs="*", default=["cassettes"], help="files or folders (default: cassettes/)")
    scan.set_defaults(command=cmd_scan)

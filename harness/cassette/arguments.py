"""The command-line arguments of the cassette commands (``harness record``, ``replay``,
``proxy``, ``drift``, ``scan``), kept apart from the commands themselves so that
``harness --help`` loads neither vcrpy nor the SDK (``harness.cassette.commands`` carries
them out)."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from harness.cassette.modes import MATCHING, RECORD_MODES, default_record_mode
from harness.cassette.shapes import FIELDS as SHAPE_FIELDS


def add_cassette_commands(commands: argparse._SubParsersAction, run: Callable[[argparse.Namespace], int]) -> None:
    """Add ``record``, ``replay``, ``proxy``, ``drift`` and ``scan`` to the ``harness``
    parser; ``run`` carries each out (it is handed the command's name as ``cassette_command``)."""
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
        "--record-mode", choices=RECORD_MODES, default=default_record_mode(),
        help="pytest-recording's record modes: once records a new cassette and replays an existing one (the default; "
        "none in CI), rewrite records it again from scratch, new_episodes and all add to it, none only replays",
    )
    record.add_argument("--max-age", metavar="AGE", help="the cassette's maximum age, written into it: 90s, 12h, 7d, 2w …")
    record.add_argument("--match-on", choices=tuple(MATCHING), default="body", help="how requests match recorded ones")
    record.add_argument("--cwd", default=".", help="the tools' working directory (default: here)")
    record.add_argument("lines", nargs="+", metavar="LINE", help="the user's lines, after --")
    record.set_defaults(command=run, cassette_command="record")

    replay = commands.add_parser(
        "replay",
        help="replay a cassette through an agent (mini_agent by default), offline",
        description="Drive the agent (--agent, else mini_agent) from a cassette with the network blocked and print the "
        "transcript; a request that differs from the recorded one fails with a diff. A cassette is code: the "
        "tool calls it holds run, in a fresh temporary workspace unless --in-place says otherwise "
        "(harness lint --show-commands CASSETTE lists them).",
    )
    replay.add_argument("cassette")
    replay.add_argument("--agent", metavar="MODULE:FACTORY", help="the agent to replay it to (default: mini_agent)")
    replay.add_argument("--engine", choices=("harness", "vcr"), default="harness", help="the indexed transport, or vcrpy")
    replay.add_argument("--speed", type=_speed, default=1.0, metavar="X",
                        help="serve each answer at its recorded pace times X, on virtual time (default: 1; harness engine)")
    replay.add_argument("--match-on", choices=tuple(MATCHING), default="body")
    replay.add_argument(
        "--cwd", metavar="DIR",
        help="copy DIR's files into the fresh temporary workspace the tools run in (default: an empty one)",
    )
    replay.add_argument(
        "--in-place", action="store_true",
        help="run the recorded tool calls (Bash commands, writes) in --cwd DIR itself, or in this folder: explicit, on purpose",
    )
    replay.add_argument("--max-age", metavar="AGE", help="warn (fail in CI) if the cassette is older: 90s, 12h, 7d, 2w …")
    replay.add_argument("--drop-unused", action="store_true",
                        help="write the cassette again without the interactions no request got (after a replay that matched)")
    replay.add_argument("lines", nargs="*", metavar="LINE", help="the user's lines (default: read from the cassette)")
    replay.set_defaults(command=run, cassette_command="replay")

    proxy = commands.add_parser(
        "proxy",
        help="record any client's session into a cassette through a loopback proxy",
        description="Forward every request to --upstream and record each exchange with vcrpy, as harness record "
        "does: headers kept by allowlist, secrets redacted, the file scanned and written atomically when the proxy "
        "stops (Ctrl+C).",
    )
    proxy.add_argument("--upstream", required=True, help="where to forward, e.g. https://api.anthropic.com")
    proxy.add_argument("--record", required=True, metavar="CASSETTE", help="the cassette file to write")
    proxy.add_argument("--host", default="127.0.0.1", help="address to listen on (default: %(default)s)")
    proxy.add_argument("--port", type=int, default=8124, help="port (default: %(default)s; 0 picks a free one)")
    proxy.add_argument("--record-mode", choices=RECORD_MODES, default=default_record_mode(),
                       help="pytest-recording's record modes (default: once; none in CI)")
    proxy.add_argument("--match-on", choices=tuple(MATCHING), default="body", help="how requests match recorded ones")
    proxy.add_argument("--cwd", help="the client's working directory, written as <cwd> in request bodies")
    proxy.set_defaults(command=run, cassette_command="proxy")

    drift = commands.add_parser(
        "drift",
        help="ask the live API again and report where its answers' shape departs from the recorded ones",
        description="Send each recorded request again (or, with --agent, run the agent again over the cassette's user "
        "lines) to --base-url (default ANTHROPIC_BASE_URL, else the real API, with ANTHROPIC_API_KEY) and compare each "
        "answer with its recording by shape: status, error type, block types and order, stop reason, tool names and "
        "argument keys, usage magnitude, the headers an agent reads; not the wording. Exit 0: no drift, 1: drift, "
        "2: nothing could be compared.",
    )
    drift.add_argument("cassettes", nargs="+", metavar="CASSETTE")
    drift.add_argument("--base-url", help="an Anthropic-compatible server (default: ANTHROPIC_BASE_URL, else the real API)")
    drift.add_argument("--agent", metavar="MODULE:FACTORY", help="run this agent again instead of resending the requests")
    drift.add_argument("--ignore", nargs="*", default=[], choices=SHAPE_FIELDS, metavar="FIELD",
                       help=f"fields not to compare: {', '.join(SHAPE_FIELDS)}")
    drift.add_argument("--json", metavar="FILE", help="also write the report as JSON (scanned, written atomically)")
    drift.set_defaults(command=run, cassette_command="drift")

    scan = commands.add_parser("scan", help="look for secrets in files, decoded as the recorder reads them; exit 1 on any")
    scan.add_argument("paths", nargs="*", default=["cassettes"], help="files or folders (default: cassettes/)")
    scan.set_defaults(command=run, cassette_command="scan")


def _speed(text: str) -> float:
    """``--speed``: a number over 0."""
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a number over 0 (2 serves twice as fast)")
    return value

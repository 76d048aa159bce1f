"""``harness`` (also ``python -m harness``): run, lint, play and export scenarios, and
check saved conversations.

    harness run [PATHS…] [--jobs N] [--json] [--html F] [--junit F] [--update-golden]   run scenarios, a summary table; exit 1 on any failure
    harness lint [PATHS…] [--show-commands]           check scenario files without running them; list what they would run
    harness play SCENARIO                             the mini_agent REPL under a scenario, live
    harness events SCENARIO [--turn N] [--reply K]   each reply's numbered events and byte offsets, as served
    harness schema [-o FILE]                          the JSON Schema of the scenario format
    harness serve SCENARIO [--port N] [--check]        the scenario on a loopback socket, for any client
    harness check-history FILE                        check a saved conversation against the API's rules
    harness record / replay / scan / proxy            cassettes: see harness.cassette.commands
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from pathlib import Path
from typing import Any

from harness.cassette.modes import MATCHING, RECORD_MODES, default_record_mode
from harness.cassette.shapes import FIELDS as SHAPE_FIELDS
from harness.wire.errors import HarnessError

DEFAULT_PATHS = ["scenarios"]


EXIT_USAGE, EXIT_INTERNAL, EXIT_INTERRUPTED = 2, 3, 130


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code. Bad input ends in a message naming the file
    and what was expected (exit 2); SIGTERM unwinds like Ctrl+C, so temporary files are
    removed; anything unforeseen is one line naming the harness's own bug (exit 3)."""
    parser = _parser()
    args = parser.parse_args(argv)
    previous = _terminate_as_exit()
    try:
        _sweep_own_temporaries(args)
        return args.command(args)
    except (HarnessError, OSError) as error:  # what the harness says of its input, and files it cannot open
        print(f"harness: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("\nharness: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except RecursionError:
        print("harness: the input is nested too deeply to handle", file=sys.stderr)
        return EXIT_USAGE
    except Exception as error:  # noqa: BLE001 -- the last line of defence: a bug, said in one line
        print(f"harness: internal error: {type(error).__name__}: {error} (a bug in the harness; please report it)", file=sys.stderr)
        return EXIT_INTERNAL
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


WRITTEN_FILES = ("cassette", "record", "html", "junit")  # the options naming a file a command writes whole


def _sweep_own_temporaries(args: argparse.Namespace) -> None:
    """A command that writes a file first removes the temporaries a killed run left beside it."""
    from harness.wire.files import sweep_stale_of

    for option in WRITTEN_FILES:
        value = getattr(args, option, None)
        if isinstance(value, str) and value:
            sweep_stale_of(Path(value))


def _terminate_as_exit() -> Any:
    """SIGTERM raises SystemExit (143), so ``finally`` blocks run and nothing is left half-written."""

    def stop(signum: int, frame: Any) -> None:
        raise SystemExit(128 + signum)

    try:
        return signal.signal(signal.SIGTERM, stop)
    except ValueError:  # not the main thread
        return None


# Each command's module is imported when that command runs, so that the commands which
# need no SDK (--help, lint, events, schema, scan, check-history) start without loading it.


def _run(args: argparse.Namespace) -> int:
    from harness.scenario.frontends.run import cmd_run

    return cmd_run(args)


def _play(args: argparse.Namespace) -> int:
    from harness.scenario.frontends.run import cmd_play

    return cmd_play(args)


def _lint(args: argparse.Namespace) -> int:
    if args.show_commands:
        from harness.cassette.show import cmd_show_commands

        return cmd_show_commands(args)
    from harness.scenario.frontends.file_commands import cmd_lint

    return cmd_lint(args)


def _serve(args: argparse.Namespace) -> int:
    from harness.cassette.log_scrub import scrub_for_log
    from harness.serve.commands import cmd_serve

    args.scrub = scrub_for_log  # serve may not import cassette: the log's scrubber is handed over here
    return cmd_serve(args)


def _cassette(args: argparse.Namespace) -> int:
    """record, replay, proxy, drift and scan: ``harness.cassette.commands``."""
    from harness.cassette import commands

    return getattr(commands, f"cmd_{args.cassette_command}")(args)


def _file(args: argparse.Namespace) -> int:
    """events and schema: ``harness.scenario.frontends.file_commands``."""
    from harness.scenario.frontends import file_commands

    return getattr(file_commands, f"cmd_{args.file_command}")(args)


def _check_history(args: argparse.Namespace) -> int:
    from harness.oracle.history_file import cmd_check_history

    return cmd_check_history(args)


def jobs_option(text: str) -> int:
    """``--jobs``: a number of workers from 1, or ``auto`` (one a CPU)."""
    if text == "auto":
        wanted = os.cpu_count() or 1
    elif text.isdigit() and int(text) >= 1:
        wanted = int(text)
    else:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a whole number of workers from 1, or auto")
    if wanted > 1:
        from harness.scenario.frontends.workers import can_fork

        if not can_fork():
            raise argparse.ArgumentTypeError(f"{text}: this platform cannot fork worker processes; use 1")
    return wanted


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
    run.add_argument("-j", "--jobs", type=jobs_option, default=1, metavar="N",
                     help="run the files in N worker processes forked from this one, or auto: one a CPU (default: 1)")
    run.set_defaults(command=_run)
    lint = commands.add_parser("lint", help="check scenario files without running them")
    lint.add_argument("paths", nargs="*", default=DEFAULT_PATHS)
    lint.add_argument(
        "--show-commands", action="store_true",
        help="list every command, file write and tool call a scenario or cassette would cause (it is code: read it first)",
    )
    lint.set_defaults(command=_lint)
    play = commands.add_parser("play", help="play a scenario through the mini_agent REPL")
    play.add_argument("scenario")
    play.add_argument("--agent", metavar="MODULE:FACTORY", help="the agent under test (default: mini_agent)")
    play.set_defaults(command=_play)
    events = commands.add_parser(
        "events", help="each reply's numbered events and byte offsets, as served",
        description="Print every reply of a scenario as the fake API serves it: its SSE events numbered from 1 with "
        "their byte offsets, and where its fault ends the stream; choose after_event, in_event, after_bytes from it.",
    )
    events.add_argument("scenario")
    events.add_argument("--turn", type=int, metavar="N", help="only turn N (from 1)")
    events.add_argument("--reply", type=int, metavar="K", help="only reply K (from 1) of that turn")
    events.set_defaults(command=_file, file_command="events")
    schema = commands.add_parser("schema", help="write the JSON Schema of the scenario format")
    schema.add_argument("-o", "--output", help="a file to write (default: standard output)")
    schema.set_defaults(command=_file, file_command="schema")
    serve = commands.add_parser("serve", help="serve a scenario on a loopback socket, for any client")
    serve.add_argument("scenario")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default: %(default)s)")
    serve.add_argument("--port", type=int, default=8123, help="port (default: %(default)s; 0 picks a free one)")
    serve.add_argument("--time-scale", type=float, default=1.0, help="multiply real delays (drip, stall) by this")
    serve.add_argument("--log", metavar="FILE", help="also write the request log as JSON Lines, headers and bodies scrubbed as in a cassette")
    serve.add_argument("--check", action="store_true", help="report every request and check the wire-level expectations at exit")
    serve.set_defaults(command=_serve)
    history = commands.add_parser("check-history", help="check a saved conversation against the API's rules")
    history.add_argument("file")
    history.set_defaults(command=_check_history)
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
        "--record-mode", choices=RECORD_MODES, default=default_record_mode(),
        help="pytest-recording's record modes: once records a new cassette and replays an existing one (the default; "
        "none in CI), rewrite records it again from scratch, new_episodes and all add to it, none only replays",
    )
    record.add_argument("--max-age", metavar="AGE", help="the cassette's maximum age, written into it: 90s, 12h, 7d, 2w …")
    record.add_argument("--match-on", choices=tuple(MATCHING), default="body", help="how requests match recorded ones")
    record.add_argument("--cwd", default=".", help="the tools' working directory (default: here)")
    record.add_argument("lines", nargs="+", metavar="LINE", help="the user's lines, after --")
    record.set_defaults(command=_cassette, cassette_command="record")

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
    replay.set_defaults(command=_cassette, cassette_command="replay")

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
    proxy.set_defaults(command=_cassette, cassette_command="proxy")

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
    drift.set_defaults(command=_cassette, cassette_command="drift")

    scan = commands.add_parser("scan", help="look for secrets in files, decoded as the recorder reads them; exit 1 on any")
    scan.add_argument("paths", nargs="*", default=["cassettes"], help="files or folders (default: cassettes/)")
    scan.set_defaults(command=_cassette, cassette_command="scan")

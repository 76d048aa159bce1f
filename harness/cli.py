"""``harness`` (also ``python -m harness``): run, lint, play and export scenarios, and
check saved conversations.

    harness run [PATHS…] [--jobs N] [--json] [--html F] [--junit F] [--update-golden]   run scenarios, a summary table; exit 1 on any failure
    harness run … --shard K/N --results F             one machine's part of a run, kept for the merge
    harness report merge RESULTS… [--html F] [--junit F]   N machines' parts reported as one run
    harness lint [PATHS…] [--show-commands]           check scenario files without running them; list what they would run
    harness play SCENARIO                             the mini_agent REPL under a scenario, live
    harness events SCENARIO [--turn N] [--reply K]   each reply's numbered events and byte offsets, as served
    harness schema [-o FILE]                          the JSON Schema of the scenario format
    harness serve SCENARIO [--port N] [--check] [--policy NAME[=N]]  the scenario on a loopback socket, for any client
    harness check-history FILE [--betas LIST]         check a saved conversation against the API's rules
    harness record / replay / scan / proxy            cassettes: see harness.cassette.commands
"""

from __future__ import annotations

import argparse
import io
import os
import signal
import sys
from pathlib import Path
from typing import Any

from harness.cassette.arguments import add_cassette_commands
from harness.scenario.frontends.process_end import end_without_final_collection
from harness.scenario.frontends.shards import shard_option
from harness.wire.errors import HarnessError

DEFAULT_PATHS = ["scenarios"]


EXIT_USAGE, EXIT_INTERNAL, EXIT_INTERRUPTED = 2, 3, 130


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code. Bad input ends in a message naming the file
    and what was expected (exit 2); SIGTERM unwinds like Ctrl+C, so temporary files are
    removed; anything unforeseen is one line naming the harness's own bug (exit 3)."""
    parser = _parser()
    args = parser.parse_args(argv)
    _escape_what_cannot_be_printed()
    end_without_final_collection()
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


def _escape_what_cannot_be_printed() -> None:
    """Text the terminal's encoding cannot hold (a lone surrogate a scenario wrote, a byte
    a cassette kept) is printed escaped (``\\ud800``), never a crash of the command."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")


WRITTEN_FILES = ("cassette", "record", "html", "junit", "results", "durations")  # the options naming a file a command writes whole


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


def _merge(args: argparse.Namespace) -> int:
    from harness.scenario.frontends.merge import cmd_merge

    return cmd_merge(args)


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
    run.add_argument("paths", nargs="*", help="scenario files or folders (default: scenarios/, unless --library)")
    run.add_argument("--library", action="store_true", help="also run the scenario library installed with the harness")
    run.add_argument("--json", action="store_true", help="print the results as JSON")
    run.add_argument("--html", metavar="FILE", help="also write a self-contained HTML report (timelines, fault coverage)")
    run.add_argument("--junit", metavar="FILE", help="also write JUnit XML, for CI systems")
    run.add_argument("--progress", action="store_true", help="a line per scenario on stderr (default: on a terminal only)")
    run.add_argument("--update-golden", action="store_true", help="write golden transcripts anew")
    run.add_argument("--agent", metavar="MODULE:FACTORY", help="the agent under test (default: mini_agent)")
    run.add_argument("-k", dest="keyword", metavar="EXPR",
                     help="only files whose path or name matches: words joined by and, or, not (as pytest's -k)")
    run.add_argument("--lf", "--last-failed", dest="last_failed", action="store_true",
                     help="only the files that failed last time (all when none did)")
    run.add_argument("--maxfail", type=int, default=0, metavar="N", help="stop once N files have failed")
    run.add_argument("--baseline", metavar="FILE", help="failures this file knows do not fail the run; new ones do")
    run.add_argument("--write-baseline", metavar="FILE", help="write this run's failures as a baseline")
    run.add_argument("-j", "--jobs", type=jobs_option, default=1, metavar="N",
                     help="run the files in N worker processes forked from this one, or auto: one a CPU (default: 1)")
    run.add_argument("--shard", type=shard_option, metavar="K/N",
                     help="run the K-th of N parts of the files, balanced by their recorded durations (--durations)")
    run.add_argument("--results", metavar="FILE", help="also write the results as JSON, for harness report merge")
    run.add_argument("--durations", metavar="FILE",
                     help="the recorded durations to balance --shard by, updated after the run "
                          "(default: durations.json in .harness_cache or $HARNESS_CACHE_DIR)")
    run.set_defaults(command=_run)
    report = commands.add_parser("report", help="reports over results files: merge")
    reports = report.add_subparsers(required=True, metavar="REPORT")
    merge = reports.add_parser("merge", help="the results of N shards as one run: one table, HTML report and JUnit file")
    merge.add_argument("results", nargs="+", metavar="RESULTS", help="the --results files of every shard of one run")
    merge.add_argument("--json", action="store_true", help="print the results as JSON")
    merge.add_argument("--html", metavar="FILE", help="also write the HTML report of the whole run")
    merge.add_argument("--junit", metavar="FILE", help="also write the JUnit XML of the whole run")
    merge.add_argument("--durations", metavar="FILE", help="write every file's duration, for the next run's shards")
    merge.set_defaults(command=_merge)
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
    serve.add_argument("--policy", action="append", default=[], metavar="NAME[=N]",
                       help="a policy the clients follow, as an agent's harness_policies names it (retries=2, "
                            "gives_up_on_final_errors …); --check then holds them to it; repeat for more")
    serve.add_argument("--limits", metavar="FILE", help="rate limits to enforce on real time "
                       "(a YAML mapping, as a scenario's `limits:`), over the scenario's own")
    serve.add_argument("--side-requests", metavar="FILE", help="the clients' side requests (a router, a title, a "
                       "summary) and their replies (YAML or JSON: - when: {system: Write a title} reply: {text: A title})")
    serve.add_argument("--tool-map", metavar="FILE", help="the clients' own names for the standard tools (YAML or "
                       "JSON, as an agent's tool_map: Read: {name: read_file, input: {file_path: path}})")
    serve.set_defaults(command=_serve)
    history = commands.add_parser("check-history", help="check a saved conversation against the API's rules")
    history.add_argument("file")
    history.add_argument("--betas", metavar="LIST",
                         help="the anthropic-beta values the requests were sent with, comma-separated ('' for none); "
                         "without it the rules a beta lifts are judged only where a recorded request keeps its headers")
    history.set_defaults(command=_check_history)
    add_cassette_commands(commands, _cassette)
    return parser

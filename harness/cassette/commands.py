"""The cassette commands of ``harness``:

    harness record --cassette FILE [--base-url URL] [--model M] [--record-mode MODE] [--cwd DIR] -- LINE…
    harness replay CASSETTE [--engine harness|vcr] [--match-on body|order] [--cwd DIR] [-- LINE…]
    harness scan [PATHS…]            exit 1 on anything that looks like a secret (default: cassettes/)
"""

from __future__ import annotations

import argparse
import sys

from harness.cassette.recorder import MATCHING, RECORD_MODES

EXIT_INTERRUPTED = 130


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Add ``record``, ``replay`` and ``scan`` to the ``harness`` parser."""
    record = commands.add_parser(
        "record",
        help="record a mini_agent session into a vcrpy cassette",
        description="Run mini_agent over the given lines (one turn each) against the real API "
        "(ANTHROPIC_API_KEY) or --base-url, recording every interaction with vcrpy. Headers are "
        "kept by allowlist, secrets redacted, the file scanned and written atomically.",
    )
    record.add_argument("--cassette", required=True, help="the cassette file to write")
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
        help="replay a cassette through mini_agent, offline",
        description="Drive mini_agent from a cassette with the network blocked and print the "
        "transcript; a request that differs from the recorded one fails with a diff.",
    )
    replay.add_argument("cassette")
    replay.add_argument("--engine", choices=("harness", "vcr"), default="harness", help="the indexed transport, or vcrpy")
    replay.add_argument("--match-on", choices=tuple(MATCHING), default="body")
    replay.add_argument("--cwd", default=".", help="the tools' working directory (the recording's files must be there)")
    replay.add_argument("lines", nargs="*", metavar="LINE", help="the user's lines (default: read from the cassette)")
    replay.set_defaults(command=cmd_replay)

    scan = commands.add_parser("scan", help="look for API keys and tokens in files; exit 1 on any")
    scan.add_argument("paths", nargs="*", default=["cassettes"], help="files or folders (default: cassettes/)")
    scan.set_defaults(command=cmd_scan)


def cmd_record(args: argparse.Namespace) -> int:
    from harness.cassette.replay_transport import ReplayMismatch
    from harness.cassette.recorder import SecretsFound
    from mini_agent.environment import SettingsError, settings_from_environment

    from harness.cassette.record import CassetteExists, RecordingFailed, record_session

    try:
        settings, _ = settings_from_environment()  # MINI_AGENT_*, as mini_agent itself reads them
        result = record_session(
            args.cassette, args.lines, base_url=args.base_url, model=args.model, record_mode=args.record_mode,
            match_on=args.match_on, cwd=args.cwd, settings=settings, write=_live,
        )
    except (CassetteExists, RecordingFailed, SettingsError) as error:
        print(f"harness record: {error}", file=sys.stderr)
        return 2
    except (SecretsFound, ReplayMismatch) as error:
        print(f"harness record: {args.cassette}: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"\nharness record: interrupted; {args.cassette} was not written", file=sys.stderr)
        return EXIT_INTERRUPTED
    verb = "wrote" if result.written else "did not change"
    print(f"\n{verb} {result.path}: {result.interactions} interaction(s), record mode {result.record_mode}")
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from mini_agent.environment import SettingsError, settings_from_environment

    from harness.cassette.file import CassetteError, load_cassette
    from harness.cassette.replay_transport import NetworkBlocked, ReplayMismatch
    from harness.cassette.replay import replay_session, settings_from_cassette

    try:
        base, _ = settings_from_environment()  # what the recording ran with, as far as requests do not show it
        settings = settings_from_cassette(load_cassette(args.cassette), base)
        result = replay_session(
            args.cassette, args.lines or None, engine=args.engine, match_on=args.match_on, cwd=args.cwd,
            settings=settings, write=_live,
        )
    except (ReplayMismatch, NetworkBlocked) as error:
        print(f"\nharness replay: {error}", file=sys.stderr)
        return 1
    except (CassetteError, SettingsError) as error:
        print(f"harness replay: {error}", file=sys.stderr)
        return 2
    print(f"\n{result.requests} request(s) replayed from {args.cassette} ({args.engine})")
    if result.unused:
        print(f"harness replay: interaction(s) {', '.join(map(str, result.unused))} were never requested", file=sys.stderr)
        return 1
    return 0


def cmd_scan(args: argparse.Namespace) -> int:
    from harness.cassette.scan import files_under, scan_file

    files = files_under(args.paths)
    findings = [finding for path in files for finding in scan_file(path)]
    for finding in findings:
        print(finding)
    print(f"{len(files)} file(s) scanned, {len(findings) or 'no'} possible secret(s)")
    return 1 if findings else 0


def _live(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()

"""The cassette commands of ``harness`` (the arguments are parsed in ``harness.cli``):

    harness record --cassette FILE [--agent MODULE:FACTORY] [--base-url URL] [--model M] [--record-mode MODE] [--cwd DIR] -- LINE…
    harness replay CASSETTE [--agent MODULE:FACTORY] [--engine harness|vcr] [--match-on body|order] [--cwd DIR] [-- LINE…]
    harness scan [PATHS…]            exit 1 on anything that looks like a secret (default: cassettes/)
"""

from __future__ import annotations

import argparse
import sys

from harness.agents.loading import AgentSpecError, load_factory

EXIT_INTERRUPTED = 130


def cmd_record(args: argparse.Namespace) -> int:
    from harness.agents.mini_agent import SettingsError, settings_from_environment
    from harness.cassette.diff import ReplayMismatch
    from harness.cassette.record import CassetteExists, RecordingFailed, record_session
    from harness.cassette.recorder import SecretsFound

    try:
        factory = load_factory(args.agent) if args.agent else None
        settings = None if factory else settings_from_environment()[0]  # MINI_AGENT_*, as mini_agent reads them
        print(
            f"harness record: {len(args.lines)} line(s) into {args.cassette}, each turn shown as it runs "
            "(Ctrl+C stops and writes nothing)", file=sys.stderr,
        )
        result = record_session(
            args.cassette, args.lines, base_url=args.base_url, model=args.model, record_mode=args.record_mode,
            match_on=args.match_on, cwd=args.cwd, factory=factory, settings=settings, write=_live,
        )
    except (CassetteExists, RecordingFailed, SettingsError, AgentSpecError) as error:
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
    from harness.agents.mini_agent import (
        SettingsError,
        settings_from_cassette,
        settings_from_environment,
    )
    from harness.cassette.diff import ReplayMismatch
    from harness.cassette.network import NetworkBlocked
    from harness.cassette.replay import replay_session, request_bodies
    from harness.wire.cassette_file import CassetteError, load_cassette

    try:
        factory = load_factory(args.agent) if args.agent else None
        settings = None
        if factory is None:  # mini_agent: what the recording ran with, as far as requests do not show it
            base, _ = settings_from_environment()
            settings = settings_from_cassette(request_bodies(load_cassette(args.cassette)), base)
        result = replay_session(
            args.cassette, args.lines or None, engine=args.engine, match_on=args.match_on, cwd=args.cwd,
            factory=factory, settings=settings, write=_live,
        )
    except (ReplayMismatch, NetworkBlocked) as error:
        print(f"\nharness replay: {error}", file=sys.stderr)
        return 1
    except (CassetteError, SettingsError, AgentSpecError) as error:
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

"""The cassette commands of ``harness`` (the arguments are parsed in ``harness.cli``):

    harness record --cassette FILE [--agent MODULE:FACTORY] [--base-url URL] [--model M] [--record-mode MODE] [--cwd DIR] -- LINE…
    harness replay CASSETTE [--agent MODULE:FACTORY] [--engine harness|vcr] [--match-on body|order] [--cwd DIR [--in-place]] [-- LINE…]
    harness scan [PATHS…]            exit 1 on anything that looks like a secret (default: cassettes/):
                                     file:line: kind: a masked excerpt, never the secret
    harness proxy --upstream URL --record FILE [--port N] [--record-mode MODE]
                                     record any client's session through a loopback proxy
    harness drift CASSETTE… [--base-url URL] [--agent MODULE:FACTORY] [--ignore FIELD…] [--json FILE]
                                     the live API's answers against the recorded ones, by shape
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from harness.agents.loading import AgentSpecError, load_factory
from harness.wire.files import file_identity

EXIT_INTERRUPTED = 130


def cmd_record(args: argparse.Namespace) -> int:
    from harness.agents.mini_agent import SettingsError, settings_from_environment
    from harness.cassette.age import AgeError
    from harness.cassette.diff import ReplayMismatch
    from harness.cassette.record import RecordingFailed, record_session
    from harness.cassette.redaction.redact import RedactionError
    from harness.cassette.vcr_setup import SecretsFound

    before = file_identity(Path(args.cassette))
    try:
        factory = load_factory(args.agent) if args.agent else None
        settings = None if factory else settings_from_environment()[0]  # MINI_AGENT_*, as mini_agent reads them
        print(
            f"harness record: {len(args.lines)} line(s) into {args.cassette}, each turn shown as it runs "
            "(Ctrl+C stops and writes nothing)", file=sys.stderr,
        )
        result = record_session(
            args.cassette, args.lines, base_url=args.base_url, model=args.model, record_mode=args.record_mode,
            match_on=args.match_on, cwd=args.cwd, factory=factory, settings=settings, write=_live, max_age=args.max_age,
        )
    except (AgeError, RecordingFailed, SettingsError, AgentSpecError) as error:
        print(f"harness record: {error}", file=sys.stderr)
        return 2
    except (SecretsFound, RedactionError, ReplayMismatch) as error:
        print(f"harness record: {args.cassette}: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"\nharness record: interrupted; {_what_was_written(Path(args.cassette), before)}", file=sys.stderr)
        return EXIT_INTERRUPTED
    verb = "wrote" if result.written else "did not change"
    print(f"\n{verb} {result.path}: {result.interactions} interaction(s), record mode {result.record_mode}")
    if not result.written and result.record_mode == "once":
        print("  the cassette exists, so record mode once replayed it; --record-mode rewrite records it again")
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from harness.agents.mini_agent import (
        SettingsError,
        settings_from_cassette,
        settings_from_environment,
    )
    from harness.cassette.age import AgeError, age_of
    from harness.cassette.diff import ReplayMismatch
    from harness.cassette.network import NetworkBlocked
    from harness.cassette.replay import replay_session, request_bodies
    from harness.cassette.vcr_setup import drop_interactions
    from harness.wire.cassette_file import CassetteError, read_cassette

    try:
        factory = load_factory(args.agent) if args.agent else None
        cassette = read_cassette(args.cassette)
        age = age_of(args.cassette, cassette.metadata, [args.max_age])
        settings = None
        if factory is None:  # mini_agent: what the recording ran with, as far as requests do not show it
            base, _ = settings_from_environment()
            settings = settings_from_cassette(request_bodies(cassette.interactions), base)
        result = replay_session(
            args.cassette, args.lines or None, engine=args.engine, match_on=args.match_on, cwd=args.cwd,
            in_place=args.in_place, factory=factory, settings=settings, write=_live, speed=args.speed,
        )
    except (ReplayMismatch, NetworkBlocked) as error:
        print(f"\nharness replay: {error}", file=sys.stderr)
        return 1
    except (AgeError, CassetteError, SettingsError, AgentSpecError) as error:
        print(f"harness replay: {error}", file=sys.stderr)
        return 2
    print(f"\n{result.requests} request(s) replayed from {args.cassette} ({args.engine})")
    if age.message():
        print(f"harness replay: {age.message()}", file=sys.stderr)
    unused = ", ".join(map(str, result.unused))
    if result.unused and args.drop_unused:
        left = drop_interactions(args.cassette, result.unused)
        print(f"harness replay: dropped interaction(s) {unused}, never requested; {left} left", file=sys.stderr)
    elif result.unused:
        print(f"harness replay: interaction(s) {unused} were never requested (--drop-unused drops them)", file=sys.stderr)
        return 1
    return 1 if age.fails else 0


def cmd_proxy(args: argparse.Namespace) -> int:
    from pathlib import Path

    from harness.cassette.proxy import RecordingProxy
    from harness.cassette.vcr_setup import SecretsFound, make_vcr
    from harness.serve.commands import serve_forever
    from harness.serve.listener import ServerError
    from harness.wire.cassette_file import load_cassette

    path = Path(args.record)
    proxy = RecordingProxy(args.upstream, host=args.host, port=args.port, log=lambda line: _live(line + "\n"))
    try:
        recorder = make_vcr(record_mode=args.record_mode, match_on=args.match_on, cwd=args.cwd, stopwatch=proxy.stopwatch)
        with recorder.use_cassette(str(path)):
            proxy.start()
            serve_forever(proxy, ready=lambda: print(
                f"recording into {path} on {proxy.url}, forwarding to {proxy.upstream} · ANTHROPIC_BASE_URL={proxy.url} "
                "· Ctrl+C to stop and write", flush=True))
    except ServerError as error:
        print(f"harness proxy: {error}", file=sys.stderr)
        return 2
    except SecretsFound as error:
        print(f"harness proxy: {path}: {error}", file=sys.stderr)
        return 1
    count = len(load_cassette(path)) if path.exists() else 0
    print(f"{path}: {count} interaction(s) after {proxy.forwarded} forwarded request(s), record mode {args.record_mode}")
    return 0


def cmd_scan(args: argparse.Namespace) -> int:
    from harness.cassette.redaction.config import configured
    from harness.cassette.scan import files_under, scan_file

    settings = configured()  # a rules file that cannot be read: exit 2 (harness.cli)
    files = files_under(args.paths)
    findings, unread = [], []
    for path in files:
        try:
            findings += scan_file(path, settings=settings)
        except OSError as error:
            unread.append(f"harness scan: {path}: cannot scan it: {error}")
    for finding in findings:
        print(finding)
    for line in unread:
        print(line, file=sys.stderr)
    print(f"{len(files) - len(unread)} file(s) scanned, {len(findings) or 'no'} possible secret(s)"
          + (f", {len(unread)} not readable" if unread else ""))
    return 1 if findings else 2 if unread else 0


def cmd_drift(args: argparse.Namespace) -> int:
    """Exit 0: no drift; 1: drift; 2: nothing could be compared."""
    import tempfile

    import httpx2

    from harness.cassette.drift import (
        DEFAULT_BASE_URL,
        api_key_for,
        drift_of_answers,
        drift_of_requests,
        http_sender,
        write_report,
    )
    from harness.cassette.record import RecordingFailed, check_base_url, record_session
    from harness.cassette.replay import lines_from_cassette
    from harness.wire.cassette_file import load_cassette

    base_url = args.base_url or os.environ.get("ANTHROPIC_BASE_URL") or DEFAULT_BASE_URL
    check_base_url(base_url)
    key = api_key_for(base_url)
    if key is None:
        print("harness drift: ANTHROPIC_API_KEY is not set (drift asks the live API; or pass --base-url)", file=sys.stderr)
        return 2
    factory = load_factory(args.agent) if args.agent else None
    reports = []
    for name in args.cassettes:
        path = Path(name)
        recorded = load_cassette(path)
        try:
            if factory is None:
                report = drift_of_requests(path, recorded, http_sender(base_url, key), ignore=args.ignore)
            else:
                with tempfile.TemporaryDirectory(prefix="harness-drift-") as tmp:
                    live = record_session(Path(tmp) / "live.yaml", lines_from_cassette(recorded), base_url=base_url,
                                          api_key=key, record_mode="all", cwd=tmp, factory=factory)
                    report = drift_of_answers(path, recorded, load_cassette(live.path), ignore=args.ignore)
        except (httpx2.HTTPError, RecordingFailed) as error:
            print(f"harness drift: {path}: could not ask {base_url}: {error}", file=sys.stderr)
            return 2
        reports.append(report)
        for line in report.lines():
            print(line, flush=True)
    if args.json:
        write_report(Path(args.json), reports)
    drifted = [r for r in reports if r.drifted]
    print(f"{len(reports)} cassette(s) compared with {base_url}: "
          + (f"{len(drifted)} drifted" if drifted else "no drift"))
    return 1 if drifted else 0


def _what_was_written(path: Path, before: tuple[int, int, int] | None) -> str:
    """Exactly what Ctrl+C left: the cassette written whole, the old one, or none."""
    after = file_identity(path)
    if after is not None and after != before:
        return f"{path} was written (the recording had ended; the file is whole)"
    if after is not None:
        return f"{path} was not written; the old cassette is unchanged"
    return f"{path} was not written"


def _live(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()

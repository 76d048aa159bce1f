"""Recording, end to end and offline: the fault server serves a session on 127.0.0.1,
mini_agent talks to it over a real socket through vcrpy, and the cassette comes out
clean (allowlisted headers, no key, no request id), in vcrpy's format, written
atomically, never over an existing cassette unless asked."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Iterator

import pytest
import yaml

from harness.agents.driver import TurnDriver
from harness.agents.events import Notice, TurnEnd
from harness.agents.mini_agent import EventRenderer
from harness.cassette.record import (
    RecordingFailed,
    drive,
    record_over_loopback,
    record_session,
)
from harness.cassette.replay import replay_session
from harness.cassette.scan import scan_paths
from harness.cassette.scrub import KEPT_REQUEST_HEADERS, KEPT_RESPONSE_HEADERS
from harness.cassette.vcr_setup import AtomicPersister, SecretsFound, write_atomically
from harness.cli import main
from harness.scenario.fake_api.responder import Responder
from harness.serve.server import FaultServer
from harness.wire.cassette_file import load_cassette, response_body_bytes
from harness.wire.clock import VirtualClock
from harness.wire.replies import Reply

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted((ROOT / "cassettes" / "sources").glob("*.yaml"))
KEY = "sk-ant-api03-" + "Qw7" * 30  # shaped like a real key; must never reach a cassette

READ_THEN_ANSWER = [
    Reply(message={"text": "Reading it.", "tool_use": {"name": "Read", "input": {"file_path": "README.md"}}}),
    Reply(message={"text": "It is a demo."}),
]


@contextlib.contextmanager
def loopback(replies: list[Reply]) -> Iterator[tuple[FaultServer, Responder]]:
    responder = Responder(replies, clock=VirtualClock())
    with FaultServer(responder, time_scale=0) as server:
        yield server, responder


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "README.md").write_text("# Demo\n")
    return folder


@pytest.fixture
def api_key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    return KEY


def headers_of(path: Path, side: str) -> set[str]:
    return {name.lower() for i in load_cassette(path) for name in (i[side].get("headers") or {})}


def test_harness_record_over_a_real_socket_writes_a_clean_vcrpy_cassette(tmp_path, workspace, api_key, capsys):
    cassette = tmp_path / "cassettes" / "demo.yaml"
    with loopback(READ_THEN_ANSWER) as (server, responder):
        code = main(["record", "--cassette", str(cassette), "--base-url", server.url, "--cwd", str(workspace), "--", "Summarize the README"])
    assert code == 0, capsys.readouterr().err
    assert responder.problems == [] and len(responder.requests) == 2
    assert responder.requests[0].headers["authorization"] == "<redacted>"  # the key did go over the wire …
    text = cassette.read_text()
    assert KEY not in text and "authorization" not in text.lower()  # … and was never written
    assert "request-id:" not in text and "req_harness" not in text  # the header is not kept (its name, for drift, is)
    assert scan_paths([cassette]) == []
    assert headers_of(cassette, "request") <= KEPT_REQUEST_HEADERS
    assert headers_of(cassette, "response") <= KEPT_RESPONSE_HEADERS
    out = capsys.readouterr().out
    assert "⏺ Read(file_path=README.md)" in out and f"wrote {cassette}: 2 interaction(s)" in out


def test_the_cassette_is_in_vcrpys_own_format(tmp_path, workspace, api_key):
    from vcr.serialize import deserialize
    from vcr.serializers import yamlserializer

    cassette = tmp_path / "demo.yaml"
    with loopback(READ_THEN_ANSWER) as (server, _):
        record_session(cassette, ["Summarize the README"], base_url=server.url, cwd=workspace)
    requests, responses, metadata = deserialize(cassette.read_text(), yamlserializer)
    assert [(r.method, r.path) for r in requests] == [("POST", "/v1/messages")] * 2
    assert [r["status"]["code"] for r in responses] == [200, 200]
    assert yaml.safe_load(cassette.read_text())["version"] == 1
    age = metadata["harness"]  # vcrpy's own metadata block: when, with what, for which models
    assert set(age) == {"recorded_at", "sdk", "harness", "models"} and age["models"] == ["claude-opus-5-5"]
    assert age["sdk"].startswith("Anthropic/Python ") and age["recorded_at"].endswith("Z")


def test_a_key_the_agent_reads_from_a_file_is_redacted_and_the_replay_still_matches(tmp_path, workspace, api_key):
    (workspace / ".env").write_text(f"ANTHROPIC_API_KEY={KEY}\n")
    replies = [
        Reply(message={"tool_use": {"name": "Read", "input": {"file_path": ".env"}}}),
        Reply(message={"text": "That file holds an API key; keep it out of git."}),
    ]
    cassette = tmp_path / "env.yaml"
    with loopback(replies) as (server, responder):
        recorded = record_session(cassette, ["What is in .env?"], base_url=server.url, cwd=workspace)
    assert KEY in str(responder.requests[1].body)  # the model saw it …
    assert KEY not in cassette.read_text() and "ANTHROPIC_API_KEY=<redacted:anthropic-key:" in cassette.read_text()  # … the file does not
    for engine in ("harness", "vcr"):
        assert replay_session(cassette, engine=engine, cwd=workspace).transcript == recorded.transcript


def test_the_working_directory_is_written_as_cwd(tmp_path, workspace, api_key):
    replies = [
        Reply(message={"tool_use": {"name": "Write", "input": {"file_path": "out.txt", "content": "hi\n"}}}),
        Reply(message={"text": "Done."}),
    ]
    cassette = tmp_path / "write.yaml"
    with loopback(replies) as (server, _):
        result = record_session(cassette, ["Write out.txt"], base_url=server.url, cwd=workspace)
    bodies = " ".join(i["request"]["body"] for i in load_cassette(cassette))
    assert str(workspace) not in cassette.read_text() and "Wrote 3 bytes to <cwd>/out.txt" in bodies
    assert "Wrote 3 bytes to <cwd>/out.txt" in result.transcript
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert replay_session(cassette, cwd=elsewhere).transcript == result.transcript


def test_record_mode_once_replays_an_existing_cassette_and_leaves_it_as_it_was(tmp_path, workspace, api_key, capsys):
    """pytest-recording's ``once``: a cassette that exists is replayed, nothing goes out."""
    cassette = tmp_path / "kept.yaml"
    with loopback(READ_THEN_ANSWER) as (server, _):
        record_session(cassette, ["Summarize the README"], base_url=server.url, cwd=workspace)
    before = cassette.read_text()
    dead = "http://127.0.0.1:9"  # nothing listens there: only the cassette can answer
    assert main(["record", "--cassette", str(cassette), "--base-url", dead, "--cwd", str(workspace), "--",
                 "Summarize the README"]) == 0
    assert "record mode once replayed it; --record-mode rewrite records it again" in capsys.readouterr().out
    assert cassette.read_text() == before


def test_record_mode_rewrite_records_the_session_from_scratch(tmp_path, workspace, api_key):
    cassette = tmp_path / "demo.yaml"
    with loopback([Reply(message={"text": "First version."})]) as (server, _):
        record_session(cassette, ["Say something"], base_url=server.url, cwd=workspace)
    with loopback(READ_THEN_ANSWER) as (server, _):
        result = record_session(cassette, ["Summarize the README"], base_url=server.url, cwd=workspace, record_mode="rewrite")
    assert result.written and result.interactions == 2
    assert "First version" not in cassette.read_text()


def test_record_mode_all_records_every_request_and_keeps_the_old_ones_it_did_not_make_again(tmp_path, workspace, api_key):
    """vcrpy's and pytest-recording's ``all``: nothing replayed; what is recorded again
    replaces its old recording, the rest of the old cassette stays."""
    cassette = tmp_path / "demo.yaml"
    with loopback([Reply(message={"text": "First version."}), Reply(message={"text": "Old answer."})]) as (server, _):
        record_session(cassette, ["Say something", "Say more"], base_url=server.url, cwd=workspace)
    with loopback([Reply(message={"text": "Second version."})]) as (server, responder):
        result = record_session(cassette, ["Say something"], base_url=server.url, cwd=workspace, record_mode="all")
    assert len(responder.requests) == 1 and result.written and result.interactions == 2
    answers = b"".join(response_body_bytes(i["response"]) for i in load_cassette(cassette))
    assert b"Second version" in answers and b"Old answer" in answers and b"First version" not in answers


def test_record_mode_new_episodes_replays_what_it_has_and_records_the_rest(tmp_path, workspace, api_key):
    cassette = tmp_path / "demo.yaml"
    with loopback(READ_THEN_ANSWER) as (server, _):
        record_session(cassette, ["Summarize the README"], base_url=server.url, cwd=workspace)
    with loopback([Reply(message={"text": "You're welcome."})]) as (server, responder):
        result = record_session(
            cassette, ["Summarize the README", "Thanks"], base_url=server.url, cwd=workspace, record_mode="new_episodes"
        )
    assert len(responder.requests) == 1  # the first turn came from the cassette
    assert result.interactions == 3 and "You're welcome." in result.transcript


def test_record_mode_none_replays_and_writes_nothing(tmp_path, workspace, api_key):
    cassette = tmp_path / "demo.yaml"
    with loopback(READ_THEN_ANSWER) as (server, _):
        first = record_session(cassette, ["Summarize the README"], base_url=server.url, cwd=workspace)
    before = cassette.stat().st_mtime_ns
    again = record_session(cassette, ["Summarize the README"], cwd=workspace, record_mode="none")
    assert again.transcript == first.transcript and not again.written
    assert cassette.stat().st_mtime_ns == before


def test_ctrl_c_while_recording_leaves_the_previous_cassette_intact(tmp_path, workspace, api_key):
    cassette = tmp_path / "demo.yaml"
    with loopback([Reply(message={"text": "The previous session."})]) as (server, _):
        record_session(cassette, ["Say something"], base_url=server.url, cwd=workspace)
    previous = cassette.read_text()

    def press_ctrl_c_on_the_answer(text: str) -> None:
        if "It is a demo" in text:
            raise KeyboardInterrupt

    with loopback(READ_THEN_ANSWER) as (server, _), pytest.raises(KeyboardInterrupt):
        record_session(
            cassette, ["Summarize the README"], base_url=server.url, cwd=workspace, record_mode="rewrite",
            write=press_ctrl_c_on_the_answer,
        )
    assert cassette.read_text() == previous
    assert sorted(os.listdir(tmp_path)) == ["demo.yaml", "work"]  # no temporary file left behind


def test_ctrl_c_inside_a_turn_stops_the_recording_with_no_file(tmp_path, api_key):
    class InterruptedAgent:
        def run_turn(self, text):
            yield Notice("Interrupted", "warning")
            yield TurnEnd("interrupted")

        def renderer(self):
            return EventRenderer()

    with pytest.raises(KeyboardInterrupt):
        drive(InterruptedAgent(), ["hello", "never reached"], lambda text: None, TurnDriver())
    lines: list[str] = []
    drive(InterruptedAgent(), ["one", "two"], lines.append, TurnDriver(), stop_on_interrupt=False)
    assert lines.count("⚠ Interrupted\n") == 2


def test_harness_record_reports_ctrl_c_and_exits_130(tmp_path, monkeypatch, capsys):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("harness.cassette.record.record_session", interrupted)
    assert main(["record", "--cassette", str(tmp_path / "x.yaml"), "--", "hi"]) == 130
    assert "interrupted; " in capsys.readouterr().err and not (tmp_path / "x.yaml").exists()


def test_a_crash_while_writing_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    cassette = tmp_path / "demo.yaml"
    cassette.write_text("old\n")

    def disk_full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("harness.wire.files.os.fsync", disk_full)
    with pytest.raises(OSError, match="No space left"):
        write_atomically(cassette, "new\n" * 1000)
    assert cassette.read_text() == "old\n" and os.listdir(tmp_path) == ["demo.yaml"]


def test_a_cassette_that_still_looks_like_it_holds_a_secret_is_not_written(tmp_path):
    from vcr.request import Request
    from vcr.serializers import yamlserializer

    request = Request("POST", "https://api.anthropic.com/v1/messages", b"{}", {"x-api-key": "abcd" + "1234efgh"})
    response = {"status": {"code": 200, "message": "OK"}, "headers": {}, "body": {"string": b"ok"}}
    with pytest.raises(SecretsFound, match=r"demo.yaml:\d+: api-key-header"):
        AtomicPersister().save_cassette(tmp_path / "demo.yaml", {"requests": [request], "responses": [response]}, yamlserializer)
    assert os.listdir(tmp_path) == []


def test_recording_the_real_api_needs_a_key(tmp_path, monkeypatch, capsys):
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(RecordingFailed, match="ANTHROPIC_API_KEY is not set"):
        record_session(tmp_path / "x.yaml", ["hi"])
    assert main(["record", "--cassette", str(tmp_path / "x.yaml"), "--", "hi"]) == 2


def test_a_loopback_recording_whose_server_saw_problems_is_not_written(tmp_path):
    source = tmp_path / "short.yaml"
    source.write_text(
        "name: too-few-replies\nabout: the agent asks twice, the scenario answers once\n"
        "workspace: {README.md: '# Demo\\n'}\n"
        "turns:\n  - user: Summarize the README\n    replies:\n"
        "      - tool_use: {name: Read, input: {file_path: README.md}}\n"
    )
    with pytest.raises(RecordingFailed, match="has 1 replies"):
        record_over_loopback(source, tmp_path / "short_cassette.yaml")
    assert not (tmp_path / "short_cassette.yaml").exists()


@pytest.mark.parametrize("source", SOURCES, ids=[s.stem for s in SOURCES])
def test_the_shipped_loopback_cassettes_are_what_their_sources_record(source, tmp_path):
    fresh = record_over_loopback(source, tmp_path / source.name)
    shipped = load_cassette(ROOT / "cassettes" / source.name)
    again = load_cassette(fresh.path)

    def without_uri(interactions):
        return [{**i, "request": {k: v for k, v in i["request"].items() if k != "uri"}} for i in interactions]

    assert without_uri(again) == without_uri(shipped), f"run: python tools/regenerate_cassettes.py {source.stem}"


@pytest.fixture
def dead_port() -> Iterator[int]:
    """A loopback port that refuses connections: bound, never listening."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


def test_a_recording_that_made_no_interaction_exits_2_and_says_why(tmp_path, monkeypatch, capsys, dead_port):
    monkeypatch.setenv("MINI_AGENT_MAX_RETRIES", "0")  # mini_agent's own retries wait in real time
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    cassette = tmp_path / "dead.yaml"
    url = f"http://127.0.0.1:{dead_port}"
    assert main(["record", "--base-url", url, "--cassette", str(cassette), "--", "hi"]) == 2
    err = capsys.readouterr().err
    assert "nothing was recorded: none of the agent's 1 request(s) got an answer; the last: ConnectError: " in err
    assert f"(POST {url}/v1/messages). Is a server listening at that address" in err
    assert not cassette.exists()


def test_a_recording_whose_lines_send_nothing_is_not_a_success(tmp_path, monkeypatch):
    from harness.cassette.record import NothingRecorded

    with loopback([]) as (server, _):
        with pytest.raises(NothingRecorded, match="the agent sent no request"):
            record_session(tmp_path / "c.yaml", ["/status"], base_url=server.url, api_key="test")
    assert not (tmp_path / "c.yaml").exists()


def test_a_cassette_recorded_through_a_base_url_with_a_path_replays(tmp_path, workspace, api_key):
    """A gateway's prefix (here `harness serve`'s session path) is where the recording was
    made; the replay's client asks the API's own path, and both engines match it."""
    replies = [Reply(message={"text": "Hello there."})]
    cassette = tmp_path / "prefixed.yaml"
    with loopback(replies) as (server, _):
        recorded = record_session(cassette, ["hi"], base_url=f"{server.url}/s/gateway", cwd=workspace)
    assert "/s/gateway/v1/messages" in cassette.read_text()
    for engine in ("harness", "vcr"):
        assert replay_session(cassette, ["hi"], engine=engine, cwd=workspace).transcript == recorded.transcript

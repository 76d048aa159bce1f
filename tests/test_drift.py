"""``harness drift`` against loopback servers that stand in for the live API: one answers
every recorded request in the recorded shape but in other words (no drift), others change
the shape the way an API does (a new block type, a renamed stop reason, a header gone).
Every drift is reported with its cassette, its interaction and its field."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from harness.cassette.record import record_over_loopback
from harness.cassette.shapes import SEEN_HEADERS, Shape, differences, shape_of
from harness.cli import main
from harness.wire.cassette_file import load_cassette, response_body_bytes
from harness.wire.sse import encode_events
from harness.wire.sse_parse import decode_events

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "cassettes" / "sources" / "loopback_read_readme.yaml"
Change = Callable[[list[dict[str, Any]]], list[dict[str, Any]]]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cassette recorded today by the harness (it notes the headers it saw)."""
    path = tmp_path_factory.mktemp("drift") / "read_readme.yaml"
    record_over_loopback(SOURCE, path)
    return path


def other_words(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same events with every text delta said otherwise."""
    out = []
    for event in events:
        delta = event.get("delta") or {}
        if delta.get("type") == "text_delta":
            event = {**event, "delta": {**delta, "text": delta["text"][::-1].upper() + " indeed"}}
        out.append(event)
    return out


def new_block_type(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**e, "content_block": {**e["content_block"], "type": "commentary"}}
            if e.get("type") == "content_block_start" and e["content_block"].get("type") == "text" else e for e in events]


def renamed_stop_reason(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**e, "delta": {**e["delta"], "stop_reason": "finished"}}
            if e.get("type") == "message_delta" and e["delta"].get("stop_reason") == "end_turn" else e for e in events]


class LiveStandIn:
    """A loopback server answering the n-th request with the n-th recorded answer,
    changed by ``change`` (its events), with ``request-id`` unless ``drop`` names it."""

    def __init__(self, cassette: Path, change: Change, drop: tuple[str, ...] = ()) -> None:
        self.answers = [response_body_bytes(i["response"]) for i in load_cassette(cassette)]
        self.change, self.drop, self.seen = change, drop, []
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 -- http.server's name
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                stand_in.seen.append((self.path, dict(self.headers), json.loads(body)))
                answer = encode_events(stand_in.change(decode_events(stand_in.answers[len(stand_in.seen) - 1])))
                self.send_response(200)
                headers = {"content-type": "text/event-stream", "request-id": "req_live_1",
                           "anthropic-ratelimit-requests-remaining": "49", "content-length": str(len(answer))}
                for name, value in headers.items():
                    if name not in stand_in.drop:
                        self.send_header(name, value)
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> LiveStandIn:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def live(recorded: Path) -> Iterator[Callable[..., LiveStandIn]]:
    servers: list[LiveStandIn] = []

    def start(change: Change, drop: tuple[str, ...] = ()) -> LiveStandIn:
        server = LiveStandIn(recorded, change, drop).__enter__()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.__exit__()


def test_the_recorder_notes_the_headers_an_agent_reads_by_name_only(recorded: Path) -> None:
    first = load_cassette(recorded)[0]["response"]
    assert first[SEEN_HEADERS] == ["request-id"]
    assert "request-id" not in {name.lower() for name in first["headers"]} and "req_harness" not in recorded.read_text()


def test_the_same_shape_in_other_words_is_no_drift(recorded: Path, live, capsys) -> None:
    server = live(other_words)
    assert main(["drift", str(recorded), "--base-url", server.url]) == 0
    out = capsys.readouterr().out
    assert "no drift in 2 interaction(s)" in out and out.rstrip().endswith("no drift")
    assert [path for path, _, _ in server.seen] == ["/v1/messages"] * 2
    assert server.seen[0][1]["x-api-key"] == "harness-drift" and server.seen[0][2]["stream"] is True


@pytest.mark.parametrize(
    ("change", "drop", "expected"),
    [
        (new_block_type, (), "interaction 1 (POST /v1/messages): blocks: recorded [text, tool_use], live [commentary, tool_use]"),
        (renamed_stop_reason, (), "interaction 2 (POST /v1/messages): stop_reason: recorded end_turn, live finished"),
        (other_words, ("request-id",), "interaction 1 (POST /v1/messages): headers.request-id: recorded present, live absent"),
    ],
    ids=["a-new-block-type", "a-renamed-stop-reason", "a-missing-header"],
)
def test_a_changed_shape_is_drift_named_by_interaction_and_field(recorded, live, capsys, change, drop, expected) -> None:
    server = live(change, drop)
    assert main(["drift", str(recorded), "--base-url", server.url]) == 1
    out = capsys.readouterr().out
    assert f"{recorded}: {expected}" in out.splitlines()
    assert out.rstrip().endswith("1 drifted")


def test_ignored_fields_are_not_compared(recorded, live, capsys) -> None:
    server = live(renamed_stop_reason)
    assert main(["drift", str(recorded), "--base-url", server.url, "--ignore", "stop_reason"]) == 0


def test_the_json_report_names_each_difference_and_is_written_whole(recorded, live, tmp_path, capsys) -> None:
    server = live(new_block_type)
    report = tmp_path / "drift.json"
    assert main(["drift", str(recorded), "--base-url", server.url, "--json", str(report)]) == 1
    data = json.loads(report.read_text())
    assert data["drifted"] is True
    [cassette] = data["cassettes"]
    first = cassette["interactions"][0]
    assert first["differences"] == [{"field": "blocks", "recorded": ["text", "tool_use"], "live": ["commentary", "tool_use"]}]
    assert first["live"]["headers"] == ["anthropic-ratelimit-*", "request-id"]
    assert [p.name for p in tmp_path.iterdir()] == ["drift.json"]  # no temporary left beside it


def test_an_agent_run_again_is_compared_answer_by_answer(recorded, live, tmp_path, capsys) -> None:
    server = live(renamed_stop_reason)  # the agent runs its tools in a fresh folder; the stand-in answers in order
    assert main(["drift", str(recorded), "--base-url", server.url, "--agent", "harness.agents.mini_agent:factory"]) == 1
    out = capsys.readouterr().out
    assert f"{recorded}: interaction 2 (POST /v1/messages): stop_reason: recorded end_turn, live finished" in out


def test_an_unreachable_url_is_exit_2_not_drift(recorded, capsys) -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        assert main(["drift", str(recorded), "--base-url", url]) == 2
    assert "could not ask" in capsys.readouterr().err


def test_no_key_for_the_real_api_is_exit_2(recorded, monkeypatch, capsys) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    assert main(["drift", str(recorded)]) == 2
    assert "ANTHROPIC_API_KEY is not set" in capsys.readouterr().err


def test_usage_counts_as_drift_only_an_order_of_magnitude_apart() -> None:
    def usage(tokens: int) -> Shape:
        body = json.dumps({"type": "message", "content": [], "stop_reason": "end_turn", "usage": {"input_tokens": tokens}})
        return shape_of(200, {"content-type": "application/json"}, body.encode())

    assert differences(usage(1200), usage(1900), ()) == []
    assert [d.field for d in differences(usage(1200), usage(15000), ())] == ["usage.input_tokens"]

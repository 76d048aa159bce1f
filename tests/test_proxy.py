"""``harness proxy``: a client's real session recorded through a loopback proxy into a
cassette, scrubbed, scanned and written atomically as ``harness record`` writes one.

The upstream is the fault server on loopback; the proxy runs as a user runs it (a
subprocess, stopped with Ctrl+C), since vcrpy patches httpx2 in the process that records.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import anthropic
import pytest

from harness.cassette.scan import scan_file
from harness.scenario.fake_api.responder import Responder
from harness.serve.server import FaultServer
from harness.wire.cassette_file import load_cassette
from harness.wire.replies import Reply

ROOT = Path(__file__).resolve().parents[1]
FAKE_KEY = "sk-ant-api03-" + "Z" * 93 + "AA"
PARAMS = {"model": "claude-opus-5-5", "max_tokens": 64, "messages": [{"role": "user", "content": "Say hello"}]}


def start_proxy(*args: str, env: dict[str, str] | None = None) -> tuple[subprocess.Popen[str], str]:
    environment = {k: v for k, v in os.environ.items() if k != "CI"} | (env or {})
    process = subprocess.Popen(
        [sys.executable, "-m", "harness", "proxy", *args, "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT, env=environment,
    )
    first = process.stdout.readline()
    match = re.search(r"on (http://127\.0\.0\.1:\d+)", first)
    assert match, first + process.stdout.read()
    return process, match.group(1)


def stop(process: subprocess.Popen[str]) -> str:
    process.send_signal(signal.SIGINT)
    return process.communicate(timeout=20)[0]


def test_a_clients_session_is_recorded_through_the_proxy_without_its_key(tmp_path) -> None:
    cassette = tmp_path / "session.yaml"
    replies = [Reply(message={"text": "Hello, streamed."}), Reply(message={"text": f"Your key {FAKE_KEY} echoed."})]
    with FaultServer(Responder(replies), time_scale=0) as upstream:
        process, url = start_proxy("--upstream", upstream.url, "--record", str(cassette))
        try:
            with anthropic.Anthropic(base_url=url, api_key=FAKE_KEY, max_retries=0) as client:
                with client.messages.stream(**PARAMS) as stream:
                    assert stream.get_final_message().content[0].text == "Hello, streamed."
                echoed = client.messages.create(**PARAMS).content[0].text
        finally:
            output = stop(process)
    assert echoed == f"Your key {FAKE_KEY} echoed."  # the client got the upstream's answer as it was
    assert process.returncode == 0, output
    assert f"{cassette}: 2 interaction(s) after 2 forwarded request(s), record mode once" in output
    text = cassette.read_text()
    assert FAKE_KEY not in text and "authorization" not in text.lower() and "x-api-key" not in text.lower()
    assert scan_file(cassette) == []
    interactions = load_cassette(cassette)
    assert len(interactions) == 2 and "message_stop" in str(interactions[0]) and "<redacted:anthropic-key:" in text
    assert not list(tmp_path.glob(".*.tmp"))


def test_record_mode_none_answers_only_from_the_cassette_and_never_writes(tmp_path) -> None:
    """In CI (``CI`` set) this is the default: nothing reaches the network."""
    cassette = tmp_path / "session.yaml"
    cassette.write_text("interactions: []\nversion: 1\n")
    process, url = start_proxy("--upstream", "http://127.0.0.1:9", "--record", str(cassette), env={"CI": "true"})
    try:
        with anthropic.Anthropic(base_url=url, api_key="test", max_retries=0) as client:
            with pytest.raises(anthropic.APIStatusError):
                client.messages.create(**PARAMS)
    finally:
        output = stop(process)
    assert "record mode none" in output
    assert cassette.read_text() == "interactions: []\nversion: 1\n"


def test_an_upstream_that_cannot_be_reached_is_a_502_and_the_proxy_goes_on(tmp_path) -> None:
    cassette = tmp_path / "session.yaml"
    process, url = start_proxy("--upstream", "http://127.0.0.1:9", "--record", str(cassette))
    try:
        with anthropic.Anthropic(base_url=url, api_key="test", max_retries=0) as client:
            for _ in range(2):
                with pytest.raises(anthropic.InternalServerError) as caught:
                    client.messages.create(**PARAMS)
                assert caught.value.status_code == 502 and "the upstream http://127.0.0.1:9 failed" in str(caught.value)
    finally:
        output = stop(process)
    assert process.returncode == 0 and "0 interaction(s) after 0 forwarded request(s)" in output

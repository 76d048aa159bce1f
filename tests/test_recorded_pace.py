"""Replies at their recorded pace: a recording keeps when each event came (in a block
vcrpy reads past), a replay serves the same bytes at that pace times a speed factor on
the virtual clock, where a client's stream-idle timeout fires at once and the same every
run; and an agent whose idle timeout never fires fails ``expect.idle_timeout`` by name."""

from __future__ import annotations

import gzip
import itertools
import json
import shutil
import subprocess
from pathlib import Path

import anthropic
import httpx2
import pytest
import yaml

from harness.cassette.index import CassetteIndex, CassetteTransport
from harness.cassette.proxy import RecordingProxy
from harness.cassette.timing import event_timing
from harness.cassette.vcr_setup import make_vcr
from harness.cli import _parser
from harness.scenario.fake_api.responder import Responder
from harness.scenario.format.event_listing import list_events
from harness.scenario.format.loader import load_scenario
from harness.scenario.run.runner import run_scenario
from harness.serve.server import FaultServer
from harness.wire.cassette_file import load_cassette, response_body_bytes
from harness.wire.clock import VirtualClock
from harness.wire.recorded_pace import event_pieces, recorded_pace
from harness.wire.replies import Reply

LIBRARY = Path(__file__).resolve().parents[1] / "harness" / "library"
PACED = LIBRARY / "cassettes" / "paced_read_readme.yaml"
STREAM = b"event: a\ndata: {}\n\nevent: b\ndata: {}\n\nevent: c\ndata: {}\n\n"


def test_the_times_are_those_each_event_was_whole_at_plain_or_gzip():
    arrivals = [(1.5, STREAM[:10]), (1.75, STREAM[10:30]), (2.0, STREAM[30:])]  # event 1 whole at 1.75, 2 and 3 at 2.0
    assert event_timing(1.0, 1.25, "", arrivals) == {"headers": 0.25, "first_event": 0.5, "gaps": [0.25, 0.0]}
    packed = gzip.compress(STREAM)
    zipped = [(1.5, packed[:12]), (1.75, packed[12:30]), (2.0, packed[30:])]
    assert len(event_timing(1.0, 1.25, "gzip", zipped)["gaps"]) == 2
    assert event_timing(0.0, 0.5, "", [(0.75, b'{"type": "message"}')]) == {"headers": 0.5, "first_event": 0.25, "gaps": []}


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is the client here: it must be on PATH")
def test_the_proxy_keeps_the_times_in_a_cassette_vcrpy_still_reads(tmp_path):
    answer = Reply(message={"text": "Hello there, at a pace."})
    with FaultServer(Responder([answer]), time_scale=0) as upstream:
        proxy = RecordingProxy(upstream.url)
        ticks = itertools.count()
        proxy.stopwatch.clock = lambda: next(ticks) * 0.25  # every reading a quarter second later: no real waiting
        cassette = tmp_path / "paced.yaml"
        body = json.dumps({"model": "claude-opus-5-5", "max_tokens": 64, "stream": True,
                           "messages": [{"role": "user", "content": "hi"}]})
        with proxy, make_vcr(record_mode="once", stopwatch=proxy.stopwatch).use_cassette(str(cassette)):
            # the client in a process of its own, as it would be: vcrpy records only what the proxy sends on
            sent = subprocess.run(["curl", "-s", "-X", "POST", f"{proxy.url}/v1/messages", "-H", "content-type: application/json",
                                   "-d", body], capture_output=True, text=True, timeout=30)
    assert "Hello there, at a pace." in "".join(json.loads(line[6:]).get("delta", {}).get("text", "")
                                                for line in sent.stdout.splitlines() if line.startswith("data: "))
    [interaction] = load_cassette(cassette)
    timing = interaction["response"]["timing"]
    body = response_body_bytes(interaction["response"])
    assert timing["headers"] > 0 and len(timing["gaps"]) == len(event_pieces(body)) - 1
    import vcr.serialize
    import vcr.serializers.yamlserializer

    _, [response], *_ = vcr.serialize.deserialize(cassette.read_text(), vcr.serializers.yamlserializer)
    assert response["body"]["string"] == body and response["timing"] == timing


def stream_first(index: CassetteIndex, timeout: float = 600.0) -> bytes:
    client = anthropic.Anthropic(api_key="test", max_retries=0, timeout=timeout,
                                 http_client=httpx2.Client(transport=CassetteTransport(index)))
    with client.messages.with_streaming_response.create(model="claude-opus-5-5", max_tokens=8192, stream=True,
                                                        messages=[{"role": "user", "content": "hi"}]) as response:
        return response.read()


def test_a_replay_serves_the_recorded_bytes_at_the_recorded_pace_times_the_speed():
    recorded = load_cassette(PACED)[0]["response"]
    whole = recorded["timing"]["headers"] + recorded["timing"]["first_event"] + sum(recorded["timing"]["gaps"])
    for speed in (1.0, 4.0):
        clock = VirtualClock()
        body = stream_first(CassetteIndex(PACED, match_on="order", clock=clock, speed=speed))
        assert body == response_body_bytes(recorded)  # byte for byte
        assert clock.now() == pytest.approx(whole / speed)
    assert recorded_pace(recorded, speed=4.0).waits(2)[0] == pytest.approx(0.612 / 4)


def test_a_gap_over_the_clients_read_timeout_ends_in_a_read_timeout_on_the_virtual_clock():
    clock = VirtualClock()
    with pytest.raises((httpx2.ReadTimeout, anthropic.APITimeoutError)):
        stream_first(CassetteIndex(PACED, match_on="order", clock=clock, speed=0.001), timeout=30.0)
    assert clock.now() == pytest.approx(30.0)  # the headers are 612 s away: the read gives up after its 30 s


def test_without_a_clock_a_replay_serves_everything_at_once():
    index = CassetteIndex(PACED, match_on="order")
    assert stream_first(index) == response_body_bytes(load_cassette(PACED)[0]["response"])


def no_idle_timeout(ctx):
    client = ctx.client.with_options(max_retries=0, timeout=httpx2.Timeout(None))

    class Patient:
        def run_turn(self, text):
            with client.messages.stream(model="claude-opus-5-5", max_tokens=64,
                                        messages=[{"role": "user", "content": text}]) as stream:
                return stream.get_final_text()

    return Patient()


def test_an_agent_whose_idle_timeout_never_fires_fails_by_name():
    outcome = run_scenario(load_scenario(LIBRARY / "scenarios" / "pace" / "idle_timeout.yaml"), agent=no_idle_timeout)
    [idle] = [p for p in outcome.problems if "idle_timeout" in p.text]
    assert "request 1 sat 900.0s in silence for the first bytes of the answer without giving up" in idle.text
    assert "idle_timeout.yaml:" in idle.text and idle.line is not None


def test_harness_events_shows_when_each_recorded_event_is_whole():
    listing = list_events(load_scenario(LIBRARY / "scenarios" / "pace" / "recorded_pace.yaml"), turn=1, reply=1)
    assert "     1      0–470      1.816s  message_start" in listing
    assert "⏱ the headers after 0.612s; the longest silence after them 1.204s" in listing


def test_a_paced_reply_writes_back_as_it_was_read(tmp_path):
    scenario = load_scenario(LIBRARY / "scenarios" / "pace" / "steady_pace.yaml")
    written = yaml.safe_load(json.dumps(scenario.turns[0].replies[0].faults[0].to_yaml()))
    assert written == {"first_event": 1.5, "events_per_s": 25, "jitter": 0.4, "seed": 11}


def test_the_replay_speed_is_a_number_over_zero():
    assert _parser().parse_args(["replay", "c.yaml", "--speed", "2"]).speed == 2.0
    with pytest.raises(SystemExit):
        _parser().parse_args(["replay", "c.yaml", "--speed", "0"])

"""Replay: a cassette drives mini_agent offline, network blocked, through vcrpy or the
harness's indexed transport, and the transcript is the recording's; a request that
differs fails with a diff of the two bodies; sync and async clients alike.
And the whole loop: record → scan → replay → overlay."""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path

import anthropic
import httpx2
import pytest
import yaml
from redaction.fakes import FAKES
from redaction.places import ENCODINGS, PLACES

from harness.agents.mini_agent import settings_from_cassette
from harness.cassette import matching
from harness.cassette.diff import ReplayMismatch, body_diff
from harness.cassette.index import AsyncCassetteTransport, CassetteTransport
from harness.cassette.network import NetworkBlocked, block_network
from harness.cassette.record import record_over_loopback
from harness.cassette.replay import lines_from_cassette, replay_session, request_bodies
from harness.cassette.scan import scan_paths
from harness.cassette.scrub import Scrubber
from harness.cassette.session import CassetteSession
from harness.cli import main
from harness.scenario.format.loader import load_scenario
from harness.scenario.run.runner import run_scenario
from harness.wire.cassette_file import load_cassette

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted((ROOT / "cassettes" / "sources").glob("*.yaml"))
CONFORMANCE = ROOT / "cassettes" / "conformance" / "llm-anthropic"
ENGINES = ("harness", "vcr")


def workspace_for(source: Path, folder: Path) -> Path:
    """The source scenario's files in ``folder``: what the recording's tools saw."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, content in load_scenario(source).workspace.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(content)
    return folder


@pytest.fixture(scope="module")
def recordings(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, str]]:
    """Each source recorded afresh over the loopback socket: (cassette, transcript)."""
    folder = tmp_path_factory.mktemp("recorded")
    return {s.stem: (r.path, r.transcript) for s in SOURCES for r in [record_over_loopback(s, folder / s.name)]}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("source", SOURCES, ids=[s.stem for s in SOURCES])
def test_replay_gives_the_transcript_of_the_recording(source, engine, recordings, tmp_path):
    cassette, transcript = recordings[source.stem]
    replayed = replay_session(cassette, engine=engine, cwd=workspace_for(source, tmp_path / "work"))
    assert replayed.transcript == transcript
    assert replayed.unused == [] and replayed.requests == len(load_cassette(cassette))


@pytest.mark.parametrize("engine", ENGINES)
def test_the_shipped_cassettes_replay_too(engine, recordings, tmp_path):
    for source in SOURCES:
        replayed = replay_session(ROOT / "cassettes" / source.name, engine=engine, cwd=workspace_for(source, tmp_path / source.stem))
        assert replayed.transcript == recordings[source.stem][1]


def test_recorded_retries_replay_with_their_waits(recordings, tmp_path):
    cassette, transcript = recordings["loopback_overloaded_then_answer"]
    assert "Retrying in 2.0s · attempt 1/5" in transcript and "Retrying in 1.0s · attempt 2/5" in transcript
    assert replay_session(cassette, cwd=tmp_path).transcript == transcript


@pytest.mark.parametrize("engine", ENGINES)
def test_a_request_that_differs_fails_with_a_diff_of_the_bodies(engine, recordings, tmp_path):
    cassette, _ = recordings["loopback_read_readme"]
    (tmp_path / "README.md").write_text("# pelican-tools\n\nNow about herons.\n")
    shown: list[str] = []
    with pytest.raises(ReplayMismatch) as raised:
        replay_session(cassette, engine=engine, cwd=tmp_path, write=shown.append)
    assert "".join(shown).count("does not match") == 1  # the agent showed it once, did not retry
    message = str(raised.value)
    assert "request 2 (POST /v1/messages) does not match" in message
    assert "expected interaction 2 of 2" in message
    assert "-" in message and "Small helpers for naming pet pelicans." in message
    assert "+" in message and "Now about herons." in message


def test_order_matching_serves_the_recording_whatever_the_bodies(recordings, tmp_path):
    cassette, _ = recordings["loopback_read_readme"]
    (tmp_path / "README.md").write_text("# pelican-tools\n\nNow about herons.\n")
    for engine in ENGINES:
        replayed = replay_session(cassette, engine=engine, match_on="order", cwd=tmp_path)
        assert "Now about herons." in replayed.transcript and "It is pelican-tools" in replayed.transcript


def test_harness_replay_command_prints_the_transcript_or_the_diff(recordings, tmp_path, capsys):
    cassette, transcript = recordings["loopback_read_readme"]
    work = workspace_for(SOURCES[[s.stem for s in SOURCES].index("loopback_read_readme")], tmp_path / "work")
    assert main(["replay", str(cassette), "--cwd", str(work)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(transcript) and "2 request(s) replayed" in out
    (work / "README.md").write_text("changed\n")
    assert main(["replay", str(cassette), "--cwd", str(work), "--engine", "vcr"]) == 1
    assert "+" in capsys.readouterr().err


def test_plain_vcrpy_replays_a_harness_cassette(recordings):
    import vcr

    cassette, _ = recordings["loopback_read_readme"]
    first = json.loads(load_cassette(cassette)[0]["request"]["body"])
    client = anthropic.Anthropic(api_key="k", base_url="http://127.0.0.1:1", max_retries=0)
    with vcr.use_cassette(str(cassette), record_mode="none", match_on=("method", "path", "body")):
        with client.beta.messages.stream(**{k: v for k, v in first.items() if k != "stream"}) as stream:
            final = stream.get_final_message()
    assert [block.type for block in final.content] == ["text", "tool_use"] and final.stop_reason == "tool_use"


def test_lines_and_settings_are_read_from_the_recorded_requests(recordings):
    interactions = load_cassette(recordings["loopback_write_then_check"][0])
    assert lines_from_cassette(interactions) == [
        "Create notes.txt with a shopping list of three items.",
        "Check that the file has three lines.",
    ]
    settings = settings_from_cassette(request_bodies(interactions))
    assert settings.model == "claude-opus-5-5" and settings.max_tokens == 8192 and settings.fallbacks is True


def test_a_line_sent_as_text_blocks_is_a_line_too():
    """An agent that marks its newest message for the cache sends its line as a text block."""
    def request(*messages: dict) -> dict:
        body = json.dumps({"model": "m", "max_tokens": 10, "messages": list(messages)})
        return {"request": {"uri": "https://api.anthropic.com/v1/messages", "body": body}}

    line = {"role": "user", "content": [{"type": "text", "text": "Hello", "cache_control": {"type": "ephemeral"}}]}
    answer = {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Read", "input": {}}]}
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]}
    assert lines_from_cassette([request(line), request(line, answer, result)]) == ["Hello"]


def test_the_network_is_blocked_during_a_replay():
    with block_network() as attempts, pytest.raises(NetworkBlocked):
        socket.create_connection(("127.0.0.1", 9), timeout=1)
    assert attempts == [("127.0.0.1", 9)]
    with socket.socket() as sock:  # and restored afterwards (a refused connect, not a block)
        assert sock.connect_ex(("127.0.0.1", 9)) != 0


def test_a_cassette_that_runs_out_says_so(recordings, tmp_path):
    cassette, _ = recordings["loopback_overloaded_then_answer"]
    transport = CassetteTransport(cassette)
    client = anthropic.Anthropic(api_key="k", max_retries=0, http_client=httpx2.Client(transport=transport))
    body = json.loads(load_cassette(cassette)[0]["request"]["body"])
    for _ in range(2):  # the two recorded 529s for the same body, in their order
        with pytest.raises(anthropic.InternalServerError):
            client.post("/v1/messages", body=body, cast_to=object)
    client.post("/v1/messages", body=body, cast_to=object)
    with pytest.raises(anthropic.BadRequestError) as raised:  # a 400 that says why: no retry
        client.post("/v1/messages", body=body, cast_to=object)
    assert "harness replay: request 4 (POST /v1/messages)" in str(raised.value)
    assert "all 3 recorded interactions have been played" in str(raised.value)
    assert raised.value.response.headers["x-should-retry"] == "false"
    assert transport.unused == [] and len(transport.mismatches) == 1


def stream_final(client: anthropic.Anthropic) -> dict:
    with client.messages.stream(model="m", max_tokens=10, messages=[{"role": "user", "content": "hi"}]) as stream:
        return stream.get_final_message().model_dump()


async def astream_final(client: anthropic.AsyncAnthropic) -> dict:
    async with client.messages.stream(model="m", max_tokens=10, messages=[{"role": "user", "content": "hi"}]) as stream:
        return (await stream.get_final_message()).model_dump()


@pytest.mark.parametrize("name", ["test_tools", "test_stream_events_thinking"])
def test_real_gzip_recordings_replay_the_same_for_sync_and_async_clients(name):
    path = CONFORMANCE / f"{name}.yaml"
    sync = anthropic.Anthropic(api_key="k", max_retries=0, http_client=httpx2.Client(transport=CassetteTransport(path, match_on="order")))
    transport = AsyncCassetteTransport(path, match_on="order")
    async_client = anthropic.AsyncAnthropic(api_key="k", max_retries=0, http_client=httpx2.AsyncClient(transport=transport))
    final = stream_final(sync)
    assert final["stop_reason"] in ("tool_use", "end_turn") and final["content"]
    assert asyncio.run(astream_final(async_client)) == final


@pytest.fixture
def canonical_calls(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """Every body the index re-encodes as canonical JSON, in order."""
    calls: list[bytes] = []
    canonical = matching.canonical_body

    def counting(body: bytes | None) -> bytes:
        calls.append(body or b"")
        return canonical(body)

    monkeypatch.setattr(matching, "canonical_body", counting)
    return calls


def test_the_index_is_linear_in_the_length_of_the_session(canonical_calls):
    interactions = [
        {
            "request": {"method": "POST", "uri": "http://x/v1/messages", "body": json.dumps({"n": n})},
            "response": {"status": {"code": 200, "message": "OK"}, "headers": {}, "body": {"string": f'{{"n": {n}}}'}},
        }
        for n in range(400)
    ]
    client = httpx2.Client(transport=CassetteTransport(interactions), base_url="http://x")
    for n in reversed(range(400)):  # any order: matching is by body
        assert client.post("/v1/messages", json={"n": n}).json() == {"n": n}
    assert len(canonical_calls) == 800  # once per recorded request, once per request sent: no n² matching


def test_a_request_sent_as_recorded_is_matched_without_re_encoding_its_json(canonical_calls):
    interactions = [
        {
            "request": {"method": "POST", "uri": "http://x/v1/messages", "body": json.dumps({"n": n})},
            "response": {"status": {"code": 200, "message": "OK"}, "headers": {}, "body": {"string": str(n)}},
        }
        for n in range(50)
    ]
    client = httpx2.Client(transport=CassetteTransport(interactions), base_url="http://x")
    for n in reversed(range(50)):
        assert client.post("/v1/messages", content=json.dumps({"n": n}).encode()).text == str(n)
    assert len(canonical_calls) == 50  # the index's own; the requests' bytes were the recorded ones


def test_bodies_equal_as_json_are_served_in_recorded_order_whatever_their_bytes():
    bodies = ['{"a": 1, "b": 2}', '{"b":2,"a":1}', '{"a": 1, "b": 2}']
    interactions = [
        {
            "request": {"method": "POST", "uri": "http://x/v1/messages", "body": body},
            "response": {"status": {"code": 200, "message": "OK"}, "headers": {}, "body": {"string": f"answer {k}"}},
        }
        for k, body in enumerate(bodies)
    ]
    client = httpx2.Client(transport=CassetteTransport(interactions), base_url="http://x")
    sent = [bodies[1], bodies[0], '{ "a" : 1 , "b" : 2 }']
    assert [client.post("/v1/messages", content=b.encode()).text for b in sent] == ["answer 0", "answer 1", "answer 2"]
    assert client.post("/v1/messages", content=bodies[0].encode()).status_code == 400


def test_body_diff_shows_where_long_lines_differ():
    long = "x" * 1000
    diff = body_diff(json.dumps({"text": long + "a" + long}), json.dumps({"text": long + "b" + long}))
    minus, plus = [line for line in diff.splitlines() if line[:1] in "-+" and line[:3] not in ("---", "+++")]
    assert "a" in minus and "b" in plus and len(minus) < 300 and minus.startswith("-…")


def test_record_scan_replay_overlay_end_to_end(tmp_path):
    source = SOURCES[[s.stem for s in SOURCES].index("loopback_write_then_check")]
    cassette = tmp_path / "cassettes" / "session.yaml"
    recorded = record_over_loopback(source, cassette)  # record, over a real socket
    assert scan_paths([cassette]) == []  # scan
    for engine in ENGINES:  # replay, network blocked
        assert replay_session(cassette, engine=engine).transcript == recorded.transcript
    overlay = tmp_path / "overlay.yaml"  # overlay: a cut in the recorded Write call, then the recording
    overlay.write_text(
        "name: cut-in-recorded-write\nabout: the recorded Write call is cut; the retry writes once\n"
        "cassette: cassettes/session.yaml\n"
        "turns:\n"
        "  - user: Create notes.txt with a shopping list of three items.\n"
        "    replies:\n      - {recorded: 1, cut: {after_event: 9, how: rst}}\n      - recorded: 1\n      - recorded: 2\n"
        "    expect: {requests: 3, tools: [Write], end: end_turn}\n"
        "  - user: Check that the file has three lines.\n"
        "    replies: [{recorded: 3}, {recorded: 4}]\n"
        "    expect: {requests: 2, tool_results: [{error: false, contains: '3'}], end: end_turn}\n"
    )
    outcome = run_scenario(load_scenario(overlay))
    assert outcome.problems == []
    assert outcome.files["notes.txt"] == "- sardines\n- mackerel\n- herring\n"


LIVE = "sk-ant-api03-" + "Rp5" * 30  # a key's shape, built so this file holds none


def one_interaction(body: dict) -> list[dict]:
    return [{
        "request": {"method": "POST", "uri": "http://x/v1/messages", "body": json.dumps(body),
                    "headers": {"content-type": ["application/json"]}},
        "response": {"status": {"code": 200, "message": "OK"}, "headers": {}, "body": {"string": "the answer"}},
    }]


def test_a_recorded_placeholder_matches_the_live_secret_whatever_key_tagged_it():
    recorded = {"messages": [{"role": "user", "content": "use <redacted:anthropic-key:0badc0de> now"}], "model": "m"}
    live = {"model": "m", "messages": [{"role": "user", "content": f"use {LIVE} now"}]}
    client = httpx2.Client(transport=CassetteTransport(one_interaction(recorded)), base_url="http://x")
    assert client.post("/v1/messages", json=live).text == "the answer"


def test_a_secret_a_cassette_was_written_with_still_matches_and_a_mismatch_never_shows_it():
    recorded = {"messages": [{"role": "user", "content": f"use {LIVE} now"}], "model": "m"}  # by hand, unredacted
    client = httpx2.Client(transport=CassetteTransport(one_interaction(recorded)), base_url="http://x")
    mismatch = client.post("/v1/messages", json={"model": "m", "messages": [{"role": "user", "content": f"{LIVE}!"}]})
    assert mismatch.status_code == 400 and "--- recorded" in mismatch.text
    assert mismatch.text.count("<redacted:anthropic-key:") == 2 and LIVE[13:] not in mismatch.text
    reordered = {"model": "m", "messages": [{"content": f"use {LIVE} now", "role": "user"}]}
    assert client.post("/v1/messages", content=json.dumps(reordered).encode()).text == "the answer"


def test_vcrpy_replay_matches_a_placeholder_whatever_key_tagged_it(tmp_path):
    recorded = {"messages": [{"role": "user", "content": "use <redacted:anthropic-key:0badc0de> now"}], "model": "m"}
    cassette = tmp_path / "tagged.yaml"
    interaction = one_interaction(recorded)[0]
    interaction["response"]["headers"] = {"content-type": ["application/json"]}
    interaction["response"]["body"]["string"] = json.dumps({"ok": True})
    cassette.write_text(yaml.safe_dump({"interactions": [interaction], "version": 1}))
    with CassetteSession(cassette, engine="vcr") as session:
        client = session.client(base_url="http://x")
        answer = client.post("/v1/messages", cast_to=httpx2.Response,
                             body={"model": "m", "messages": [{"role": "user", "content": f"use {LIVE} now"}]})
    assert answer.json() == {"ok": True} and session.problems == []


def test_a_live_body_scrubbed_part_by_part_has_the_digest_of_the_body_scrubbed_whole():
    scrubber = Scrubber()
    live = matching.LiveBodies(scrubber)
    for fake in FAKES:
        for place, build in PLACES.items():
            for encoding, dumps in ENCODINGS.items():
                body = dumps(build(fake)).encode()
                assert live.digest(body) == matching.body_digest(scrubber.body(body)), (fake.family, place, encoding)


def test_replaying_a_session_that_holds_a_secret_scrubs_each_message_once():
    history: list[dict] = []
    bodies = []
    for n in range(60):  # each request: the whole conversation so far, a secret in every message
        history.append({"role": "user" if n % 2 == 0 else "assistant", "content": f"step {n}: use {LIVE}"})
        bodies.append(json.dumps({"model": "m", "max_tokens": 10, "messages": history}).encode())
    live = matching.LiveBodies(Scrubber())
    digests = [live.digest(body) for body in bodies]
    assert len(set(digests)) == 60
    assert live.scrubbed == 60 + 2  # the 60 messages and the two other members, not 60 × 61 / 2 messages

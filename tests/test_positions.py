"""Event and byte positions: ``harness events`` lists each reply's numbered events and byte
offsets as the fake API serves them, and lint rejects a fault aimed beyond its reply at
``file:line:col``, naming the valid range."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import main
from harness.scenario.fake_api.responder import Responder
from harness.scenario.fake_api.usage import served_usage
from harness.scenario.format.loader import load_scenario, problems_in
from harness.scenario.format.model import DEFAULT_MODEL
from harness.scenario.format.positions import serve
from harness.wire.faults import Cut
from harness.wire.planner import plan_reply
from harness.wire.replies import Reply

SIX_EVENTS = "Hello there."  # message_start, block start, one delta, block stop, message_delta, message_stop


def scenario_with(tmp_path: Path, fault: str, text: str = SIX_EVENTS) -> Path:
    path = tmp_path / "positions.yaml"
    path.write_text(
        f"name: positions\nabout: one fault\nturns:\n  - user: hi\n    replies:\n      - text: {text!r}\n        {fault}\n",
        encoding="utf-8",
    )
    return path


def size_of(text: str) -> int:
    return serve(Reply(message={"text": text})).size


FIELDS = [  # (the fault as written, with {n}; the last valid number; the field as reported; the range)
    ("cut: {{after_event: {n}}}", 6, "cut.after_event", "valid: 0 to 6"),
    ("cut: {n}", 6, "cut.after_event", "valid: 0 to 6"),
    ("cut: {{in_event: {n}, how: rst}}", 6, "cut.in_event", "valid: 1 to 6"),
    ("cut: {{after_bytes: {n}}}", size_of(SIX_EVENTS), "cut.after_bytes", f"valid: 0 to {size_of(SIX_EVENTS)}"),
    ("interrupt: {n}", 6, "interrupt", "valid: 0 to 6"),
    ("error_event: {n}", 6, "error_event.after_event", "valid: 0 to 6"),
    ("error_event: {{after_event: {n}, type: api_error}}", 6, "error_event.after_event", "valid: 0 to 6"),
    ("end_early: {n}", 5, "end_early", "valid: 0 to 5"),
    ("bad_data: {n}", 6, "bad_data", "valid: 0 to 6"),
    ("stall: {n}", 6, "stall.after_event", "valid: 0 to 6"),
    ("stall: {{after_event: {n}, seconds: 5}}", 6, "stall.after_event", "valid: 0 to 6"),
    ("duplicate: {n}", 6, "duplicate", "valid: 1 to 6"),
    ("swap: {n}", 5, "swap", "valid: 1 to 5"),
    ("insert: [{{after_event: {n}, event: {{type: ping}}}}]", 6, "insert[0].after_event", "valid: 0 to 6"),
]


@pytest.mark.parametrize(("fault", "last", "field", "valid"), FIELDS, ids=[f[0].split(":")[0] + f"-{f[2]}" for f in FIELDS])
def test_a_position_one_beyond_the_reply_is_a_lint_error_with_the_valid_range(tmp_path, fault, last, field, valid):
    assert problems_in(scenario_with(tmp_path, fault.format(n=last))) == []
    path = scenario_with(tmp_path, fault.format(n=last + 1))
    [found] = problems_in(path)
    problem = str(found)
    column = fault.format(n=last + 1).index(str(last + 1)) + 9
    assert (found.line, found.col) == (7, column)
    assert problem.startswith(f"{path}:7:{column}: `{field}: {last + 1}` is beyond the reply (")
    assert valid in problem
    assert f"`harness events {path} --turn 1 --reply 1` lists them" in problem


def test_after_event_99_on_a_six_event_reply_is_rejected(tmp_path):
    path = scenario_with(tmp_path, "cut: {after_event: 99}")
    assert [str(p) for p in problems_in(path)] == [
        f"{path}:7:28: `cut.after_event: 99` is beyond the reply (events 1 to 6 as served; valid: 0 to 6); "
        f"`harness events {path} --turn 1 --reply 1` lists them"
    ]


def test_in_char_needs_a_multibyte_character_from_its_event_on(tmp_path):
    assert problems_in(scenario_with(tmp_path, "cut: {in_char: 3}", text="Héllo")) == []
    [problem] = problems_in(scenario_with(tmp_path, "cut: {in_char: 4}", text="Héllo"))
    assert "`cut.in_char: 4`: no multi-byte UTF-8 character in the stream from that event on" in problem.text


def test_pings_and_inserts_count_as_served_events(tmp_path):
    """Each fault counts the stream as the faults before it left it: two pings make a
    six-event reply eight events long for a stall."""
    assert problems_in(scenario_with(tmp_path, "pings: 2\n        stall: 8")) == []
    [problem] = problems_in(scenario_with(tmp_path, "pings: 2\n        stall: 9"))
    assert "(events 1 to 8 as served; valid: 0 to 8)" in problem.text


def test_every_position_mistake_of_a_reply_is_reported(tmp_path):
    path = scenario_with(tmp_path, "swap: 9\n        end_early: 40\n        cut: 77")
    problems = problems_in(path)
    assert [p.text.split("`")[1] for p in problems] == ["swap: 9", "end_early: 40", "cut.after_event: 77"]
    assert [p.line for p in problems] == [7, 8, 9]


def test_the_listed_offsets_are_the_bytes_the_fake_api_serves(tmp_path):
    """For an answer that reports 100 input tokens; another request's count moves them (below)."""
    reply = Reply(message={"text": "Reading it.", "tool_use": {"name": "Read", "input": {"file_path": "README.md"}}})
    served = serve(reply)
    request = json.dumps({"model": DEFAULT_MODEL, "max_tokens": 100, "stream": True, "messages": [{"role": "user", "content": "hi"}]})
    reported = Reply(message={**reply.message, "usage": {"input_tokens": 100}})
    body = Responder([reported]).respond("POST", "/v1/messages", {}, request.encode()).body
    assert served.size == len(body)
    for frame in served.frames:
        assert body[frame.start : frame.end].startswith(f"event: {frame.name}\n".encode())
    assert [f.name for f in served.frames][:2] == ["message_start", "content_block_start"]
    cut = serve(Reply(message=reply.message, faults=(Cut(after_event=5),)))
    assert cut.sent == served.frames[4].end
    assert cut.plan is not None and cut.plan.ending == "fin"


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "json"])
@pytest.mark.parametrize("words", [1, 3000], ids=["a few tokens", "thousands of tokens"])
def test_a_cut_placed_by_bytes_lands_where_listed_whatever_the_requests_size(stream: bool, words: int):
    """The answer reports the request's own input tokens (not 100), and a cut placed by
    bytes ends it with the very bytes it ends the listed answer with, the count aside."""
    text = "The README describes a small demo project with one script."
    whole = plan_reply(Reply(message={"text": text}), streaming=stream, request_id="req_harness_000001",
                       message_id="msg_harness_000001", model=DEFAULT_MODEL)
    offset = serve(Reply(message={"text": text})).frames[3].end - 7 if stream else len(whole.body) - 5  # past the count
    cut = Reply(message={"text": text}, faults=(Cut(after_bytes=offset),))
    listed = plan_reply(cut, streaming=stream, request_id="req_harness_000001", message_id="msg_harness_000001",
                        model=DEFAULT_MODEL).body
    request = {"model": DEFAULT_MODEL, "max_tokens": 100, "stream": stream, "messages": [{"role": "user", "content": "hi " * words}]}
    responder = Responder([cut])
    body = responder.respond("POST", "/v1/messages", {}, json.dumps(request).encode()).body
    tokens = served_usage(responder.requests[0].plan)["input_tokens"]
    assert tokens != 100 and (tokens > 1000) == (words > 1)
    usage = b'"usage":{"input_tokens":%d,' if stream else b'"usage": {"input_tokens": %d,'
    assert listed.count(usage % 100) == 1 and body == listed.replace(usage % 100, usage % tokens)


def test_harness_events_prints_numbered_events_offsets_and_where_the_cut_lands(capsys):
    path = "scenarios/stream/cut_after_event.yaml"
    assert main(["events", path, "--turn", "1", "--reply", "1"]) == 0
    out = capsys.readouterr().out
    served = serve(load_scenario(path).turns[0].replies[0])
    fourth = served.frames[3]
    assert f"     4  {fourth.start:5}–{fourth.end:<5}  content_block_delta" in out
    assert "  ·  5 " in out  # not sent
    assert f"✂ the connection drops (FIN) at byte {fourth.end}, after event 4 (of {len(served.frames)} events" in out
    assert "turn 1, reply 2" not in out


def test_harness_events_says_a_stream_that_ends_early_has_no_message_stop(capsys):
    assert main(["events", "scenarios/stream/end_after_message_delta.yaml", "--turn", "1"]) == 0
    out = capsys.readouterr().out
    assert "■ the stream ends cleanly after event 5, with no message_stop: 5 events" in out
    assert out.count("■ the stream is complete:") == 1  # reply 2, whole


def test_harness_events_lists_every_reply_of_every_turn(capsys):
    assert main(["events", "scenarios/http/overloaded_then_success.yaml"]) == 0
    out = capsys.readouterr().out
    assert "turn 1, reply 1 (line " in out and "HTTP 529, a " in out
    assert "■ the stream is complete:" in out


@pytest.mark.parametrize(("argv", "said"), [
    (["--turn", "9"], "--turn 9: the scenario has turns 1 to 1"),
    (["--turn", "1", "--reply", "9"], "--reply 9: turn 1 has replies 1 to 2"),
    (["--reply", "1"], "--reply needs --turn"),
])
def test_harness_events_names_the_turns_and_replies_there_are(capsys, argv, said):
    assert main(["events", "scenarios/stream/cut_after_event.yaml", *argv]) == 2
    assert said in capsys.readouterr().err


def test_harness_events_shows_a_fault_aimed_past_its_reply_instead_of_refusing_the_file(tmp_path, capsys):
    path = scenario_with(tmp_path, "cut: {after_event: 99}")
    assert main(["events", str(path)]) == 0
    assert "✗ cannot be served: `cut.after_event: 99` is beyond the reply (events 1 to 6 as served; valid: 0 to 6)" in (
        capsys.readouterr().out)
    assert main(["lint", str(path)]) == 1

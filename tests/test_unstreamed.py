"""Stream faults served to a request that does not stream: each in its non-streaming
form, read by the real SDK (``client.messages.create`` without ``stream``), in process
and on a socket, the form named in the timeline and the log."""

from __future__ import annotations

import re

import anthropic
import httpx2
import pytest

from harness.scenario.fake_api.clients import sync_client
from harness.scenario.fake_api.responder import Responder
from harness.scenario.fake_api.transport import ScenarioTransport
from harness.scenario.format.forms import stream_only_notes
from harness.scenario.format.loader import load_scenario
from harness.serve.server import FaultServer
from harness.wire.faults import (
    BadData,
    Cut,
    Duplicate,
    EndEarly,
    ErrorEvent,
    Pings,
    Stall,
    Swap,
)
from harness.wire.replies import Reply

PARAMS = {"model": "claude-opus-5-5", "max_tokens": 64, "messages": [{"role": "user", "content": "Read it"}]}
MESSAGE = {"text": "Reading it.", "tool_use": {"name": "Read", "input": {"file_path": "README.md"}}}
BROKEN_JSON = {"text": "Reading it.", "tool_use": {"name": "Read", "json": ['{"file_path": oops']}}


def ask(*replies: Reply):
    """A non-streaming create against ``replies``; (what it returned or raised, the responder)."""
    responder = Responder(list(replies))
    client = sync_client(ScenarioTransport(responder))
    try:
        return client.messages.create(**PARAMS), responder
    except Exception as error:  # noqa: BLE001 -- the test looks at what was raised
        return error, responder


@pytest.mark.parametrize(
    ("error_type", "raised", "status"),
    [("overloaded_error", anthropic.OverloadedError, 529), ("invalid_request_error", anthropic.BadRequestError, 400),
     ("rate_limit_error", anthropic.RateLimitError, 429), ("api_error", anthropic.InternalServerError, 500)],
)
def test_an_error_event_becomes_the_same_error_as_an_http_status(error_type, raised, status) -> None:
    result, responder = ask(Reply(message=MESSAGE, faults=(ErrorEvent(3, error_type, "Nope"),)))
    assert isinstance(result, raised) and result.status_code == status
    assert result.body["error"] == {"type": error_type, "message": "Nope"}
    assert responder.requests[0].plan.form == f"HTTP {status} {error_type}, for the event: error after event 3"
    assert responder.problems == []


@pytest.mark.parametrize("reply", [Reply(message=MESSAGE, faults=(EndEarly(6),)), Reply(message=MESSAGE, faults=(Cut(after_event=6),))])
def test_an_early_end_or_a_cut_becomes_the_json_body_cut_and_the_connection_closed(reply) -> None:
    result, responder = ask(reply)
    assert isinstance(result, anthropic.APIConnectionError)
    assert isinstance(result.__cause__, httpx2.RemoteProtocolError)
    plan = responder.requests[0].plan
    sent, whole = map(int, re.fullmatch(r"the JSON body cut after (\d+) of (\d+) bytes \(FIN\)", plan.form).groups())
    assert 0 < len(plan.body) == sent < whole and plan.ending == "fin"


def test_a_cut_by_reset_resets_the_json_body_too() -> None:
    result, responder = ask(Reply(message=MESSAGE, faults=(Cut(in_event=3, how="rst"),)))
    assert isinstance(result, anthropic.APIConnectionError) and isinstance(result.__cause__, httpx2.ReadError)
    assert responder.requests[0].plan.ending == "rst"


def test_a_stall_is_the_headers_then_silence() -> None:
    result, responder = ask(Reply(message=MESSAGE, faults=(Stall(5, 30.0),)))
    assert isinstance(result, anthropic.APITimeoutError)
    assert responder.requests[0].plan.form == "the headers, then silence" and responder.clock.now() == 30.0


def test_event_level_faults_leave_the_message_whole() -> None:
    message, responder = ask(Reply(message=MESSAGE, faults=(Pings(3), Duplicate(1))))
    assert message.stop_reason == "tool_use" and message.content[-1].input == {"file_path": "README.md"}
    assert responder.requests[0].plan.form == "the message whole: event-level faults have no JSON form"


def test_a_fault_that_changes_the_message_is_named_in_the_form_served() -> None:
    message, responder = ask(Reply(message=MESSAGE, faults=(Duplicate(2),)))  # the text block's start, twice
    assert [block.type for block in message.content] == ["text", "text", "tool_use"]
    assert responder.requests[0].plan.form == "the message the events make once changed by event 2 twice"


@pytest.mark.parametrize("fault", [Duplicate(7), Swap(2)], ids=["tool_json_doubled", "delta_before_its_block"])
def test_an_event_fault_that_breaks_the_message_in_the_stream_has_no_json_form(fault) -> None:
    """A non-streaming client cannot meet it: the run is not applicable, not a pass on a
    message the fault never touched."""
    result, responder = ask(Reply(message=MESSAGE, faults=(fault,)))
    assert isinstance(result, anthropic.InternalServerError) and responder.problems == []
    assert "exists only in a stream" in responder.stream_only


@pytest.mark.parametrize("reply", [Reply(message=MESSAGE, faults=(BadData(3),)), Reply(message=BROKEN_JSON)])
def test_a_fault_no_json_body_can_carry_makes_the_scenario_not_applicable_to_that_client(reply) -> None:
    """The client did nothing wrong by asking without ``stream``: no problem, the scenario
    says nothing about it (``unstreamed:`` chooses what such a request gets instead)."""
    result, responder = ask(reply)
    assert isinstance(result, anthropic.InternalServerError) and responder.problems == []
    assert "exists only in a stream" in responder.stream_only and "the client asked without `stream`" in responder.stream_only


def test_unstreamed_says_what_a_request_without_stream_gets() -> None:
    chosen = Reply(message={"text": "Reading it.", "tool_use": {"name": "Read", "input": {}}})
    message, responder = ask(Reply(message=BROKEN_JSON, unstreamed=chosen))
    assert message.content[1].input == {} and responder.problems == []
    assert responder.requests[0].plan.form == "the reply's `unstreamed:` form (the request does not stream)"
    streamed = Responder([Reply(message=BROKEN_JSON, unstreamed=chosen)])
    with pytest.raises(ValueError, match="Unable to parse tool parameter JSON"):  # a stream still gets the fault
        with sync_client(ScenarioTransport(streamed)).messages.stream(**PARAMS) as stream:
            stream.get_final_message()


def test_lint_names_each_reply_without_a_non_streaming_form(tmp_path) -> None:
    path = tmp_path / "faults.yaml"
    path.write_text(
        "name: x\nabout: y\nturns:\n  - user: hi\n    replies:\n"
        "      - {text: a, bad_data: 2}\n"
        "      - {text: a, tool_use: {name: Read, json: ['{\"a\": oops']}}\n"
        "      - {text: a, tool_use: {name: Read, json: ['{\"a\": oops']}, unstreamed: {error: api_error}}\n"
        "      - {text: a, error_event: 2, end_early: 1}\n",
        encoding="utf-8",
    )
    notes = stream_only_notes(load_scenario(path))
    assert [n.split(": note: ")[0] for n in notes] == [f"{path}:6", f"{path}:7"]
    assert "`bad_data` (a stream frame that is not JSON) has no non-streaming form" in notes[0]
    assert "tool input JSON the SDK's stream gives up on (a prefix of it does not parse) has no non-streaming form" in notes[1]


def test_on_a_socket_the_forms_reach_the_sdk_the_same_way() -> None:
    replies = [Reply(message=MESSAGE, faults=(ErrorEvent(3),)), Reply(message=MESSAGE, faults=(EndEarly(6),)), Reply(message=MESSAGE)]
    lines: list[str] = []
    with FaultServer(Responder(replies), time_scale=0, log=lines.append) as server:
        with anthropic.Anthropic(base_url=server.url, api_key="test", max_retries=0) as client:
            with pytest.raises(anthropic.OverloadedError):
                client.messages.create(**PARAMS)
            with pytest.raises(anthropic.APIConnectionError):
                client.messages.create(**PARAMS)
            assert client.messages.create(**PARAMS).stop_reason == "tool_use"
    assert "→ 529 text+tool_use · event: error overloaded_error after event 3 · served as HTTP 529 overloaded_error" in lines[0]
    assert "served as the JSON body cut after" in lines[1] and "fault fin" in lines[1]
